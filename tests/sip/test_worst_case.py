"""Worst-case objectives, ``Minimize(max_over(f, x, T))`` (sipkl.sip.constraints.worst_case):
the best uniform approximation of eᵗ on [−1, 1] by quadratics written as min_c max_t |err|,
against the same minimax as a linear program on 20 001 points of [−1, 1] solved by HiGHS
(scipy's linprog), and the objectives whose epigraph is not the worst case, refused."""
import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog

from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram, max_over

T = Box([-1.0], [1.0])


def err(c, t):
    return np.vander(t[:, 0], 3, increasing=True) @ c - np.exp(t[:, 0])


def grid_minimax(scale=1.0):
    """min_c max_i |scale·err(c, t_i)| on 20 001 points, as an LP in (c, z) by HiGHS."""
    t = np.linspace(-1.0, 1.0, 20001)
    V, e, one = scale * np.vander(t, 3, increasing=True), scale * np.exp(t), np.ones((len(t), 1))
    lp = linprog(np.r_[0.0, 0.0, 0.0, 1.0], A_ub=np.block([[V, -one], [-V, -one]]),
                 b_ub=np.r_[e, -e], bounds=[(None, None)] * 4, method="highs")
    assert lp.status == 0
    return lp.fun, lp.x[:3]


@pytest.mark.parametrize("scale", [1.0, 1e3])
def test_the_uniform_approximation_as_a_worst_case_objective(scale):
    """cp.maximum of the worst cases of err and −err (a non-decreasing objective): the LP's
    optimum to 10⁻⁷ (the grid's own error is below 10⁻⁹ relative), certified, with τ = the
    objective; in other units (f·10³) the same run, the objective scaled."""
    c = cp.Variable(3)
    above = max_over(lambda c, t: scale * err(c, t), c, T, vectorized=True)
    below = max_over(lambda c, t: -scale * err(c, t), c, T, vectorized=True)
    result = SemiInfiniteProgram(cp.Minimize(cp.maximum(above, below))).solve()
    reference, coefficients = grid_minimax(scale)
    assert result.status.value == "certified_optimal", result.message
    assert result.objective == pytest.approx(reference, rel=1e-7)
    np.testing.assert_allclose(c.value, coefficients, rtol=1e-6)
    assert above.value == pytest.approx(result.objective, rel=1e-9)
    assert below.value == pytest.approx(result.objective, rel=1e-9)
    assert result.objective / scale == pytest.approx(0.0450173884, rel=1e-8)


def test_a_worst_case_beside_a_semi_infinite_constraint_and_in_a_maximization():
    """max −max_t(err) with −err ≤ z, z ≤ w: the constraint by hand and the worst case
    together are the uniform approximation again (its objective negated)."""
    c, z = cp.Variable(3), cp.Variable()
    above = max_over(err, c, T, vectorized=True)
    below = SemiInfiniteConstraint(lambda c, t: -err(c, t) - z, c, T, vectorized=True)
    program = SemiInfiniteProgram(cp.Maximize(-cp.maximum(above, z)), below)
    result = program.solve()
    assert result.objective == pytest.approx(-grid_minimax()[0], rel=1e-7)
    assert len(program.semi_infinite) == 2


@pytest.mark.parametrize("objective, named", [
    (lambda tau: cp.Minimize(-tau), "not non-decreasing"),
    (lambda tau: cp.Minimize(cp.abs(tau)), "not non-decreasing"),
    (lambda tau: cp.Maximize(tau), "not non-increasing"),
    (lambda tau: cp.Minimize(cp.square(tau)), "not non-decreasing")])
def test_an_objective_whose_epigraph_is_not_the_worst_case_is_refused(objective, named):
    c = cp.Variable(3)
    tau = max_over(err, c, T, vectorized=True)
    with pytest.raises(ValueError, match=f"objective: .* {named} in max_over"):
        SemiInfiniteProgram(objective(tau))


def test_a_worst_case_in_a_finite_constraint_is_refused():
    c = cp.Variable(3)
    tau = max_over(err, c, T, vectorized=True)
    with pytest.raises(ValueError, match="constraints: a finite constraint holds"):
        SemiInfiniteProgram(cp.Minimize(tau), constraints=[tau >= 1.0])
    with pytest.raises(TypeError, match="non-empty unless the objective has a max_over"):
        SemiInfiniteProgram(cp.Minimize(cp.sum(c)))
    with pytest.raises(TypeError, match="max_over: f must be a callable"):
        max_over(1.0, c, T)
