"""Pricing oracles against independent searches: brute force and dense grids."""
import numpy as np
import pytest

from sipkl import GaussianARD, GaussianIso, PriceMatrix, PricingRound
from sipkl.oracles import GridOracle, IpoptOracle
from sipkl.workspace import Workspace
from sipkl.solvers import ascend_box, maximize_box


def _round(family, X, W, n_price=3, columns=()):
    problems = [Workspace(X).pricing_problem(f, W) for f in family.members(X.shape[1])]
    return PricingRound(problems, X, list(columns), 0.0, n_price, np.random.default_rng(0))


def test_grid_oracle_equals_brute_force():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 4))
    U = rng.normal(size=(30, 2))
    U[::3] = 0.0  # rows outside the support
    W = PriceMatrix(factor=U, signs=[1.0, -1.0])
    family = GaussianARD()
    candidates = rng.uniform(0, 2, size=(40, 4))
    result = GridOracle(candidates).price(_round(family, X, W, n_price=3))
    brute = np.array([np.sum(W.dense() * family.gram(c, X)) for c in candidates])
    order = np.argsort(brute)[::-1][:3]
    np.testing.assert_allclose(result.scores, brute[order], rtol=1e-10)
    np.testing.assert_allclose([c.theta for c in result.columns], candidates[order])
    assert result.n_evals == len(candidates)


def test_grid_oracle_skips_current_columns():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(20, 2))
    W = PriceMatrix.rank_one(rng.normal(size=20), 0.5)
    family = GaussianIso()
    grid = np.linspace(0.1, 3, 30)[:, None]
    full = GridOracle(grid).price(_round(family, X, W, n_price=1))
    rest = GridOracle(grid).price(_round(family, X, W, n_price=1, columns=full.columns))
    assert rest.columns[0] != full.columns[0]
    assert rest.scores[0] <= full.scores[0]


def _two_peaks():
    """Points in pairs, W non-zero only within pairs, so that

        <W, K(s)> = (e^{-s} − e^{-2s}) + 1.2 (e^{-0.01 s} − e^{-0.02 s}):

    two bumps, near s = ln 2 (height ≈ 0.25) and s = 100 ln 2 (height ≈ 0.3).
    """
    sq = [1.0, 2.0, 0.01, 0.02]
    weight = [1.0, -1.0, 1.2, -1.2]
    X = np.zeros((8, 1))
    for k, d2 in enumerate(sq):
        X[2 * k] = 100.0 * k
        X[2 * k + 1] = 100.0 * k + np.sqrt(d2)
    W = np.zeros((8, 8))
    for k, w in enumerate(weight):
        W[2 * k, 2 * k + 1] = W[2 * k + 1, 2 * k] = w / 2
    price = lambda s: (np.exp(-s) - np.exp(-2 * s)) + 1.2 * (np.exp(-0.01 * s) - np.exp(-0.02 * s))
    return X, PriceMatrix(dense=W), price


GRID = np.geomspace(1e-3, 900, 200001)  # relative spacing 7e-5


def _local_maxima(values):
    return np.flatnonzero((values[1:-1] > values[:-2]) & (values[1:-1] > values[2:])) + 1


def test_two_peak_function_is_what_it_claims():
    X, W, price = _two_peaks()
    values = GaussianIso().prices(GaussianIso().geometry(X), GRID, W.dense())
    np.testing.assert_allclose(values, price(GRID), atol=1e-12)
    peaks = GRID[_local_maxima(values)]
    assert len(peaks) == 2 and peaks[1] / peaks[0] > 50


@pytest.mark.parametrize("method", ["ipopt", "lbfgsb"])
def test_local_search_alone_gets_stuck_on_the_lower_peak(method):
    X, W, price = _two_peaks()
    family = GaussianIso()
    fun = lambda s: family.price_and_grad(family.geometry(X), s, W.dense())
    res = maximize_box(fun, [[0.5]], [0.0], [900.0], method=method)
    lower_peak = GRID[_local_maxima(price(GRID))][0]
    np.testing.assert_allclose(res.x[0, 0], lower_peak, rtol=2e-4)
    assert res.attempts[0].solver == method


@pytest.mark.parametrize("method", ["ipopt", "lbfgsb"])
def test_ipopt_oracle_finds_the_global_peak(method):
    X, W, price = _two_peaks()
    oracle = IpoptOracle(n_starts=4, n_samples=50, method=method)
    result = oracle.price(_round(GaussianIso(), X, W, n_price=2))
    values = price(GRID)
    lower_peak, upper_peak = GRID[_local_maxima(values)]
    assert result.scores[0] >= values.max() - 1e-12
    np.testing.assert_allclose(result.columns[0].theta, [upper_peak], rtol=2e-4)
    # multiple pricing: the second distinct candidate is the other peak
    np.testing.assert_allclose(result.columns[1].theta, [lower_peak], rtol=2e-4)
    assert result.status.usable


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e6])
def test_batched_ascent_reaches_box_maxima(scale):
    """Each start of a batch reaches the maximum of a separable concave quadratic over a box,
    which is the unconstrained maximizer clipped into the box; at any scale of the values."""
    rng = np.random.default_rng(4)
    p = 6
    curvature = np.exp(rng.uniform(-2, 2, p))
    center = rng.uniform(-1, 2, p)  # some coordinates of the maximizer outside [0, 1]
    fun = lambda X: (-scale * 0.5 * ((X - center) ** 2 * curvature).sum(1),
                     -scale * (X - center) * curvature)
    res = ascend_box(fun, rng.uniform(0, 1, (5, p)), np.zeros(p), np.ones(p), tol=1e-12,
                     max_iter=500)
    assert res.converged.all()
    np.testing.assert_allclose(res.x, np.tile(np.clip(center, 0, 1), (5, 1)), atol=1e-5)
    np.testing.assert_allclose(res.fun, fun(res.x)[0])


def test_batched_ascent_climbs_both_peaks():
    """From starts on either side, the batch ends on the two local maxima of the two-peak
    price, as the one-start-at-a-time IPOPT search does."""
    X, W, price = _two_peaks()
    problem = Workspace(X).pricing_problem(GaussianIso(), W)
    res = ascend_box(problem.values_and_grads, [[0.3], [2.0], [30.0], [300.0]], [0.0], [900.0],
                     tol=1e-12, max_iter=200)
    peaks = GRID[_local_maxima(price(GRID))]
    np.testing.assert_allclose(np.sort(res.x[:, 0]), np.repeat(peaks, 2), rtol=2e-4)
    np.testing.assert_allclose(res.fun, price(res.x[:, 0]), atol=1e-10)  # rounded geometry


def test_ipopt_oracle_when_every_search_ends_at_a_current_column():
    """W = I − 11ᵀ/n prices exp(−s‖x − x′‖²) increasingly in s (the off-diagonal weights are
    negative), so every start climbs to the top of the box: with that column already in the
    master, the search has nothing new to offer — an empty, usable answer, not a failure."""
    from sipkl.contracts import Column
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 2))
    W = PriceMatrix(dense=np.eye(25) - np.full((25, 25), 1.0 / 25))
    family = GaussianIso(bounds=(0.0, 50.0))
    top = Column.make(family, [50.0])
    result = IpoptOracle().price(_round(family, X, W, columns=[top]))
    assert result.columns == [] and len(result.scores) == 0
    assert result.status.usable
