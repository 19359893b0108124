"""Semi-infinite programs in cvxpy (sipkl.sip), solved by the column-generation engine.

Every number is checked against something the code under test does not produce: Chebyshev's
closed form, SciPy's linprog (HiGHS) on a fixed or fine grid, brute-force maxima, analytic
derivatives, and the same run in other units.
"""
import importlib.util
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest
from numpy.polynomial import chebyshev
from scipy.optimize import linprog

from sipkl.core.contracts import PricingRound
from sipkl.pricing import MultiStartOracle
from sipkl.sip import (Ball, Box, FiniteSet, LipschitzOracle, SemiInfiniteConstraint,
                       SemiInfiniteProgram)
from sipkl.sip.pricing.space import ConstraintPrice, IndexPointPricing

ROOT = Path(__file__).resolve().parents[2]


def chebyshev_program(f, n, T=Box([-1.0], [1.0]), g_scale=1.0, t_scale=1.0, f_scale=1.0):
    """min z s.t. |Σ_k c_k u^k − f(u)| ≤ z for u = t / t_scale in T (vectorized g); the
    constraint values multiplied by ``g_scale`` and the objective by ``f_scale``."""
    c, z = cp.Variable(n), cp.Variable()

    def error(c, t):
        u = t[:, 0] / t_scale
        return g_scale * (np.vander(u, n, increasing=True) @ c - f(u))

    upper = SemiInfiniteConstraint(lambda c, t: error(c, t) - g_scale * z, c, T,
                                   vectorized=True, name="upper")
    lower = SemiInfiniteConstraint(lambda c, t: -error(c, t) - g_scale * z, c, T,
                                   vectorized=True, name="lower")
    return SemiInfiniteProgram(cp.Minimize(f_scale * z), [upper, lower]), c, z


def lipschitz_of(f_slope, n, g_scale=1.0, t_scale=1.0):
    """A Lipschitz constant of t ↦ g(c, t) on |u| ≤ 1: (Σ k|c_k| + max|f'|)·g_scale/t_scale."""
    return lambda c: g_scale * (np.abs(c[1:]) @ np.arange(1, n) + f_slope) / t_scale


def linprog_chebyshev(f, n, u):
    """The same discrete minimax problem on the points ``u``, by HiGHS (independent)."""
    V = np.vander(u, n, increasing=True)
    ones = np.ones((len(u), 1))
    res = linprog(np.r_[np.zeros(n), 1.0], A_ub=np.block([[V, -ones], [-V, -ones]]),
                  b_ub=np.r_[f(u), -f(u)], bounds=[(None, None)] * (n + 1), method="highs")
    assert res.status == 0
    return res.fun, res.x[:n]


# -- 1. Chebyshev's closed form ---------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4])
def test_best_uniform_approximation_of_t_to_the_n_is_chebyshev(n):
    """min_p max_[-1,1] |t^n − p(t)| over degree n − 1 is 2^(1−n), p = t^n − T_n / 2^(n−1),
    and the error equioscillates at the n + 1 extrema cos(kπ/n) of T_n."""
    program, c, z = chebyshev_program(lambda u: u ** n, n)
    res = program.solve("lipschitz", lipschitz=lipschitz_of(n, n))
    assert res.status == "certified_optimal" and res.success
    np.testing.assert_allclose(res.objective, 2.0 ** (1 - n), rtol=1e-5)
    monomial = np.zeros(n + 1)
    monomial[n] = 1.0
    closed = monomial - chebyshev.cheb2poly(np.eye(n + 1)[n]) / 2 ** (n - 1)
    np.testing.assert_allclose(c.value, closed[:n], atol=1e-5)
    np.testing.assert_allclose(res.x[c.name()], c.value)
    # active points: T_n = −1 on the upper constraint (p − t^n = −T_n/2^(n−1) = +E), +1 below
    extrema = np.cos(np.arange(n + 1) * np.pi / n)
    for points, sign in zip(res.points, (-1.0, 1.0)):
        expected = extrema[np.isclose(np.cos(n * np.arccos(extrema)), sign)]
        near = np.abs(points.ravel()[:, None] - expected[None, :]).min(axis=0)
        assert np.all(near < 1e-2)  # every extremum of that sign carries an index point
    # the dual measure: ∂/∂z of the Lagrangian is 1 − Σ multipliers
    np.testing.assert_allclose(sum(m.sum() for m in res.multipliers), 1.0, rtol=1e-6)
    assert res.max_violation <= 1e-6 * max(res.scales)
    assert res.upper_bound <= 1e-6


@pytest.mark.parametrize("n", [4, 6, 11])
def test_defaults_reach_chebyshev_to_the_last_digits(n):
    """With nothing set (the dense oracle, then the local reduction), the best uniform
    approximation of t^n reaches Chebyshev's 2^(1−n) to 1e-8 relative, its n + 1 extrema
    carry the index points, and the largest violation on an independent grid of 10⁵ + 1
    points is at most 1e-7 of the optimum; the certificate (interval arithmetic on g, the
    relaxation at the extrema) proves it."""
    program, c, z = chebyshev_program(lambda u: u ** n, n)
    res = program.solve()
    assert res.status == "certified_optimal" and res.success
    assert res.reduction is not None and res.reduction["converged"]
    assert res.violation_proved and res.upper_bound <= res.cut
    np.testing.assert_allclose(res.objective, 2.0 ** (1 - n), rtol=1e-8)
    # the relaxation at the extrema: below Chebyshev's value, to the solver's accuracy
    assert 2.0 ** (1 - n) * (1 - 1e-8) <= res.lower_bound <= 2.0 ** (1 - n) * (1 + 1e-10)
    # the dual measure: ∂/∂z of the Lagrangian is 1 − Σ multipliers
    np.testing.assert_allclose(sum(m.sum() for m in res.multipliers), 1.0, rtol=1e-6)
    u = np.linspace(-1.0, 1.0, 100_001)
    error = np.abs(np.vander(u, n, increasing=True) @ c.value - u ** n) - z.value
    assert error.max() <= 1e-7 * z.value
    extrema = np.cos(np.arange(n + 1) * np.pi / n)
    found = np.concatenate([p.ravel() for p in res.points])
    assert np.abs(found[:, None] - extrema[None, :]).min(axis=0).max() < 1e-6


def test_the_reduction_converges_quadratically_and_in_any_units():
    """The one-sided L1 approximation of tan on [0, 1] by n = 3 coefficients (TFI2): its
    interior active point moves with x, where the exchange method converges linearly. From
    an exchange run stopped early (tol = 1e-3) the reduction's steps |Δf|/σ_f fall
    quadratically, to the Gauss–Radau closed form within 1e-10; the same with t in other
    units and g, f multiplied."""
    from sipkl.sip.library.convex import upper_quadrature
    nodes, weights = upper_quadrature(3)
    optimum = weights @ np.tan(nodes)
    runs = []
    for t_scale, g_scale, f_scale in [(1.0, 1.0, 1.0), (1e3, 1e-3, 1e6)]:
        c = cp.Variable(3)

        def g(c, t):
            u = t[:, 0] / t_scale
            return g_scale * (np.tan(u) - np.vander(u, 3, increasing=True) @ c)
        program = SemiInfiniteProgram(cp.Minimize(f_scale * (1.0 / np.arange(1, 4)) @ c), [
            SemiInfiniteConstraint(g, c, Box([0.0], [t_scale]), vectorized=True)])
        runs.append(program.solve(tol=1e-3, certify=False))
    for res, f_scale in zip(runs, (1.0, 1e6)):
        assert res.success and res.reduction["converged"]
        assert abs(res.lower_bound / f_scale - optimum) > 1e-4 * optimum  # stopped early
        np.testing.assert_allclose(res.objective / f_scale, optimum, rtol=1e-10)
        steps = res.reduction["steps"]
        assert len(steps) >= 2 and steps[0] > 1e-8
        # quadratic down to the solvers' round-off (the rounds solve to 1e-10)
        assert all(b <= max(1e3 * a ** 2, 1e-9) for a, b in zip(steps, steps[1:]))
    assert runs[1].nit == runs[0].nit and runs[1].reduction["nit"] == runs[0].reduction["nit"]


def test_the_dense_oracle_finds_the_largest_extremum():
    """Chebyshev approximation of e^u·sin(3u) on [−1, 1] by a degree-4 polynomial, whose
    error curve has several extrema of near size: the default run's error equioscillates.
    By de la Vallée Poussin's theorem, an error alternating in sign at n + 1 points where
    it is at least m in size gives m ≤ E* ≤ max|error|: both measured on an independent grid
    of 2·10⁵ + 1 points, they bracket the optimum E* to 1e-8, and so does the objective."""
    f = lambda u: np.exp(u) * np.sin(3.0 * u)  # noqa: E731
    n = 5
    program, c, z = chebyshev_program(f, n)
    res = program.solve()
    assert res.success
    u = np.linspace(-1.0, 1.0, 200_001)
    error = np.vander(u, n, increasing=True) @ c.value - f(u)
    largest = np.abs(error).max()
    big = np.flatnonzero(np.abs(error) > 0.5 * largest)
    runs = np.split(big, np.flatnonzero(np.diff(np.sign(error[big])) != 0) + 1)
    assert len(runs) >= n + 1  # alternation at n + 1 points at least
    smallest = min(np.abs(error[r]).max() for r in runs)
    assert largest - smallest <= 1e-8 * largest
    assert abs(res.objective - largest) <= 1e-8 * largest


@pytest.mark.parametrize("units", [(1.0, 1.0, 1.0), (1e3, 1e-3, 1e6)])
def test_the_bracket_holds_the_optimum_and_its_point_is_feasible(units):
    """With the Lipschitz oracle, the one-sided approximation of tan by n = 3 coefficients
    gets a bracket [relaxation, f(x̄)] that holds the Gauss–Radau closed form, is at most
    1e-5 of it wide, and whose point x̄ is feasible on an independent grid of 10⁵ + 1
    points; the same in other units of t, g and f."""
    from sipkl.sip.library.convex import upper_quadrature
    t_scale, g_scale, f_scale = units
    nodes, weights = upper_quadrature(3)
    optimum = f_scale * weights @ np.tan(nodes)
    c = cp.Variable(3, name="c")

    def g(c, t):
        u = t[:, 0] / t_scale
        return g_scale * (np.tan(u) - np.vander(u, 3, increasing=True) @ c)
    program = SemiInfiniteProgram(cp.Minimize(f_scale * (1.0 / np.arange(1, 4)) @ c), [
        SemiInfiniteConstraint(g, c, Box([0.0], [t_scale]), vectorized=True)])
    L = lambda c: g_scale * (1.0 / np.cos(1.0) ** 2 + abs(c[1]) + 2 * abs(c[2])) / t_scale  # noqa: E731
    res = program.solve(lipschitz=L)
    assert res.status == "certified_optimal" and res.bracket is not None
    low, high = res.bracket["lower"], res.bracket["upper"]
    assert low <= optimum <= high and high - low <= 1e-5 * optimum
    x = res.bracket["x"]["c"]
    u = np.linspace(0.0, 1.0, 100_001)
    assert np.max(np.tan(u) - np.vander(u, 3, increasing=True) @ x) <= 0.0
    np.testing.assert_allclose(f_scale * (1.0 / np.arange(1, 4)) @ x, high, rtol=1e-12)
    np.testing.assert_allclose(res.objective, c.value @ (f_scale / np.arange(1, 4)),
                               rtol=1e-12)  # the variables keep the result's values


def test_a_bracket_needs_a_proof():
    # a g that interval arithmetic cannot evaluate (it converts t to numbers): no proof
    program, _, _ = chebyshev_program(lambda u: np.exp(np.asarray(u)), 3)
    default = program.solve()
    assert default.status == "converged_local" and default.bracket is None
    asked = program.solve(bracket=True)
    assert asked.bracket is None and "no feasible point was proved" in asked.message
    x = cp.Variable(2)  # a set beyond a box: no branch and bound
    ball = SemiInfiniteProgram(cp.Minimize(x[0] + x[1]), SemiInfiniteConstraint(
        lambda x, t: np.exp(t[:, 0]) + t[:, 1] ** 2 - x[0] - x[1] * t[:, 0], x,
        Ball([0.0, 0.0], 1.0), vectorized=True))
    with pytest.raises(ValueError, match="bracket"):
        ball.solve(bracket=True)


def test_certified_only_with_a_proof():
    f = np.exp
    program, _, _ = chebyshev_program(f, 4)
    local = program.solve("ipopt", random_state=0, certify=False)
    assert local.status == "converged_local" and local.upper_bound is None
    box_grid = program.solve("grid", certify=False)
    assert box_grid.status == "converged_local"  # a grid of a box proves nothing between points
    u = np.linspace(-1.0, 1.0, 201)
    finite, _, _ = chebyshev_program(f, 4, T=FiniteSet(u[:, None]))
    exact = finite.solve("grid")
    assert exact.status == "certified_optimal"  # enumeration of a finite set is a proof
    reference, _ = linprog_chebyshev(f, 4, u)
    np.testing.assert_allclose(exact.objective, reference, rtol=1e-7)
    certified = program.solve(lipschitz=lipschitz_of(np.e, 4))
    assert certified.status == "certified_optimal"
    fine, _ = linprog_chebyshev(f, 4, np.linspace(-1.0, 1.0, 20001))
    for res in (local, box_grid, certified):
        # a solution violates by at most tol·s_j: its error is within that of the minimax
        assert abs(res.objective - fine) <= 1e-6 * max(res.scales) + 1e-7 * fine


# -- 2. a two-dimensional index set -----------------------------------------------------
def test_two_dimensional_index_set_against_a_fine_grid_by_linprog():
    """Uniform approximation of 1/(1 + t1² + 2 t2²) on [0, 1]² by quadratics in (t1, t2)."""
    basis = lambda t: np.column_stack([np.ones(len(t)), t[:, 0], t[:, 1], t[:, 0] * t[:, 1],
                                       t[:, 0] ** 2, t[:, 1] ** 2])
    target = lambda t: 1.0 / (1.0 + t[:, 0] ** 2 + 2.0 * t[:, 1] ** 2)
    a, z = cp.Variable(6), cp.Variable()
    T = Box([0.0, 0.0], [1.0, 1.0])
    program = SemiInfiniteProgram(cp.Minimize(z), [
        SemiInfiniteConstraint(lambda a, t: basis(t) @ a - target(t) - z, a, T, vectorized=True),
        SemiInfiniteConstraint(lambda a, t: target(t) - basis(t) @ a - z, a, T, vectorized=True)])
    res = program.solve("ipopt", random_state=0)
    assert res.status == "certified_optimal"  # the local search, then interval arithmetic
    assert all(p.shape[1] == 2 for p in res.points)
    grid = T.tensor_grid(201)
    B, y, ones = basis(grid), target(grid), np.ones((len(grid), 1))
    lp = linprog(np.r_[np.zeros(6), 1.0], A_ub=np.block([[B, -ones], [-B, -ones]]),
                 b_ub=np.r_[y, -y], bounds=[(None, None)] * 7, method="highs")
    slack = 1e-6 * max(res.scales)  # violations up to tol·s_j are allowed
    # the grid is a relaxation of the SIP: its value is lower, and close for a fine grid
    assert lp.fun <= res.objective + slack
    np.testing.assert_allclose(res.objective, lp.fun, rtol=1e-4)
    # the SIP's solution holds on the fine grid, to the tolerance
    assert np.abs(B @ a.value - y).max() <= res.objective + slack


def test_solve_discretized_is_the_master_on_a_fixed_grid():
    program, c, _ = chebyshev_program(np.exp, 4)
    res = program.solve_discretized(n_points=51)
    assert res.status == "fixed_columns" and res.nit == 1
    reference, coefficients = linprog_chebyshev(np.exp, 4, np.linspace(-1.0, 1.0, 51))
    np.testing.assert_allclose(res.objective, reference, rtol=1e-7)
    np.testing.assert_allclose(c.value, coefficients, atol=1e-6)
    assert len(program.discretize(51)) == 2 * 51
    # between the grid points the constraints may fail: measured on the refined grid
    u = np.linspace(-1.0, 1.0, 101)
    refined = np.abs(np.vander(u, 4, increasing=True) @ c.value - np.exp(u)).max()
    np.testing.assert_allclose(res.max_violation, refined - res.objective, rtol=1e-6)


def test_the_scale_of_a_variable_times_one_index_point():
    """g = e^t − x₀ − x₁·t, vectorized, at a single index point (t a one-element array, as
    after pruning): its scale Σ|terms| = e^t + |x₀| + |x₁·t|, computed by hand."""
    x = cp.Variable(2)
    sic = SemiInfiniteConstraint(lambda x, t: np.exp(t[:, 0]) - x[0] - x[1] * t[:, 0], x,
                                 Box([0.0], [1.0]), vectorized=True)
    x.value = np.array([-2.0, 3.0])
    t = np.array([[0.5]])
    scale = sic.magnitudes(sic.expressions(t))
    np.testing.assert_allclose(scale, [np.exp(0.5) + 2.0 + 1.5])


@pytest.mark.parametrize("oracle", ["ipopt", "grid"])
def test_dropping_points_only_after_an_increase_converges_where_every_round_cycles(oracle):
    """min z s.t. |e^t − x₀ − x₁t| ≤ z on [0, 1] from one index point per side: the first
    master's optimum is z = 0 (to round-off), which must not become the objective's scale
    (dividing by 1e-16 made the next master "unbounded"). Each new point then lies on one side
    only, so dropping the inactive points after every solve (``prune=True``) lets the line
    tilt back and forth to the iteration limit; the default drops them only after the master's
    value increased (Hettich & Kortanek's exchange method) and, like ``prune=False`` (every
    point kept: Kelley's cutting planes), reaches the best line's closed-form error
    (2 − e + m ln m)/2, m = e − 1."""
    x, z = cp.Variable(2), cp.Variable()
    T = Box([0.0], [1.0])
    program = SemiInfiniteProgram(cp.Minimize(z), [
        SemiInfiniteConstraint(lambda x, t: np.exp(t[:, 0]) - x[0] - x[1] * t[:, 0] - z, x, T,
                               vectorized=True),
        SemiInfiniteConstraint(lambda x, t: x[0] + x[1] * t[:, 0] - np.exp(t[:, 0]) - z, x, T,
                               vectorized=True)])
    start = [np.array([[0.5]]), np.array([[0.5]])]
    m = np.e - 1.0
    for prune in ("increase", False):
        res = program.solve(oracle, initial_points=start, prune=prune, random_state=0)
        assert res.success, res.message
        np.testing.assert_allclose(res.objective, (2.0 - np.e + m * np.log(m)) / 2.0,
                                   rtol=1e-5)
    cycling = program.solve(oracle, initial_points=start, prune=True, max_iter=30,
                            random_state=0)
    if oracle == "ipopt":
        assert cycling.status == "iteration_limit"
    else:  # the grid's maxima refined by Newton steps: both extrema of each round move
        assert cycling.success, cycling.message
        np.testing.assert_allclose(cycling.objective, (2.0 - np.e + m * np.log(m)) / 2.0,
                                   rtol=1e-5)


def test_drop_rule_needs_an_increase_relative_to_the_objective_scale():
    """DropAfterIncrease against its definition, written out: True at the first solve, then
    only after an increase of more than rtol·σ_f since the last True (a decrease for a
    maximization); the same answers with f and σ_f multiplied by 1000."""
    from sipkl.core.contracts import MasterSolution, Status
    from sipkl.sip.masters.drop_rule import DropAfterIncrease
    from sipkl.sip.masters.discretized import DiscretizedModel

    def answers(sense, values, unit):
        rule = DropAfterIncrease(sense, rtol=1e-6)
        return [rule(MasterSolution(weights=np.ones(1), objective=sense * v * unit, price=None,
                                    threshold=0.0, gap=0.0, status=Status.OPTIMAL,
                                    model=DiscretizedModel([], [], 2.0 * unit)))
                for v in values]

    # increases since the last drop: none (first), 1e-6 (≤ 2e-6), 3e-6 (> 2e-6), 1.5e-6, 3e-6
    values = [1.0, 1.0 + 1e-6, 1.0 + 3e-6, 1.0 + 4.5e-6, 1.0 + 6e-6]
    expected = [True, False, True, False, True]
    for sense in (1, -1):
        for unit in (1.0, 1e3):
            assert answers(sense, values, unit) == expected
    with pytest.raises(ValueError, match="sense"):
        DropAfterIncrease(0)
    with pytest.raises(ValueError, match="rtol"):
        DropAfterIncrease(1, rtol=0.0)


# -- 3. scale-free: the same run in other units -----------------------------------------
@pytest.mark.parametrize("oracle", [
    pytest.param("grid", marks=pytest.mark.slow), pytest.param("ipopt", marks=pytest.mark.slow),
    pytest.param("lipschitz", marks=pytest.mark.slow), None])  # 10–13 s each but the default's,
# in `make test-slow`
def test_same_run_in_other_units(oracle):
    runs = []
    for g_scale, t_scale, f_scale in [(1.0, 1.0, 1.0), (1e3, 1.0, 1.0), (1.0, 1e3, 1.0),
                                      (1.0, 1.0, 1e3), (1e-3, 1e3, 1e6)]:
        T = Box([-t_scale], [t_scale])
        program, _, _ = chebyshev_program(np.exp, 4, T, g_scale, t_scale, f_scale)
        lipschitz = lipschitz_of(np.e, 4, g_scale, t_scale) if oracle == "lipschitz" else None
        res = program.solve(oracle, lipschitz=lipschitz, random_state=0)
        runs.append((res, t_scale, f_scale))
    def measure(res, t_scale, g_scale, f_scale):
        """The dual measure per constraint, in the units of the first run: its mass, and its
        peaks — the multiplier-weighted mean of each group of index points closer than 2 % of
        the box (near-duplicate points of one maximum share its multiplier in proportions
        that are the solver's round-off)."""
        measures = []
        for points, multipliers in zip(res.points, res.multipliers):
            order = np.argsort(points.ravel())
            t, m = points.ravel()[order] / t_scale, multipliers[order] * g_scale / f_scale
            keep = m > 1e-3 * m.sum()
            t, w = t[keep], m[keep]
            groups = np.cumsum(np.r_[0, np.diff(t) > 0.04])
            peaks = [np.average(t[groups == k], weights=w[groups == k])
                     for k in range(groups[-1] + 1)] if len(t) else []
            measures.append((m.sum(), np.array(peaks)))
        return measures

    base = runs[0][0]
    assert base.success
    for (res, t_scale, f_scale), g_scale in zip(runs[1:], (1e3, 1.0, 1.0, 1e-3)):
        assert (res.status, res.nit) == (base.status, base.nit)
        np.testing.assert_allclose(res.objective / f_scale, base.objective, rtol=1e-6)
        for (mass, peaks), (mass0, peaks0) in zip(measure(res, t_scale, g_scale, f_scale),
                                                  measure(base, 1.0, 1.0, 1.0)):
            np.testing.assert_allclose(mass, mass0, rtol=1e-5)
            np.testing.assert_allclose(peaks, peaks0, atol=1e-2)


# -- 4. the pricing side against independent numbers ------------------------------------
def test_lipschitz_bound_holds_against_brute_force():
    """The oracle's bound on a 2-D function is above its maximum on a dense grid, and within
    the cut's slack of it."""
    T = Box([-1.0, 0.0], [2.0, 1.0])
    h = lambda x, t: np.sin(3 * t[:, 0]) * np.cos(2 * t[:, 1]) + 0.3 * t[:, 0] * t[:, 1]
    sic = SemiInfiniteConstraint(h, cp.Variable(), T, vectorized=True, name="h")
    lipschitz = np.hypot(3 + 0.3, 2 + 0.6)  # |∂h/∂t1| ≤ 3 + 0.3, |∂h/∂t2| ≤ 2 + 0.6
    problem = IndexPointPricing(sic, ConstraintPrice(None, 1.0), lipschitz)
    brute = h(None, T.tensor_grid(801)).max()
    slack = 1e-3
    for cut in (brute + 0.01, brute - 0.5, brute - 1e-4):  # none, a large, a small violation
        pricing_round = PricingRound([problem], None, [], cut - slack, 3,
                                     np.random.default_rng(0), cut=cut)
        res = LipschitzOracle().price(pricing_round)
        assert brute - 1e-12 <= res.upper_bound
        if cut > brute:
            assert res.upper_bound <= cut  # the proof
        else:  # a violator, at least half the largest violation (or within the slack of it)
            best = res.scores[0]
            assert best > cut and res.upper_bound <= best + max(slack, best - cut)
            assert best <= res.upper_bound


@pytest.mark.parametrize("t_scale", [1.0, 1e3])
def test_ipopt_oracle_moves_an_index_point_to_a_close_violator(t_scale):
    """h(t) = 10⁻⁸ − (t/w − 0.3)² on [−w, w] with the index point t₀ = (0.3 + 2·10⁻⁴)·w,
    closer to the maximizer 0.3·w than 10⁻³ of the box's width: h(t₀) = −3·10⁻⁸ is no
    violation, h(0.3·w) = 10⁻⁸ is one above the cut 10⁻⁹. The oracle returns the maximizer
    (closed form); with the cut above the maximum it returns no point near t₀."""
    T = Box([-t_scale], [t_scale])
    h = lambda x, t: 1e-8 - (t[:, 0] / t_scale - 0.3) ** 2
    dh = lambda x, t: -2.0 * (t / t_scale - 0.3) / t_scale
    sic = SemiInfiniteConstraint(h, cp.Variable(), T, grad_t=dh, vectorized=True, name="h")
    problem = IndexPointPricing(sic, ConstraintPrice(None, 1.0))
    current = [problem.column([(0.3 + 2e-4) * t_scale])]
    for cut in (1e-9, 2e-8):
        pricing_round = PricingRound([problem], None, current, 0.0, 3,
                                     np.random.default_rng(0), cut=cut)
        res = MultiStartOracle().price(pricing_round)
        near = [(c.theta[0] / t_scale, s) for c, s in zip(res.columns, res.scores)
                if abs(c.theta[0] / t_scale - 0.3) < 1e-3]
        if cut < 1e-8:
            assert len(near) == 1 and near[0][1] > cut
            np.testing.assert_allclose(near[0][0], 0.3, atol=1e-6)
        else:
            assert near == []


def test_finite_difference_gradient_against_the_derivative():
    T = Box([0.0, -1.0], [2.0, 1.0])
    g = lambda x, t: np.exp(t[:, 0]) * np.sin(t[:, 1]) + t[:, 0] ** 3
    sic = SemiInfiniteConstraint(g, cp.Variable(), T, vectorized=True, name="g")
    problem = IndexPointPricing(sic, ConstraintPrice(None, 2.0))
    t = np.array([[0.3, 0.2], [2.0, -1.0], [1.1, 0.9]])  # interior and a corner
    values, grads = problem.values_and_grads(t)
    exact = np.column_stack([np.exp(t[:, 0]) * np.sin(t[:, 1]) + 3 * t[:, 0] ** 2,
                             np.exp(t[:, 0]) * np.cos(t[:, 1])]) / 2.0
    np.testing.assert_allclose(values, g(None, t) / 2.0)
    np.testing.assert_allclose(grads, exact, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("t_scale", [1.0, 1e3])
def test_hessians_from_the_stated_gradient_against_the_second_derivatives(t_scale):
    """h(u) = e^u₁ sin u₂ + u₁³ at u = t / t_scale: the Hessians by differences of the stated
    gradient against the closed form (divided by t_scale², and by the scale 2 of the price):
    central differences inside the box, one-sided at a corner; on a subset of coordinates."""
    T = Box([0.0, -t_scale], [2.0 * t_scale, t_scale])
    h = lambda x, t: np.exp(t[:, 0] / t_scale) * np.sin(t[:, 1] / t_scale) \
        + (t[:, 0] / t_scale) ** 3
    dh = lambda x, t: np.column_stack([
        np.exp(t[:, 0] / t_scale) * np.sin(t[:, 1] / t_scale) + 3 * (t[:, 0] / t_scale) ** 2,
        np.exp(t[:, 0] / t_scale) * np.cos(t[:, 1] / t_scale)]) / t_scale
    problem = IndexPointPricing(
        SemiInfiniteConstraint(h, cp.Variable(), T, grad_t=dh, vectorized=True, name="h"),
        ConstraintPrice(None, 2.0))
    u = np.array([[0.3, 0.2], [1.1, 0.9], [2.0, -1.0]])  # interior, interior, a corner
    a, b = u[:, 0], u[:, 1]
    exact = np.stack([np.column_stack([np.exp(a) * np.sin(b) + 6 * a, np.exp(a) * np.cos(b)]),
                      np.column_stack([np.exp(a) * np.cos(b), -np.exp(a) * np.sin(b)])],
                     axis=1) / (2.0 * t_scale**2)
    hessians = problem.hessian_batch()
    H = hessians(u * t_scale, np.arange(2))
    error = np.abs(H - exact).max(axis=(1, 2)) / np.abs(exact).max(axis=(1, 2))
    assert np.all(error[:2] <= 1e-8) and error[2] <= 1e-4, error
    subset = hessians(u[:2] * t_scale, np.array([1]))
    assert subset.shape == (2, 1, 1)
    np.testing.assert_allclose(subset, exact[:2, 1:, 1:], rtol=1e-8)
    without = IndexPointPricing(SemiInfiniteConstraint(h, cp.Variable(), T, vectorized=True),
                                ConstraintPrice(None, 2.0))
    assert without.hessian_batch() is None


def test_scalar_g_and_closed_over_variables_give_the_vectorized_run():
    """A scalar g (t of shape (p,)) closing over z, with its gradient given: the same run."""
    c, z = cp.Variable(4), cp.Variable()
    T = Box([-1.0], [1.0])
    e = lambda c, t: sum(c[k] * t[0] ** k for k in range(4)) - np.exp(t[0])
    de = lambda c, t: np.array([sum(k * c[k] * t[0] ** (k - 1) for k in range(1, 4))
                                - np.exp(t[0])])
    scalar = SemiInfiniteProgram(cp.Minimize(z), [
        SemiInfiniteConstraint(lambda c, t: e(c, t) - z, c, T, grad_t=de),
        SemiInfiniteConstraint(lambda c, t: -e(c, t) - z, c, T, grad_t=lambda c, t: -de(c, t))])
    vectorized, _, _ = chebyshev_program(np.exp, 4)
    # without the bracket: its proofs of a scalar g evaluate one cell per call (11 s here);
    # the certificate alone shows that interval arithmetic follows either g
    a = scalar.solve("ipopt", random_state=0, bracket=False)
    b = vectorized.solve("ipopt", random_state=0, bracket=False)
    assert a.status == b.status == "certified_optimal"  # interval arithmetic on either g
    # both are solutions to tol·s_j (s_j: the magnitude of the terms each g sums)
    assert abs(a.objective - b.objective) <= 1e-6 * (max(a.scales) + max(b.scales))


# -- 5. statuses of a master that has no solution ---------------------------------------
def test_infeasible_and_unbounded_programs_are_statuses():
    x = cp.Variable(name="x")
    T = Box([0.0], [1.0])
    infeasible = SemiInfiniteProgram(cp.Minimize(x), SemiInfiniteConstraint(
        lambda x, t: 1.0 + t[0] - x, x, T), [x <= 0.5]).solve("grid")
    assert infeasible.status == "infeasible" and not infeasible.success
    assert "on their own: g0 with the finite constraints" in infeasible.message
    # the finite constraints alone are at fault
    alone = SemiInfiniteProgram(cp.Minimize(x), SemiInfiniteConstraint(
        lambda x, t: t[0] - x, x, T), [x <= 0.0, x >= 1.0]).solve()
    assert alone.status == "infeasible"
    assert "on their own: the finite constraints" in alone.message
    # feasible over the first index points, infeasible once pricing adds t = 1
    later = SemiInfiniteProgram(cp.Maximize(x), SemiInfiniteConstraint(
        lambda x, t: 10.0 * (t[0] - 0.9) - x, x, T), [x <= 0.0]).solve("grid")
    assert later.status == "infeasible" and later.nit == 2 and abs(later.objective) < 1e-9
    assert "iteration 1" in later.message
    # x·t ≤ 1 on [0, 1] holds for every x ≤ 0: min x is unbounded along x = −1
    unbounded = SemiInfiniteProgram(cp.Minimize(x), SemiInfiniteConstraint(
        lambda x, t: x * t[0] - 1.0, x, T)).solve()
    assert unbounded.status == "unbounded" and not unbounded.success
    assert "direction: x = -1.0" in unbounded.message


def test_a_program_proved_infeasible_is_not_called_unbounded():
    """min x s.t. 1 + t − y ≤ 0 on [0, 1], y ≤ 0.5: no feasible point (y ≥ 1 + t > 0.5), and x,
    in no constraint, has no lower bound, so that a first-order solver (SCS) calls the masters
    unbounded where the interior-point ones prove them infeasible: the run ends infeasible."""
    x, y = cp.Variable(name="x"), cp.Variable(name="y")
    result = SemiInfiniteProgram(cp.Minimize(x), SemiInfiniteConstraint(
        lambda y, t: 1.0 + t[0] - y, y, Box([0.0], [1.0])), [y <= 0.5]).solve()
    assert result.status == "infeasible" and not result.success
    assert "infeasible on their own: g0 with the finite constraints" in result.message
    assert not any(a.status == "unbounded" for _, a in result.attempts)


@pytest.mark.slow
def test_an_unbounded_program_whose_masters_are_constant_in_x_ends_unbounded():
    """g(x, t) = 0·x + ‖t‖² − 2 ≤ 0 holds on the unit disc and on the square [−1, 1]² whatever
    x: min x is unbounded along x = −1. No master constrains x — the input on which ECOS's
    setup raises, or kills the interpreter (SIGSEGV, SIGABRT): run in a subprocess."""
    code = textwrap.dedent("""
        import cvxpy as cp
        from sipkl.sip import Ball, Box, SemiInfiniteConstraint, SemiInfiniteProgram
        x = cp.Variable(name="x")
        for T in (Ball([0.0, 0.0], 1.0), Box([-1.0, -1.0], [1.0, 1.0])):
            g = SemiInfiniteConstraint(lambda x, t: 0 * x + t @ t - 2.0, x, T)
            result = SemiInfiniteProgram(cp.Minimize(x), g).solve()
            print(result.status.value, result.message.split("; ")[-1])
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == ["unbounded direction: x = -1.0"] * 2


def test_an_unbounded_later_master_is_not_an_unbounded_program(monkeypatch):
    """A later master has the constraints of a bounded one but dropped points of multiplier
    0: if the solver calls it unbounded, that is round-off, and the run ends master_failed
    saying so, not unbounded."""
    from sipkl.core.contracts import MasterSolution
    from sipkl.solvers import Status
    program, _, _ = chebyshev_program(np.exp, 3)
    solve, calls = program.master.solve, []

    def failing_later(columns, warm_start=None):
        calls.append(len(columns))
        if len(calls) == 3:
            return MasterSolution.failed(len(columns), Status.UNBOUNDED, [])
        return solve(columns, warm_start)
    monkeypatch.setattr(program.master, "solve", failing_later)
    res = program.solve()
    assert res.status == "master_failed" and "round-off" in res.message


def test_the_first_master_is_bounded_by_default():
    """A polynomial may dive between the n + 1 default points: the one-sided L1
    approximation of tan on [0, 1] by degree 5 (TFI2 with n = 6) reaches the Gauss–Lobatto
    quadrature of tan (the closed form) from ``solve()`` with nothing set."""
    from sipkl.sip.library.convex import upper_quadrature
    c = cp.Variable(6)
    T = Box([0.0], [1.0])
    program = SemiInfiniteProgram(cp.Minimize((1.0 / np.arange(1, 7)) @ c), [
        SemiInfiniteConstraint(lambda c, t: np.tan(t[:, 0]) - np.vander(t[:, 0], 6, True) @ c,
                               c, T, vectorized=True)])
    result = program.solve()
    nodes, weights = upper_quadrature(6)
    assert result.success, result.message
    assert result.objective == pytest.approx(weights @ np.tan(nodes), rel=1e-6)


def test_callback_receives_results_and_may_stop():
    program, _, _ = chebyshev_program(np.exp, 4)
    seen = []

    def stop_after_two(intermediate):
        seen.append(intermediate)
        if len(seen) == 2:
            raise StopIteration

    res = program.solve("grid", callback=stop_after_two)
    assert res.status == "callback" and not res.success and len(seen) == 2
    assert seen[0].status == "running" and len(seen[0].points) == 2


def test_a_run_resumed_from_its_checkpoint_is_the_uninterrupted_run(tmp_path):
    """Stopped after five rounds and resumed from its checkpoint, a run with random starts
    (the IPOPT oracle) and the exchange method's drop rule ends exactly where the run that
    was never stopped ends: the same rounds, index points, multipliers and x, bit for bit."""
    from sipkl.sip.library.convex import PROBLEMS
    problem = PROBLEMS["ball_linear"]

    def solve(**options):
        return problem.build().solve(random_state=3, initial_points=problem.initial_points(),
                                     **options)

    def stop_after_five(intermediate):
        if intermediate.nit == 5:
            raise StopIteration

    full = solve()
    assert full.nit > 8
    path = tmp_path / "sip.json"
    stopped = solve(checkpoint=path, callback=stop_after_five)
    assert stopped.status == "callback" and stopped.nit == 5
    resumed = solve(resume=path)
    assert (resumed.status, resumed.nit) == (full.status, full.nit)
    assert resumed.objective == full.objective
    for key in ("objective", "best_price", "n_columns", "gap"):
        assert resumed.history[key] == full.history[key], key
    for a, b in zip(resumed.points + resumed.multipliers + list(resumed.x.values()),
                    full.points + full.multipliers + list(full.x.values())):
        np.testing.assert_array_equal(a, b)


def test_a_checkpoint_resumes_its_own_program_only(tmp_path):
    """A checkpoint records what identifies its program: a program whose constraints have
    the same names but that has one more variable, or an index set of another dimension,
    refuses it, as the program itself refuses a damaged master state, naming the file."""
    path = tmp_path / "sip.json"
    named = f"checkpoint {re.escape(str(path))}"

    def stop_after_two(intermediate):
        if intermediate.nit == 2:
            raise StopIteration
    program, _, _ = chebyshev_program(np.exp, 3)
    assert program.solve(checkpoint=path, callback=stop_after_two).status == "callback"
    for other in (chebyshev_program(np.exp, 4)[0],
                  chebyshev_program(np.exp, 3, T=Box([-1.0, -1.0], [1.0, 1.0]))[0]):
        with pytest.raises(ValueError, match=f"{named} belongs to another program"):
            other.solve(resume=path)
    data = json.loads(path.read_text())
    for role, state in (("master", {**data["states"]["master"], "scales": [1.0]}),  # of 2
                        ("prune", {"last": "a word"})):
        path.write_text(json.dumps({**data, "states": {**data["states"], role: state}}))
        with pytest.raises(ValueError, match=f"{named}: the {role}'s state is damaged"):
            program.solve(resume=path)


# -- 6. bad input -----------------------------------------------------------------------
x = cp.Variable(2)
BOX = Box([-1.0], [1.0])
good = SemiInfiniteConstraint(lambda x, t: x[0] * t[0] - x[1], x, BOX, name="good")


def _program(g, vectorized=False, name="bad"):
    return SemiInfiniteProgram(cp.Minimize(x[1]), SemiInfiniteConstraint(
        g, x, BOX, vectorized=vectorized, name=name), [x[0] >= -1, x[0] <= 1])


BAD = [
    (lambda: Box([1.0], [0.0]), ValueError, "lower"),
    (lambda: Box([0.0, 0.0], [1.0]), ValueError, "same length"),
    (lambda: Box([np.nan], [1.0]), ValueError, "lower"),
    (lambda: Box("ab", [1.0]), TypeError, "lower"),
    (lambda: FiniteSet(np.empty((0, 2))), ValueError, "points"),
    (lambda: SemiInfiniteConstraint("g", x, BOX), TypeError, "g must"),
    (lambda: SemiInfiniteConstraint(lambda x, t: x[0], np.ones(2), BOX), TypeError, "x must"),
    (lambda: SemiInfiniteConstraint(lambda x, t: x[0], x, (-1, 1)), TypeError, "T must"),
    (lambda: SemiInfiniteProgram(x[0], good), TypeError, "objective"),
    (lambda: SemiInfiniteProgram(cp.Minimize(x[1]), [good, good]), ValueError, "distinct"),
    (lambda: SemiInfiniteProgram(cp.Minimize(x[1]), good, [x[0]]), TypeError, "constraints"),
    # g not convex in x for a fixed t: named
    (lambda: _program(lambda x, t: -cp.square(x[0]) - x[1]), ValueError, "'bad'.*convex"),
    # wrong shapes: named
    (lambda: _program(lambda x, t: x * t[0]), ValueError, "'bad'.*one value"),
    (lambda: _program(lambda x, t: cp.hstack([x[0], x[1]]), vectorized=True), ValueError,
     "'bad'.*one value"),
    (lambda: _program(lambda x, t: x[0] * t[:, 0] - x[1] if len(t) == 1 else np.zeros(len(t) + 1),
                      vectorized=True).solve("grid"), ValueError, "'bad'.*values"),
    # NaN in pricing (the master's points are fine; the grid reaches t > 0.5): named
    (lambda: _program(lambda x, t: x[0] * t[0] - x[1] + (np.nan if t[0] > 0.5 else 0.0))
     .solve("grid"), ValueError, "'bad'.*nan"),
    # NaN at the master's own index points (sqrt of t < 0), scalar and vectorized: named,
    # with the point, rather than a conic solver's failure
    (lambda: _program(lambda x, t: x[0] * np.sqrt(t[0]) - x[1]).solve(), ValueError,
     r"'bad'.*non-finite.*t = \[-"),
    (lambda: _program(lambda x, t: x[0] * np.sqrt(t[:, 0]) - x[1], vectorized=True).solve(),
     ValueError, r"'bad'.*non-finite.*t = \[-"),
    (lambda: _program(lambda x, t: x[0] * t[0] - x[1]).solve(max_iter=0), ValueError,
     "max_iter"),
    (lambda: _program(lambda x, t: x[0] * t[0] - x[1]).solve(initial_points=[np.zeros((3, 2))]),
     ValueError, r"initial_points.*\(m, 1\).*\(3, 2\)"),
    (lambda: _program(lambda x, t: x[0] * t[0] - x[1]).solve("nope"), ValueError, "oracle"),
    (lambda: _program(lambda x, t: x[0] * t[0] - x[1]).solve(n_price=0), ValueError, "n_price"),
    (lambda: _program(lambda x, t: x[0] * t[0] - x[1]).solve(n_price=2.5), ValueError,
     "n_price"),
    (lambda: _program(lambda x, t: x[0] * t[0] - x[1]).solve(object()), TypeError, "oracle"),
    (lambda: _program(lambda x, t: x[0] * t[0] - x[1]).solve("lipschitz"), ValueError,
     "lipschitz"),
    (lambda: _program(lambda x, t: x[0] * t[0] - x[1]).solve(tol=-1.0), ValueError, "tol"),
    (lambda: _program(lambda x, t: x[0] * t[0] - x[1]).solve(prune="sometimes"), ValueError,
     "prune"),
    (lambda: _program(lambda x, t: x[0] * t[0] - x[1]).solve(lipschitz=-1.0), ValueError,
     "lipschitz"),
    (lambda: _program(lambda x, t: x[0] * t[0] - x[1]).solve(lipschitz={"other": 1.0}),
     ValueError, "lipschitz"),
    (lambda: _program(lambda x, t: x[0] * t[0] - x[1]).solve(initial_points=[[[2.0]]]),
     ValueError, "initial_points"),
    (lambda: _program(lambda x, t: x[0] * t[0] - x[1]).solve_discretized(1), ValueError,
     "n_points"),
]


@pytest.mark.parametrize("call, error, match", BAD)
def test_bad_input_is_a_clear_error(call, error, match):
    with pytest.raises(error, match=match):
        call()


# -- 7. kernel learning in this layer ---------------------------------------------------
@pytest.mark.slow
def test_ikl_as_a_semi_infinite_program_reaches_ikl_classifier():
    spec = importlib.util.spec_from_file_location("ikl_as_sip", ROOT / "examples" /
                                                  "ikl_as_sip.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = module.main(["--quick"])
    sip, ikl = out["sip"], out["ikl"]
    assert sip.success and ikl.status == "certified_optimal"
    np.testing.assert_allclose(sip.objective, ikl.objective, rtol=1e-4)
    # the multipliers are the kernel weights: they sum to 1 (the multiplier of λ)
    np.testing.assert_allclose(sip.multipliers[0].sum(), 1.0, rtol=1e-6)
    source = (ROOT / "examples" / "ikl_as_sip.py").read_text().splitlines()
    start = source.index("def ikl_sip(X, y, C: float, s_max: float) -> SemiInfiniteProgram:")
    end = source.index("def main(argv=None) -> dict:")
    assert len([line for line in source[start:end] if line.strip()]) <= 30
