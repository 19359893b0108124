"""Index sets beyond boxes (sipkl.sip.sets.base), their pricing (sipkl.sip.pricing.sets,
sipkl.sip.pricing.search) and robust counterparts (sipkl.sip.robust).

Every number is checked against something the code under test does not produce: closed forms
(the support function of a ball, an ellipsoid, a box), SciPy's linprog (HiGHS) on LPs stated
here, cvxpy's conic solvers on the sets written out by hand, a polytope given by all 2^p
facets of a budget set, brute force over dense samples, the closed-form robust portfolio,
and the same run in other units. (The examples robust_portfolio.py and robust_lp_budget.py,
against the closed form and Bertsimas and Sim's robust LP, run in tests/apps/test_examples.py.)
"""
import importlib.util
import itertools
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog

from sipkl.core.contracts import PricingRound
from sipkl.sip import Box, FiniteSet, SemiInfiniteConstraint, SemiInfiniteProgram
from sipkl.sip.sets.ellipsoids import Ball, Ellipsoid
from sipkl.sip.sets.polytopes import Budget, Polytope
from sipkl.sip.sets.base import ConvexSet
from sipkl.sip.sets.intersection import Intersection
from sipkl.sip.sets.product import Product
from sipkl.sip.robust import affine_counterparts, robust_counterpart, robust_program
from sipkl.sip.pricing.dense import DenseSampleOracle
from sipkl.sip.pricing.search import (ascend_in_set, ipopt_in_set, pull_inside,
                                      refine_in_set)
from sipkl.sip.pricing.sets import AffineOracle, SetSearchOracle, affine_model
from sipkl.sip.pricing.space import ConstraintPrice, IndexPointPricing

ROOT = Path(__file__).resolve().parents[2]


def example(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def random_polytope(p: int, m: int, seed: int) -> Polytope:
    """A random bounded polytope: m random half-spaces at distance 1 from the origin, and
    the box [−3, 3]^p."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m, p))
    A /= np.linalg.norm(A, axis=1)[:, None]
    return Intersection((A, np.ones(m)), Box(-3.0 * np.ones(p), 3.0 * np.ones(p)))


def sets(units: float = 1.0):
    """One of each kind, in ``units`` (the same sets scaled about 0)."""
    P = np.array([[2.0, 0.3], [-0.4, 0.5]])
    return {
        "ball": Ball(units * np.array([1.0, -2.0]), units * 0.5),
        "ellipsoid": Ellipsoid(units * np.array([0.0, 1.0]), units * P),
        "simplex": Polytope.simplex(3, size=units),
        "polytope": Polytope(random_polytope(2, 7, 3).A, units * random_polytope(2, 7, 3).b),
        "budget": Polytope.budget(units * np.array([1.0, 2.0, 3.0, 4.0]),
                                  units * np.array([0.5, 1.0, 0.2, 2.0]), 1.5),
        "product": Product(Box([units * 0.0], [units * 1.0]),
                           Ball(units * np.array([0.0, 0.0]), units * 1.0)),
        "intersection": Intersection(Box([0.0, 0.0], [units, units]),
                                     ([[1.0, 2.0]], [1.5 * units])),
    }


def pricing(constraint, x, scale=1.0):
    return IndexPointPricing(constraint, ConstraintPrice(x, scale))


# -- 1. each set against a closed form or an independent solver -------------------------
def test_support_of_a_ball_and_an_ellipsoid_is_the_closed_form_and_cvxpy():
    rng = np.random.default_rng(0)
    for _ in range(5):
        c, v = rng.normal(size=3), rng.normal(size=3)
        P = rng.normal(size=(3, 3)) + 3 * np.eye(3)
        t, bound = Ellipsoid(c, P).support(v)
        closed = v @ c + np.linalg.norm(P.T @ v)
        np.testing.assert_allclose([v @ t, bound], [closed, closed], rtol=1e-13)
        s = cp.Variable(3)  # the set written out for a conic solver
        value = cp.Problem(cp.Maximize(v @ s),
                           [cp.norm(np.linalg.solve(P, np.eye(3)) @ (s - c)) <= 1]).solve()
        np.testing.assert_allclose(bound, value, rtol=1e-6)
        t, bound = Ball(c, 2.5).support(v)
        np.testing.assert_allclose(t, c + 2.5 * v / np.linalg.norm(v), rtol=1e-13)
        assert bound >= v @ c + 2.5 * np.linalg.norm(v)


def test_support_of_a_polytope_is_linprogs_optimum_with_a_proven_bound():
    for seed in range(6):
        T = random_polytope(3, 9, seed)
        rng = np.random.default_rng(seed)
        for v in rng.normal(size=(4, 3)):
            t, bound = T.support(v)
            res = linprog(-v, A_ub=T.A, b_ub=T.b, bounds=[(None, None)] * 3, method="highs")
            assert res.status == 0
            np.testing.assert_allclose(v @ t, -res.fun, rtol=1e-9, atol=1e-12)
            assert -res.fun <= bound <= -res.fun + 1e-9 * np.abs(v).sum()
            assert T.contains(t[None])[0]
    t, bound = Polytope.simplex(4).support([0.5, -1.0, 2.0, 1.9])  # the vertex e_3
    np.testing.assert_allclose(t, [0, 0, 1, 0], atol=1e-12)
    np.testing.assert_allclose(bound, 2.0, rtol=1e-12)


def test_budget_set_is_the_polytope_of_its_two_to_the_p_facets():
    c, r, budget = np.array([1.0, -1.0, 0.5, 2.0]), np.array([0.5, 2.0, 1.0, 0.3]), 1.7
    T = Polytope.budget(c, r, budget)
    assert isinstance(T, Budget) and isinstance(T, Polytope)
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=4)))
    A = np.vstack([np.eye(4) / r, -np.eye(4) / r, signs / r])  # |z_i| ≤ 1, ±z sums ≤ Γ
    b = np.r_[1 + c / r, 1 - c / r, budget + signs @ (c / r)]
    facets = Polytope(A, b)
    np.testing.assert_allclose([T.lower, T.upper], [facets.lower, facets.upper], rtol=1e-9)
    rng = np.random.default_rng(1)
    for v in rng.normal(size=(6, 4)):
        (t, bound), (_, bound2) = T.support(v), facets.support(v)
        np.testing.assert_allclose(bound, bound2, rtol=1e-9)
        np.testing.assert_allclose(v @ t, bound, rtol=1e-12)
    points = facets.starting_points(None, 400, 0)
    np.testing.assert_array_equal(T.contains(points), facets.contains(points))
    outside = facets.from_cube(np.ones((1, 4))) + 1e-3 * (facets.from_cube(np.ones((1, 4)))
                                                          - facets.centre())
    assert not T.contains(outside)[0] and not facets.contains(outside)[0]


def test_product_and_intersection_against_linprog_and_their_blocks():
    T = Product(Box([0.0], [2.0]), Ball([1.0, 1.0], 0.5), Polytope.simplex(2))
    v = np.array([-1.0, 3.0, 4.0, 1.0, 2.0])
    t, bound = T.support(v)
    np.testing.assert_allclose(bound, 0.0 + (7.0 + 2.5) + 2.0, rtol=1e-12)
    np.testing.assert_allclose(t[:3], [0.0, 1.3, 1.4], rtol=1e-12)
    assert T.contains(T.starting_points(None, 300, 1)).all()
    np.testing.assert_allclose(T.lower, [0, 0.5, 0.5, 0, 0], atol=1e-12)
    I = Intersection(Box([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]), ([[1.0, 1.0, 1.0]], [2.0]),
                     ([[1.0, -1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [0.5, 0.0, 0.9]))
    for w in np.random.default_rng(2).normal(size=(5, 3)):
        res = linprog(-w, A_ub=np.vstack([np.eye(3), -np.eye(3), np.ones((1, 3)),
                                          [[1.0, -1.0, 0.0]], [[0.0, 1.0, 0.0]]]),
                      b_ub=np.r_[np.ones(3), np.zeros(3), 2.0, 0.5, 0.9], method="highs")
        np.testing.assert_allclose(I.support(w)[1], -res.fun, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(I.upper, [1.0, 0.9, 1.0], rtol=1e-9)


def test_box_and_finite_set_support():
    B = Box([-1.0, 0.0, 2.0], [1.0, 5.0, 3.0])
    corners = np.array(list(itertools.product(*zip(B.lower, B.upper))))
    for v in np.random.default_rng(3).normal(size=(5, 3)):
        np.testing.assert_allclose(B.support(v)[1], (corners @ v).max(), rtol=1e-12)
    F = FiniteSet([[0.0, 1.0], [2.0, -1.0], [1.0, 1.0]])
    t, bound = F.support([1.0, 1.0])
    assert t.tolist() == [1.0, 1.0] and bound == 2.0


def test_bounding_boxes_are_the_extremes():
    for name, T in sets().items():
        extremes = T.extremes()
        np.testing.assert_allclose(extremes[0::2].diagonal(), T.upper, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(extremes[1::2].diagonal(), T.lower, rtol=1e-9, atol=1e-12)
        assert T.contains(extremes).all(), name
        sample = T.starting_points(None, 2000, 0)  # no point beyond the box
        assert np.all(sample >= T.lower - 1e-12) and np.all(sample <= T.upper + 1e-12), name
    E = sets()["ellipsoid"]
    np.testing.assert_allclose(E.upper - E.center, np.linalg.norm(E.P, axis=1), rtol=1e-13)


# -- 2. membership, sampling, the same point --------------------------------------------
@pytest.mark.parametrize("name", list(sets()))
def test_sampling_stays_inside_and_covers_the_boundary(name):
    T = sets()[name]
    assert isinstance(T, ConvexSet)
    grid = T.tensor_grid(9)
    assert grid.shape == (9 ** T.dim, T.dim) and T.contains(grid).all()
    unit = np.stack(np.meshgrid(*[np.linspace(-1, 1, 9)] * T.dim, indexing="ij"), -1)
    outer = np.abs(unit.reshape(-1, T.dim)).max(axis=1) == 1.0
    # the outer layer on the boundary: a step further leaves the set
    beyond = grid[outer] + 1e-6 * (grid[outer] - T.centre()) + 1e-9 * (T.upper - T.lower)
    assert not T.contains(beyond, rtol=0.0).any()
    first = T.initial_points(3 * T.dim + 4)
    np.testing.assert_array_equal(first, T.initial_points(3 * T.dim + 4))  # deterministic
    assert len(first) == 3 * T.dim + 4 and T.contains(first).all()
    assert not any(T.same_columns(first[:k], first[k], 1e-9).any() for k in range(1, len(first)))
    np.testing.assert_allclose(first[0], T.centre())
    assert T.contains(T.starting_points(None, 500, 7)).all()
    assert T.contains(T.grid(None, 300)).all()
    # membership agrees with the exit of the ray from the centre
    rng = np.random.default_rng(0)
    d = rng.normal(size=(200, T.dim)) * (T.upper - T.lower)
    s = T.exit(d)
    assert T.contains(T.centre() + 0.999 * s[:, None] * d).all()
    assert not T.contains(T.centre() + 1.001 * s[:, None] * d).any()


def test_the_set_in_other_units_gives_the_same_points_and_decisions():
    small, large = sets(), sets(1000.0)
    for name in small:
        S, L = small[name], large[name]
        for a, b in [(S.tensor_grid(7), L.tensor_grid(7)),
                     (S.initial_points(9), L.initial_points(9)),
                     (S.starting_points(None, 50, 3), L.starting_points(None, 50, 3)),
                     (S.extremes(), L.extremes())]:
            np.testing.assert_allclose(1000.0 * a, b, rtol=1e-9, atol=1e-9 * np.abs(b).max())
        points = S.starting_points(None, 40, 5)
        for rtol in (1e-2, 0.3):
            np.testing.assert_array_equal(
                S.same_columns(points[:, None], points[None], rtol),
                L.same_columns(1000.0 * points[:, None], 1000.0 * points[None], rtol))
        v = np.arange(1.0, S.dim + 1.0)
        (t, bound), (t1, bound1) = S.support(v), L.support(v)
        np.testing.assert_allclose(1000.0 * t, t1, rtol=1e-9, atol=1e-9 * np.abs(t1).max())
        np.testing.assert_allclose(1000.0 * bound, bound1, rtol=1e-9, atol=1e-12)


def test_same_columns_is_relative_to_the_extent():
    T = Ellipsoid([0.0, 0.0], [[10.0, 0.0], [0.0, 0.01]])  # long and thin
    assert T.same_columns([[0.05, 0.0]], [0.0, 0.0], 1e-2)[0]  # 0.5 % of the long axis
    assert not T.same_columns([[0.0, 0.005]], [0.0, 0.0], 1e-2)[0]  # 50 % of the thin one


# -- 3. pricing: exact where affine, local searches in the set --------------------------
def test_affine_pricing_bound_holds_against_brute_force():
    x = cp.Variable(5)
    for name, T in sets().items():
        p = T.dim
        g = SemiInfiniteConstraint(lambda x, t: t @ x[:p] + x[4], x, T, vectorized=True)
        problem = pricing(g, np.random.default_rng(1).normal(size=5))
        model = affine_model(problem)
        assert model.affine, name
        round_ = PricingRound([problem], None, [], 0.0, 1, np.random.default_rng(0), cut=0.0)
        result = AffineOracle().price(round_)
        fine = np.vstack([T.starting_points(None, 20000, 0), T.tensor_grid(41 if p < 3 else 15)])
        brute = problem.values(fine).max()
        # a proof above every sample, attained (to round-off) at the candidate, in the set
        assert result.upper_bound >= brute, name
        np.testing.assert_allclose(result.scores[0], result.upper_bound, rtol=1e-12,
                                   atol=1e-13)
        t = np.array(result.columns[0].theta)
        assert T.contains(t[None])[0]
        xk = problem.x  # the exact maximum, from the support function tested above
        np.testing.assert_allclose(result.upper_bound, T.support(xk[:p])[1] + xk[4],
                                   rtol=1e-12)


def test_local_search_in_the_set_finds_the_brute_force_maximum():
    x = cp.Variable(2)
    for T in [Ball([0.0, 0.0], 1.0), random_polytope(2, 5, 0),
              Polytope.budget([0, 0, 0], [1, 1, 1], 1.5),
              Product(Box([0.0], [1.0]), Ball([0.0, 0.0], 1.0))]:
        def g(x, t):
            extra = t[:, 2] if t.shape[1] > 2 else 0.0
            return np.sin(3 * t[:, 0]) * np.cos(2 * t[:, 1]) + x[0] * t[:, 0] \
                + x[1] * t[:, 1] ** 2 + extra
        problem = pricing(SemiInfiniteConstraint(g, x, T, vectorized=True),
                          np.array([0.3, -0.5]))
        brute = problem.values(T.starting_points(None, 200000, 1)).max()
        methods = [ipopt_in_set] + ([ascend_in_set] if T.projector() is not None else [])
        found = []
        for method in methods:
            result = method(problem, T.starting_points(None, 6, 0))
            assert T.contains(result.x).all() and result.converged[0]
            assert result.fun[0] >= brute - 1e-9, (T, method)
            found.append(result.fun[0])
        np.testing.assert_allclose(found, found[0], rtol=1e-9)
        chosen = refine_in_set(problem, T.starting_points(None, 6, 0))  # the cheaper one
        np.testing.assert_allclose(chosen.fun[0], found[-1], rtol=1e-12)
    assert random_polytope(2, 5, 0).projector() is None  # a general polytope: IPOPT


def test_simplex_projection_against_cvxpy():
    T = Polytope.simplex(4, size=2.0)
    rng = np.random.default_rng(5)
    points = rng.normal(size=(6, 4)) * 2
    projected = T.project(points)
    for y, p in zip(points, projected):
        s = cp.Variable(4)
        cp.Problem(cp.Minimize(cp.sum_squares(s - y)), [s >= 0, cp.sum(s) <= 2.0]).solve()
        np.testing.assert_allclose(p, s.value, atol=1e-6)
    assert T.contains(projected).all()


def test_pull_inside_moves_points_onto_the_boundary_along_their_rays():
    T = Ball([1.0, 1.0], 2.0)
    moved = pull_inside(T, [[1.0, 7.0], [1.5, 1.0]])
    np.testing.assert_allclose(moved, [[1.0, 3.0], [1.5, 1.0]], rtol=1e-14)


def chebyshev_on(T):
    """min z s.t. |q(t) − exp(t₁) sin(2t₂)| ≤ z on T, q a quadratic in t."""
    def basis(t):
        return np.c_[np.ones(len(t)), t[:, 0], t[:, 1], t[:, 0] ** 2, t[:, 0] * t[:, 1],
                     t[:, 1] ** 2]

    def f(t):
        return np.exp(t[:, 0]) * np.sin(2 * t[:, 1])
    c, z = cp.Variable(6), cp.Variable()
    up = SemiInfiniteConstraint(lambda c, t: basis(t) @ c - f(t) - z, c, T, vectorized=True)
    lo = SemiInfiniteConstraint(lambda c, t: f(t) - basis(t) @ c - z, c, T, vectorized=True)
    return SemiInfiniteProgram(cp.Minimize(z), [up, lo]), basis, f, c


@pytest.mark.parametrize("T", [Ball([0.0, 0.0], 1.0), Polytope.simplex(2)],
                         ids=["ball", "simplex"])
def test_default_oracle_on_a_disk_and_a_triangle_against_a_fine_sample_by_linprog(T):
    program, basis, f, c = chebyshev_on(T)
    tol = 1e-8
    result = program.solve(tol=tol)
    assert result.status == "converged_local", result.message
    u = np.random.default_rng(0).uniform(-1.0, 1.0, (20000, 2))
    u[::2] /= np.abs(u[::2]).max(axis=1)[:, None]  # half of them on the boundary
    pts = np.vstack([T.from_cube(u), T.tensor_grid(201)])
    V, one = basis(pts), np.ones((len(pts), 1))
    res = linprog(np.r_[np.zeros(6), 1.0], A_ub=np.block([[V, -one], [-V, -one]]),
                  b_ub=np.r_[f(pts), -f(pts)], bounds=[(None, None)] * 7, method="highs")
    # the sample's LP is a relaxation: below the optimum, which the run's master is below by
    # its cut at most; the run's error is within its cut (tol × the scale) on the sample
    cut = tol * max(result.scales)
    assert result.objective >= res.fun - cut
    assert np.abs(V @ c.value - f(pts)).max() <= result.objective + cut
    np.testing.assert_allclose(result.objective, res.fun, rtol=1e-5)  # the sample's spacing


# -- 4. the exchange method against the robust counterpart ------------------------------
def robust_sets():
    return {"polytope": random_polytope(3, 8, 4),
            "product": Product(Box([-0.5], [0.5]), Ball([0.2, -0.1], 0.4)),
            "box": Box([-0.3, -0.2, 0.0], [0.3, 0.2, 0.5]),
            "ellipsoid": Ellipsoid([0.1, 0.0, -0.1], np.diag([0.3, 0.2, 0.1]) + 0.05)}


@pytest.mark.parametrize("name", list(robust_sets()))
def test_exchange_method_equals_the_robust_counterpart(name):
    """Two robust rows over T (one g vectorized, one scalar), x in a box: the exchange
    method with AffineOracle ends certified, within 10⁻⁸ of the robust counterpart."""
    T = robust_sets()[name]
    x = cp.Variable(3)
    rows = [SemiInfiniteConstraint(lambda x, t: (1.0 + t) @ x - 1.0, x, T, vectorized=True),
            SemiInfiniteConstraint(lambda x, t: x[0] - 2 * x[1] + t @ x - 0.5, x, T)]
    box = [x >= -2, x <= 2]
    result = SemiInfiniteProgram(cp.Maximize(cp.sum(x) - 0.1 * x[2]), rows, box).solve(
        AffineOracle(), tol=1e-10)
    assert result.status == "certified_optimal", result.message
    counterpart = robust_program(cp.Maximize(cp.sum(x) - 0.1 * x[2]), rows, box)
    counterpart.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    assert abs(result.objective - counterpart.value) <= 1e-8 * max(1.0, abs(counterpart.value))


def test_robust_counterpart_of_a_finite_set_and_errors():
    x = cp.Variable(2)
    g = SemiInfiniteConstraint(lambda x, t: t @ x - 1.0, x, FiniteSet([[1.0, 0.0], [0.0, 2.0]]))
    problem = cp.Problem(cp.Maximize(cp.sum(x)), robust_counterpart(g))
    np.testing.assert_allclose(problem.solve(), 1.5, rtol=1e-7)
    square = SemiInfiniteConstraint(lambda x, t: t @ cp.square(x) - 1.0, x, Ball([0, 0], 1.0))
    with pytest.raises(ValueError, match="not affine in x"):
        robust_counterpart(square)
    with pytest.raises(TypeError, match="SemiInfiniteConstraint"):
        robust_counterpart("g")


@pytest.mark.parametrize("units, g_units", [(1.0, 1.0), (1000.0, 1e-3)])
def test_robust_program_refuses_a_g_not_affine_in_t(units, g_units):
    """max x s.t. x(1 + 2t₁t₂) ≤ 1 on the disk ‖t‖ ≤ 1, x ≤ 10: 1/(1 + max 2t₁t₂) = ½ in
    closed form, which the exchange method reaches. The counterpart's affine model through
    the centre and c + F e_i (2t₁t₂ = 0 there: x ≤ 1) would be wrong, and robust_program
    refuses it, naming g and a chord where g's affinity in t fails; the same refusal with t
    in units ×1000 and g ×10⁻³. The affine x(1 + t₁) ≤ 1 passes: its counterpart gives ½,
    the closed form, and the variable keeps its value."""
    x = cp.Variable()

    def row(phi):
        return SemiInfiniteConstraint(lambda x, t: g_units * (x * phi(t / units) - 1.0), x,
                                      Ball([0.0, 0.0], units), name="row")
    bilinear = row(lambda t: 1.0 + 2.0 * t[0] * t[1])
    result = SemiInfiniteProgram(cp.Maximize(x), [bilinear], [x <= 10]).solve(tol=1e-9)
    assert result.success and abs(result.objective - 0.5) <= 1e-7
    with pytest.raises(ValueError, match="g of constraint 'row' is not affine in t"):
        robust_program(cp.Maximize(x), bilinear, [x <= 10])
    x.value = np.array(3.0)
    counterpart = robust_program(cp.Maximize(x), row(lambda t: 1.0 + t[0]), [x <= 10])
    assert float(x.value) == 3.0
    assert abs(counterpart.solve(solver="CLARABEL") - 0.5) <= 1e-7


def test_robust_counterpart_checks_g_at_sampled_parameters():
    """A parameter without a value is sampled with the variables (and left without one):
    q t₁² x₁ − 1 is refused, q t₁ x₁ − 1 passes. With log q at q = −1, g has no value at
    all: its affinity unchecked, refused."""
    x, q = cp.Variable(2), cp.Parameter()

    def g(phi):
        return SemiInfiniteConstraint(lambda x, t: phi(t) - 1.0, x, Ball([0.0, 0.0], 1.0))
    with pytest.raises(ValueError, match="not affine in t"):
        robust_counterpart(g(lambda t: q * t[0] ** 2 * x[0]))
    assert robust_counterpart(g(lambda t: q * t[0] * x[0])) and q.value is None
    q.value = -1.0
    with pytest.raises(ValueError, match="its affinity in t, which the robust counterpart "
                                         "needs, is unchecked"):
        robust_counterpart(g(lambda t: t[0] * x[0] + cp.log(q)))


# -- 5. scale-free: the same run in other units ------------------------------------------
@pytest.mark.parametrize("oracle", [AffineOracle, None], ids=["affine", "default"])
def test_same_run_with_the_set_in_other_units(oracle):
    mod = example("robust_portfolio")
    mu, L = mod.market(5)
    runs = []
    for units in (1.0, 1000.0):
        program, w, z = mod.portfolio_program(mu, L, 1.0, units)
        result = program.solve(None if oracle is None else oracle(), tol=1e-6)
        runs.append((result, w.value))
    (a, wa), (b, wb) = runs
    assert a.success and (a.status, a.nit) == (b.status, b.nit)
    np.testing.assert_allclose(b.objective, a.objective, rtol=1e-9)
    np.testing.assert_allclose(wb, wa, atol=1e-8)
    for pa, pb in zip(a.points, b.points):
        np.testing.assert_allclose(pb, 1000.0 * pa, rtol=1e-7, atol=1e-9 * np.abs(pb).max())


@pytest.mark.parametrize("make, rtol", [
    pytest.param(lambda u: random_polytope(2, 5, 1) if u == 1 else Polytope(
        random_polytope(2, 5, 1).A, u * random_polytope(2, 5, 1).b), 1e-7,
        marks=pytest.mark.slow, id="polytope (IPOPT)"),  # 12 s
    pytest.param(lambda u: Ellipsoid([0.0, 0.2 * u], [[0.8 * u, 0.1 * u], [0.0, 0.5 * u]]),
                 1e-5, id="ellipsoid (projected gradient)")])
def test_same_run_of_the_default_oracle_on_a_nonaffine_g_in_other_units(make, rtol):
    """The minimax fit of exp(u₁ − u₂) by 1, u₁, u₂, u₁u₂ on T in units 1 and 1000 (tol
    10⁻⁷): the same run, its rounds and its value to 10⁻⁹, and its coefficients c to
    ``rtol``, what the rounding of another unit leaves of the run's c (measured with T in
    units 10⁻³, 0.1, 3, 7, 10³, 10⁶ against units 1; units 2^k give the same bits).

    On the polygon the error touches its bound at vertices, which pin c: it moves by 4·10⁻⁹
    at most. On the ellipse it has an interior maximum (one of three contact points for five
    unknowns, the interior one holding c only through its curvature): the restricted
    master's optimal face is flat — on its last master (HiGHS), c ranges over 9·10⁻⁴ where z
    moves by 10⁻¹³ — and the interior-point solver's stop on that face carries the
    rounding into c by 1.1·10⁻⁷ to 3.9·10⁻⁷; the run's c is known only to 6·10⁻⁴ (its
    distance to that of a run at tol 10⁻¹⁰), each of its last rounds moving it by 9·10⁻⁴
    to 2·10⁻³, so that another path would end 10⁻⁴ away or more: 10⁻⁵ lies between."""
    runs = []
    for units in (1.0, 1000.0):
        T = make(units)
        c, z = cp.Variable(4), cp.Variable()

        def error(c, t):
            u = t / units
            return np.c_[np.ones(len(u)), u, u[:, 0] * u[:, 1]] @ c - np.exp(u[:, 0] - u[:, 1])
        rows = [SemiInfiniteConstraint(lambda c, t: error(c, t) - z, c, T, vectorized=True),
                SemiInfiniteConstraint(lambda c, t: -error(c, t) - z, c, T, vectorized=True)]
        result = SemiInfiniteProgram(cp.Minimize(z), rows).solve(tol=1e-7)
        runs.append((result, c.value))
    (a, ca), (b, cb) = runs
    assert a.status == "converged_local" and (a.status, a.nit) == (b.status, b.nit)
    np.testing.assert_allclose(b.objective, a.objective, rtol=1e-9)
    np.testing.assert_allclose(cb, ca, rtol=rtol, atol=1e-9)


def test_default_imposes_a_g_affine_in_t_by_its_counterpart_and_certifies():
    """By default a g that passes the affinity check is imposed by its exact robust
    counterpart and priced exactly (with the bound of the support function): the robust
    portfolio ends certified at its closed form in one round; with the search alone
    (``counterparts=False``) it stays uncertified."""
    mod = example("robust_portfolio")
    mu, L = mod.market(6)
    value, _ = mod.closed_form(mu, L, 1.0)
    program, w, z = mod.portfolio_program(mu, L, 1.0)
    result = program.solve()
    assert result.status == "certified_optimal" and result.violation_proved, result.message
    assert result.nit == 1
    assert abs(result.objective - value) <= 1e-8 * 0.05
    searched = program.solve(tol=1e-9, counterparts=False)
    assert searched.status == "converged_local" and not searched.violation_proved
    assert abs(searched.objective - value) <= 1e-8 * 0.05
    for units in (1e3, 1e6):  # returns in other units: the same run (the counterpart is
        # divided by the constraint's scale, as the index points are)
        other = mod.portfolio_program(mu, L, 1.0, units)[0].solve()
        assert (other.status, other.nit) == (result.status, result.nit)
        assert abs(other.objective - result.objective) <= 1e-9 * abs(result.objective)


def test_default_oracle_searches_a_nonaffine_g_in_dimension_three():
    """max over a 3-D ball of a g quadratic in t (no affine shortcut): the screened sample and
    IPOPT in the set find the maximum of the closed form, ‖t‖² ≤ 1: min z s.t.
    z ≥ ‖t‖² + aᵀt for all t ∈ B gives z = 1 + ‖a‖ at a = x (fixed by a constraint)."""
    x, z = cp.Variable(3), cp.Variable()
    a = np.array([0.3, -0.4, 0.2])
    g = SemiInfiniteConstraint(lambda v, t: np.sum(t ** 2, axis=1) + t @ v[0] - v[1],
                               (x, z), Ball([0.0, 0.0, 0.0], 1.0), vectorized=True)
    result = SemiInfiniteProgram(cp.Minimize(z), g, [x == a]).solve(tol=1e-9)
    assert result.status == "converged_local", result.message
    np.testing.assert_allclose(result.objective, 1.0 + np.linalg.norm(a), rtol=1e-8)


# -- 6. bad input: clear errors ---------------------------------------------------------
@pytest.mark.parametrize("make, match", [
    (lambda: Polytope([[1.0, 0.0], [-1.0, 0.0]], [-1.0, -1.0]), "empty"),
    (lambda: Polytope([[1.0, 0.0], [-1.0, 0.0]], [1.0, 1.0]), "unbounded"),
    (lambda: Polytope([[1.0, 1.0]], [1.0]), "unbounded"),
    (lambda: Polytope([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]], [1, -1, 1, 1]),
     "no interior"),
    (lambda: Polytope([[0.0, 0.0]], [-1.0]), "empty"),
    (lambda: Polytope([[1.0, 0.0]], [1.0, 2.0]), "rows"),
    (lambda: Polytope([1.0, 0.0], [1.0]), "2-D"),
    (lambda: Polytope([[np.nan, 0.0]], [1.0]), "finite"),
    (lambda: Polytope.simplex(0), "p must be"),
    (lambda: Polytope.simplex(2, size=-1.0), "size"),
    (lambda: Polytope.budget([0.0, 0.0], [1.0, 0.0], 1.0), "radius"),
    (lambda: Polytope.budget([0.0, 0.0], [1.0, 1.0, 1.0], 1.0), "radius"),
    (lambda: Polytope.budget([0.0, 0.0], [1.0, 1.0], 0.0), "without interior"),
    (lambda: Ellipsoid([0.0, 0.0], [[1.0, 1.0], [1.0, 1.0]]), "singular"),
    (lambda: Ellipsoid([0.0, 0.0], np.eye(3)), "2 × 2"),
    (lambda: Ball([0.0], 0.0), "radius"),
    (lambda: Ball([0.0, np.inf], 1.0), "finite"),
    (lambda: Product(), "at least one"),
    (lambda: Intersection(Box([0.0], [1.0]), "ball"), "is not a Box, a Polytope"),
    (lambda: Intersection(Box([0.0], [1.0]), Box([0.0, 0.0], [1.0, 1.0])), "one dimension"),
    (lambda: Intersection(Box([0.0], [1.0]), Box([2.0], [3.0])), "empty"),
])
def test_bad_sets_are_value_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_bad_uses_are_clear_errors():
    with pytest.raises(TypeError, match="Box or a convex set"):
        Product(Box([0.0], [1.0]), FiniteSet([[0.0]]))
    with pytest.raises(ValueError, match="must have 2 entries"):
        Ball([0.0, 0.0], 1.0).support([1.0])
    with pytest.raises(ValueError, match=r"\(m, 2\) array"):
        Ball([0.0, 0.0], 1.0).contains([[1.0, 2.0, 3.0]])
    x = cp.Variable(2)
    T = Ball([0.0, 0.0], 1.0)
    curved = SemiInfiniteConstraint(lambda x, t: t @ x + t @ t - 1.0, x, T)
    program = SemiInfiniteProgram(cp.Maximize(cp.sum(x)), curved, [x <= 5])
    with pytest.raises(ValueError, match="not affine in t"):
        program.solve(AffineOracle())
    with pytest.raises(ValueError, match="SetSearchOracle"):
        program.solve("dense")
    with pytest.raises(ValueError, match="Lipschitz oracle searches boxes"):
        program.solve(lipschitz=10.0)
    for name in ("ipopt", "lipschitz"):  # the box oracles, asked for by name, would search
        with pytest.raises(ValueError, match="bounding box"):  # the bounding box
            program.solve(name, lipschitz=10.0)
    with pytest.raises(ValueError, match="must lie in"):
        program.solve(initial_points=[[[0.9, 0.9]]])
    with pytest.raises(TypeError, match="index set"):
        SemiInfiniteConstraint(lambda x, t: t @ x, x, "ball")


def test_dense_oracle_search_works_on_the_sets_radial_grid():
    """DenseSampleOracle.search (the default's search in dimension ≤ 2) on a polytope:
    the grid's local maxima refined in the set, against brute force."""
    T = Polytope([[1.0, 0.2], [-1.0, 0.5], [0.1, -1.0], [-0.3, -1.0]], [1.0, 1.0, 1.0, 1.2])
    x = cp.Variable(1)
    g = SemiInfiniteConstraint(lambda x, t: np.cos(4 * t[:, 0]) * np.sin(3 * t[:, 1]) + x[0],
                               x, T, vectorized=True)
    problem = pricing(g, np.array([0.0]))
    points, values = DenseSampleOracle(1025, 8).search(problem, np.zeros((0, 2)))
    assert T.contains(points).all()
    fine = T.starting_points(None, 300000, 0)
    assert values[0] >= problem.values(fine).max() - 1e-10
    res = SetSearchOracle().search(problem, np.zeros((0, 2)))
    np.testing.assert_allclose(res[1][0], values[0], rtol=1e-10)


# -- 7. what makes a robust program one small conic program ------------------------------
def polytope_max(A, b, c) -> float:
    """max cᵀt over {A t ≤ b} by SciPy's linprog, in the user's units."""
    res = linprog(-c, A_ub=A, b_ub=b, bounds=[(None, None)] * len(c), method="highs")
    assert res.status == 0
    return -res.fun


@pytest.mark.parametrize("p, m, units", [(2, 5, 1.0), (3, 9, 1.0), (4, 10, 1e3), (5, 4, 1.0)])
def test_vertex_list_support_equals_linprog(p, m, units, monkeypatch):
    """Over a polytope with few vertices its bounding box and support function come from
    its vertex list, no LP per call (the vertex LP is made to fail): the bounds and the
    maximum equal SciPy's linprog on the user's A, b (in units ×1000 too), the point lies in
    the set, and the bound is above the maximum by round-off only."""
    T0 = random_polytope(p, m, seed=p + m)
    A, b = T0.A, units * T0.b
    monkeypatch.setattr("sipkl.sip.sets.polytopes.vertex", lambda *a: pytest.fail("an LP"))
    T = Polytope(A, b)
    for i in range(p):  # the bounding box, from vertices proved optimal
        e = np.eye(p)[i]
        np.testing.assert_allclose([T.lower[i], T.upper[i]],
                                   [-polytope_max(A, b, -e), polytope_max(A, b, e)],
                                   rtol=1e-12, atol=1e-12 * units)
    rng = np.random.default_rng(p)
    for c in rng.normal(size=(20, p)):
        t, bound = T.support(c)
        best = polytope_max(A, b, c)
        scale = np.abs(c) @ np.maximum(np.abs(T.lower), np.abs(T.upper))
        assert T.contains(t[None])[0]
        assert abs(c @ t - best) <= 1e-10 * scale
        assert best - 1e-12 * scale <= bound <= best + 1e-9 * scale


def test_many_vertices_fall_back_to_the_lp():
    """Beyond VERTEX_SUBSETS p-subsets of rows (26 choose 6) the set keeps no vertex list and
    its support is the vertex LP's, again equal to linprog's maximum."""
    T0 = random_polytope(6, 14, seed=1)
    T = Polytope(T0.A, T0.b)
    assert T._vertices is None
    for c in np.random.default_rng(0).normal(size=(5, 6)):
        t, bound = T.support(c)
        best = polytope_max(T0.A, T0.b, c)
        assert abs(c @ t - best) <= 1e-9 * np.abs(c).sum() * 3 and bound >= best - 1e-12


def hand_counterparts(rows, x):
    """The robust rows a_kᵀx − b_k + tᵀM_k x ≤ 0 written out by hand per kind of set: LP
    duality on the user's A, b (y ≥ 0, Aᵀy = M x, bᵀy bounds tᵀM x), ‖·‖₂ for a ball,
    ‖diag(r)·‖₁ plus ‖·‖₂ for a box × ball product."""
    out = []
    for kind, data, a, b0, M in rows:
        u = M @ x
        if kind == "polytope":
            A, b = data
            y = cp.Variable(len(b), nonneg=True)
            out += [a @ x - b0 + b @ y <= 0, A.T @ y == u]
        elif kind == "ball":
            c, r = data
            out.append(a @ x - b0 + c @ u + r * cp.norm(u, 2) <= 0)
        else:  # box [lo, hi] × ball (c, r)
            (lo, hi), (c, r) = data
            k = len(lo)
            out.append(a @ x - b0 + (lo + hi) / 2 @ u[:k] + cp.norm(cp.multiply((hi - lo) / 2,
                       u[:k]), 1) + c @ u[k:] + r * cp.norm(u[k:], 2) <= 0)
    return out


@pytest.mark.parametrize("units", [1.0, 1e3])
def test_rows_over_one_set_share_a_counterpart(units):
    """Eleven robust rows over three sets (five over one polytope, four over a ball, two over
    a box × ball), each row its own SemiInfiniteConstraint: the default run imposes them by
    three counterparts (one per set) and ends certified in one round, at the optimum of the
    rows written out by hand (LP duality on the user's A, b; norms), each row's multiplier
    that of its hand-written constraint; t in units ×1000 gives the same run."""
    rng = np.random.default_rng(5)
    n = 4
    x = cp.Variable(n)
    T0 = random_polytope(3, 6, seed=2)
    box, ball, disk = ((-units * np.ones(2), units * np.ones(2)),
                       (units * np.array([0.1, -0.2]), units * 0.5), (np.zeros(2), units * 0.3))
    kinds = {"polytope": ((T0.A, units * T0.b), Polytope(T0.A, units * T0.b)),
             "ball": (ball, Ball(*ball)), "product": ((box, disk), Product(Box(*box),
                                                                           Ball(*disk)))}
    data = []
    for kind, count in (("polytope", 5), ("ball", 4), ("product", 2)):
        p = kinds[kind][1].dim
        for _ in range(count):
            a = 1.0 + rng.random(n)
            data.append((kind, kinds[kind][0], a, 0.3 * a.sum(),
                         0.2 / units * rng.uniform(-1, 1, (p, n))))
    rows = [SemiInfiniteConstraint(lambda x, t, a=a, b=b, M=M: a @ x - b + t @ (M @ x), x,
                                   kinds[kind][1], vectorized=True, name=f"row{k}")
            for k, (kind, _, a, b, M) in enumerate(data)]
    program = SemiInfiniteProgram(cp.Maximize(np.arange(1, n + 1) @ x), rows, [x >= 0, x <= 1])
    result = program.solve()
    assert result.status == "certified_optimal" and result.nit == 1, result.message
    assert [c.members for c in program.master.counterparts] == [[0, 1, 2, 3, 4],
                                                                [5, 6, 7, 8], [9, 10]]
    hand = hand_counterparts(data, x)
    reference = cp.Problem(cp.Maximize(np.arange(1, n + 1) @ x), [x >= 0, x <= 1] + hand)
    reference.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    assert abs(result.objective - reference.value) <= 1e-9 * abs(reference.value)
    duals = [float(c.dual_value) for c in hand if c.shape == ()]
    assert len(duals) == len(rows)
    found = [float(m[0]) for m in result.multipliers]
    np.testing.assert_allclose(found, duals, rtol=1e-6, atol=1e-8 * max(duals))


def test_counterpart_of_a_matrix_variable_and_a_scalar():
    """g over a box of x = (X, s), X a 2 × 3 matrix: tᵀX a + s − 1 ≤ 0 for t ∈ [−1, 1]²
    is ‖X a‖₁ + s ≤ 1 (written by hand); the default run's optimum is that problem's."""
    X, s = cp.Variable((2, 3)), cp.Variable()
    a = np.array([1.0, -2.0, 0.5])
    row = SemiInfiniteConstraint(lambda v, t: t @ (v[0] @ a) + v[1] - 1.0, (X, s),
                                 Box([-1.0, -1.0], [1.0, 1.0]), vectorized=True)
    objective = cp.Maximize(s + cp.sum(X @ np.array([1.0, 0.3, 0.2])))
    finite = [X >= -1, X <= 1]
    result = SemiInfiniteProgram(objective, row, finite).solve()
    assert result.status == "certified_optimal", result.message
    hand = cp.Problem(objective, finite + [cp.norm(X @ a, 1) + s <= 1])
    hand.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    assert abs(result.objective - hand.value) <= 1e-9 * max(1.0, abs(hand.value))


def test_an_infeasible_row_of_a_shared_counterpart_is_named_alone():
    """Two rows over one simplex share a counterpart; x ≤ 1 + t₁ holds alone with x ≥ 0,
    x + 2 ≤ t₁ does not (t₁ ≤ 1): the run ends infeasible and names the second row alone."""
    x = cp.Variable()
    T = Polytope.simplex(2)
    rows = [SemiInfiniteConstraint(lambda x, t: x - 1.0 - t[:, 0], x, T, vectorized=True,
                                   name="fits"),
            SemiInfiniteConstraint(lambda x, t: x + 2.0 - t[:, 0], x, T, vectorized=True,
                                   name="breaks")]
    result = SemiInfiniteProgram(cp.Maximize(x), rows, [x >= 0]).solve()
    assert result.status == "infeasible", result.message
    assert "on their own: breaks with the finite constraints" in result.message
    assert "fits with" not in result.message


def _conic_sets(k: float):
    """Sets of every kind with a conic form, in units ×k."""
    rng = np.random.default_rng(11)
    A = rng.normal(size=(9, 3))
    return [Box(k * np.array([-1.0, 0.5, 2.0]), k * np.array([1.0, 3.0, 2.5])),
            Ball(k * np.array([1.0, -2.0]), 0.7 * k),
            Ellipsoid(k * np.array([0.5, 0.0, 1.0]), k * (np.eye(3) + 0.4 * rng.normal(
                size=(3, 3)))),
            Polytope(A, k * (1.0 + rng.random(9))), Polytope.simplex(4, 2.0 * k),
            Polytope.budget(k * np.array([1.0, 0.0, -1.0]), k * np.array([0.5, 2.0, 1.0]),
                            1.5),
            Polytope.budget([0.0, 0.0], k * np.array([1.0, 3.0]), 0.6),
            Product(Ball([0.0, 0.0], k), Box([0.0], [2.0 * k]), Polytope.simplex(2, k))]


@pytest.mark.parametrize("k", [1.0, 1e3])
@pytest.mark.parametrize("which", range(8))
def test_conic_form_gives_each_sets_support_function(which, k):
    """max vᵀ(c + F z) over the set's conic form Z = {h − Gz − Hu ∈ K} (solved as a conic
    program by cvxpy) equals the set's own support function (closed forms, sorts, LPs on
    its own data) in several directions, the set in units ×1000 too."""
    T = _conic_sets(k)[which]
    for v in np.random.default_rng(3).normal(size=(4, T.dim)):
        value = _support_by_conic_form(T, v, tol_gap_abs=1e-11, tol_gap_rel=1e-11,
                                       tol_feas=1e-11)
        np.testing.assert_allclose(value, T.support(v)[1], rtol=1e-8,
                                   atol=1e-8 * k * np.abs(v).sum())


def _support_by_conic_form(T, v, **options) -> float:
    """max vᵀ(c + F z) over T's conic form Z = {z : h − Gz − Hu ∈ K}, solved by cvxpy
    (Clarabel, with ``options``)."""
    form = T.conic_form()
    z, u = cp.Variable(T.dim), cp.Variable(max(form.H.shape[1], 1))
    s = form.h - form.G @ z - (form.H @ u[:form.H.shape[1]] if form.H.shape[1] else 0)
    cones = [s[:form.nonneg] >= 0] if form.nonneg else []
    cones += [cp.SOC(s[a], s[a + 1:a + q]) for a, q in zip(form.cone_starts(), form.cones)]
    return cp.Problem(cp.Maximize(v @ (T.centre() + T.frame() @ z)), cones).solve(
        solver="CLARABEL", **options)


def test_a_conic_form_of_another_type_is_a_type_error():
    """A set whose conic_form returns something else than a ConicForm: a TypeError naming
    the set and what it returned."""
    class Wrong(Box):
        def conic_form(self):
            return np.eye(2), np.ones(2)
    x = cp.Variable(2)
    row = SemiInfiniteConstraint(lambda x, t: t @ x - 1.0, x, Wrong([0, 0], [1, 1]))
    with pytest.raises(TypeError, match="must return a ConicForm, got tuple"):
        robust_counterpart(row)


@pytest.mark.parametrize("p", [1, 2, 3, 5])
def test_simplex_ball_in_closed_form_equals_the_lp(p):
    """The simplex states its inscribed ball (radius size/(p + √p)) instead of solving the
    LP a polytope solves: the same ball to round-off, and the analytic centre size/(p + 1)."""
    T = Polytope.simplex(p, size=2.5)
    np.testing.assert_allclose(T._inscribed_ball(), Polytope._inscribed_ball(T), atol=1e-14)
    np.testing.assert_allclose(T.centre(), np.full(p, 2.5 / (p + 1)), rtol=1e-12)


def test_a_g_affine_in_x_only_at_the_frame_points_is_refused():
    """t₁t₂‖x‖ + tᵀx − 1 over the unit disk: at the centre and at c + F e_i the first term
    vanishes, so g is affine in x there (as cvxpy sees it), but not elsewhere; its
    coefficients there would make a wrong counterpart. It is refused (not affine in t at the
    sampled x, the first screen), and the program leaves it to the exchange method (no
    counterpart)."""
    x = cp.Variable(2)
    row = SemiInfiniteConstraint(lambda x, t: t[0] * t[1] * cp.norm(x) + t @ x - 1.0, x,
                                 Ball([0.0, 0.0], 1.0), name="row")
    with pytest.raises(ValueError, match="g of constraint 'row' is not affine in t"):
        robust_counterpart(row)
    assert affine_counterparts([row]) == []


def test_a_g_affine_in_x_only_at_the_centre_is_refused():
    """t₁‖x‖² + tᵀx − 1 over a box centred at 0: affine in t for every x, and affine in x at
    the centre (as cvxpy sees it), but not at c + F e_1, where the coefficients from n + 1
    evaluations would make a wrong counterpart. Refused (g differs from its affine model
    at a frame point, at the sampled x), and the program leaves it to the exchange method,
    which solves it."""
    x = cp.Variable(2)
    row = SemiInfiniteConstraint(lambda x, t: t[0] * cp.sum_squares(x) + t @ x - 1.0, x,
                                 Box([-1.0, -1.0], [1.0, 1.0]), name="row")
    with pytest.raises(ValueError, match="g of constraint 'row' is not affine in x at"):
        robust_counterpart(row)
    assert affine_counterparts([row]) == []


def test_counterpart_of_a_variable_passed_twice():
    """x = (y, y): tᵀy + Σy − 1 ≤ 0 on [−1, 1]² is ‖y‖₁ + Σy ≤ 1 (by hand); each copy's
    coefficients count, summed."""
    y = cp.Variable(2)
    row = SemiInfiniteConstraint(lambda v, t: t @ v[0] + cp.sum(v[1]) - 1.0, (y, y),
                                 Box([-1.0, -1.0], [1.0, 1.0]), vectorized=True)
    objective = cp.Maximize(y[0] + 0.5 * y[1])
    result = SemiInfiniteProgram(objective, row, [y >= -5]).solve()
    hand = cp.Problem(objective, [cp.norm(y, 1) + cp.sum(y) <= 1, y >= -5])
    hand.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    assert result.status == "certified_optimal", result.message
    assert abs(result.objective - hand.value) <= 1e-9


def _numbers_program(kind, g_scale=1.0, f_scale=1.0):
    """Six robust rows over three sets (LPs or with second-order cones), g in units
    ×``g_scale``, the objective ×``f_scale``: (objective, rows, finite, x, z)."""
    rng = np.random.default_rng(5)
    if kind == "lp":
        sets = [Box([-1.0, -1.0, 0.0], [1.0, 2.0, 1.0]),
                Polytope(np.vstack([np.eye(3), -np.eye(3), rng.normal(size=(3, 3))]),
                         np.r_[np.ones(6), 0.5 + rng.random(3)]),
                Polytope.budget([0.0, 0.0, 0.0], [1.0, 0.5, 2.0], 1.5)]
    else:
        sets = [Ellipsoid([0.1, 0.0, -0.2], np.eye(3) + 0.3 * rng.normal(size=(3, 3))),
                Product(Ball([0.0], 0.5), Polytope.simplex(2, 1.0)), Box([0.0] * 3, [1.0] * 3)]
    x, z = cp.Variable(3, nonneg=True), cp.Variable()
    rows = []
    for k, T in enumerate(sets):
        for _ in range(2):
            a, M = 1.0 + rng.random(3), 0.2 * rng.normal(size=(3, 3))
            rows.append(SemiInfiniteConstraint(
                lambda x, t, a=a, M=M: g_scale * ((a + t @ M) @ x[0] - 3.5 - x[1]), (x, z), T,
                vectorized=True))
    finite = [cp.sum(x) == 1.5, z <= 1.0, x[0] - x[1] <= 0.4]
    objective = cp.Maximize(f_scale * (np.array([1.0, 2.0, 0.5]) @ x - z))
    return objective, rows, finite, x, z


@pytest.mark.parametrize("kind", ["lp", "socp"])
def test_master_as_numbers_is_the_same_in_other_units(kind):
    """The program of the next test with g in units ×10⁻⁶ and ×10³ and the objective ×10³:
    the same x (to the solvers' round-off), multipliers scaled by the units, certified."""
    runs = []
    for g_scale, f_scale in [(1.0, 1.0), (1e-6, 1.0), (1e3, 1e3)]:
        objective, rows, finite, x, z = _numbers_program(kind, g_scale, f_scale)
        result = SemiInfiniteProgram(objective, rows, finite).solve()
        assert result.status == "certified_optimal", result.message
        runs.append((np.r_[x.value, z.value], result.objective / f_scale,
                     np.concatenate(result.multipliers) * g_scale / f_scale))
    for x_k, f_k, m_k in runs[1:]:
        np.testing.assert_allclose(x_k, runs[0][0], rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(f_k, runs[0][1], rtol=1e-10)
        np.testing.assert_allclose(m_k, runs[0][2], rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("kind", ["lp", "socp"])
def test_master_as_numbers_equals_cvxpys(kind):
    """A program whose every constraint is affine or imposed by a numeric counterpart is
    solved as numbers (HiGHS for an LP, Clarabel for an SOCP; no cvxpy compilation): the
    same objective, x, counterpart multipliers and finite constraints' duals as the same
    master compiled by cvxpy (solvers given, which sends it there), and as the robust
    counterpart written by hand, solved by cvxpy."""
    objective, rows, finite, x, z = _numbers_program(kind)

    def run(**options):
        program = SemiInfiniteProgram(objective, rows, finite)
        result = program.solve(**options)
        assert result.status == "certified_optimal", result.message
        return (result.objective, np.r_[x.value, z.value],
                np.concatenate(result.multipliers),
                np.concatenate([np.ravel(c.dual_value) for c in finite]), program)

    numbers = run()
    assert numbers[-1].master.conic_data() is not None
    compiled = run(solvers=["CLARABEL", "ECOS"])
    assert compiled[-1].master.conic_data() is None
    for a, b in zip(numbers[:4], compiled[:4]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    exact = robust_program(objective, rows, finite)
    exact.solve(solver="CLARABEL")
    np.testing.assert_allclose(numbers[0], exact.value, rtol=1e-9)


def test_conic_form_of_an_intersection_with_an_ellipsoid():
    """An ellipsoid cut by a box and a half-space (a SmoothSet) states the conic form of its
    parts in its own frame: its support equals max vᵀt over the same inequalities written
    directly in cvxpy, and a robust LP over it, imposed by that counterpart, equals the same
    LP solved by the exchange method (counterparts=False), which never uses the form."""
    P = np.array([[1.0, 0.3], [0.0, 0.6]])
    T = Intersection(Ellipsoid([0.2, 0.1], P), Box([-0.5, -1.0], [1.0, 0.4]),
                     ([[1.0, 1.0]], [0.8]))
    t = cp.Variable(2)
    direct = [cp.norm(np.linalg.inv(P) @ (t - [0.2, 0.1])) <= 1, t >= [-0.5, -1.0],
              t <= [1.0, 0.4], t[0] + t[1] <= 0.8]
    for v in np.random.default_rng(2).normal(size=(5, 2)):
        via_form = _support_by_conic_form(T, v)
        by_hand = cp.Problem(cp.Maximize(v @ t), direct).solve(solver="CLARABEL")
        np.testing.assert_allclose(via_form, by_hand, rtol=1e-7, atol=1e-8)
    x = cp.Variable(2)
    row = SemiInfiniteConstraint(lambda x, t: (np.array([1.0, 2.0]) + t) @ x - 1.0, x, T,
                                 vectorized=True)
    objective = cp.Maximize(x[0] + x[1])
    exact = SemiInfiniteProgram(objective, [row], [x >= 0]).solve()
    assert exact.status == "certified_optimal", exact.message
    exchanged = SemiInfiniteProgram(objective, [row], [x >= 0]).solve(counterparts=False)
    assert exchanged.success, exchanged.message
    np.testing.assert_allclose(exact.objective, exchanged.objective, rtol=1e-9)
