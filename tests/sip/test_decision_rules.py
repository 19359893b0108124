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


@pytest.mark.roundoff  # the same run in other units
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


def inventory(K, anticipative=False):
    """Ben-Tal, Goryashko, Guslitzer & Nemirovski's (2004) inventory in short: demands
    d_k ∈ [80, 120] (k = 1 … K), orders q_k ∈ [0, 150] at cost 1, inventory
    x_{k+1} = Σ_{i≤k} (q_i − d_i) held at 2 or backlogged at 5 per unit (the epigraphs
    y_k ≥ 2x_{k+1}, y_k ≥ −5x_{k+1}), the worst-case total cost. The first order is decided
    now (the program's x); q_k reads d_1 … d_{k−1} and y_k reads d_1 … d_k
    (non-anticipative), or every d (``anticipative``)."""
    T = Box(np.full(K, 80.0), np.full(K, 120.0))
    known = (lambda k: None) if anticipative else (lambda k: range(k))
    later = [decision_rule(1, T, depends_on=known(k)) for k in range(1, K)]
    y = [decision_rule(1, T, depends_on=known(k + 1)) for k in range(K)]
    first = cp.Variable()

    def order(x, t, k):
        return x if k == 0 else later[k - 1](t)[:, 0]

    def stock(x, t, k):
        return sum(order(x, t, i) - t[:, i] for i in range(k + 1))

    def row(g):
        return SemiInfiniteConstraint(g, first, T, vectorized=True)
    rows = [row(lambda x, t, k=k: 2.0 * stock(x, t, k) - y[k](t)[:, 0]) for k in range(K)]
    rows += [row(lambda x, t, k=k: -5.0 * stock(x, t, k) - y[k](t)[:, 0]) for k in range(K)]
    rows += [row(lambda x, t, k=k: -later[k - 1](t)[:, 0]) for k in range(1, K)]
    rows += [row(lambda x, t, k=k: later[k - 1](t)[:, 0] - 150.0) for k in range(1, K)]
    cost = max_over(lambda x, t: sum(order(x, t, k) + y[k](t)[:, 0] for k in range(K)),
                    first, T, vectorized=True)
    return SemiInfiniteProgram(cp.Minimize(cost), rows, [first >= 0, first <= 150])


def inventory_at_corners(K):
    """The non-anticipative program at the 2^K corners of the demands' box, in cvxpy (the
    rules a₀ + aᵀd in d's own units), solved by HiGHS (a vertex): the reference."""
    D = np.array(list(itertools.product((80.0, 120.0), repeat=K)))
    q0, qa = cp.Variable(K), [cp.Variable(k) for k in range(K)]
    y0, ya = cp.Variable(K), [cp.Variable(k + 1) for k in range(K)]
    q = [q0[k] + (D[:, :k] @ qa[k] if k else 0) for k in range(K)]
    y = [y0[k] + D[:, :k + 1] @ ya[k] for k in range(K)]
    tau, constraints = cp.Variable(), []
    for k in range(K):
        stock = sum(q[i] for i in range(k + 1)) - D[:, :k + 1].sum(1)
        constraints += [y[k] >= 2 * stock, y[k] >= -5 * stock, q[k] >= 0, q[k] <= 150]
    constraints.append(sum(q[k] + y[k] for k in range(K)) <= tau)
    problem = cp.Problem(cp.Minimize(tau), constraints)
    problem.solve(solver="HIGHS")
    assert problem.status == "optimal"
    return problem.value


def test_non_anticipative_rules_in_a_multi_stage_inventory():
    """Four periods: the rules that read only the demands known when they act reach the
    corner program's optimum to 10⁻⁹, certified; rules that read every demand cost no
    more."""
    result = inventory(4).solve()
    assert result.status.value == "certified_optimal", result.message
    assert result.objective == pytest.approx(inventory_at_corners(4), rel=1e-9)
    assert inventory(4, anticipative=True).solve().objective <= result.objective * (1 + 1e-9)
    with pytest.raises(ValueError, match="depends_on must list distinct coordinates"):
        decision_rule(1, Box([0.0, 0.0], [1.0, 1.0]), depends_on=[0, 2])
