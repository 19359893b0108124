"""Threads (``n_jobs``): the same results to the bit at every number of threads, one BLAS
thread per worker, the budgets of the submitting thread in the workers, scikit-learn's meaning
of ``n_jobs``."""
import threading
from concurrent.futures import ThreadPoolExecutor

import joblib
import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError
from threadpoolctl import threadpool_info

import sipkl
from sipkl import GaussianARD, GaussianIso, GreedyKernelRidgeClassifier, IKLClassifier
from sipkl.datasets import make_checkerboard
from sipkl.compute.gram_storage import DenseGrams, LazyGrams
from sipkl.compute.exponential import (PairExponential, PointExponential, PointPairExponential,
                                       gaussian_gram, pair_squared_differences, squared_distances,
                                       upper_triangle)
from sipkl.compute.lazy_gram import LazyGram, add_scaled, combined_gram
from sipkl.compute.packed_gram import PackedGrams
from sipkl.utils.config import BUDGETS, budget
from sipkl.utils.threads import (_controller, effective_n_jobs, map_tasks, n_threads,
                                 one_blas_thread, ordered_map, per_task, thread_pool)

THREADS = (1, 2, 3)
# runs cut short by max_iter warn, as they should
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def each_threads(compute):
    """``compute()`` inside a pool of 1, 2 and 3 threads."""
    out = []
    for k in THREADS:
        with thread_pool(k):
            assert n_threads() == k
            out.append(compute())
    return out


def assert_all_equal(results):
    """Every result (an array or a tuple of arrays/None) equal to the first, to the bit."""
    first = results[0]
    for other in results[1:]:
        if isinstance(first, tuple):
            assert len(first) == len(other)
            for a, b in zip(first, other):
                assert (a is None and b is None) or np.array_equal(a, b)
        else:
            assert np.array_equal(first, other)


@pytest.fixture
def small_blocks(budgets):
    """Budgets small enough for many blocks on small data (the results then vary with the
    blocks, not with the threads)."""
    budgets(pricing_chunk_elements=2 ** 9, thread_block_elements=2 ** 8,
            cache_block_elements=2 ** 7, lazy_block_elements=2 ** 9)


@pytest.fixture(scope="module")
def points():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    W = rng.normal(size=(60, 60))
    return X, W + W.T


def test_n_jobs_means_what_it_means_in_scikit_learn():
    assert effective_n_jobs(None) == 1 and effective_n_jobs(1) == 1
    assert effective_n_jobs(3) == 3
    assert effective_n_jobs(-1) == joblib.cpu_count()
    assert effective_n_jobs(-2) == max(1, joblib.cpu_count() - 1)
    with joblib.parallel_config(n_jobs=3):
        assert effective_n_jobs(None) == 3 and effective_n_jobs(2) == 2
        assert IKLClassifier()._n_threads() == 3
    assert IKLClassifier(n_jobs=2)._n_threads() == 2


@pytest.mark.parametrize("n_jobs", [0, 1.5, "2"])
def test_bad_n_jobs_is_refused_by_name(n_jobs):
    X, y = make_checkerboard(20, 1, 2, random_state=0)
    with pytest.raises(InvalidParameterError, match="n_jobs"):
        IKLClassifier(n_jobs=n_jobs).fit(X, y)


def test_every_estimator_has_n_jobs():
    for name in sipkl.__all__:
        cls = getattr(sipkl, name)
        if isinstance(cls, type) and hasattr(cls, "_parameter_constraints"):
            assert cls().get_params()["n_jobs"] is None, name
            assert "n_jobs" in cls._parameter_constraints, name


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pair_pricer_is_the_same_at_every_number_of_threads(small_blocks, points, dtype):
    X, W = points
    pricer = PairExponential(pair_squared_differences(X), 2.0 * upper_triangle(W), np.trace(W))
    thetas = np.random.default_rng(1).uniform(0, 1, (7, X.shape[1]))
    results = each_threads(lambda: (*pricer(thetas, True, dtype, curvature=True),
                                    pricer(thetas, False, dtype)[0],
                                    pricer.hessians(thetas, [0, 2, 3], dtype)))
    assert_all_equal(results)
    # and they are the prices: the closed form in double precision
    K = np.exp(-np.einsum("ijd,sd->sij", (X[:, None] - X[None]) ** 2, thetas))
    np.testing.assert_allclose(results[0][0], np.einsum("sij,ij->s", K, W),
                               rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_point_pricers_are_the_same_at_every_number_of_threads(small_blocks, points):
    X, W = points
    thetas = np.random.default_rng(2).uniform(0, 0.5, (5, X.shape[1]))
    for pricer in (PointExponential(X, W),
                   PointPairExponential(X, 2.0 * upper_triangle(W), np.trace(W))):
        results = each_threads(lambda: (*pricer(thetas, True, np.float64, curvature=True),
                                        pricer.hessians(thetas, None)))
        assert_all_equal(results)
        K = np.exp(-np.einsum("ijd,sd->sij", (X[:, None] - X[None]) ** 2, thetas))
        np.testing.assert_allclose(results[0][0], np.einsum("sij,ij->s", K, W), rtol=1e-10)


def test_pair_differences_are_those_of_the_pairs(small_blocks, points):
    X, _ = points
    i, j = np.triu_indices(len(X), 1)
    for result in each_threads(lambda: pair_squared_differences(X)):
        assert np.array_equal(result, (X[i] - X[j]) ** 2)


def test_gram_blocks_are_the_same_at_every_number_of_threads(small_blocks, points):
    X, _ = points
    Y = X[:17] * 1.5
    assert_all_equal(each_threads(lambda: (gaussian_gram(X, X), gaussian_gram(X, Y),
                                           squared_distances(X, X))))
    K = each_threads(lambda: gaussian_gram(X, X))[0]
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_array_equal(np.diag(K), 1.0)


def test_sweeps_are_the_same_at_every_number_of_threads(small_blocks, points):
    X, _ = points
    family = GaussianARD()
    thetas = [np.full(X.shape[1], s) for s in (0.1, 0.5, 2.0)]
    lazy = [LazyGram(family, t, X) for t in thetas]
    dense = [family.gram(t, X) for t in thetas]
    d = np.array([0.2, 0.0, 0.8])
    w = np.random.default_rng(3).normal(size=len(X))
    w[::3] = 0.0

    def sweeps():
        return (combined_gram(dense, d), combined_gram(lazy, d), DenseGrams(dense).products(w),
                LazyGrams([LazyGram(family, t, X) for t in thetas]).products(w),
                add_scaled(np.ones((len(X), len(X))), lazy[0], 0.3), np.asarray(lazy[2]),
                PackedGrams(len(X)).hold(dense).products(w))
    results = each_threads(sweeps)
    assert_all_equal(results)
    # one axpy per matrix, as before the blocks: the same sums to the bit
    reference = np.zeros((len(X), len(X)))
    for dm, K in zip(d, dense):
        if dm > 0:
            reference += dm * K
    np.testing.assert_allclose(results[0][0], reference, rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(results[0][1], reference, rtol=1e-12, atol=1e-14)


def blas_threads(_=None):
    """The thread counts of the BLAS libraries that sipkl limits (those loaded when it first
    did: see sipkl.utils.threads)."""
    limited = {lib.filepath for lib in _controller().lib_controllers
               if lib.user_api == "blas"}
    return [lib["num_threads"] for lib in threadpool_info() if lib["filepath"] in limited]


def test_workers_have_one_blas_thread_and_the_limit_comes_back():
    before = blas_threads()
    with thread_pool(3):
        seen = list(ordered_map(blas_threads, range(6)))
    assert all(n == 1 for counts in seen for n in counts)
    assert blas_threads() == before


def test_one_blas_thread_is_counted_across_threads(monkeypatch):
    """The first thread in sets the limit, the last one out restores it (a fake controller
    records the calls: OpenBLAS itself ignores a count set from a thread other than the main
    one once other threads have called it)."""
    calls = []

    class Limiter:
        def restore_original_limits(self):
            calls.append("restore")

    class Controller:
        def limit(self, limits, user_api):
            calls.append(("limit", limits, user_api))
            return Limiter()
    monkeypatch.setattr(sipkl.utils.threads, "_controller", lambda: Controller())
    inside, go = threading.Barrier(2, timeout=30), threading.Event()

    def hold():
        with one_blas_thread():
            inside.wait()
            go.wait(30)
    thread = threading.Thread(target=hold)
    with one_blas_thread():
        thread.start()
        try:
            inside.wait()
            with one_blas_thread():  # nested in one thread: counted too
                pass
        except BaseException:
            go.set()
            raise
    assert calls == [("limit", 1, "blas")]  # the other thread is still inside
    go.set()
    thread.join()
    assert calls == [("limit", 1, "blas"), "restore"]


def test_nested_maps_run_in_the_worker_and_errors_come_back():
    def inner(k):
        return sum(ordered_map(lambda j: j * k, range(4)))  # in a worker: no new task
    with thread_pool(2):
        assert list(ordered_map(inner, range(5))) == [6 * k for k in range(5)]

        def fail(k):
            if k == 3:
                raise ValueError("block 3")
            return k
        with pytest.raises(ValueError, match="block 3"):
            list(ordered_map(fail, range(8)))
    assert map_tasks(lambda k: (k, n_threads()), range(3), 6) == [(0, 2), (1, 2), (2, 2)]
    assert map_tasks(lambda k: n_threads(), [0], 4) == [4]


def test_passes_go_in_one_group_per_thread_at_least():
    """Items per task: the least asked in one thread; with k threads, as many as make k
    tasks where that is more (never 0)."""
    assert per_task(1000, 64) == 64 and per_task(0, 0) == 1
    with thread_pool(3):
        assert per_task(1000, 64) == 334  # 3 tasks of at most 334 items
        assert per_task(100, 64) == 64
        assert per_task(1, 0) == 1


def test_the_threads_budget(budgets):
    with pytest.raises(ValueError, match="threads"):
        sipkl.set_config(threads=0)
    assert n_threads() == 1
    budgets(threads=2)
    assert n_threads() == 2  # a pool kept by the process
    with thread_pool(1):
        assert n_threads() == 1  # an estimator's n_jobs=1 is not the budget's


def budget_in_worker(_):
    return budget("point_thetas")


def pool_map():
    """``point_thetas`` as read by the tasks of an ordered_map in a pool of the caller's."""
    with thread_pool(2):
        return list(ordered_map(budget_in_worker, range(4)))


def shared_pool_map():
    """… in the pool that the process keeps for the budget ``threads``."""
    with sipkl.config_context(threads=2):
        return list(ordered_map(budget_in_worker, range(4)))


def task_and_its_blocks(_):
    return [budget("point_thetas"), *ordered_map(budget_in_worker, range(3))]


def tasks_map():
    """… by the tasks of a map_tasks, and by the blocks that those hand to their own pools."""
    return map_tasks(task_and_its_blocks, range(2), 4)


@pytest.mark.parametrize("submit", [pool_map, shared_pool_map, tasks_map])
def test_tasks_run_under_the_budgets_of_the_thread_that_submits_them(submit):
    """Two threads, each inside a context of its own at once, submit tasks to worker threads
    (with the shared pool, to the same workers): each task reads the budgets of its
    submitter."""
    inside, done = threading.Barrier(2, timeout=30), threading.Barrier(2, timeout=30)

    def submitter(point_thetas):
        with sipkl.config_context(point_thetas=point_thetas):
            inside.wait()
            try:
                return np.unique(submit()).tolist()
            finally:
                done.wait()
    with ThreadPoolExecutor(2) as executor:
        seen = list(executor.map(submitter, (3, 5)))
    assert seen == [[3], [5]]
    assert budget("point_thetas") == BUDGETS["point_thetas"]


def ikl_runs(X, y, **params):
    models = []
    for n_jobs in THREADS:
        model = IKLClassifier(n_jobs=n_jobs, random_state=0, **params).fit(X, y)
        models.append(model)
    return models


def assert_same_models(models, X):
    kernels = [m.kernel_ if isinstance(m.kernel_, list) else [m.kernel_] for m in models]
    results = [m.result_ if isinstance(m.result_, list) else [m.result_] for m in models]
    for other_kernels, other_results in zip(kernels[1:], results[1:]):
        for a, b in zip(kernels[0], other_kernels):
            assert [c.theta for c in a.columns] == [c.theta for c in b.columns]
            assert np.array_equal(a.weights, b.weights)
        for a, b in zip(results[0], other_results):
            assert a.objective == b.objective and a.nit == b.nit
    for model in models[1:]:
        assert np.array_equal(model.decision_function(X), models[0].decision_function(X))


def test_ikl_is_the_same_at_every_n_jobs(budgets):
    budgets(pricing_chunk_elements=2 ** 12, thread_block_elements=2 ** 12)
    X, y = make_checkerboard(120, 3, 2, random_state=0)
    assert_same_models(ikl_runs(X, y, family=GaussianARD(), C=10.0, max_iter=6), X)


def test_one_vs_rest_problems_in_parallel_are_those_of_the_serial_loop():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 2))
    y = np.digitize(X[:, 0] + 0.3 * X[:, 1], [-0.5, 0.5])
    assert_same_models(ikl_runs(X, y, family=GaussianIso(), C=1.0, max_iter=4), X)
    greedy = [GreedyKernelRidgeClassifier(family=GaussianIso(), max_iter=3, n_jobs=n_jobs,
                                          random_state=0).fit(X, y) for n_jobs in THREADS]
    for model in greedy[1:]:
        assert np.array_equal(model.decision_function(X), greedy[0].decision_function(X))
