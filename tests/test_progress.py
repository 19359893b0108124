"""Progress of a run: silent by default, a log line per iteration through logging, the same
line printed with verbose=1, a tqdm bar with verbose=2."""
import logging

import numpy as np
import pytest

from sipkl import ColumnGeneration, GaussianIso
from sipkl.masters import HingeMKLNewton
from sipkl.oracles import GridOracle
from sipkl.workspace import Column


def fit(verbose):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    engine = ColumnGeneration(HingeMKLNewton(y, 1.0), GridOracle(size=20), max_iter=4,
                              n_price=1, verbose=verbose, random_state=0)
    return engine.run(GaussianIso(), X, [Column.make(GaussianIso(), 1.0)])


@pytest.mark.parametrize("verbose", [0, 1, 2])
def test_iteration_log(verbose, capsys, caplog):
    with caplog.at_level(logging.DEBUG, logger="sipkl"):
        result = fit(verbose)
    out, err = capsys.readouterr()
    records = [r for r in caplog.records if r.name == "sipkl.engine"]
    assert len(records) == result.nit >= 2 and all(r.levelno == logging.DEBUG for r in records)
    assert records[0].getMessage().startswith("iter   0 ") and "λ=" in records[0].getMessage()
    if verbose == 0:
        assert out == "" and err == ""
    elif verbose == 1:
        assert out.splitlines() == [r.getMessage() for r in records] and err == ""
    else:
        assert out == "" and "column generation" in err and f"{result.nit}/4" in err


def test_no_log_record_by_default(caplog):
    with caplog.at_level(logging.WARNING, logger="sipkl"):
        fit(0)
    assert not [r for r in caplog.records if r.name.startswith("sipkl")]
