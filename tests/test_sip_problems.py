"""The SIP literature problems (sipkl.sip.problems): the engine against the known optima.

The reference values are closed forms (quadratures of tan and exp, 2^(1−d) for Chebyshev
approximation, distances to a disc or a ball), independent of the solver; the quadratures are
checked against their nodes and weights written out by hand, and the stated Lipschitz
constants and t-gradients against finite differences of g.
"""
import functools
import warnings

import numpy as np
import pytest

from sipkl.sip.problems import PROBLEMS, get_problem, upper_quadrature

#: the relative accuracy demanded of the engine's optimum
TARGET = 1e-6
#: the engine's stopping tolerance (relative violation), small enough for TARGET
TOL = 1e-8

#: runs too long for the default run on a 2-core machine (the Lipschitz oracle's branch and
#: bound in two dimensions, and on the 11 maxima of chebyshev_t10)
SLOW = {("lipschitz", "chebyshev_t10"), ("lipschitz", "tensor_exp2d"),
        ("lipschitz", "ball_linear"), ("lipschitz", "ball_projection")}

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


def test_collection_covers_the_required_kinds():
    problems = PROBLEMS.values()
    assert len(PROBLEMS) >= 8
    assert {p.p for p in problems} >= {1, 2}
    assert {p.objective_kind for p in problems} == {"linear", "quadratic"}
    assert any(p.many_local_maxima for p in problems)


def test_get_problem_names_its_argument():
    assert get_problem("powell_disc") is PROBLEMS["powell_disc"]
    with pytest.raises(ValueError, match="name must be one of"):
        get_problem("no such problem")
    with pytest.raises(TypeError, match="name must be a str"):
        get_problem(3)
