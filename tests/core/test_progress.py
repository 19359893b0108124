"""Progress of a run: silent by default, a log line per iteration through logging, the same
line printed with verbose=1 (once: not when the log shows it), a tqdm bar with verbose=2."""
import io
import logging
import re

import numpy as np
import pytest

from sipkl import ColumnGeneration, GaussianIso
from sipkl.kernel_learning.masters import HingeMKLNewton
from sipkl.pricing import GridOracle
from sipkl.core.contracts import Column
from sipkl.kernel_learning.space import KernelSpace


def fit(verbose):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    engine = ColumnGeneration(HingeMKLNewton(y, 1.0), GridOracle(size=20), max_iter=4,
                              n_price=1, verbose=verbose, random_state=0)
    return engine.run(KernelSpace(X, GaussianIso()), [Column.make(GaussianIso(), 1.0)])


@pytest.mark.parametrize("verbose", [0, 1, 2])
def test_iteration_log(verbose, capsys, caplog):
    with caplog.at_level(logging.DEBUG, logger="sipkl"):
        result = fit(verbose)
    out, err = capsys.readouterr()
    records = [r for r in caplog.records if r.name == "sipkl.core.engine"]
    assert len(records) == result.nit >= 2 and all(r.levelno == logging.DEBUG for r in records)
    assert records[0].getMessage().startswith("iter   0 ") and "λ=" in records[0].getMessage()
    if verbose <= 1:  # verbose=1 does not repeat what the log already shows
        assert out == "" and err == ""
    else:
        assert out == "" and "column generation" in err and f"{result.nit}/4" in err


def test_verbose_prints_each_iteration_once(capsys, caplog):
    """Without a log that shows them, verbose=1 prints the lines the log would have shown;
    with one (a handler taking DEBUG records on "sipkl"), it leaves them to the log."""
    logger = logging.getLogger("sipkl")
    with caplog.at_level(logging.WARNING, logger="sipkl"):
        result = fit(1)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == result.nit and printed[0].startswith("iter   0 ")
    stream = io.StringIO()
    handler, propagate = logging.StreamHandler(stream), logger.propagate
    handler.setLevel(logging.INFO)
    logger.addHandler(handler)
    logger.propagate = False  # only this handler, which drops DEBUG records: print them
    try:
        with caplog.at_level(logging.DEBUG, logger="sipkl"):
            fit(1)
        assert len(capsys.readouterr().out.splitlines()) == result.nit
        handler.setLevel(logging.DEBUG)
        with caplog.at_level(logging.DEBUG, logger="sipkl"):
            fit(1)
        assert capsys.readouterr().out == ""
        untimed = [re.sub(r"t=\s*[\d.]+s", "", line) for line in printed]
        assert [re.sub(r"t=\s*[\d.]+s", "", line)
                for line in stream.getvalue().splitlines()] == untimed
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def test_no_log_record_by_default(caplog):
    with caplog.at_level(logging.WARNING, logger="sipkl"):
        fit(0)
    assert not [r for r in caplog.records if r.name.startswith("sipkl")]
