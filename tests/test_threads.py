"""The two halves of a batched pricing on two threads: the same prices, gradients, curvatures,
Hessians and fits as on one thread, against the closed form; the second half really runs on
the pool thread; errors in it propagate; the thread count obeys ``OMP_NUM_THREADS``."""
import threading

import numpy as np
import pytest

import sipkl.threads as threads
from sipkl import GaussianARD, IKLClassifier
from sipkl.kernels.base import PairExponential, PointPairExponential
from tests.boards import chessboard, gaussian


@pytest.fixture
def any_work(monkeypatch):
    """Two threads for every pricing, however small."""
    monkeypatch.setattr(threads, "MIN_THREADED_WORK", 0)


def _pricers(X, W):
    """The stored pairs and the pairs formed block by block, both of the squared differences."""
    i, j = np.triu_indices(len(X), 1)
    stored = PairExponential.from_upper((X[i] - X[j]) ** 2, W)
    weights = 2.0 * W[i, j]
    return stored, PointPairExponential(X, weights, np.trace(W))


@pytest.mark.parametrize("form", [0, 1], ids=["stored", "formed"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_two_threads_price_as_one(any_work, monkeypatch, form, dtype):
    """Values, gradients, curvatures and Hessians on two threads equal those on one to the
    bit (the halves are the same sums), and match the closed form Σ W ∘ K(θ); blocks of a
    few pairs, so that each half sums several."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(21, 4))
    A = rng.normal(size=(21, 21))
    W = A + A.T
    thetas = rng.uniform(0.05, 2.0, (5, 4))
    monkeypatch.setattr(PairExponential, "CHUNK_ELEMENTS", 64)
    pricer = _pricers(X, W)[form]
    results = {}
    for n in (1, 2):
        with threads.pricing_threads(n):
            results[n] = (*pricer(thetas, dtype=dtype, curvature=True),
                          pricer.hessians(thetas, [0, 3], dtype=dtype))
    for one, two in zip(results[1], results[2]):
        np.testing.assert_array_equal(one, two)
    expected = [np.sum(W * gaussian(X, t)) for t in thetas]
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(results[2][0], expected, rtol=rtol)


def test_the_second_half_runs_on_the_pool_thread(any_work, monkeypatch):
    """With two threads, the blocks of pairs are formed on two threads (one without)."""
    X = np.random.default_rng(1).normal(size=(30, 3))
    pricer = _pricers(X, np.eye(30) + 0.1)[1]
    seen, form = set(), PointPairExponential._deltas

    def recording(self, start, stop, dtype, squares=False):
        if stop > start:
            seen.add(threading.get_ident())
        return form(self, start, stop, dtype, squares)

    monkeypatch.setattr(PointPairExponential, "_deltas", recording)
    for n, count in ((1, 1), (2, 2)):
        seen.clear()
        with threads.pricing_threads(n):
            pricer(np.ones((4, 3)))
        assert len(seen) == count


def test_an_error_in_the_pool_thread_propagates(any_work, monkeypatch):
    X = np.random.default_rng(2).normal(size=(30, 3))
    pricer = _pricers(X, np.eye(30))[1]
    form = PointPairExponential._deltas

    def failing(self, start, stop, dtype, squares=False):
        if start >= 30 * 29 // 4:  # in the second half
            raise ZeroDivisionError("in the second half")
        return form(self, start, stop, dtype, squares)

    monkeypatch.setattr(PointPairExponential, "_deltas", failing)
    with threads.pricing_threads(2), pytest.raises(ZeroDivisionError, match="second half"):
        pricer(np.ones((4, 3)))


def test_a_fit_on_two_threads_is_the_fit_on_one(any_work):
    X, y = chessboard(80, seed=3, noise=2)
    fits = {}
    for n in (1, 2):
        with threads.pricing_threads(n):
            fits[n] = IKLClassifier(family=GaussianARD(), C=10.0, random_state=0).fit(X, y)
    assert fits[1].n_iter_ == fits[2].n_iter_
    assert fits[1].result_.objective == fits[2].result_.objective
    np.testing.assert_array_equal(fits[1].decision_function(X), fits[2].decision_function(X))


@pytest.mark.parametrize("value, expected", [("1", 1), ("", None), ("0", None), ("x", None)])
def test_omp_num_threads_limits_the_threads(monkeypatch, value, expected):
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    cpus = len(threads.os.sched_getaffinity(0))
    assert threads._usable_cpus() == (expected if expected is not None else cpus)


def test_pricing_threads_rejects_other_counts():
    with pytest.raises(ValueError, match="n must be 1 or 2"):
        with threads.pricing_threads(3):
            pass
