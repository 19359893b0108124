"""The Gram storages give one interface: the same sweeps, whichever the storage the column
space chose, against the sums written out."""
import numpy as np
import pytest

import sipkl

from sipkl import Column, GaussianARD
from sipkl.compute.gram_storage import DenseGrams, LazyGrams, gram_storage
from sipkl.compute.lazy_gram import LazyGram
from sipkl.compute.packed_gram import PackedGrams
from sipkl.kernel_learning.space import KernelSpace

THETAS = ([0.5, 2.0], [3.0, 0.1], [0.0, 1.0])


@pytest.mark.parametrize("units", [1.0, 1e3])
def test_every_storage_sweeps_as_the_sums(units):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2)) * units
    thetas = [np.array(t) / units ** 2 for t in THETAS]
    dense = [GaussianARD().gram(t, X) for t in thetas]
    d, w = np.array([0.2, 0.0, 0.8]), rng.normal(size=30)
    expected_K = sum(dm * K for dm, K in zip(d, dense))
    expected_Kw = np.column_stack([K @ w for K in dense])
    lazy = [LazyGram(GaussianARD(), t, X) for t in thetas]
    storages = [DenseGrams(dense), LazyGrams(lazy), PackedGrams(30).hold(dense),
                LazyGrams([dense[0], lazy[1], dense[2]])]  # cached and lazy columns mixed
    for storage in storages:
        np.testing.assert_allclose(storage.combined(d), expected_K, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(storage.products(w), expected_Kw, rtol=1e-12, atol=1e-12)
        assert len(storage) == 3 and storage.lazy == isinstance(storage, LazyGrams)


def test_the_cached_matrices_stay_within_their_total():
    """Past the budget ``gram_total_bytes`` a new column is lazy, the cached ones stay, the
    storage is lazy; a pruned column's room goes to the next new one."""
    X = np.random.default_rng(3).normal(size=(20, 2))
    columns = [Column.make(GaussianARD(), t) for t in THETAS]
    with sipkl.config_context(gram_total_bytes=2 * 8 * 20 ** 2):
        space = KernelSpace(X, GaussianARD())
    storage = space.master_inputs(columns)
    assert [isinstance(K, np.ndarray) for K in storage] == [True, True, False]
    assert type(storage) is LazyGrams and space.cached_bytes() == 2 * 8 * 20 ** 2
    np.testing.assert_allclose(np.asarray(storage[2]), GaussianARD().gram(THETAS[2], X),
                               rtol=1e-12, atol=1e-14)
    space.forget(columns[1:])
    new = Column.make(GaussianARD(), [1.0, 1.0])
    assert isinstance(space.gram(new), np.ndarray) and isinstance(space.gram(columns[2]),
                                                                  LazyGram)
    assert type(space.master_inputs(columns[1:2] + [new])) is DenseGrams


def test_the_column_space_chooses_the_storage_once():
    X = np.random.default_rng(1).normal(size=(20, 2))
    columns = [Column.make(GaussianARD(), t) for t in THETAS]
    cached = KernelSpace(X, GaussianARD()).master_inputs(columns)
    lazy = KernelSpace(X, GaussianARD(), max_gram_bytes=0).master_inputs(columns)
    assert type(cached) is DenseGrams and type(lazy) is LazyGrams
    assert gram_storage(cached) is cached  # a storage stays as it is
    assert type(gram_storage(list(lazy))) is LazyGrams  # a plain list: by its matrices
    assert type(gram_storage(list(cached))) is DenseGrams


def test_the_workspace_caches_are_named_and_dropped_explicitly():
    X = np.random.default_rng(2).normal(size=(15, 2))
    space = KernelSpace(X, GaussianARD())
    columns = [Column.make(GaussianARD(), t) for t in THETAS]
    first = space.master_inputs(columns)
    again = space.master_inputs([Column.make(GaussianARD(), t) for t in THETAS])  # equal keys
    assert all(a is b for a, b in zip(first, again)) and len(space.grams) == 3
    space.forget(columns[:1])
    assert len(space.grams) == 1 and columns[0] in space.grams and columns[1] not in space.grams
    assert "Gram matrix" in space.grams.name and len(space.geometries) == 1
    space.geometries.clear()
    assert len(space.geometries) == 0
