"""Interval arithmetic (sipkl.sip.constraints.intervals) against values computed independently:
mpmath at 50 digits at points of the intervals, exact rational sums (fractions), and the
quadratic convergence of the mean-value form."""
from fractions import Fraction

import cvxpy as cp
import mpmath
import numpy as np
import pytest

from sipkl.sip.constraints.intervals import Interval, NoIntervalForm, upper_bounds

mpmath.mp.dps = 50

#: a NumPy function of one argument, mpmath's, its derivative in mpmath, and its domain
UNARY = {
    "exp": (np.exp, mpmath.exp, mpmath.exp, (-30, 30)),
    "log": (np.log, mpmath.log, lambda v: 1 / v, (1e-3, 50)),
    "sqrt": (np.sqrt, mpmath.sqrt, lambda v: 1 / (2 * mpmath.sqrt(v)), (1e-3, 50)),
    "sin": (np.sin, mpmath.sin, mpmath.cos, (-40, 40)),
    "cos": (np.cos, mpmath.cos, lambda v: -mpmath.sin(v), (-40, 40)),
    "tan": (np.tan, mpmath.tan, lambda v: mpmath.sec(v) ** 2, (-1.5, 1.5)),
    "arctan": (np.arctan, mpmath.atan, lambda v: 1 / (1 + v * v), (-20, 20)),
    "tanh": (np.tanh, mpmath.tanh, lambda v: mpmath.sech(v) ** 2, (-5, 5)),
    "abs": (np.abs, abs, mpmath.sign, (-3, 3)),
    "square": (np.square, lambda v: v * v, lambda v: 2 * v, (-3, 3)),
    "cube": (lambda a: a ** 3, lambda v: v ** 3, lambda v: 3 * v * v, (-3, 3)),
    "inverse": (lambda a: 1.0 / a, lambda v: 1 / v, lambda v: -1 / v ** 2, (0.1, 9)),
    "power 2.5": (lambda a: a ** 2.5, lambda v: v ** mpmath.mpf(2.5),
                  lambda v: 2.5 * v ** mpmath.mpf(1.5), (0.0, 4)),
}


def _intervals(rng, domain, n=60):
    lo, hi = domain
    a, b = rng.uniform(lo, hi, n), rng.uniform(lo, hi, n)
    narrow = rng.uniform(lo, hi, n)
    lower = np.concatenate([np.minimum(a, b), narrow])
    upper = np.concatenate([np.maximum(a, b), np.minimum(narrow + 1e-9 * (1 + abs(narrow)),
                                                         hi)])
    return lower, upper


@pytest.mark.parametrize("name", sorted(UNARY))
def test_each_function_encloses_its_values_and_derivatives(name):
    function, exact, derivative, domain = UNARY[name]
    rng = np.random.default_rng(0)
    lower, upper = _intervals(rng, domain)
    result = function(Interval.variables(lower[:, None], upper[:, None]))
    grad = result.grad
    for k in range(len(lower)):
        points = np.concatenate([[lower[k], upper[k]],
                                 rng.uniform(lower[k], upper[k], 8)])
        for point in points:
            v = mpmath.mpf(float(point))
            value = exact(v)
            assert result.lo[k, 0] <= value <= result.hi[k, 0], (name, lower[k], upper[k], point)
            if name == "abs" and v == 0:
                continue
            slope = derivative(v)
            assert grad.lo[0, k, 0] <= slope <= grad.hi[0, k, 0], (name, point)


@pytest.mark.parametrize("periods", [1, 1e3, 1e6])
def test_sin_and_cos_find_their_extrema_far_from_zero(periods):
    # narrow intervals around the extrema k·π/2 at large k: the range reduction must not
    # miss 1 or −1 where the interval holds the extremum
    k = np.arange(4) + 4 * round(periods)
    centres = k * np.pi / 2
    lower, upper = centres - 1e-9 * (1 + centres), centres + 1e-9 * (1 + centres)
    for function, exact in ((np.sin, mpmath.sin), (np.cos, mpmath.cos)):
        result = function(Interval(lower, upper))
        for i, c in enumerate(centres):
            for point in (lower[i], c, upper[i]):
                assert result.lo[i] <= exact(mpmath.mpf(float(point))) <= result.hi[i]
        assert np.all(result.hi - result.lo <= (upper - lower) * (1 + 1e-9) + 1e-15)  # slope 1


def test_sums_and_products_enclose_the_exact_rational_value():
    rng = np.random.default_rng(1)
    for _ in range(50):
        terms = rng.normal(size=40) * 10.0 ** rng.integers(-8, 9, 40)
        terms[1::2] = -terms[::2] * (1 + 1e-13)  # heavy cancellation
        weights = rng.normal(size=40)
        exact_sum = sum(Fraction(float(v)) for v in terms)
        exact_dot = sum(Fraction(float(v)) * Fraction(float(w)) for v, w in zip(terms, weights))
        total = Interval(terms).sum()
        dot = Interval(terms) @ weights
        assert Fraction(float(total.lo)) <= exact_sum <= Fraction(float(total.hi))
        assert Fraction(float(dot.lo)) <= exact_dot <= Fraction(float(dot.hi))
        product = Interval(terms[:20]) * Interval(weights[:20])
        for v, w, lo, hi in zip(terms, weights, product.lo, product.hi):
            assert Fraction(float(lo)) <= Fraction(float(v)) * Fraction(float(w)) \
                <= Fraction(float(hi))


def _runge_residual(x, t):  # the kind of g the SIP layer meets: powers, a quotient, exp
    s = t[..., 0]
    powers = s[..., None] ** np.arange(len(x))
    return 1.0 / (1.0 + 25.0 * s ** 2) + 0.1 * np.exp(np.sin(3 * s)) - powers @ x


def test_upper_bounds_hold_and_converge_quadratically():
    x = np.array([0.9, -0.1, -1.2, 0.3])
    g = lambda t: _runge_residual(x, t)  # noqa: E731
    centre = 0.137
    gaps = []
    for width in 2.0 ** -np.arange(4, 12):
        lower, upper = np.array([[centre - width]]), np.array([[centre + width]])
        bound = upper_bounds(g, lower, upper)[0]
        grid = np.linspace(centre - width, centre + width, 2001)
        exact = max(float(1 / (1 + 25 * mpmath.mpf(float(s)) ** 2)
                          + mpmath.mpf("0.1") * mpmath.exp(mpmath.sin(3 * mpmath.mpf(float(s))))
                          - sum(mpmath.mpf(float(c)) * mpmath.mpf(float(s)) ** i
                                for i, c in enumerate(x))) for s in grid[::100])
        assert bound >= g(grid[:, None]).max()
        gaps.append(bound - exact)
    ratios = np.array(gaps[:-1]) / np.array(gaps[1:])
    assert np.all(ratios[2:] > 3.0), ratios  # halving the width quarters the overestimate


def test_a_scalar_function_is_bounded_box_by_box():
    x = np.array([1.0, -2.0])
    rng = np.random.default_rng(2)
    lower = rng.uniform(-1, 0, (5, 2))
    upper = lower + 0.3
    together = upper_bounds(lambda t: x[0] * np.cos(t[..., 0]) + x[1] * t[..., 1] ** 2,
                            lower, upper, vectorized=True)
    apart = upper_bounds(lambda t: x[0] * np.cos(t[0]) + x[1] * t[1] ** 2, lower, upper,
                         vectorized=False)
    np.testing.assert_allclose(together, apart, rtol=1e-12)


@pytest.mark.parametrize("g, reason", [
    (lambda t: np.asarray(t)[..., 0], "no single value"),
    (lambda t: t[..., 0] if t[..., 0] > 0 else -t[..., 0], "not compared"),
    (lambda t: np.where(t[..., 0] > 0, 1.0, 0.0), "not compared"),
    (lambda t: np.cumsum(t, axis=-1)[..., 0], "cumsum"),
    (lambda t: cp.Variable() + t[..., 0], "fails on intervals"),
])
def test_what_intervals_cannot_follow_is_named(g, reason):
    with pytest.raises(NoIntervalForm, match=reason):
        upper_bounds(g, np.zeros((2, 1)), np.ones((2, 1)))
