"""Fixtures shared by the tests, and their helper modules (``boards``, ``conic_reference``)
importable from every folder of the tree."""
import hashlib
import json
import sys
from pathlib import Path

import pytest

import sipkl

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def budgets():
    """``budgets(name=value, …)`` sets sipkl's speed and memory budgets for one test
    (:func:`sipkl.set_config`); the previous ones come back after it."""
    with sipkl.config_context():
        yield sipkl.set_config


@pytest.fixture
def kernel_values(monkeypatch):
    """The sizes of the blocks that :meth:`sipkl.compute.lazy_gram.LazyGram.block` computes during one
    test, in their order (a list that grows as they are computed)."""
    from sipkl.compute.lazy_gram import LazyGram
    sizes, block = [], LazyGram.block

    def counted(self, rows, Y):
        out = block(self, rows, Y)
        sizes.append(out.size)
        return out
    monkeypatch.setattr(LazyGram, "block", counted)
    return sizes


@pytest.fixture
def edit_model():
    """``edit_model(path, **entries)``: set ``entries`` in a saved model's JSON document and
    sign it again as ``save_model`` signs it (``sha256``: the SHA-256 of
    ``json.dumps(document without sha256, sort_keys=True)``), as a tool editing the file
    would; the model is then checked on its content alone."""
    def edit(path, **entries):
        data = {**json.loads(path.read_text()), **entries}
        del data["sha256"]
        data["sha256"] = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()
        path.write_text(json.dumps(data))
    return edit


@pytest.fixture
def without_ipopt(monkeypatch):
    """IPOPT unavailable for one test, as where cyipopt cannot load: :mod:`sipkl.solvers.ipopt`
    reports it so, ``minimize_ipopt`` and ``Problem`` are ``None``, and the import's error is
    the text returned, which the callers' messages name."""
    from sipkl.solvers import ipopt
    error = "ImportError: no cyipopt"
    monkeypatch.setattr(ipopt, "available", False)
    monkeypatch.setattr(ipopt, "IMPORT_ERROR", error)
    monkeypatch.setattr(ipopt, "minimize_ipopt", None)
    monkeypatch.setattr(ipopt, "Problem", None)
    return error
