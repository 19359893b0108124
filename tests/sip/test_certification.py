"""Certificates without a constant from the user (sipkl.sip.phases.certification and the
IntervalOracle): every convex literature problem ends certified_optimal by default within
1e-8 of its closed-form or independently computed optimum; a violation that the local search
misses blocks the certificate; the same run in other units; what cannot be certified says
why."""
import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from sipkl.sip import Box, FiniteSet, SemiInfiniteConstraint, SemiInfiniteProgram
from sipkl.sip.library.convex import PROBLEMS


#: the problems of the default run; the others run with `make test-slow`
QUICK = {"tanaka_tan3", "chebyshev_t6", "powell_disc", "tensor_exp2d", "ksip", "watson7"}


@pytest.mark.parametrize("name", [name if name in QUICK else
                                  pytest.param(name, marks=pytest.mark.slow)
                                  for name in sorted(PROBLEMS)])
def test_every_literature_problem_is_certified_by_default(name):
    problem = PROBLEMS[name]
    result = problem.build().solve()
    scale = max(1.0, abs(problem.optimum))
    assert result.status.value == "certified_optimal", result.message
    assert result.violation_proved and result.upper_bound <= result.cut
    assert abs(result.objective - problem.optimum) <= 1e-8 * scale
    # the relaxation bounds the reference from below, to the conic solver's accuracy
    assert result.lower_bound <= problem.optimum + 1e-9 * scale
    assert problem.optimum - result.lower_bound <= 1e-7 * scale
    if result.bracket is not None:  # a feasible point proved: the reference lies inside
        assert result.bracket["lower"] <= problem.optimum + 1e-9 * scale
        assert problem.optimum <= result.bracket["upper"]


def test_the_interval_oracle_certifies_the_exchange_method_at_each_round():
    problem = PROBLEMS["ksip"]
    result = problem.build().solve("interval")
    assert result.status.value == "certified_optimal"
    assert result.upper_bound <= result.cut
    assert abs(result.objective - problem.optimum) <= 1e-5 * abs(problem.optimum)


def _spiked(width: float = 1e-8, t_unit: float = 1.0, g_unit: float = 1.0):
    """min x₀ s.t. x₀ ≥ cos(3s) + exp(−((s − 0.3771)/width)²) on s ∈ [0, 1]: a narrow spike
    that a sample of the interval misses; the optimum is the spike's top, about 1.43
    (:func:`_spike_top`), where a search that misses it ends at cos(0) = 1."""
    x = cp.Variable(1)

    def g(x, t):
        s = t[:, 0] / t_unit
        return g_unit * (np.cos(3 * s) + np.exp(-((s - 0.3771) / width) ** 2) - x[0])

    return SemiInfiniteProgram(cp.Minimize(x[0]), SemiInfiniteConstraint(
        g, x, Box([0.0], [t_unit]), vectorized=True, name="spike"))


def _spike_top(width: float = 1e-8) -> float:
    """max_s cos(3s) + exp(−((s − 0.3771)/width)²), by SciPy's bounded scalar search
    around the spike (independent of sipkl)."""
    found = minimize_scalar(lambda s: -(np.cos(3 * s) + np.exp(-((s - 0.3771) / width) ** 2)),
                            bounds=(0.3771 - 5 * width, 0.3771 + 5 * width), method="bounded",
                            options={"xatol": 1e-12})
    return -found.fun


def test_a_missed_violation_blocks_the_certificate():
    result = _spiked().solve()
    # the search missed the spike (the answer is 1, the optimum about 1.43): no certificate
    assert abs(result.objective - 1.0) < 1e-6 and _spike_top() > 1.4
    assert result.status.value != "certified_optimal"
    assert "not certified" in result.message and "exceeds the cut" in result.message


def test_the_interval_oracle_finds_the_narrow_spike():
    result = _spiked().solve("interval")
    assert result.status.value == "certified_optimal"
    assert abs(result.objective - _spike_top()) <= 1e-5


@pytest.mark.parametrize("t_unit, g_unit", [(1000.0, 1.0), (1.0, 1e-6), (1e-3, 1e6)])
def test_the_same_certificate_in_other_units(t_unit, g_unit):
    reference = _spiked(width=0.2).solve()
    result = _spiked(width=0.2, t_unit=t_unit, g_unit=g_unit).solve()
    assert reference.status.value == result.status.value == "certified_optimal"
    assert result.nit == reference.nit
    np.testing.assert_allclose(result.objective, reference.objective, rtol=1e-9)
    np.testing.assert_allclose(result.upper_bound, reference.upper_bound, rtol=1e-3, atol=1e-9)


def _line(g, T):
    x = cp.Variable(2)
    return SemiInfiniteProgram(cp.Minimize(x[0] + 0.5 * x[1]), SemiInfiniteConstraint(
        g, x, T, name="line"), [x[1] >= -3, x[1] <= 3])


@pytest.mark.parametrize("g, T, reason", [
    (lambda x, t: np.exp(np.asarray(t)[0]) - x[0] - x[1] * t[0], Box([0.0], [1.0]),
     "converts t to numbers"),
    (lambda x, t: np.exp(t[0]) - x[0] - x[1] * t[0] if t[0] < 2 else 0.0, Box([0.0], [1.0]),
     "not compared"),
    (lambda x, t: np.exp(t[0] + t[1] + t[2] + t[3]) - x[0] - x[1] * t[0],
     Box(np.zeros(4), np.ones(4)), "dimension 4"),
])
def test_what_is_not_certified_says_why(g, T, reason):
    result = _line(g, T).solve()
    assert result.success and result.status.value == "converged_local"
    assert "not certified" in result.message and reason in result.message


def test_finite_sets_and_boxes_are_certified_together():
    x = cp.Variable(2)
    box = SemiInfiniteConstraint(lambda x, t: np.sin(3 * t[:, 0]) - x[0] - x[1] * t[:, 0],
                                 x, Box([0.0], [2.0]), vectorized=True, name="box")
    finite = SemiInfiniteConstraint(lambda x, t: t[:, 0] ** 2 - x[0] - x[1] * t[:, 0], x,
                                    FiniteSet(np.array([[2.5], [3.0]])), vectorized=True,
                                    name="finite")
    problem = SemiInfiniteProgram(cp.Minimize(x[0] + x[1]), [box, finite])
    result = problem.solve()
    assert result.status.value == "certified_optimal", result.message
    # independent: the same program on a fine grid of the box, by cvxpy
    grid = np.linspace(0.0, 2.0, 20001)
    y = cp.Variable(2)
    reference = cp.Problem(cp.Minimize(y[0] + y[1]), [
        np.sin(3 * grid) - y[0] - y[1] * grid <= 0,
        np.array([2.5, 3.0]) ** 2 - y[0] - y[1] * np.array([2.5, 3.0]) <= 0]).solve()
    assert abs(result.objective - reference) <= 1e-6
