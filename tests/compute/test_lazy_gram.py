"""Lazy Gram matrices (no n × n matrix per column) against the cached ones and closed forms."""
import numpy as np
import pytest

import sipkl.compute.lazy_gram
import sipkl.kernel_learning.space
from sipkl import GaussianARD, GaussianIso, GaussianSeparate, IKLClassifier
from sipkl.core.contracts import Column
from sipkl.compute.exponential import PointPairExponential
from sipkl.compute.lazy_gram import LazyGram, add_scaled, combined_gram
from sipkl.kernel_learning.masters.hinge import HingeMKLNewton
from sipkl.kernel_learning.price_matrix import PriceMatrix
from sipkl.kernel_learning.space import KernelSpace
from boards import chessboard, gaussian


COLUMNS = [(GaussianIso(), [0.7]), (GaussianARD(), [0.3, 2.0, 0.0, 0.1, 5.0]),
           (GaussianSeparate().members(5)[1], [1.5])]


def scales_of(family, theta, p=5):
    if isinstance(family, GaussianARD):
        return np.asarray(theta)
    scales = np.zeros(p)
    scales[list(family.features) if family.features else slice(None)] = theta[0]
    return scales


@pytest.fixture
def small_blocks(budgets):
    """Blocks of a few rows, so that every lazy product spans several blocks."""
    budgets(lazy_block_elements=7 * 40)


@pytest.mark.parametrize("family, theta", COLUMNS)
def test_lazy_gram_is_the_closed_form(small_blocks, family, theta):
    X, _ = chessboard(40)
    K = LazyGram(family, theta, X)
    reference = gaussian(X, scales_of(family, theta))
    np.testing.assert_allclose(np.asarray(K), reference, rtol=1e-12, atol=1e-13)
    w = np.zeros(40)
    w[[2, 5, 17, 39]] = [0.5, -1.0, 2.0, -0.25]  # K w reads only the columns of this support
    np.testing.assert_allclose(K @ w, reference @ w, rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(K @ np.zeros(40), np.zeros(40))
    out = np.ones((40, 40))
    np.testing.assert_allclose(add_scaled(out, K, 0.3), 1 + 0.3 * reference, rtol=1e-12)
    rows, columns = np.array([3, 8, 9, 30]), np.arange(0, 40, 3)  # a rectangle, lazy
    np.testing.assert_allclose(np.asarray(K.restricted(rows, columns)),
                               reference[np.ix_(rows, columns)], rtol=1e-12, atol=1e-13)


def test_lazy_gram_keeps_its_last_product_and_only_for_that_vector():
    X, _ = chessboard(40)
    K = LazyGram(GaussianIso(), [0.7], X)
    reference = gaussian(X, scales_of(GaussianIso(), [0.7]))
    u, v = np.zeros(40), np.zeros(40)
    u[[1, 8]], v[[1, 30]] = [1.0, -2.0], [1.0, 0.5]
    first = K @ u
    first[:] = 0  # the caller's copy: the kept product is not changed by it
    for w in (u, u.copy(), v, u):
        np.testing.assert_allclose(K @ w, reference @ w, rtol=1e-12, atol=1e-13)
    u[8] = 3.0  # the same array with new values is a new vector
    np.testing.assert_allclose(K @ u, reference @ u, rtol=1e-12, atol=1e-13)


def test_lazy_gram_rejects_a_vector_of_the_wrong_length():
    X, _ = chessboard(10)
    with pytest.raises(ValueError, match="w must be a vector of length 10"):
        LazyGram(GaussianIso(), [1.0], X) @ np.ones(9)


def test_budget_decides_lazy_and_rejects_bad_values():
    X, _ = chessboard(30)
    assert not KernelSpace(X, GaussianIso()).lazy  # the default caches at this size
    assert not KernelSpace(X, GaussianIso(), max_gram_bytes=8 * 30 * 30).lazy
    assert KernelSpace(X, GaussianIso(), max_gram_bytes=8 * 30 * 30 - 1).lazy
    with pytest.raises(ValueError, match="max_gram_bytes"):
        KernelSpace(X, GaussianIso(), max_gram_bytes=-1)


def test_lazy_workspace_gives_the_cached_combination_and_products(small_blocks):
    X, _ = chessboard(60)
    family = GaussianARD()
    columns = [Column.make(family, t) for t in ([1, 1, 0, 0, 0], [0.2] * 5, [3, 0, 1, 0, 0])]
    cached = KernelSpace(X, family).master_inputs(columns)
    lazy = KernelSpace(X, family, max_gram_bytes=0).master_inputs(columns)
    d = np.array([0.5, 0.0, 0.5])
    np.testing.assert_allclose(combined_gram(lazy, d), combined_gram(cached, d),
                               rtol=1e-12, atol=1e-14)
    w = np.where(np.arange(60) % 3 == 0, np.linspace(-1, 1, 60), 0.0)
    for K_lazy, K in zip(lazy, cached):
        np.testing.assert_allclose(K_lazy @ w, K @ w, rtol=1e-12, atol=1e-13)


def test_lazy_combination_computes_the_lower_triangle_and_mirrors_it(budgets, kernel_values):
    """K(d) of square lazy matrices (with a cached one among them): the dense sum, symmetric
    to the bit, from blocks of rows a:b × columns :b (here 7 rows each: 2004 kernel values
    per column, not 3600)."""
    budgets(row_block_elements=7 * 60)
    X, _ = chessboard(60)
    thetas = ([1, 1, 0, 0, 0], [0.2] * 5)
    grams = [LazyGram(GaussianARD(), thetas[0], X), gaussian(X, np.asarray(thetas[1])),
             LazyGram(GaussianARD(), [3, 0, 1, 0, 0], X)]
    d = np.array([0.5, 0.2, 0.3])
    Kd = combined_gram(grams, d)
    reference = (0.5 * gaussian(X, np.asarray(thetas[0], float)) + 0.2 * grams[1]
                 + 0.3 * gaussian(X, np.array([3.0, 0, 1, 0, 0])))
    np.testing.assert_allclose(Kd, reference, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(Kd, Kd.T)
    assert kernel_values == [size for size in [7 * b for b in range(7, 57, 7)] + [4 * 60]
                             for _ in range(2)]


@pytest.mark.parametrize("C", [1.0, 100.0])
def test_newton_master_on_lazy_grams_is_the_cached_solution(C):
    X, y = chessboard(80, seed=1)
    family = GaussianARD()
    thetas = ([2, 2, 0, 0, 0], [0.5] * 5, [4, 0, 0, 0, 0], [0, 4, 0, 1, 0])
    columns = [Column.make(family, t) for t in thetas]
    cached, lazy = [HingeMKLNewton(y, C).solve(KernelSpace(X, family, max_gram_bytes=budget)
                                               .master_inputs(columns))
                    for budget in (None, 0)]
    assert cached.status.value == lazy.status.value == "optimal"
    assert (cached.weights > 1e-3).sum() >= 2  # a mixture, not one kernel
    # J(d) is flat near its minimum: the weights agree to the master's tolerance (1e-6),
    # the value J to rounding
    np.testing.assert_allclose(lazy.weights, cached.weights, atol=1e-6)
    assert lazy.objective == pytest.approx(cached.objective, rel=1e-10)


def fit_lazy_and_cached(monkeypatch, X, y, budgets=None, **params):
    """The same IKLClassifier fitted with cached Gram matrices, then with lazy ones (the
    ``budgets``; default: ``gram_cache_bytes`` forced to 0); also returns the lazy run's
    workspace."""
    cached = IKLClassifier(C=1.0, random_state=0, max_iter=8, **params).fit(X, y)
    spaces = []
    original = sipkl.kernel_learning.space.KernelSpace.__init__

    def recording(self, *args, **kwargs):
        original(self, *args, **kwargs)
        spaces.append(self)

    monkeypatch.setattr(sipkl.kernel_learning.space.KernelSpace, "__init__", recording)
    with sipkl.config_context(**(budgets or {"gram_cache_bytes": 0})):
        lazy = IKLClassifier(C=1.0, random_state=0, max_iter=8, **params).fit(X, y)
    (space,) = spaces
    return cached, lazy, space


def assert_lazy_structure(space):
    """The lazy run kept no Gram matrix and no n × n geometry."""
    assert space.lazy and len(space.grams)
    assert all(isinstance(K, LazyGram) for K in space.grams.values())
    assert not len(space.geometries)


def test_ikl_run_with_a_global_oracle_is_the_same_without_cached_grams(monkeypatch):
    """Grid oracle (global over its list): the same columns, weights and objective."""
    X, y = chessboard(120, seed=2)
    cached, lazy, space = fit_lazy_and_cached(monkeypatch, X, y, family=GaussianARD(),
                                              oracle="grid")
    a, b = cached.result_, lazy.result_
    assert a.status == b.status and a.nit == b.nit and len(a.columns) >= 3
    np.testing.assert_array_equal([c.theta for c in b.columns], [c.theta for c in a.columns])
    np.testing.assert_allclose(b.weights, a.weights, atol=1e-6)
    assert b.objective == pytest.approx(a.objective, rel=1e-10)
    np.testing.assert_allclose(lazy.decision_function(X), cached.decision_function(X),
                               rtol=1e-6, atol=1e-8)
    assert_lazy_structure(space)


def test_ikl_run_with_ipopt_is_the_same_without_cached_grams(monkeypatch):
    """IPOPT multi-start: the same run to the engine's tolerance (tol = 1e-4 on prices).
    The masters differ by rounding (≈1e-7 relative in the objective); the columns, local
    maximizers of flat prices, move with about the square root of that. A weight below
    10⁻³ of the largest is not determined by a master solved to a gap of 10⁻⁶·|J| (J is
    flat along it: here one run keeps a column at 3·10⁻⁴ that the other prunes, at
    objectives 1.5·10⁻⁷ apart), so the columns compared are the others."""
    X, y = chessboard(120, seed=2)
    cached, lazy, space = fit_lazy_and_cached(monkeypatch, X, y, family=GaussianIso())
    a, b = cached.result_, lazy.result_
    assert a.status == b.status and a.nit == b.nit

    def weighty(result):
        keep = result.weights >= 1e-3 * result.weights.max()
        return [c.theta for c, k in zip(result.columns, keep) if k]

    assert len(weighty(a)) == len(weighty(b)) >= 2
    np.testing.assert_allclose(weighty(b), weighty(a), rtol=1e-2)
    np.testing.assert_allclose(b.history["objective"], a.history["objective"], rtol=1e-4)
    assert_lazy_structure(space)


@pytest.mark.parametrize("family, pair_elements", [
    (GaussianIso(), None), (GaussianSeparate().members(5)[2], None), (GaussianARD(), None),
    (GaussianARD(), 10)])
def test_support_pricer_in_row_blocks_is_the_brute_force_price(budgets, family,
                                                              pair_elements):
    """The pricer of a lazy workspace (pairs built in blocks of 3 rows for the isotropic
    Gaussians; for GaussianARD beyond its bound on the pair matrix, the weights in blocks of
    3 rows and the squared differences at each evaluation) against <W, K(θ)> summed over the
    full matrices, and its gradient against central differences."""
    budgets(row_block_elements=3 * 25)
    if pair_elements is not None:
        budgets(pair_elements=pair_elements)
    X, y = chessboard(25, seed=4)
    w = np.where(np.arange(25) % 4 == 1, 0.0, y * np.linspace(0.1, 1.0, 25))
    price = PriceMatrix.rank_one(w, 0.5)
    problem = KernelSpace(X, family, max_gram_bytes=0).pricing_problem(family, price)
    p = family.n_params(5)
    thetas = np.random.default_rng(0).uniform(0.0, 3.0, (4, p))
    values, grads = problem.values_and_grads(thetas)
    if pair_elements is not None:
        assert isinstance(problem._batch_pricer(), PointPairExponential)
    for theta, value, grad in zip(thetas, values, grads):
        K = gaussian(X, scales_of(family, theta))
        assert value == pytest.approx(0.5 * w @ K @ w, rel=1e-12)
        for d in range(p):
            step = np.eye(p)[d] * 1e-6
            K_plus, K_minus = (gaussian(X, scales_of(family, theta + s)) for s in (step, -step))
            assert grad[d] == pytest.approx(0.5 * w @ (K_plus - K_minus) @ w / 2e-6, rel=1e-6)
    # the square path of a cached workspace is the same pricer
    cached = KernelSpace(X, family).pricing_problem(family, price).values_and_grads(thetas)
    np.testing.assert_allclose(values, cached[0], rtol=1e-12)
    np.testing.assert_allclose(grads, cached[1], rtol=1e-10, atol=1e-12)


def test_ikl_run_past_the_total_budget_goes_on_with_lazy_columns(monkeypatch):
    """The cached Gram matrices limited to one column's bytes (``gram_total_bytes``), and
    working sets from 60 points: the columns after the first are lazy, and the SVMs from
    then on are solved on working sets (checked on all points to libsvm's tolerance 10⁻⁶).
    The grid oracle (global over its list) picks the same columns as the run with every
    matrix cached, and the master the same weights and objective (as without cached
    matrices, the test above)."""
    X, y = chessboard(120, seed=2)
    solved_on_sets = []
    real = sipkl.kernel_learning.masters.hinge.svm_on_working_set
    monkeypatch.setattr(sipkl.kernel_learning.masters.hinge, "svm_on_working_set",
                        lambda *a, **k: solved_on_sets.append(1) or real(*a, **k))
    budgets = dict(gram_total_bytes=8 * len(X) ** 2, working_set_min_n=60, working_set_start=20)
    cached, mixed, space = fit_lazy_and_cached(monkeypatch, X, y, budgets,
                                               family=GaussianARD(), oracle="grid")
    held = list(space.grams.values())
    assert space.cached_bytes() <= 8 * len(X) ** 2
    assert any(isinstance(K, LazyGram) for K in held) and solved_on_sets
    a, b = cached.result_, mixed.result_
    assert a.status == b.status and a.nit == b.nit and len(a.columns) >= 3
    np.testing.assert_array_equal([c.theta for c in b.columns], [c.theta for c in a.columns])
    np.testing.assert_allclose(b.weights, a.weights, atol=1e-6)
    assert b.objective == pytest.approx(a.objective, rel=1e-10)
