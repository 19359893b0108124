"""The local reduction on every index set: faces of boxes of any dimension, polytopes,
ellipsoids and products, checked against closed forms.

The programs are :mod:`sipkl.sip.library.touching`'s, whose optimum is a closed form by weak
duality (independent of any solver); the maximizers move inside the set, along a facet and
over an ellipsoid's curved boundary.
"""
import numpy as np
import pytest

from sipkl.sip import Box, NonlinearConstraint
from sipkl.sip.library.touching import touching
from sipkl.sip.pricing.faces import face, polish, tangent_hessian
from sipkl.sip.pricing.space import ConstraintPrice, IndexPointPricing
from sipkl.sip.sets import Ball, Ellipsoid, Polytope, Product

ROTATION = np.array([[np.cos(0.6), -np.sin(0.6)], [np.sin(0.6), np.cos(0.6)]])


def _normal(T, t):
    """The outward normal of T's (single) inequality at its boundary point t."""
    return T.inequalities()[2][0][1](np.asarray(t, dtype=float)[None])[0, 0]


def _ellipse():
    return Ellipsoid([1.0, -2.0], ROTATION @ np.diag([2.0, 0.5]))


def _problems(slow=("triangle, facet", "3-simplex, facet", "4-box, inside", "5-ball, sphere")):
    """The programs, those of ``slow`` (5-10 s each) marked for ``make test-slow``."""
    return [pytest.param(p, marks=pytest.mark.slow) if p.name in slow else p
            for p in _built()]


def _built():
    E = _ellipse()
    edge = E.center + E.P @ np.array([np.cos(1.0), np.sin(1.0)])
    ball = Ball(np.zeros(5), 2.0)
    rng = np.random.default_rng(1)
    d = rng.normal(size=5)
    on_ball = 2.0 * d / np.linalg.norm(d)
    return [
        touching("ellipse, curved boundary", E,
                 [E.center + E.P @ [0.3, 0.2], E.center + E.P @ [-0.4, -0.1]], edge,
                 _normal(E, edge)),
        touching("triangle, facet", Polytope([[-1, 0], [0, -1], [1, 1]], [0, 0, 1]),
                 [[0.2, 0.3], [0.5, 0.2]], [0.5, 0.5], [1, 1]),
        touching("3-simplex, facet", Polytope.simplex(3),
                 [[0.2, 0.3, 0.1], [0.1, 0.1, 0.5]], [0.3, 0.3, 0.4], [1, 1, 1]),
        touching("4-box, inside", Box([0] * 4, [1] * 4),
                 [[0.3, 0.6, 0.5, 0.4], [0.7, 0.2, 0.6, 0.5]]),
        touching("5-ball, sphere", ball, rng.uniform(-0.6, 0.6, (2, 5)), on_ball,
                 _normal(ball, on_ball)),
        touching("disc x interval", Product(Ball([0.0, 0.0], 1.0), Box([0.0], [2.0])),
                 [[0.2, 0.1, 0.5], [-0.3, 0.2, 1.4]], [0.6, 0.8, 1.0], [0.6, 0.8, 0.0]),
    ]


@pytest.mark.roundoff
@pytest.mark.parametrize("problem", _problems(), ids=lambda p: p.name)
def test_the_default_run_reaches_the_closed_form_on_every_set(problem):
    """Default settings: within 1e-8 of the closed-form optimum (the exchange method alone
    stops about 1e-6 off), the reduction converged, and g ≤ 1e-8 of its scale on a sample
    of 4000 points of the set that the run never saw."""
    program, x = problem.build()
    result = program.solve()
    assert result.success and result.reduction["converged"], result.message
    assert abs(result.objective - problem.optimum) <= 1e-8 * max(1.0, abs(problem.optimum))
    g = program.semi_infinite[0]
    sample = problem.T.starting_points(None, 4000, np.random.default_rng(7))
    assert g.values(g.x_value(), sample).max() <= 1e-8 * result.scales[0]
    plain = program.solve(reduce=False)  # the exchange method's own answer is the lower one
    assert plain.objective <= result.objective + 1e-9 * max(1.0, abs(problem.optimum))


@pytest.mark.roundoff
def test_the_same_run_with_the_set_in_other_units():
    """The ellipse's problem with t in units a thousand times smaller (the set, the touching
    points and the normal scaled): the same rounds and the same optimum."""
    E = _ellipse()
    big = Ellipsoid(1000 * E.center, 1000 * E.P)
    runs = []
    for T, k in ((E, 1.0), (big, 1000.0)):
        edge = T.center + T.P @ np.array([np.cos(1.0), np.sin(1.0)])
        problem = touching("ellipse", T, [T.center + T.P @ [0.3, 0.2],
                                          T.center + T.P @ [-0.4, -0.1]], edge, _normal(T, edge))
        result = problem.build()[0].solve()
        runs.append((result.nit, result.reduction["nit"], result.objective, problem.optimum))
    (n1, r1, f1, o1), (n2, r2, f2, o2) = runs
    assert (n1, r1) == (n2, r2)
    assert abs(o1 - o2) <= 1e-12 * abs(o1) and abs(f1 - f2) <= 1e-9 * max(1.0, abs(o1))


def test_the_face_of_an_ellipse_and_newton_steps_on_it():
    """g(t) = aᵀt over an ellipse: its maximum is the support
    point c + PPᵀa/‖Pᵀa‖ (closed form), where the one inequality is active with
    multiplier μ = ‖Pᵀa‖/2 (∇h = 2G(t − c), G = (PPᵀ)⁻¹); Newton steps on the face reach the
    point to round-off from a boundary point 0.1 rad away, and the Hessian of the Lagrangian
    on the face, −μ Dᵀ∇²h D, is negative definite."""
    E = _ellipse()
    a = np.array([0.7, -0.3])
    g = NonlinearConstraint(lambda v, t: t @ a, E, vectorized=True)
    problem = IndexPointPricing(g, ConstraintPrice(np.zeros(1), 1.0))
    w = E.P.T @ a
    best = E.center + E.P @ w / np.linalg.norm(w)
    angle = np.arctan2(*(w / np.linalg.norm(w))[::-1]) + 0.1
    start = E.center + E.P @ np.array([np.cos(angle), np.sin(angle)])
    found = polish(problem, start)
    np.testing.assert_allclose(found, best, atol=1e-10)
    f = face(E, found, a)
    assert f.dim == 1 and len(f.active) == 1
    np.testing.assert_allclose(f.active[0][3], np.linalg.norm(w) / 2, rtol=1e-6)
    assert tangent_hessian(problem, f)[0, 0] < 0
