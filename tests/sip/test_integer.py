"""Integer and boolean variables (sipkl.sip.masters.discretized, the mixed-integer master):
each program against its brute-force enumeration over the integer points, every candidate's
worst case over T in closed form or on a fine grid refined by a bounded scalar search —
independent of the engine's pricing and masters."""
import itertools

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram

T = Box([-1.0], [1.0])
GRID = np.linspace(-1.0, 1.0, 20001)


def err(c, t):
    """(c₀ + c₁t + c₂t²)/4 − eᵗ: quadratics with coefficients on the grid of 1/4."""
    return np.vander(t[:, 0], 3, increasing=True) @ c / 4 - np.exp(t[:, 0])


def worst_error(c) -> float:
    """max_t |err(c, t)| on [−1, 1]: the fine grid's largest, each local maximum refined by
    a bounded scalar search between its neighbours."""
    values = np.abs(err(np.asarray(c, float), GRID[:, None]))
    best = values.max()
    peaks = np.flatnonzero((values[1:-1] >= values[:-2]) & (values[1:-1] >= values[2:])) + 1
    for k in peaks:
        found = minimize_scalar(lambda s: -abs(err(np.asarray(c, float), np.array([[s]]))[0]),
                                bounds=(GRID[k - 1], GRID[k + 1]), method="bounded",
                                options={"xatol": 1e-12})
        best = max(best, -found.fun)
    return float(best)


def enumerated_minimax():
    """The integer c ∈ {0, …, 8}³ of least worst error: every candidate's grid maximum (a
    lower bound on its worst error), the least refined; and the runner-up's grid maximum."""
    candidates = np.array(list(itertools.product(range(9), repeat=3)), float)
    on_grid = np.abs(np.vander(GRID, 3, increasing=True) @ candidates.T / 4
                     - np.exp(GRID)[:, None]).max(0)
    order = np.argsort(on_grid)
    return candidates[order[0]], worst_error(candidates[order[0]]), on_grid[order[1]]


def minimax_program(scale=1.0):
    c, z = cp.Variable(3, integer=True), cp.Variable()
    above = SemiInfiniteConstraint(lambda c, t: scale * (err(c, t) - z), c, T, vectorized=True)
    below = SemiInfiniteConstraint(lambda c, t: scale * (-err(c, t) - z), c, T,
                                   vectorized=True)
    return SemiInfiniteProgram(cp.Minimize(z), [above, below]), c, z


@pytest.mark.roundoff  # the same run (iterations) in other units
@pytest.mark.parametrize("scale", [1.0, 1e3])
def test_a_mixed_integer_minimax_reaches_the_enumerated_optimum(scale):
    """min z s.t. |err(c, t)| ≤ z on [−1, 1], c integer: the enumerated c (whose worst error
    is below every other candidate's lower bound), the bracket around its worst error, the
    status certified (interval arithmetic at the answer, the master's own bound); g in other
    units (×10³): the same run."""
    program, c, z = minimax_program(scale)
    result = program.solve()
    best, value, runner_up = enumerated_minimax()
    assert value < runner_up  # the enumeration's winner is proved
    assert result.status.value == "certified_optimal", result.message
    np.testing.assert_array_equal(c.value, best)
    assert result.bracket["lower"] <= value <= result.bracket["upper"]
    assert result.objective == pytest.approx(value, rel=1e-5)
    assert all(np.isnan(m).all() for m in result.multipliers)
    assert "the master is mixed-integer" in result.message
    reference, _, _ = minimax_program()
    assert result.nit == reference.solve().nit


def test_a_boolean_selection_under_a_semi_infinite_capacity():
    """max v·y s.t. Σ y_i (a_i + b_i sin(2πt + φ_i)) ≤ C for t ∈ [0, 1], y ∈ {0, 1}⁸ (a
    maximization): each subset's largest load in closed form, Σ y_i a_i + |Σ y_i b_i e^(iφ_i)|;
    the best feasible subset of the 256 (slack 0.10, every better one over C by 0.86 or
    more)."""
    rng = np.random.default_rng(3)
    a, b = rng.uniform(1, 2, 8), rng.uniform(0.5, 1.5, 8)
    phi, v = rng.uniform(0, 2 * np.pi, 8), rng.uniform(1, 3, 8)
    subsets = np.array(list(itertools.product((0, 1), repeat=8)), float)
    peak = subsets @ a + np.abs(subsets @ (b * np.exp(1j * phi)))
    feasible = peak <= 6.0
    best = subsets[feasible][np.argmax(subsets[feasible] @ v)]
    assert (peak[subsets @ v > best @ v] - 6.0).min() > 0.5 and 6.0 - best @ a - abs(
        best @ (b * np.exp(1j * phi))) > 0.05
    y = cp.Variable(8, boolean=True)
    load = SemiInfiniteConstraint(lambda y, t: (a + b * np.sin(2 * np.pi * t[:, :1] + phi)) @ y
                                  - 6.0, y, Box([0.0], [1.0]), vectorized=True)
    result = SemiInfiniteProgram(cp.Maximize(v @ y), load).solve()
    assert result.status.value == "certified_optimal", result.message
    np.testing.assert_array_equal(np.round(y.value), best)
    assert result.objective == pytest.approx(best @ v, rel=1e-12)


def test_a_mixed_integer_quadratic_program_by_branch_and_bound():
    """min ‖y − (1.3, 2.6)‖² s.t. y₁cos θ + y₂ sin θ ≤ 2.9 for θ ∈ [0, π/2], y ∈ Z²: a
    quadratic objective, which HiGHS does not take with integers, so ECOS_BB solves the
    masters (HiGHS's refusals are the attempts); against the integer points of [−4, 4]², each one's worst case on a fine grid
    (the constraint is a cosine of θ: max = ‖y‖ where the maximizer lies inside, else at an
    end)."""
    target = np.array([1.3, 2.6])
    y = cp.Variable(2, integer=True)
    rim = SemiInfiniteConstraint(
        lambda y, t: np.column_stack([np.cos(t[:, 0]), np.sin(t[:, 0])]) @ y - 2.9, y,
        Box([0.0], [np.pi / 2]), vectorized=True)
    result = SemiInfiniteProgram(cp.Minimize(cp.sum_squares(y - target)), rim).solve()
    theta = np.linspace(0.0, np.pi / 2, 20001)
    points = np.array(list(itertools.product(range(-4, 5), repeat=2)), float)
    worst = (points @ np.vstack([np.cos(theta), np.sin(theta)])).max(1)
    feasible = points[worst <= 2.9]
    distances = ((feasible - target) ** 2).sum(1)
    assert np.sort(distances)[1] - distances.min() > 0.1  # one best point
    assert result.status.value == "certified_optimal", result.message
    np.testing.assert_array_equal(np.round(y.value), feasible[np.argmin(distances)])
    assert result.objective == pytest.approx(distances.min(), rel=1e-7)
    assert {(a.solver, a.message) for _, a in result.attempts} == {
        ("HIGHS", "SolverError: The solver HIGHS cannot solve this problem.")}


def test_what_an_integer_master_refuses_and_its_fixed_grid():
    program, c, _ = minimax_program()
    with pytest.raises(ValueError, match="prune: a mixed-integer master has no multipliers"):
        program.solve(prune=True)
    with pytest.raises(ValueError, match="reduce: the local reduction steps on the multipliers"):
        program.solve(reduce=True)
    on_grid = program.solve_discretized(201)
    assert on_grid.status.value == "fixed_columns"
    np.testing.assert_array_equal(c.value, enumerated_minimax()[0])
