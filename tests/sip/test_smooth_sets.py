"""Index sets given by smooth convex inequalities (sipkl.sip.sets.smooth) and the
intersections that include ellipsoids: against closed forms (a disk's support function and
ray exits), a second formulation solved by cvxpy (the robust counterpart of a robust LP over
a disk cut by a half-plane, written by conic duality), brute force over a dense polar sample,
and the same run in other units."""
import re

import cvxpy as cp
import numpy as np
import pytest

from sipkl.sip import (AffineOracle, Ball, Box, Intersection, SemiInfiniteConstraint,
                       SemiInfiniteProgram, SmoothSet)
from sipkl.sip.sets.polytopes import Polytope
from sipkl.sip.pricing.search import ipopt_in_set
from sipkl.sip.pricing.space import ConstraintPrice, IndexPointPricing


def disk(scale=1.0, jac=True):
    """The disk of radius 2·scale centred at (scale, 0), as h(t) = ‖t − c‖² − r² ≤ 0 in a
    loose box."""
    c, r = np.array([scale, 0.0]), 2.0 * scale
    return SmoothSet(lambda t: np.sum((t - c) ** 2, axis=1) - r ** 2,
                     [-5.0 * scale, -5.0 * scale], [5.0 * scale, 5.0 * scale],
                     jac=(lambda t: 2.0 * (t - c)[:, None, :]) if jac else None)


@pytest.mark.parametrize("jac", [True, False])
def test_a_disk_written_as_an_inequality_is_the_ball(jac):
    """Bounding box, centre, ray exits, membership and the support function (with its bound)
    against the closed forms of the ball {‖t − c‖ ≤ r}."""
    T, ball = disk(jac=jac), Ball([1.0, 0.0], 2.0)
    np.testing.assert_allclose(T.lower, ball.lower, atol=1e-7)
    np.testing.assert_allclose(T.upper, ball.upper, atol=1e-7)
    np.testing.assert_allclose(T.centre(), ball.centre(), atol=1e-6)
    rng = np.random.default_rng(0)
    d = rng.normal(size=(20, 2))
    reach = T.centre() + T.exit(d)[:, None] * d
    np.testing.assert_allclose(np.linalg.norm(reach - [1.0, 0.0], axis=1), 2.0, rtol=1e-10)
    assert T.contains(T.tensor_grid(17)).all() and not T.contains([[3.1, 0.0]]).any()
    for v in rng.normal(size=(20, 2)):
        t, bound = T.support(v)
        closed = float(v @ [1.0, 0.0]) + 2.0 * np.linalg.norm(v)
        assert T.contains(t[None])[0]
        assert abs(float(v @ t) - closed) <= 1e-8 * np.linalg.norm(v)
        assert closed <= bound <= closed + 1e-7 * np.linalg.norm(v)


def robust_lp(T, oracle=None):
    """max x₁ + x₂ s.t. tᵀx ≤ 1 for all t ∈ T, solved by the exchange method."""
    x = cp.Variable(2)
    constraint = SemiInfiniteConstraint(lambda x, t: t[0] * x[0] + t[1] * x[1] - 1.0, x, T)
    return SemiInfiniteProgram(cp.Maximize(cp.sum(x)), [constraint]).solve(oracle), x


@pytest.mark.parametrize("oracle", [None, AffineOracle()])
def test_robust_lp_over_a_disk_cut_by_a_half_plane_matches_its_counterpart(oracle):
    """T = {‖t‖ ≤ 1, t₁ ≤ ½} (an Intersection of a Ball and a half-plane: a SmoothSet). Its
    support function is min_{μ ≥ 0} ‖x − μe₁‖ + μ/2 (conic duality), so the robust LP is the
    SOCP ‖x − μe₁‖ + μ/2 ≤ 1, solved by cvxpy: the exchange method agrees to 1e-8."""
    T = Intersection(Ball([0.0, 0.0], 1.0), ([[1.0, 0.0]], [0.5]))
    assert isinstance(T, SmoothSet)
    result, x = robust_lp(T, oracle)
    y, mu = cp.Variable(2), cp.Variable(nonneg=True)
    counterpart = cp.Problem(cp.Maximize(cp.sum(y)),
                             [cp.norm(y - mu * np.array([1.0, 0.0])) + mu / 2 <= 1])
    counterpart.solve(solver=cp.CLARABEL, tol_gap_abs=1e-11, tol_gap_rel=1e-11,
                      tol_feas=1e-11)
    assert result.success
    assert abs(result.objective - counterpart.value) <= 1e-8 * abs(counterpart.value)
    if oracle is not None:
        assert result.status == "certified_optimal"


@pytest.mark.slow
def test_a_nonaffine_constraint_over_a_smooth_set_against_a_dense_sample():
    """g = x₁ sin(3t₁) + x₂ t₂² − 1 over an ellipse written as an inequality: the default
    oracle (IPOPT on h inside the set) against the LP over 160 000 points of a polar sample
    of the set (a relaxation: at least the optimum; its spacing, 0.016 rad and 0.0025 in r²,
    leaves it about 6·10⁻⁵ above), and the returned x is feasible on it."""
    T = SmoothSet(lambda t: (t[:, 0] / 2.0) ** 2 + t[:, 1] ** 2 - 1.0, [-3.0, -3.0],
                  [3.0, 3.0])
    x = cp.Variable(2)
    g = SemiInfiniteConstraint(lambda x, t: x[0] * np.sin(3 * t[:, 0]) + x[1] * t[:, 1] ** 2
                               - 1.0, x, T, vectorized=True)
    result = SemiInfiniteProgram(cp.Maximize(x[0] + 2 * x[1]), [g], [x <= 10]).solve()
    r, a = np.meshgrid(np.sqrt(np.linspace(0.0, 1.0, 400)), np.linspace(0, 2 * np.pi, 400))
    sample = np.c_[2.0 * (r * np.cos(a)).ravel(), (r * np.sin(a)).ravel()]
    rows = np.c_[np.sin(3 * sample[:, 0]), sample[:, 1] ** 2]
    y = cp.Variable(2)
    relaxation = cp.Problem(cp.Maximize(y[0] + 2 * y[1]), [rows @ y <= 1, y <= 10])
    relaxation.solve(solver=cp.CLARABEL)
    assert result.success
    assert result.objective <= relaxation.value + 1e-6 * abs(relaxation.value)
    assert result.objective >= relaxation.value - 2e-4 * abs(relaxation.value)
    assert (rows @ x.value).max() - 1.0 <= 1e-6


def test_ipopt_in_set_keeps_to_the_inequalities():
    """IPOPT on h (the local search where no projection is cheap) from 12 starts: every end
    point in the set and a maximum of t₁ + t₂ on the disk's arc, the closed form 1 + 2√2."""
    T = disk()
    x = cp.Variable(1)
    g = SemiInfiniteConstraint(lambda x, t: t[:, 0] + t[:, 1] + x[0], x, T, vectorized=True)
    found = ipopt_in_set(IndexPointPricing(g, ConstraintPrice(np.zeros(1), 1.0)),
                         T.starting_points(None, 12, 0))
    assert T.contains(found.x).all()
    assert abs(found.fun[0] - (1.0 + 2.0 * np.sqrt(2.0))) <= 1e-8


def test_the_same_run_with_the_set_in_other_units():
    """The disk and its constraint in units ×1000 (t → 1000 t): the same run, its index
    points ×1000."""
    runs = []
    for scale in (1.0, 1000.0):
        x = cp.Variable(2)
        g = SemiInfiniteConstraint(lambda x, t, s=scale: (t[:, 0] / s) ** 2 * x[0]
                                   + (t[:, 1] / s) * x[1] - 1.0, x, disk(scale),
                                   vectorized=True)
        runs.append(SemiInfiniteProgram(cp.Maximize(x[0] + x[1]), [g], [x <= 3]).solve())
    a, b = runs
    assert a.nit == b.nit and abs(a.objective - b.objective) <= 1e-9 * abs(a.objective)
    np.testing.assert_allclose(b.points[0], 1000.0 * a.points[0], rtol=1e-6, atol=1e-6)


def crescent(units=1.0, h_units=1.0):
    """The unit disk less the disk of radius 0.8 about (0.5, 0), t in ``units``, h in
    ``h_units``: h₂ = 0.64 − ‖t − (0.5, 0)‖² is concave, the set not convex (the radial map
    from its deepest point would cover a part of it only, and a program over it be solved
    over that part)."""
    c = np.array([0.5, 0.0])
    return SmoothSet(lambda t: h_units * np.c_[np.sum((t / units) ** 2, axis=1) - 1.0,
                                               0.64 - np.sum((t / units - c) ** 2, axis=1)],
                     [-1.5 * units] * 2, [1.5 * units] * 2)


def test_a_set_whose_h_is_not_convex_is_refused_in_any_units():
    """Construction refuses the crescent, naming h and a chord where the convexity
    inequality fails; there its gap is λ(1 − λ)‖a − b‖² (h₂'s closed form). The same chord,
    ×1000, and gap, ×10⁶, with t in units ×1000 and h in units ×10⁶; the disk alone (h₁) is
    accepted in both."""
    found = []
    for units, h_units in [(1.0, 1.0), (1000.0, 1e6)]:
        with pytest.raises(ValueError, match="h is not convex on the box") as refused:
            crescent(units, h_units)
        words = re.search(r"h_2\(λa.* by (\S+) at a = \[(\S+), (\S+)\], b = \[(\S+), (\S+)\], "
                          r"λ = (\S+)$", str(refused.value))
        gap, a1, a2, b1, b2, lam = map(float, words.groups())
        closed = h_units * lam * (1.0 - lam) * ((a1 - b1) ** 2 + (a2 - b2) ** 2) / units ** 2
        assert abs(gap - closed) <= 1e-5 * closed
        found.append(np.array([gap / h_units, a1 / units, a2 / units, b1 / units,
                               b2 / units, lam]))
        disk = SmoothSet(lambda t, u=units, s=h_units: s * (np.sum((t / u) ** 2, axis=1) - 1),
                         [-1.5 * units] * 2, [1.5 * units] * 2)
        np.testing.assert_allclose(disk.upper, [units, units], rtol=1e-7)
    np.testing.assert_allclose(found[1], found[0], rtol=1e-5)


@pytest.mark.parametrize("make, error, words", [
    (lambda: SmoothSet(lambda t: np.sum(t ** 2, axis=1) + 1.0, [-1, -1], [1, 1]), ValueError,
     "empty or has no interior"),
    # concave where sin 20t₁ > ½ (h₁₁ = 2 − 4 sin 20t₁), stretches of 0.1: short chords see it
    (lambda: SmoothSet(lambda t: np.sum(t ** 2, axis=1) - 1.0 + 0.01 * np.sin(20 * t[:, 0]),
                       [-1.5, -1.5], [1.5, 1.5]), ValueError, "h is not convex on the box"),
    (lambda: SmoothSet(lambda t: np.sum(t ** 2, axis=1) - 1.0, [-2, -2], [2, 2],
                       jac=lambda t: t[:, None, :]), ValueError,
     "jac is not the Jacobian of h"),
    (lambda: SmoothSet(lambda t: t[:, 0] ** 2, [-1, -1], [1, 1]), ValueError,
     "empty or has no interior"),
    (lambda: SmoothSet(lambda t: np.where(t[:, 0] > 0, t[:, 0], np.nan), [-1, -1], [1, 1]),
     ValueError,
     "h is not finite"),
    (lambda: SmoothSet(lambda t: np.ones((3, 2)), [-1, -1], [1, 1]), ValueError,
     r"h must return an \(m, q\) array"),
    (lambda: SmoothSet("h", [-1, -1], [1, 1]), TypeError, "h must be a callable"),
    (lambda: SmoothSet(lambda t: t[:, 0], [1, -1], [1, 1]), ValueError, "lower"),
    (lambda: Intersection(Ball([0.0, 0.0], 1.0), Polytope.budget([0.0, 0.0], 1.0, 1.0)),
     ValueError, "2\\^p facets"),
    (lambda: Intersection(Ball([0.0, 0.0], 1.0), Box([5.0, 5.0], [6.0, 6.0])), ValueError,
     "do not overlap"),
])
def test_bad_input_names_the_argument(make, error, words):
    with pytest.raises(error, match=words):
        make()
