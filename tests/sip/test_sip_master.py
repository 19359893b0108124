"""The restricted master of a semi-infinite program (sipkl.sip.masters.discretized.DiscretizedMaster): the
problem of a run's first pair of solves, built once with the scales as cvxpy parameters.

Every number is checked against something the master does not produce: SciPy's linprog
(HiGHS) and a cvxpy problem written here, the same master in other units, and the master
that builds every problem anew (``reuse_first = False``).
"""
import warnings

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog

from sipkl.core.contracts import Column
from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram
from sipkl.sip.masters.discretized import DiscretizedMaster
from sipkl.sip.library.convex import PROBLEMS

#: two solutions of the same problem, one from the shared problem (the scales' parameters
#: multiply) and one built with constant scales (which divide) or in other units: the data
#: differ in the last bit, the solutions to round-off
RTOL = 1e-9

POINTS = np.linspace(-1.0, 1.0, 9)


def minimax(n=3, f=np.exp, f_scale=1.0, g_scale=1.0, t_scale=1.0):
    """min f_scale·z s.t. ±g_scale·(Σ_k c_k u^k − f(u)) − g_scale·z ≤ 0, u = t/t_scale in
    [−1, 1] (vectorized g), and its variables."""
    c, z = cp.Variable(n), cp.Variable()

    def error(c, t):
        u = t[:, 0] / t_scale
        return g_scale * (np.vander(u, n, increasing=True) @ c - f(u))

    T = Box([-t_scale], [t_scale])
    program = SemiInfiniteProgram(cp.Minimize(f_scale * z), [
        SemiInfiniteConstraint(lambda c, t: error(c, t) - g_scale * z, c, T, vectorized=True),
        SemiInfiniteConstraint(lambda c, t: -error(c, t) - g_scale * z, c, T, vectorized=True)])
    return program, c, z


def columns_of(program, points):
    """The same points as columns of every constraint."""
    return [Column.make(sic.T, t) for sic in program.semi_infinite for t in points]


def value_of(program, solution, variable):
    """The value of ``variable`` in a master solution (the model's values are in the order
    of ``master.variables``)."""
    k = [v.id for v in program.master.variables].index(variable.id)
    return solution.model.values[k]


def highs_minimax(n, f, u):
    """The discrete minimax problem on the points ``u`` by HiGHS: its value, coefficients
    and the multipliers of the constraints (upper ones, then lower ones)."""
    V, ones = np.vander(u, n, increasing=True), np.ones((len(u), 1))
    res = linprog(np.r_[np.zeros(n), 1.0], A_ub=np.block([[V, -ones], [-V, -ones]]),
                  b_ub=np.r_[f(u), -f(u)], bounds=[(None, None)] * (n + 1), method="highs")
    assert res.status == 0
    return res.fun, res.x[:n], -res.ineqlin.marginals


# -- 1. the first pair's solution is the problem's -----------------------------------------
@pytest.mark.parametrize("reuse", [True, False])
def test_the_first_pair_solves_the_discrete_problem(reuse, monkeypatch):
    """The master's first solve over nine points is HiGHS's solution of the same LP: value,
    coefficients and multipliers (the cvxpy duals in the user's units); its prices are
    g(x, t)/s_j."""
    monkeypatch.setattr(DiscretizedMaster, "reuse_first", reuse)
    program, c, z = minimax()
    solution = program.master.solve(columns_of(program, POINTS * 1.0))
    value, coefficients, multipliers = highs_minimax(3, np.exp, POINTS)
    assert solution.objective == pytest.approx(value, rel=1e-7)
    np.testing.assert_allclose(value_of(program, solution, c), coefficients, rtol=1e-6)
    np.testing.assert_allclose(solution.weights, multipliers, atol=1e-7)
    # the prices: g(x, t)/s_j at the points, computed here; σ_f of the next solve: |z|
    V = np.vander(POINTS, 3, increasing=True)
    error = V @ value_of(program, solution, c) - np.exp(POINTS)
    g = np.r_[error, -error] - value_of(program, solution, z)
    scales = np.repeat([p.scale for p in solution.price], len(POINTS))
    np.testing.assert_allclose(solution.column_prices, g / scales, atol=1e-12)
    assert solution.model.objective_scale == pytest.approx(abs(value), rel=1e-7)


@pytest.mark.parametrize("units", [{"f_scale": 1e4}, {"g_scale": 1e-5}, {"t_scale": 1e3},
                                   {"f_scale": 1e-3, "g_scale": 1e6}])
def test_the_first_pair_is_the_same_in_any_units(units):
    """In other units of f, g and t the shared problem's solution is the same one: x the same,
    the objective and the multipliers in the units' ratios, the relative prices equal."""
    base, _, _ = minimax()
    other, _, _ = minimax(**units)
    a = base.master.solve(columns_of(base, POINTS))
    b = other.master.solve(columns_of(other, POINTS * units.get("t_scale", 1.0)))
    f_scale, g_scale = units.get("f_scale", 1.0), units.get("g_scale", 1.0)
    assert b.objective == pytest.approx(f_scale * a.objective, rel=RTOL)
    for u, v in zip(a.model.values, b.model.values):
        np.testing.assert_allclose(v, u, rtol=RTOL, atol=RTOL * np.max(np.abs(u)))
    np.testing.assert_allclose(b.weights, a.weights * f_scale / g_scale, rtol=RTOL,
                               atol=RTOL * np.max(a.weights) * f_scale / g_scale)
    np.testing.assert_allclose(b.column_prices, a.column_prices, atol=RTOL)
    assert [p.scale for p in b.price] == pytest.approx([g_scale * p.scale for p in a.price],
                                                       rel=RTOL)


# -- 2. the shared problem -----------------------------------------------------------------
def test_the_pair_shares_one_compiled_problem_and_solves_alike(monkeypatch):
    """The first pair compiles one problem whose scales are parameters (counted: cvxpy's
    ``Problem.get_problem_data`` runs once for the pair), a later round compiles its own;
    the solution is that of the master building each problem with constant scales, and
    HiGHS's."""
    compiled = []
    original = cp.Problem.get_problem_data

    def counting(problem, *args, **kwargs):
        compiled.append(id(problem))
        return original(problem, *args, **kwargs)
    monkeypatch.setattr(cp.Problem, "get_problem_data", counting)
    program, _, _ = minimax()
    first = program.master.solve(columns_of(program, POINTS))
    assert len(set(compiled)) == 1
    more = np.linspace(-1.0, 1.0, 17)
    later = program.master.solve(columns_of(program, more))  # scales set: a later round
    assert len(set(compiled)) == 2
    assert later.objective == pytest.approx(highs_minimax(3, np.exp, more)[0], rel=1e-7)
    fresh, _, _ = minimax()
    fresh.master.reuse_first = False
    other = fresh.master.solve(columns_of(fresh, POINTS))
    assert other.objective == pytest.approx(first.objective, rel=RTOL)
    np.testing.assert_allclose(other.weights, first.weights, rtol=RTOL,
                               atol=RTOL * first.weights.max())
    for u, v in zip(first.model.values, other.model.values):
        np.testing.assert_allclose(v, u, rtol=RTOL)


def test_parameters_of_the_user_are_read_at_each_solve():
    """A cvxpy Parameter in a finite constraint (DPP with the scales: the shared problem)
    and one in g (a product with the scale's parameter, not DPP: a problem built anew each
    time, without a warning): changing their values between runs changes the solution, which
    is the hand-written cvxpy problem's."""
    def solve_by_hand(bound, shift):
        x = cp.Variable(2)
        problem = cp.Problem(cp.Minimize(x[1] - x[0]), [x[0] <= bound] + [
            x[0] + x[1] * t - shift <= t ** 2 for t in POINTS])
        problem.solve(solver="CLARABEL")
        return problem.value

    bound, shift = cp.Parameter(value=0.5), cp.Parameter(value=0.0)
    x = cp.Variable(2)
    in_constraint = SemiInfiniteProgram(cp.Minimize(x[1] - x[0]), SemiInfiniteConstraint(
        lambda x, t: x[0] + x[1] * t[:, 0] - t[:, 0] ** 2, x, Box([-1.0], [1.0]),
        vectorized=True), [x[0] <= bound])
    y = cp.Variable(2)
    in_g = SemiInfiniteProgram(cp.Minimize(y[1] - y[0]), SemiInfiniteConstraint(
        lambda y, t: y[0] + y[1] * t[:, 0] - shift - t[:, 0] ** 2, y, Box([-1.0], [1.0]),
        vectorized=True), [y[0] <= 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for value in (0.5, -0.25):
            bound.value, shift.value = value, value
            for program, expected in ((in_constraint, solve_by_hand(value, 0.0)),
                                      (in_g, solve_by_hand(0.5, value))):
                program.master.reset()
                solution = program.master.solve(columns_of(program, POINTS))
                assert solution.objective == pytest.approx(expected, rel=1e-7, abs=1e-9)


def test_a_quadratic_objective_in_the_shared_problem():
    """The projection of (2, 1) onto {x : ⟨x, u(t)⟩ ≤ 1 at the points}, u(t) on the unit
    circle (a quadratic objective times the objective's scale parameter): the hand-written
    cvxpy problem's solution, and its multipliers."""
    x = cp.Variable(2)
    angles = np.linspace(0.0, np.pi / 2, 7)
    program = SemiInfiniteProgram(cp.Minimize(cp.sum_squares(x - np.array([2.0, 1.0]))),
                                  SemiInfiniteConstraint(
        lambda x, t: np.column_stack([np.cos(t[:, 0]), np.sin(t[:, 0])]) @ x - 1.0, x,
        Box([0.0], [np.pi / 2]), vectorized=True))
    solution = program.master.solve([Column.make(program.semi_infinite[0].T, a)
                                     for a in angles])
    u = cp.Variable(2)
    constraint = np.column_stack([np.cos(angles), np.sin(angles)]) @ u <= 1.0
    by_hand = cp.Problem(cp.Minimize(cp.sum_squares(u - np.array([2.0, 1.0]))), [constraint])
    by_hand.solve(solver="ECOS")
    assert solution.objective == pytest.approx(by_hand.value, rel=1e-6)
    np.testing.assert_allclose(solution.model.values[0], u.value, rtol=1e-6)
    # the solvers' multipliers agree to their tolerances (about 10⁻⁶ of the largest)
    np.testing.assert_allclose(solution.weights, constraint.dual_value,
                               atol=1e-5 * constraint.dual_value.max())


# -- 3. whole runs: the same rounds as the master that builds every problem ------------------
@pytest.mark.parametrize("name", ["tanaka_tan3", "powell_disc", "disc_projection", "ksip",
                                  "watson8"])
def test_runs_take_the_same_rounds_as_with_problems_built_anew(name, monkeypatch):
    """A default run with the shared problem takes the rounds of the master that builds every
    problem anew (iterations, status, columns per round), to the same objectives (round-off:
    the first scaled solve's data differ in the last bit)."""
    runs = {}
    for reuse in (False, True):
        monkeypatch.setattr(DiscretizedMaster, "reuse_first", reuse)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # cvxpy's "may be inaccurate"
            runs[reuse] = PROBLEMS[name].build().solve()
    old, new = runs[False], runs[True]
    assert (new.nit, new.status, new.history["n_columns"]) == \
        (old.nit, old.status, old.history["n_columns"])
    np.testing.assert_allclose(new.history["objective"], old.history["objective"],
                               rtol=RTOL, atol=0.0)
    assert new.objective == pytest.approx(old.objective, rel=RTOL)
    assert abs(new.objective - PROBLEMS[name].optimum) <= \
        1e-6 * max(1.0, abs(PROBLEMS[name].optimum))
