"""Adjustable variables as decision rules (sipkl.sip.constraints.decision_rules): a two-stage
capacity and transport problem — capacities x now, shipments z(t) once the demands t are
known, the worst-case cost — against the same program written as one linear program by
HiGHS (scipy's linprog): with an affine rule every constraint is affine in t, so it holds on
the box where it holds at the box's corners; with a quadratic rule over an interval, at the
20 001 points of a fine grid (its own error below 10⁻⁸ here)."""
import itertools

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog

from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram, decision_rule, max_over

COST = np.array([4.0, 5.0, 3.5])                       # per unit of capacity, 3 plants
SHIP = np.array([[1.0, 2.0], [2.5, 0.8], [1.5, 1.7]])  # per unit shipped, plant × customer


def demands(t, fixed):
    """The two customers' demands at the points t: both uncertain (p = 2), or the second
    fixed at ``fixed`` (p = 1)."""
    return t if t.shape[1] == 2 else np.column_stack([t[:, 0], np.full(len(t), fixed)])


def transport(T, degree, units=1.0, fixed=12.0):
    """min_x,z max_t COST·x + SHIP·z(t) s.t. z(t) ≥ 0, Σ_j z_ij(t) ≤ x_i, Σ_i z_ij(t) ≥ t_j;
    z = the 3 × 2 shipments, flattened, a rule of ``degree`` over T (t in ``units``)."""
    x, z = cp.Variable(3), decision_rule(6, T, degree)

    def row(f, name):
        return SemiInfiniteConstraint(f, x, T, vectorized=True, name=name)
    d = lambda t: demands(t / units, fixed)  # noqa: E731
    sics = [row(lambda x, t, k=k: -z(t)[:, k], f"ship{k}") for k in range(6)]
    sics += [row(lambda x, t, i=i: z(t)[:, 2 * i] + z(t)[:, 2 * i + 1] - x[i], f"plant{i}")
             for i in range(3)]
    sics += [row(lambda x, t, j=j: d(t)[:, j] - z(t)[:, j] - z(t)[:, 2 + j] - z(t)[:, 4 + j],
                 f"customer{j}") for j in range(2)]
    cost = max_over(lambda x, t: COST @ x + z(t) @ SHIP.ravel(), x, T, vectorized=True)
    return SemiInfiniteProgram(cp.Minimize(cost), sics), x, z


def linear_program(z, points, units=1.0, fixed=12.0):
    """The same program at the index points ``points`` (in ``units``), as an LP in (x, C, τ), C the rule's
    coefficients (rows of monomials, one column per shipment), by HiGHS."""
    B = z.basis(points)                      # (m, k): z(t) = B C, k monomials
    m, k = B.shape
    n = 3 + 6 * k + 1

    def ship(entry):                         # the columns of z_entry(t) = B C[:, entry]
        block = np.zeros((m, n))
        block[:, 3 + entry:3 + 6 * k:6] = B
        return block
    rows, rhs = [], []
    for entry in range(6):
        rows.append(-ship(entry)), rhs.append(np.zeros(m))
    for i in range(3):
        block = ship(2 * i) + ship(2 * i + 1)
        block[:, i] -= 1.0
        rows.append(block), rhs.append(np.zeros(m))
    d = demands(points / units, fixed)
    for j in range(2):
        rows.append(-(ship(j) + ship(2 + j) + ship(4 + j))), rhs.append(-d[:, j])
    cost = sum(SHIP.ravel()[e] * ship(e) for e in range(6))
    cost[:, :3] += COST
    cost[:, -1] = -1.0
    rows.append(cost), rhs.append(np.zeros(m))
    objective = np.zeros(n)
    objective[-1] = 1.0
    lp = linprog(objective, A_ub=np.vstack(rows), b_ub=np.concatenate(rhs),
                 bounds=[(None, None)] * n, method="highs")
    assert lp.status == 0, lp.message
    return lp.fun


@pytest.mark.parametrize("degree", [0, 1])
@pytest.mark.parametrize("units", [1.0, 1e3])
def test_static_and_affine_rules_reach_the_corner_program(degree, units):
    """Over the box of both demands, the static rule (the robust program without recourse)
    and the affine one: the LP at the four corners to 10⁻⁸, each constraint imposed by its
    robust counterpart (affine in t), certified in one round; the affine rule no dearer than
    the static one; in other units of t (×10³) the same run."""
    lo, hi = np.array([10.0, 8.0]), np.array([20.0, 16.0])
    T = Box(lo * units, hi * units)
    program, x, z = transport(T, degree, units)
    result = program.solve()
    corners = np.array(list(itertools.product(*zip(lo, hi)))) * units
    reference = linear_program(z, corners, units)
    assert result.status.value == "certified_optimal", result.message
    assert result.objective == pytest.approx(reference, rel=1e-8)
    assert result.nit == 1
    shipped = z.value(corners)
    assert shipped.min() >= -1e-7 * np.abs(shipped).max()
    unit_program, _, unit_rule = transport(Box(lo, hi), degree)
    unit_result = unit_program.solve()
    assert result.objective == pytest.approx(unit_result.objective, rel=1e-9)
    np.testing.assert_allclose(z.coefficients.value, unit_rule.coefficients.value,
                               rtol=1e-7, atol=1e-7 * np.abs(z.coefficients.value).max())
    if degree == 0:
        affine = transport(Box(lo, hi), 1)[0].solve()
        assert affine.objective <= result.objective * (1 + 1e-9)


def test_a_quadratic_rule_by_the_exchange_method():
    """One demand uncertain in [10, 20] (the other 12): the quadratic rule makes g quadratic
    in t, priced by the dense search; the LP over 20 001 points of the interval to 10⁻⁷."""
    T = Box([10.0], [20.0])
    program, x, z = transport(T, 2)
    result = program.solve()
    reference = linear_program(z, np.linspace(10.0, 20.0, 20001)[:, None])
    assert result.success, result.message
    assert result.objective == pytest.approx(reference, rel=1e-7)


def test_a_rule_checks_its_arguments():
    T = Box([0.0], [1.0])
    with pytest.raises(ValueError, match="degree must be 0 .static., 1 .affine. or 2"):
        decision_rule(2, T, degree=3)
    with pytest.raises(ValueError, match="size must be an integer ≥ 1"):
        decision_rule(0, T)
    with pytest.raises(TypeError, match="T must be an index set"):
        decision_rule(1, (0.0, 1.0))
    with pytest.raises(ValueError, match="value: the rule has no coefficients yet"):
        decision_rule(1, T).value(np.array([0.5]))
    z = decision_rule(2, Box([0.0, -1.0], [2.0, 1.0]), degree=2)
    assert z.coefficients.shape == (6, 2)    # 1, u₁, u₂, u₁², u₁u₂, u₂²
    np.testing.assert_allclose(z.basis(np.array([2.0, 0.5])),
                               [[1.0, 1.0, 0.5, 1.0, 0.5, 0.25]])
