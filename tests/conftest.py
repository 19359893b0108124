"""Fixtures shared by the tests."""
import pytest

import sipkl


@pytest.fixture
def budgets():
    """``budgets(name=value, …)`` sets sipkl's speed and memory budgets for one test
    (:func:`sipkl.set_config`); the previous ones come back after it."""
    with sipkl.config_context():
        yield sipkl.set_config


@pytest.fixture
def kernel_values(monkeypatch):
    """The sizes of the blocks that :meth:`sipkl.lazy_gram.LazyGram.block` computes during one
    test, in their order (a list that grows as they are computed)."""
    from sipkl.lazy_gram import LazyGram
    sizes, block = [], LazyGram.block

    def counted(self, rows, Y):
        out = block(self, rows, Y)
        sizes.append(out.size)
        return out
    monkeypatch.setattr(LazyGram, "block", counted)
    return sizes
