"""The SIP literature problems (sipkl.sip.library.convex): the engine against the known optima.

The reference values are closed forms (quadratures of tan and exp, 2^(1−d) for Chebyshev
approximation, distances to a disc or a ball, primal points with dual measures of the same
value) or numerical ones, independent of the solver; the quadratures are checked against their
nodes and weights written out by hand, the other closed forms by a feasible point and a dual
measure of the same value, every optimum by a fine discretization solved directly in cvxpy
with local refinement of its active points (never the engine), and the stated Lipschitz
constants and t-gradients against finite differences of g.
"""
import functools
import itertools
import warnings

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import minimize

from sipkl.sip.library.convex import PROBLEMS, get_problem, upper_quadrature

#: the relative accuracy demanded of the engine's optimum
TARGET = 1e-6
#: the engine's stopping tolerance (relative violation), small enough for TARGET
TOL = 1e-8

#: runs too long for the default run on a 2-core machine (the Lipschitz oracle's branch and
#: bound in two dimensions, on the 11 maxima of chebyshev_t10, and the four that take 5–8 s
#: each on the KSIP problems and tanaka_tan6; make test-slow runs them)
SLOW = {("lipschitz", "chebyshev_t10"), ("lipschitz", "tensor_exp2d"),
        ("lipschitz", "ball_linear"), ("lipschitz", "ball_projection"),
        ("lipschitz", "watson8"), ("lipschitz", "ksip"), ("lipschitz", "ksip_exp"),
        ("lipschitz", "ksip_tan"), ("lipschitz", "tanaka_tan6")}

#: the runs that miss the target today, and why (each one is a strict xfail: it fails the
#: suite as soon as it passes, so that the mark is removed with the fix)
NOT_CERTIFIED = ("the Lipschitz oracle spends its evaluation budget with its bound still above "
                 "the cut: no_new_column")
KNOWN = {
    ("lipschitz", "tanaka_tan6"): NOT_CERTIFIED,
    ("lipschitz", "chebyshev_t10"): NOT_CERTIFIED,
    ("lipschitz", "tensor_exp2d"): NOT_CERTIFIED,
    ("lipschitz", "ball_linear"): NOT_CERTIFIED,
    ("lipschitz", "ball_projection"): NOT_CERTIFIED,
    ("lipschitz", "sipow3"): NOT_CERTIFIED,
    ("lipschitz", "watson8"): NOT_CERTIFIED,
    ("lipschitz", "watson9"): NOT_CERTIFIED,
}


@functools.lru_cache(maxsize=None)
def solved(name, oracle):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # inaccurate masters are recorded
        return PROBLEMS[name].solve(oracle, tol=TOL, random_state=0)


def cases(oracle):
    """One parameter per problem, marked slow or known to fail (strict xfail) for ``oracle``."""
    marks = {name: ([pytest.mark.slow] if (oracle, name) in SLOW else [])
             + ([pytest.mark.xfail(strict=True, reason=KNOWN[oracle, name])]
                if (oracle, name) in KNOWN else [])
             for name in PROBLEMS}
    return [pytest.param(name, marks=marks[name], id=name) for name in PROBLEMS]


@pytest.mark.parametrize("name", cases("ipopt"))
def test_ipopt_reaches_the_published_optimum(name):
    problem, result = PROBLEMS[name], solved(name, "ipopt")
    assert result.success, result.message
    assert result.objective == pytest.approx(problem.optimum, rel=max(TARGET, problem.rtol))


@pytest.mark.parametrize("name", cases("lipschitz"))
def test_lipschitz_oracle_certifies_the_published_optimum(name):
    problem, result = PROBLEMS[name], solved(name, "lipschitz")
    assert result.status == "certified_optimal", result.message
    assert result.objective == pytest.approx(problem.optimum, rel=max(TARGET, problem.rtol))
    # the bracket: the relaxation (to the conic solver's accuracy, 1e-8) and a point the
    # oracle proved feasible hold the optimum
    assert result.bracket is not None, result.message
    low, high = result.bracket["lower"], result.bracket["upper"]
    assert low - 1e-8 * abs(problem.optimum) <= problem.optimum
    assert problem.optimum <= high + problem.rtol * abs(problem.optimum)


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=KNOWN["lipschitz", "chebyshev_t10"])
def test_chebyshev_t10_equioscillates_at_the_chebyshev_extrema():
    # at the solution t ↦ g(x, t) has the 11 extrema of T₁₀, cos(kπ/10), as maxima (and
    # near-maxima around them during the run): even k on "above", odd k on "below"
    result = solved("chebyshev_t10", "lipschitz")
    assert result.status == "certified_optimal", result.message
    extrema = np.cos(np.arange(11) * np.pi / 10)
    for points, multipliers, parity in zip(result.points, result.multipliers, (0, 1)):
        active = points[multipliers > 0].ravel()
        expected = extrema[parity::2]
        nearest = np.abs(active[:, None] - expected[None, :]).min(axis=0)
        np.testing.assert_array_less(nearest, 1e-3)


def test_upper_quadratures_are_the_radau_and_lobatto_rules():
    nodes, weights = upper_quadrature(3)  # Gauss–Radau with the node 1
    np.testing.assert_allclose(nodes, [1 / 3, 1.0])
    np.testing.assert_allclose(weights, [3 / 4, 1 / 4])
    nodes, weights = upper_quadrature(6)  # Gauss–Lobatto, 4 nodes
    root5 = np.sqrt(5.0)
    np.testing.assert_allclose(nodes, [0.0, (5 - root5) / 10, (5 + root5) / 10, 1.0],
                               atol=1e-15)
    np.testing.assert_allclose(weights, [1 / 12, 5 / 12, 5 / 12, 1 / 12])
    assert PROBLEMS["tanaka_tan3"].optimum == pytest.approx(
        np.tan(1.0) / 4 + 3 * np.tan(1 / 3) / 4, rel=1e-15)


@pytest.mark.parametrize("name", list(PROBLEMS))
def test_stated_lipschitz_constants_bound_the_slopes_of_g(name):
    # finite differences between neighbours of a fine grid (along each axis and the
    # diagonals) at random x of unit scale and of scale 100
    problem, rng = PROBLEMS[name], np.random.default_rng(0)
    for c in problem.constraints:
        lower, upper = np.array(c.lower), np.array(c.upper)
        k = 2001 if problem.p == 1 else 201
        axes = [np.linspace(a, b, k) for a, b in zip(lower, upper)]
        T = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1)
        for scale in (1.0, 100.0):
            x = scale * rng.normal(size=problem.n)
            values = c.g(x, T.reshape(-1, problem.p)).reshape(T.shape[:-1])
            slopes = [np.abs(np.diff(values, axis=a)) / np.diff(axes[a])[0]
                      for a in range(problem.p)]
            if problem.p == 2:
                step = np.hypot(*(np.diff(ax)[0] for ax in axes))
                slopes += [np.abs(values[1:, 1:] - values[:-1, :-1]) / step,
                           np.abs(values[1:, :-1] - values[:-1, 1:]) / step]
            assert max(s.max() for s in slopes) <= c.lipschitz(x)


@pytest.mark.parametrize("name", list(PROBLEMS))
def test_stated_t_gradients_are_the_derivatives_of_g(name):
    # central differences of g (step 10⁻⁵ of the box's width, error O(h²)) at random interior
    # points, random x of unit scale and of scale 100, compared to the size of g's terms
    problem, rng = PROBLEMS[name], np.random.default_rng(1)
    for c in problem.constraints:
        lower, upper = np.array(c.lower), np.array(c.upper)
        h = 1e-5 * (upper - lower)
        t = lower + h + rng.random((50, problem.p)) * (upper - lower - 2 * h)
        for scale in (1.0, 100.0):
            x = scale * rng.normal(size=problem.n)
            shifts = np.eye(problem.p) * h
            differences = np.column_stack([
                (c.g(x, t + shifts[i]) - c.g(x, t - shifts[i])) / (2 * h[i])
                for i in range(problem.p)])
            gradients = c.grad_t(x, t)
            assert gradients.shape == (len(t), problem.p)
            np.testing.assert_allclose(gradients, differences, rtol=1e-6,
                                       atol=1e-6 * c.lipschitz(x))


# -- the optima, independently of the engine --------------------------------------------

#: Clarabel's tolerances for the reference solves (its defaults are 1e-8)
TIGHT = {"tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12, "tol_feas": 1e-12, "max_iter": 500}


def grid_of(constraint, k):
    """The tensor grid of k points per coordinate of the constraint's box, and its shape."""
    axes = [np.linspace(a, b, k) for a, b in zip(constraint.lower, constraint.upper)]
    points = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1)
    return points.reshape(-1, len(axes)), points.shape[:-1]


def grid_maxima(values, shape):
    """The flat indices of the local maxima of ``values`` on a grid of ``shape`` (each at least
    its neighbours along the axes and the diagonals; the box's faces included)."""
    values = values.reshape(shape)
    padded = np.pad(values, 1, constant_values=-np.inf)
    peak = np.ones(shape, dtype=bool)
    for shift in itertools.product((-1, 0, 1), repeat=len(shape)):
        if any(shift):
            peak &= values >= padded[tuple(slice(1 + d, 1 + d + m)
                                           for d, m in zip(shift, shape))]
    return np.flatnonzero(peak)


def maximize_g(constraint, x, start):
    """A local maximizer of t ↦ g(x, t) on the box from ``start`` and its value: L-BFGS-B on g
    alone (finite differences, not the stated t-gradient)."""
    result = minimize(lambda t: -float(constraint.g(x, t[None])[0]), start, method="L-BFGS-B",
                      bounds=list(zip(constraint.lower, constraint.upper)),
                      options={"ftol": 1e-16, "gtol": 1e-13, "maxiter": 500})
    return result.x, -result.fun


def refined_maxima(constraint, x, points, shape, floor, at_most=64):
    """The ``at_most`` highest local maxima of t ↦ g(x, t) on the grid above ``floor``, each
    refined by :func:`maximize_g` from its grid point: (points, values, the grid's values).
    (A g constant in t, or maximal along a curve, has a peak at every grid point.)"""
    values = constraint.g(x, points)
    peaks = [i for i in grid_maxima(values, shape) if values[i] > floor]
    peaks = sorted(peaks, key=lambda i: -values[i])[:at_most]
    found = [maximize_g(constraint, x, points[i]) for i in peaks]
    return (np.array([t for t, _ in found]).reshape(-1, points.shape[1]),
            np.array([v for _, v in found]), values)


def polished_master(problem, x, sets):
    """The restricted master solved again by SciPy's SLSQP from Clarabel's inaccurate answer
    ``x.value``, over the points where g(x, t) ≥ −10⁻⁶ of g's size (``sets``: one array per
    constraint); every g of the collection is affine in x, g = b + A x (A by differences at
    0, exact to rounding), f and its gradient are cvxpy's. SLSQP meets linear constraints to
    rounding (it may end on "positive directional derivative": it can do no better). Leaves
    the answer in ``x.value`` and returns the master's value there."""
    objective = problem.objective(x)
    sign = 1.0 if isinstance(objective, cp.Minimize) else -1.0
    start, rows, offsets = x.value.copy(), [], []
    for c, q in zip(problem.constraints, sets):
        values = c.g(start, q)
        near = q[values >= -1e-6 * max(1.0, float(np.abs(values).max()))]
        offsets.append(c.g(np.zeros(problem.n), near))
        rows.append(np.column_stack([c.g(e, near) - offsets[-1] for e in np.eye(problem.n)]))
    A, b = np.vstack(rows), np.concatenate(offsets)

    def f(v):
        x.value = v
        return sign * float(objective.expr.value), sign * np.ravel(
            objective.expr.grad[x].toarray())
    answer = minimize(f, start, jac=True, method="SLSQP", options={"ftol": 1e-16},
                      constraints=[{"type": "ineq", "fun": lambda v: -(b + A @ v),
                                    "jac": lambda v: -A}])
    assert answer.status in (0, 8), answer.message
    x.value = answer.x
    return sign * float(answer.fun)


def fine_discretization(problem, rounds=10):
    """The optimum of ``problem`` by a fine discretization solved directly in cvxpy (Clarabel,
    tight tolerances), independent of the engine: a grid of 10⁴ + 1 points (p = 1) or 101²
    (p = 2), refined locally: round r adds every local maximum of t ↦ g(x_k, t) near 0
    (refined by L-BFGS-B from the grid's) and around it the points at ±1 and ±2 steps along
    the axes and the diagonals, with the steps the grid's spacing divided by 10, 100, …,
    10^r, and re-solves, until the largest refined violation is below 10⁻¹¹ or the value
    changes by less than 10⁻¹³ (relative to the size of g, and of the value). Returns the
    last discretized optimum (a lower bound of the program's), x and that violation.

    Where Clarabel stops short of its tolerances (``optimal_inaccurate``: on tfi3's
    exponential cones it stalls at a primal residual of 2·10⁻⁹, its x violating by 3·10⁻¹¹ to
    2·10⁻¹⁰ from one rounding of the data to the next, and the rounds' values scattering by
    7·10⁻¹⁰), each master is polished by :func:`polished_master`: tfi3 then ends in two
    rounds at 4·10⁻¹⁵ of its reference, violating by 3·10⁻¹⁵ to 7·10⁻¹⁵ (g scaled by
    1 + k·7·10⁻¹⁶, k < 6: the rounding of another machine)."""
    x = cp.Variable(problem.n)
    grids = [grid_of(c, 10001 if problem.p == 1 else 101) for c in problem.constraints]
    extra = [np.empty((0, problem.p)) for _ in problem.constraints]
    previous = np.inf
    for r in range(1, rounds + 1):
        sets = [np.vstack([grid, more]) for (grid, _), more in zip(grids, extra)]
        master = cp.Problem(problem.objective(x), [
            c.g(x, q) <= 0 for c, q in zip(problem.constraints, sets)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "solution may be inaccurate": polished below
            master.solve(solver="CLARABEL", **TIGHT)
        assert master.status in ("optimal", "optimal_inaccurate"), master.status
        value = master.value
        if master.status == "optimal_inaccurate":
            value = polished_master(problem, x, sets)
        violation = -np.inf
        for j, (c, (points, shape)) in enumerate(zip(problem.constraints, grids)):
            scale = max(1.0, float(np.abs(c.g(x.value, points)).max()))
            found, values, _ = refined_maxima(c, x.value, points, shape, -1e-3 * scale)
            if not len(found):
                continue
            violation = max(violation, float(values.max()) / scale)
            lower, upper = np.array(c.lower), np.array(c.upper)
            spacing = (upper - lower) / (np.array(shape) - 1)
            directions = np.array([d for d in itertools.product((-1, 0, 1), repeat=problem.p)
                                   if any(d)])
            offsets = np.vstack([np.zeros((1, problem.p))] + [
                multiple * directions * spacing / 10.0**k
                for k in range(1, r + 1) for multiple in (1, 2)])
            local = np.clip((found[:, None, :] + offsets[None]).reshape(-1, problem.p),
                            lower, upper)
            extra[j] = np.unique(np.vstack([extra[j], local]), axis=0)
        converged = abs(value - previous) <= 1e-13 * max(1.0, abs(value))
        if violation <= 1e-11 or converged:
            break
        previous = value
    return value, x.value, violation


#: problems whose masters over finite sets have a face of optimal x, so that x_k need not
#: converge (and its violation not vanish) while the value does: watson8's p touches exp(s² +
#: u²) tangentially at (2/5, 2/5), a condition that finite sets impose only in the limit.
#: Which x of the face Clarabel returns follows the round-off of the data: the objective's
#: coefficients as fractions, 1.9·10⁻⁷; as the Gauss–Legendre rule's integral of the
#: quadratics (the same to 10⁻¹⁶), 2.5·10⁻⁶ — so their violation is checked to 10⁻⁵ only
NOT_UNIQUE = {"watson8"}


#: closed forms derived in the module whose reproduction takes over a second on 2 cores: in
#: the slow run
SLOW_REFERENCE = {"tensor_exp2d", "ball_linear", "ball_projection", "chebyshev_t10"}


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=[pytest.mark.slow] if name in SLOW_REFERENCE else [], id=name)
    for name in PROBLEMS])
def test_a_fine_discretization_reproduces_the_optimum(name):
    # the discretized optimum, a lower bound, within 1e-8 (relative) of the table (measured:
    # 1e-11 or better for most, 3e-10 for oettershagen3, 1.3e-9 for chebyshev_t10), its x
    # violating by less than 1e-10 (except NOT_UNIQUE)
    problem = PROBLEMS[name]
    value, _, violation = fine_discretization(problem)
    assert value == pytest.approx(problem.optimum, rel=1e-8, abs=1e-12)
    assert violation <= (1e-5 if name in NOT_UNIQUE else 1e-10)


def stated_measure_bound(problem, measure):
    """The dual function at a discrete measure, inf_x f(x) + Σ λ_i g_j(x, t_i), a lower bound of
    the optimum for λ ≥ 0 (weak duality); ``measure`` lists (constraint index j, t_i, λ_i). For a
    linear objective the Lagrangian is affine in x: bounded below only where its coefficients
    vanish (checked to 10⁻¹²), then constant."""
    x = cp.Variable(problem.n)
    lagrangian = problem.objective(x).expr + sum(
        weight * problem.constraints[j].g(x, np.array([t], dtype=float))[0]
        for j, t, weight in measure)
    assert all(weight >= 0 for _, _, weight in measure)
    if problem.objective_kind != "linear":
        return cp.Problem(cp.Minimize(lagrangian)).solve(solver="CLARABEL", **TIGHT)
    x.value = np.zeros(problem.n)
    constant = float(lagrangian.value)
    for k in range(problem.n):
        x.value = np.eye(problem.n)[k]
        assert abs(float(lagrangian.value) - constant) <= 1e-12, k
    return constant


def largest_violation(problem, x):
    """max over every constraint and t of g(x, t): a fine grid, its local maxima refined."""
    worst = -np.inf
    for c in problem.constraints:
        points, shape = grid_of(c, 20001 if problem.p == 1 else 201)
        _, values, on_grid = refined_maxima(c, x, points, shape, -np.inf)
        worst = max(worst, float(on_grid.max()), float(values.max(initial=-np.inf)))
    return worst


R3, R6, R13 = np.sqrt(3.0), np.sqrt(6.0), np.sqrt(13.0)
#: per problem with a closed form: a feasible point of the optimal value (None: the fine
#: discretization stands for it) and a discrete dual measure of the same value (constraint
#: index, index point, multiplier), written out here from the derivations in optimum_source
CERTIFICATES = {
    "sipow2": ([0.0, -1.0], [(0, [np.pi / 2], 1.0)]),
    "sipow3": ([2 * R3 - 4, 4 - 2 * R3, 2 * R3 - 3, 4 - 2 * R3],
               [(0, [1.0, 0.0], 1 - 1 / R3), (0, [2 - R3, 1.0], 1 / R3),
                (1, [0.0, 0.0], 1 - 1 / R3), (1, [1.0, 1.0], 1 / R3)]),
    "polak_tits": ([(13 - 2 * R13) / 39, (R13 - 2) / 9], [(0, [(1 + R13) / 6], 1.0)]),
    "watson7": ([-1.0, 0.0, 0.0], [(0, [0.0, 0.0], 2.0)]),
    "watson8": (None, [(0, [0.0, 1.0], 1 / 12), (0, [1.0, 0.0], 1 / 12),
                       (0, [0.4, 0.4], 25 / 36), (0, [1.0, 1.0], 5 / 36)]),
    "watson9": ([3.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [(0, [a / R6, b / R6], 1.0) for a in (-1, 1) for b in (-1, 1)]),
}


@pytest.mark.parametrize("name", list(CERTIFICATES))
def test_closed_forms_are_a_feasible_point_and_a_dual_measure_of_the_same_value(name):
    problem, (point, measure) = PROBLEMS[name], CERTIFICATES[name]
    assert stated_measure_bound(problem, measure) == pytest.approx(problem.optimum, rel=1e-12)
    if point is not None:
        x = cp.Variable(problem.n, value=np.array(point))
        assert problem.objective(x).value == pytest.approx(problem.optimum, rel=1e-12)
        assert largest_violation(problem, np.array(point)) <= 1e-13


def sif_boundary_of_the_square(M):
    """SIPOW3.SIF's M/2 points of the unit square's boundary (steps of 8/M along the edges
    ξ = 0, η = 1, ξ = 1, η = 0, the far ends of each edge left out)."""
    position = np.arange(M // 2) * 8.0 / M
    edge = np.arange(M // 2) // (M // 8)
    s = np.choose(edge, [np.zeros_like(position), position - 1, np.ones_like(position),
                         position - 3])
    u = np.choose(edge, [position, np.ones_like(position), position - 2,
                         np.zeros_like(position)])
    return np.column_stack([s, u])


def discretized_optimum(problem, points):
    """The optimum of ``problem`` with every constraint imposed at ``points`` only (cvxpy)."""
    x = cp.Variable(problem.n)
    master = cp.Problem(problem.objective(x), [c.g(x, points) <= 0
                                               for c in problem.constraints])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return master.solve(solver="CLARABEL", **TIGHT)


@pytest.mark.parametrize("name, points, line", [
    ("sipow3", sif_boundary_of_the_square(2000), 0.53465470),
    ("sipow4", (2 * np.pi * np.arange(1, 1001) / 2000)[:, None], 0.27236200),  # θ ∈ (0, π]
    ("tanaka_tan3", (np.arange(101) / 100)[:, None], 0.64903110696),  # TFI2, M = 100
])
def test_the_sif_discretizations_of_the_models_give_the_sif_solution_lines(name, points, line):
    # the continuous programs are those that the SIF files discretize, and their solution
    # lines are the discretizations' values (below the optimum), not the programs' (to the
    # accuracy of the solves behind them: SIPOW3's line for M = 10000, 0.53564207, is 1.6e-5
    # below its discretization's 0.53565077)
    problem = PROBLEMS[name]
    value = discretized_optimum(problem, points)
    assert value == pytest.approx(line, rel=1e-5)
    assert value < problem.optimum


@pytest.mark.parametrize("name, line", [("ksip", 0.57579024357147),
                                        ("ksip_exp", 2.51159511773383),
                                        ("ksip_tan", 0.76079933215965)])
def test_ksip_solution_lines_lie_below_their_own_discretizations(name, line):
    # KSIP.SIF imposes the constraint at t = 0, 1/1000, …, 1: the optimum of that finite QP is
    # a lower bound of the semi-infinite program's, and the SIF file's solution line lies
    # below it (by 1.3e-5 relative for sin), so it is no feasible point's value; the table's
    # optimum lies just above it (by 6e-9, 4e-9 and 2e-7: the grid misses the contact points
    # by less than 1/2000)
    problem = PROBLEMS[name]
    discrete = discretized_optimum(problem, (np.arange(1001) / 1000)[:, None])
    assert line < discrete * (1 - 1e-6)
    assert discrete < problem.optimum < discrete * (1 + 1e-6)


def test_collection_covers_the_required_kinds():
    problems = PROBLEMS.values()
    assert len(PROBLEMS) >= 22
    assert {p.p for p in problems} >= {1, 2}
    assert {p.objective_kind for p in problems} == {"linear", "quadratic", "convex"}
    assert any(p.many_local_maxima for p in problems)


def test_get_problem_names_its_argument():
    assert get_problem("powell_disc") is PROBLEMS["powell_disc"]
    with pytest.raises(ValueError, match="name must be one of"):
        get_problem("no such problem")
    with pytest.raises(TypeError, match="name must be a str"):
        get_problem(3)
