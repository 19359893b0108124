"""The reference helper of the tests proves what it accepts and rejects what it cannot prove.

The instance is the Euclidean projection of a point a onto the simplex, whose solution has the
closed form x_i = max(a_i − τ, 0) with τ the root of Σ max(a_i − τ, 0) = 1 (sorting), and whose
multipliers follow from it: ν = 2τ for Σ x = 1 and λ_i = 2·max(τ − a_i, 0) for x_i ≥ 0.
"""
import cvxpy as cp
import numpy as np
import pytest

import conic_reference
from conic_reference import certified_solve, kkt_certificate


def simplex_projection(a):
    """The closed form (sorting): x = max(a − τ, 0), Σ x = 1."""
    u = np.sort(a)[::-1]
    cumulative = np.cumsum(u) - 1.0
    k = np.flatnonzero(u - cumulative / np.arange(1, len(a) + 1) > 0)[-1]
    tau = cumulative[k] / (k + 1)
    return np.maximum(a - tau, 0.0), tau


def projection_problem(a, units=1.0, row_units=1.0):
    """min units·‖x − a‖² s.t. row_units·(−x) ≤ 0, row_units·(Σx − 1) = 0: the same problem
    in other units of the objective and of the constraints' rows."""
    x = cp.Variable(len(a))
    problem = cp.Problem(cp.Minimize(units * cp.sum_squares(x - a)),
                         [row_units * x >= 0, row_units * cp.sum(x) == row_units])
    return problem, x


@pytest.mark.parametrize("units, row_units", [(1.0, 1.0), (1e6, 1.0), (1.0, 1e-3), (1e3, 1e3)])
def test_certified_answer_is_the_closed_form(units, row_units):
    a = np.random.default_rng(0).normal(size=12)
    problem, x = projection_problem(a, units, row_units)
    assert certified_solve(problem).worst <= conic_reference.RTOL
    exact, tau = simplex_projection(a)
    np.testing.assert_allclose(x.value, exact, atol=1e-6)
    nonneg, total = problem.constraints
    np.testing.assert_allclose(total.dual_value * row_units, 2 * units * tau, rtol=1e-5)
    np.testing.assert_allclose(nonneg.dual_value * row_units,
                               2 * units * np.maximum(tau - a, 0.0), atol=1e-5 * units)


def test_the_residuals_do_not_depend_on_the_units():
    """The same point and multipliers, expressed in other units of the objective and of the
    rows, have the same residuals (to round-off)."""
    a = np.random.default_rng(4).normal(size=10)
    exact, tau = simplex_projection(a)
    point, lam = exact + 1e-4 * np.arange(10), 2 * np.maximum(tau - a, 0.0)
    residuals = []
    for units, row_units in [(1.0, 1.0), (1e6, 1.0), (1.0, 1e-3), (1e-6, 1e3)]:
        problem, x = projection_problem(a, units, row_units)
        x.value = point
        problem.constraints[1].save_dual_value(2 * tau * units / row_units)
        problem.constraints[0].save_dual_value(lam * units / row_units)
        c = kkt_certificate(problem)
        residuals.append([c.primal, c.dual, c.stationarity, c.gap])
    np.testing.assert_allclose(residuals, [residuals[0]] * 4, rtol=1e-9)
    assert min(residuals[0][0], residuals[0][2], residuals[0][3]) > 1e-6


def test_the_exact_answer_has_zero_residuals_and_wrong_answers_do_not_pass():
    a = np.random.default_rng(2).normal(size=10)
    problem, x = projection_problem(a)
    exact, tau = simplex_projection(a)
    nonneg, total = problem.constraints

    def certificate(values, nu, lam):
        x.value = values
        total.save_dual_value(nu)
        nonneg.save_dual_value(lam)
        return kkt_certificate(problem)

    right = certificate(exact, 2 * tau, 2 * np.maximum(tau - a, 0.0))
    assert right.worst <= 1e-14
    shifted = certificate(exact + 1e-3 * np.eye(10)[0], 2 * tau, 2 * np.maximum(tau - a, 0.0))
    assert shifted.primal > 1e-4 and shifted.stationarity > 1e-4
    assert certificate(exact, -2 * tau, 2 * np.maximum(tau - a, 0.0)).stationarity > 1e-2
    flipped = certificate(exact, 2 * tau, -2 * np.maximum(tau - a, 0.0))
    assert flipped.dual > 0.5
    # the uniform point with multipliers that make it stationary (λ = 2(x − a) + ν ≥ 0):
    # feasible and dual feasible, but not optimal: the certificate shows it in the gap
    uniform = np.full(10, 0.1)
    nu = float(np.max(2 * (a - uniform)))
    loose = certificate(uniform, nu, 2 * (uniform - a) + nu)
    assert max(loose.primal, loose.dual, loose.stationarity) <= 1e-14 and loose.gap > 1e-2


def test_a_solver_that_stops_early_is_not_a_reference(monkeypatch):
    problem, _ = projection_problem(np.random.default_rng(3).normal(size=30))
    monkeypatch.setattr(conic_reference, "SOLVER_OPTIONS", {"SCS": dict(max_iters=2, eps_abs=1e-3)})
    with pytest.raises(AssertionError, match="no solver's answer is certified"):
        certified_solve(problem)


def test_a_nonneg_attribute_gets_the_best_multiplier():
    """x ≥ 0 as an attribute (no multiplier returned) certifies as the explicit constraint."""
    a = np.random.default_rng(5).normal(size=10)
    exact, tau = simplex_projection(a)
    x = cp.Variable(10, nonneg=True)
    total = cp.sum(x) == 1
    problem = cp.Problem(cp.Minimize(cp.sum_squares(x - a)), [total])
    x.value = exact
    total.save_dual_value(2 * tau)
    assert kkt_certificate(problem).worst <= 1e-14
    x.value = np.full(10, 0.1)
    total.save_dual_value(float(np.max(2 * (a - 0.1))))
    assert kkt_certificate(problem).worst > 1e-3


def test_other_sign_attributes_are_refused():
    x = cp.Variable(3, nonpos=True)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(x + 1)))
    problem.solve(solver="CLARABEL")
    with pytest.raises(ValueError, match="constraints"):
        kkt_certificate(problem)
