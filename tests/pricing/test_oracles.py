"""Pricing oracles against independent searches: brute force and dense grids."""
import numpy as np
import pytest

from sipkl import GaussianARD, GaussianIso, PriceMatrix, PricingRound
from sipkl.pricing import GridOracle, MultiStartOracle
from sipkl.kernel_learning.space import KernelSpace
from sipkl.kernel_learning.masters.alignment import Shrinkage
from sipkl.solvers import ascend_box, maximize_box


def _round(family, X, W, n_price=3, columns=()):
    problems = [KernelSpace(X).pricing_problem(f, W) for f in family.members(X.shape[1])]
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
    oracle = MultiStartOracle(n_starts=4, n_samples=50, method=method)
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
    problem = KernelSpace(X).pricing_problem(GaussianIso(), W)
    res = ascend_box(problem.values_and_grads, [[0.3], [2.0], [30.0], [300.0]], [0.0], [900.0],
                     tol=1e-12, max_iter=200)
    peaks = GRID[_local_maxima(price(GRID))]
    np.testing.assert_allclose(np.sort(res.x[:, 0]), np.repeat(peaks, 2), rtol=2e-4)
    np.testing.assert_allclose(res.fun, price(res.x[:, 0]), atol=1e-10)  # rounded geometry


def test_ipopt_oracle_when_every_search_ends_at_a_current_column():
    """W = I − 11ᵀ/n prices exp(−s‖x − x′‖²) increasingly in s (the off-diagonal weights are
    negative), so every start climbs to the top of the box: with that column already in the
    master, the search has nothing new to offer — an empty, usable answer, not a failure."""
    from sipkl.core.contracts import Column
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 2))
    W = PriceMatrix(dense=np.eye(25) - np.full((25, 25), 1.0 / 25))
    family = GaussianIso(bounds=(0.0, 50.0))
    top = Column.make(family, [50.0])
    result = MultiStartOracle().price(_round(family, X, W, columns=[top]))
    assert result.columns == [] and len(result.scores) == 0
    assert result.status.usable


def _violator_round(cut, any_violator):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    a = rng.normal(size=40)
    W = PriceMatrix.rank_one(a - a.mean(), 1.0)
    problems = [KernelSpace(X).pricing_problem(GaussianARD(), W)]
    return X, W, PricingRound(problems, X, [], 0.0, 3, np.random.default_rng(0), cut=cut,
                              any_violator=any_violator)


def test_ipopt_oracle_asked_for_a_violator_answers_with_new_columns_above_the_cut():
    """Asked only whether a column prices above the cut, the oracle answers with columns that
    do (their prices those of the Gram matrices, in double precision) after fewer
    evaluations than the whole search; with the cut above every price it finds, it answers
    as the whole search does."""
    X, W, full_round = _violator_round(None, False)
    full = MultiStartOracle().price(full_round)
    best = full.scores[0]
    for cut in (0.5 * best, 0.99 * best):
        _, _, violator_round = _violator_round(cut, True)
        found = MultiStartOracle().price(violator_round)
        assert len(found.columns) and np.all(found.scores > cut)
        brute = [np.sum(W.dense() * GaussianARD().gram(c.theta, X)) for c in found.columns]
        np.testing.assert_allclose(found.scores, brute, rtol=1e-10)
        assert found.n_evals < full.n_evals
    _, _, none_round = _violator_round(2.0 * best, True)
    answer = MultiStartOracle().price(none_round)
    assert answer.columns == full.columns
    np.testing.assert_array_equal(answer.scores, full.scores)


def test_batched_ascent_ends_when_told():
    """``stop`` ends the ascent at the first iteration where it holds: here once some start
    passes a value that the starts reach only by climbing."""
    X, W, price = _two_peaks()
    problem = KernelSpace(X).pricing_problem(GaussianIso(), W)
    starts = [[0.3], [2.0], [30.0], [300.0]]
    whole = ascend_box(problem.values_and_grads, starts, [0.0], [900.0], tol=1e-12,
                       max_iter=200)
    target = 0.5 * (problem.values_and_grads(starts)[0].max() + whole.fun[0])
    seen = []
    stopped = ascend_box(problem.values_and_grads, starts, [0.0], [900.0], tol=1e-12,
                         max_iter=200, stop=lambda x, f: seen.append(f.max()) or f.max() > target)
    assert stopped.fun[0] > target and all(v <= target for v in seen[:-1])
    assert stopped.nit == len(seen) - 1 < whole.nit and not stopped.converged.all()


def _coupled_quadratic(scale_x, scale_f, p=5, seed=7):
    """f(x) = −½ (x − c)ᵀ A (x − c) with a dense positive definite A, x in units of
    ``scale_x`` and f in units of ``scale_f``; the box [0, scale_x]^p cuts off the maximizer c
    in some coordinates, so the box maximum is not the clipped c (coupling)."""
    rng = np.random.default_rng(seed)
    Q = rng.normal(size=(p, p))
    A = Q @ Q.T + 0.5 * np.eye(p)
    c = rng.uniform(-0.5, 1.5, p)

    def fun(X, grad=True):
        Z = X / scale_x - c
        values = -0.5 * scale_f * np.einsum("si,ij,sj->s", Z, A, Z)
        return values, (-scale_f * Z @ A / scale_x if grad else None)

    def hessians(X, coords):
        H = -scale_f * A[np.ix_(coords, coords)] / scale_x ** 2
        return np.broadcast_to(H, (len(X), len(coords), len(coords))).copy()

    return fun, hessians, np.zeros(p), np.full(p, scale_x), rng.uniform(0, 1, (4, p))


def test_newton_box_matches_lbfgsb_on_a_coupled_box_qp():
    """Projected Newton reaches the box maximum of a coupled concave quadratic that L-BFGS-B
    (SciPy, a different method) finds to 1e-10."""
    from scipy.optimize import minimize
    from sipkl.solvers import newton_box
    fun, hessians, lower, upper, starts = _coupled_quadratic(1.0, 1.0)
    res = newton_box(fun, hessians, starts, lower, upper, tol=1e-14)
    ref = minimize(lambda x: tuple(-v for v in (fun(x[None])[0][0], fun(x[None])[1][0])),
                   starts[0], jac=True, method="L-BFGS-B", bounds=list(zip(lower, upper)),
                   options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 1000})
    assert res.converged.all() and ref.success
    assert 0 < np.sum((ref.x > 0) & (ref.x < 1)) < len(ref.x)  # some bounds bind, some don't
    np.testing.assert_allclose(res.x, np.tile(ref.x, (len(starts), 1)), atol=1e-7)
    assert res.fun[0] >= -ref.fun - 1e-12


@pytest.mark.parametrize("scale_x, scale_f", [(1e3, 1.0), (1e-6, 1e6), (1.0, 1e-6)])
def test_newton_box_is_the_same_run_in_other_units(scale_x, scale_f):
    from sipkl.solvers import newton_box
    fun, hessians, lower, upper, starts = _coupled_quadratic(1.0, 1.0)
    base = newton_box(fun, hessians, starts, lower, upper, tol=1e-10)
    fun, hessians, lower, upper, starts = _coupled_quadratic(scale_x, scale_f)
    res = newton_box(fun, hessians, starts * scale_x, lower, upper, tol=1e-10)
    assert (res.nit, res.nfev) == (base.nit, base.nfev)
    np.testing.assert_allclose(res.x / scale_x, base.x, atol=1e-9)


@pytest.mark.parametrize("relative", [False, True])
def test_newton_box_follows_an_exponential_tail_to_the_box(relative):
    """f(x) = Σ_d −exp(−a_d x_d) + a coupled concave part: f grows toward the box's top in
    the first coordinates, where a Newton step shrinks the gap to the supremum only by e⁻¹
    (20 steps from 1 to a relative 10⁻⁸), and its maximum is interior in the others. The
    maximizer, the top in the tail coordinates and c in the others, is reached in a few
    iterations (Newton steps alone ran out of 30 iterations 20 units short of it)."""
    from sipkl.solvers import newton_box
    a, c = np.array([1.0, 3.0, 0.0, 0.0]), np.array([0.0, 0.0, 2.0, 5.0])
    q = np.array([0.0, 0.0, 1.0, 0.5])

    def fun(X, grad=True):
        e = np.exp(-a * X)
        values = -e[:, :2].sum(1) - 0.5 * ((X - c) ** 2 * q).sum(1)
        return values, (a * e - q * (X - c) if grad else None)

    def hessians(X, coords):
        H = -a ** 2 * np.exp(-a * X) - q
        return np.stack([np.diag(h[coords]) for h in H])

    lower, upper = np.zeros(4), np.full(4, 900.0)
    starts = np.array([[1.0, 1.0, 1.0, 1.0], [0.5, 2.0, 4.0, 8.0]])
    res = newton_box(fun, hessians, starts, lower, upper, tol=1e-10, relative=relative)
    top = fun(np.array([[900.0, 900.0, 2.0, 5.0]]))[0][0]
    assert res.converged.all() and res.nit <= 8
    assert np.all(res.fun >= top - 1e-10)
    np.testing.assert_allclose(res.x[:, 2:], [[2.0, 5.0]] * 2, rtol=1e-8)


@pytest.mark.parametrize("shrinkage", [None, 0.7])
def test_pair_hessians_equal_finite_differences_of_the_gradient(shrinkage):
    """The Hessians of PairExponential, on all and on a subset of coordinates, against central
    differences of its own (independently tested) gradient; with the shrinkage regularizer,
    those of the regularized price."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 4))
    W = PriceMatrix(factor=rng.normal(size=(30, 2)), signs=[1.0, -1.0])
    regularizer = None if shrinkage is None else Shrinkage(shrinkage)
    problem = KernelSpace(X).pricing_problem(GaussianARD(), W, regularizer=regularizer)
    thetas = rng.uniform(0.05, 1.0, (3, 4))
    hessians = problem.hessian_batch(np.float64)
    h = 1e-6
    fd = np.stack([(problem.values_and_grads(thetas + h * e)[1]
                    - problem.values_and_grads(thetas - h * e)[1]) / (2 * h)
                   for e in np.eye(4)], axis=-1)
    np.testing.assert_allclose(hessians(thetas, np.arange(4)), fd, rtol=1e-6, atol=1e-8)
    coords = np.array([0, 2, 3])
    np.testing.assert_allclose(hessians(thetas, coords), fd[:, coords][:, :, coords],
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("shrinkage", [None, 0.7])
@pytest.mark.parametrize("pair_elements", [2 ** 24, 0], ids=["stored", "formed"])
def test_pair_curvatures_equal_finite_differences_of_the_gradient(budgets, pair_elements,
                                                                  shrinkage):
    """The curvatures (Hessian diagonals) of ``curvature_batch``, with Δ stored or formed
    block by block at each evaluation, against central differences of the gradient; its
    values and gradients are those of ``values_and_grads``; with the shrinkage regularizer,
    those of the regularized price."""
    budgets(pair_elements=pair_elements)
    rng = np.random.default_rng(6)
    X = rng.normal(size=(30, 4))
    W = PriceMatrix(factor=rng.normal(size=(30, 2)), signs=[1.0, -1.0])
    regularizer = None if shrinkage is None else Shrinkage(shrinkage)
    problem = KernelSpace(X).pricing_problem(GaussianARD(), W, regularizer=regularizer)
    thetas = rng.uniform(0.05, 1.0, (3, 4))
    values, grads, curvatures = problem.curvature_batch(np.float64)(thetas)
    reference = problem.values_and_grads(thetas)
    np.testing.assert_allclose(values, reference[0], rtol=1e-12)
    np.testing.assert_allclose(grads, reference[1], rtol=1e-12, atol=1e-14)
    h = 1e-6
    fd = np.stack([(problem.values_and_grads(thetas + h * e)[1][:, d]
                    - problem.values_and_grads(thetas - h * e)[1][:, d]) / (2 * h)
                   for d, e in enumerate(np.eye(4))], axis=-1)
    np.testing.assert_allclose(curvatures, fd, rtol=1e-6, atol=1e-8)
    regularized = KernelSpace(X).pricing_problem(GaussianARD(), W,
                                               regularizer=lambda t: (0.0, np.zeros(4)))
    assert regularized.curvature_batch() is None  # r(θ) states no second derivatives
    assert regularized.hessian_batch() is None


@pytest.mark.parametrize("units", [1e-3, 1e3])
def test_diagonal_newton_ascent_on_badly_scaled_coordinates(units):
    """With curvatures, the batched ascent takes diagonal Newton steps: on a separable concave
    quadratic whose curvatures span 10¹² (the scales of signal and noise dimensions), every
    start reaches the box-clipped maximizer in a few iterations, where the gradient's steps
    stop on their cap; the run is the same with the coordinates (and box) in other units."""
    rng = np.random.default_rng(7)
    p = 6
    center, starts = rng.uniform(-1, 3, p), rng.uniform(0.5, 1.5, (4, p))

    def run(u, curvatures=True):
        curvature = np.logspace(-6, 6, p) / u ** 2

        def fun(X):
            grads = -(X - u * center) * curvature
            values = -0.5 * ((X - u * center) ** 2 * curvature).sum(1)
            return (values, grads, np.tile(-curvature, (len(X), 1))) if curvatures else \
                (values, grads)
        return ascend_box(fun, u * starts, np.zeros(p), np.full(p, 2.0 * u), tol=1e-12,
                          max_iter=50, relative=True)

    res = run(1.0)
    assert res.converged.all() and res.nit <= 8
    np.testing.assert_allclose(res.x, np.tile(np.clip(center, 0.0, 2.0), (4, 1)), atol=1e-9)
    assert not run(1.0, curvatures=False).converged.all()
    other = run(units)
    assert other.nit == res.nit
    np.testing.assert_allclose(other.x / units, res.x, rtol=1e-9, atol=1e-12)


def test_diagonal_newton_ascent_stops_at_a_maximum_flat_to_round_off():
    """A concave quadratic evaluated in single precision (as the oracle's first stage is),
    |f| ≈ 10³: starts at its maximizer, where every step is rejected (f is flat to round-off),
    stop at once on the model's gain of the whole step instead of shrinking their step ~20
    times; starts elsewhere still stop within tol·|f| of the maximum (the gain of a Newton
    step on a quadratic is twice what it leaves)."""
    rng = np.random.default_rng(3)
    p, tol = 5, 1e-5
    center, curvature = rng.uniform(1, 2, p), np.logspace(-2, 2, p)
    evaluated = []

    def fun(X):
        evaluated.append(len(X))
        d = (X - center).astype(np.float32)
        c = curvature.astype(np.float32)
        values = np.float32(1e3) - 0.5 * (d * d * c).sum(1)
        return (values.astype(float), (-d * c).astype(float), np.tile(-curvature, (len(X), 1)))

    at_max = ascend_box(fun, np.tile(center, (3, 1)), np.zeros(p), np.full(p, 4.0), tol=tol,
                        max_iter=30, relative=True)
    assert at_max.converged.all() and at_max.nit == 1 and at_max.nfev == 3
    starts = center + rng.uniform(-0.5, 0.5, (4, p))
    res = ascend_box(fun, starts, np.zeros(p), np.full(p, 4.0), tol=tol, max_iter=30,
                     relative=True)
    assert res.converged.all() and res.nit < 30
    assert np.all(1e3 - res.fun <= tol * 1e3)


def test_newton_refinement_ends_where_ipopt_cannot_improve():
    """The oracle's Newton-refined columns are local maxima: IPOPT (a second solver) started
    at each returned θ gains less than 1e-7 relative."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(60, 5))
    y = np.sign(X[:, 0] * X[:, 1])
    W = PriceMatrix.rank_one(y * rng.uniform(0.1, 1.0, 60), 0.5)
    pricing_round = _round(GaussianARD(), X, W, n_price=3)
    result = MultiStartOracle(n_polish=0).price(pricing_round)
    problem = pricing_round.problems[0]
    assert result.status.usable and len(result.columns) >= 2
    for column, score in zip(result.columns, result.scores):
        polished = maximize_box(problem.value_and_grad, [column.theta], problem.lower,
                                problem.upper, tol=1e-10, max_iter=200)
        assert polished.fun[0] <= score * (1 + 1e-7)
