"""The final verification search of a semi-infinite program's answer, and ``oracle="grid"``
over continuous index sets.

Every reference is brute force computed here: dense clouds of points of each set built from
its definition (a grid of its bounding box filtered by the set's inequalities, and boundary
points from a parametrization), SciPy's linprog (HiGHS) over such a cloud, and the same run
in other units.
"""
import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog

from sipkl.core.contracts import OracleBase, OracleResult
from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram
from sipkl.sip.sets.ellipsoids import Ball, Ellipsoid
from sipkl.sip.sets.polytopes import Polytope
from sipkl.sip.sets.product import Product
from sipkl.sip.sets.smooth import SmoothSet
from sipkl.sip.pricing.space import ConstraintPrice, IndexPointPricing
from sipkl.sip.pricing.verification import search_set, verify


# -- clouds of points of each set, from its definition --------------------------------------
def _cube_grid(p: int, k: int) -> np.ndarray:
    axes = np.linspace(-1.0, 1.0, k)
    return np.stack(np.meshgrid(*[axes] * p, indexing="ij"), -1).reshape(-1, p)


def ellipsoid_cloud(center, P, k=301, n_boundary=4000):
    """c + P u over a k × k grid of the unit disk and n_boundary points of its circle."""
    u = _cube_grid(2, k)
    u = u[np.linalg.norm(u, axis=1) <= 1.0]
    angle = np.linspace(0.0, 2 * np.pi, n_boundary, endpoint=False)
    u = np.vstack([u, np.c_[np.cos(angle), np.sin(angle)]])
    return np.asarray(center) + u @ np.asarray(P).T


def budget_cloud(p, budget, k=41, n_boundary=30000, seed=0):
    """{|z| ≤ 1, Σ|z| ≤ Γ}: a k^p grid filtered, boundary points d / gauge(d) for random d,
    and the vertices (Γ of the coordinates at ±1, in every order, for Γ = 1.5 in 3-D: the
    permutations of (±1, ±½, 0))."""
    z = _cube_grid(p, k)
    z = z[np.abs(z).sum(axis=1) <= budget + 1e-12]
    d = np.random.default_rng(seed).normal(size=(n_boundary, p))
    gauge = np.maximum(np.abs(d).max(axis=1), np.abs(d).sum(axis=1) / budget)
    vertices = []
    for order in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        for signs in _cube_grid(2, 2):
            v = np.zeros(3)
            v[order[0]], v[order[1]] = signs[0], 0.5 * signs[1]
            vertices.append(v)
    return np.vstack([z, d / gauge[:, None], vertices])


def box_cloud(p, k):
    """The k^p tensor grid of [0, 1]^p (faces, edges and corners included)."""
    return 0.5 * (_cube_grid(p, k) + 1.0)


# -- one-sided L1 fits: min Σ w_k x_k  s.t.  basis(t)ᵀx ≥ f(t) on T -------------------------
def squares_basis(t):
    """1, t_i, t_i²."""
    return np.column_stack([np.ones(len(t)), t, t ** 2])


def quadratic_basis(t):
    """1, t_i, t_i t_j (i ≤ j)."""
    p = t.shape[1]
    return np.column_stack([np.ones(len(t))] + [t[:, i] for i in range(p)]
                           + [t[:, i] * t[:, j] for i in range(p) for j in range(i, p)])


def one_sided_fit(T, f, basis, weights):
    x = cp.Variable(len(weights))
    g = SemiInfiniteConstraint(lambda x, t: f(t) - basis(t) @ x, x, T, vectorized=True)
    return SemiInfiniteProgram(cp.Minimize(weights @ x), g), x


def linprog_fit(f, basis, weights, cloud):
    """The same fit imposed at every point of ``cloud``, by HiGHS (independent)."""
    res = linprog(weights, A_ub=-basis(cloud), b_ub=-f(cloud),
                  bounds=[(None, None)] * len(weights), method="highs")
    assert res.status == 0
    return res.fun


ELLIPSOID = (Ellipsoid([0.0, 0.0], [[1.0, 0.3], [0.0, 0.5]]),
             lambda t: np.exp(2 * t[:, 0]) * np.sin(3 * t[:, 1] + 1), quadratic_basis,
             ellipsoid_cloud([0.0, 0.0], [[1.0, 0.3], [0.0, 0.5]]))
BUDGET = (Polytope.budget([0.0, 0.0, 0.0], [1.0, 1.0, 1.0], 1.5),
          lambda t: np.exp(t @ np.array([0.8, -0.5, 0.3])) * np.cos(t[:, 2]), squares_basis,
          budget_cloud(3, 1.5))
BOX = (Box([0.0] * 3, [1.0] * 3), lambda t: np.sin(4 * t[:, 0] + 3 * t[:, 1] * t[:, 2]),
       quadratic_basis, box_cloud(3, 41))


@pytest.mark.parametrize("case", [ELLIPSOID, BUDGET, BOX], ids=["ellipsoid", "budget", "box3"])
def test_the_grid_oracle_over_a_continuous_set_is_right_or_says_so(case):
    """``oracle="grid"`` over an ellipsoid, a budget polytope and a 3-D box: a success holds
    on a dense cloud of the set to the tolerance (relative to the run's scale), its
    ``max_violation`` is at least the cloud's, and its objective is HiGHS's over the cloud
    (a relaxation, close to the optimum) to 10⁻³ relative."""
    T, f, basis, cloud = case
    weights = basis(cloud[::97]).mean(axis=0)
    program, x = one_sided_fit(T, f, basis, weights)
    res = program.solve(oracle="grid")
    on_cloud = float((f(cloud) - basis(cloud) @ x.value).max())
    scale = res.scales[0]
    assert res.max_violation >= on_cloud - 1e-9 * scale
    if res.success:
        assert on_cloud <= 1e-6 * scale * (1 + 1e-6), res.message
        np.testing.assert_allclose(res.objective, linprog_fit(f, basis, weights, cloud),
                                   rtol=1e-3)
    else:
        assert on_cloud > 1e-6 * scale or res.max_violation > 1e-6 * scale


@pytest.mark.slow
def test_a_violation_away_from_the_index_points_of_a_4d_box_is_found():
    """A one-sided L1 fit on [0, 1]⁴ with the default settings (multi-start local
    searches): the largest violation over a dense sample (21⁴ grid and 3·10⁵ random points)
    lies below ``max_violation``, and where it exceeds the tolerance the run is no success."""
    f = lambda t: np.log(1 + np.sum(t ** 2, axis=1)) * t[:, 0]  # noqa: E731
    moments = np.array([1.0] + [0.5] * 4 + [1 / 3 if i == j else 0.25
                                           for i in range(4) for j in range(i, 4)])
    program, x = one_sided_fit(Box([0.0] * 4, [1.0] * 4), f, quadratic_basis, moments)
    res = program.solve()
    cloud = np.vstack([box_cloud(4, 21), np.random.default_rng(5).random((300_000, 4))])
    on_cloud = float((f(cloud) - quadratic_basis(cloud) @ x.value).max())
    scale = res.scales[0]
    assert res.max_violation >= on_cloud - 1e-9 * scale
    assert not res.success or on_cloud <= 1e-6 * scale, res.message


class Blind(OracleBase):
    """Finds nothing: the run stops after its first master, at a point violated between its
    first index points."""

    def price(self, pricing_round):
        return OracleResult([], np.zeros(0), 0)


def _blind_fit(unit: float):
    """min ∫ p s.t. p ≥ f on [0, unit]² (p quadratic in t/unit), from 7 index points."""
    f = lambda t: np.exp(-8 * np.sum((t / unit - 0.3) ** 2, axis=1))  # noqa: E731
    moments = np.array([1.0, 0.5, 0.5, 1 / 3, 0.25, 1 / 3])
    x = cp.Variable(6)
    g = SemiInfiniteConstraint(lambda x, t: f(t) - quadratic_basis(t / unit) @ x, x,
                               Box([0.0, 0.0], [unit, unit]), vectorized=True)
    return SemiInfiniteProgram(cp.Minimize(moments @ x), g), x, f


@pytest.mark.parametrize("unit", [1.0, 1000.0])
def test_a_violation_the_oracle_missed_is_no_success(unit):
    """An oracle that finds nothing ends the exchange method after its first master: the
    verification finds the violation that brute force finds (a 401² grid), the run is
    ``no_new_column`` and says where; in other units (×1000), the same decision and point."""
    program, x, f = _blind_fit(unit)
    res = program.solve(Blind())
    cloud = unit * box_cloud(2, 401)
    values = f(cloud) - quadratic_basis(cloud / unit) @ x.value
    assert values.max() > 1e-2 * res.scales[0]  # a violation far above the tolerance
    assert res.max_violation >= values.max() - 1e-9 * res.scales[0]
    assert res.max_violation <= values.max() * (1 + 1e-3)  # found near brute force's
    assert res.status == "no_new_column" and not res.success
    assert "final verification search found" in res.message
    t = np.array([float(v) for v in res.message.split("at t = [")[1].split("]")[0].split(",")])
    np.testing.assert_allclose(t / unit, cloud[values.argmax()] / unit, atol=5e-3)


def test_the_verification_decides_alike_in_other_units():
    """The same program with T in units ×1000: the same relative violation found (to
    round-off), at the same point in those units."""
    found = []
    for unit in (1.0, 1000.0):
        program, x, _ = _blind_fit(unit)
        program.solve(Blind())
        c = program.semi_infinite[0]
        found.append((unit, verify([c], [ConstraintPrice(c.x_value(), 1.0)])))
    (_, a), (_, b) = found
    np.testing.assert_allclose(b.relative, a.relative, rtol=1e-9)
    np.testing.assert_allclose(b.t / 1000.0, a.t, atol=1e-9)


def _bumpy(T):
    """g(t) = 1 − |t − a|² + 0.05 Σ sin(7 t_i) over T, a beyond T's upper corner (its
    maximum on T's boundary, with ripples), as a semi-infinite constraint with its t-gradient
    (x, one variable at 0, enters as −x)."""
    a = T.upper + 0.2 * (T.upper - T.lower)
    x = cp.Variable(1)
    return SemiInfiniteConstraint(
        lambda x, t: 1.0 - np.sum((t - a) ** 2, axis=1) + 0.05 * np.sin(7 * t).sum(axis=1)
        - x[0], x, T, vectorized=True,
        grad_t=lambda x, t: -2.0 * (t - a) + 0.35 * np.cos(7 * t))


SETS = [
    (Ellipsoid([0.0, 0.0], [[1.0, 0.3], [0.0, 0.5]]), ellipsoid_cloud([0.0, 0.0],
                                                                     [[1.0, 0.3], [0.0, 0.5]])),
    (Polytope.budget([0.0, 0.0, 0.0], [1.0, 1.0, 1.0], 1.5), budget_cloud(3, 1.5)),
    (Polytope([[1.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [1.0, -2.0]], [1.0, 0.0, 0.0, 0.4]),
     None),
    (Product(Box([0.0], [1.0]), Ball([0.0, 0.0], 1.0)), None),
    (SmoothSet(lambda t: t[:, 0] ** 2 + t[:, 1] ** 4 - 1.0, [-1.0, -1.0], [1.0, 1.0]), None),
]


@pytest.mark.parametrize("T, cloud", SETS, ids=["ellipsoid", "budget", "polytope", "product",
                                                "smooth"])
def test_the_search_finds_the_maximum_brute_force_finds(T, cloud):
    """Over each kind of set, the verification's value is at least the largest of g over a
    dense cloud of the set (filtered by its inequalities where none is built above), and is
    a value of g at a point of the set."""
    if cloud is None:  # a grid of the bounding box, filtered by the set's own inequalities
        k = 201 if T.dim == 2 else 61
        grid = T.lower + 0.5 * (_cube_grid(T.dim, k) + 1.0) * (T.upper - T.lower)
        cloud = grid[_inside(T, grid)]
    constraint, x = _bumpy(T), np.zeros(1)
    value, t = search_set(IndexPointPricing(constraint, ConstraintPrice(x, 1.0)))
    brute = constraint.values(x, cloud).max()
    assert value >= brute - 1e-9
    assert _inside(T, t[None], 1e-9)[0]
    np.testing.assert_allclose(constraint.values(x, t[None])[0], value, rtol=1e-12)


def _inside(T, points, slack=1e-12):
    """Membership from each set's definition (not its ``contains``), to ``slack``."""
    if isinstance(T, Ellipsoid):
        u = np.linalg.solve(T.P, (points - T.center).T).T
        return np.linalg.norm(u, axis=1) <= 1.0 + slack
    if T.dim == 3 and isinstance(T, Polytope):  # the budget set of SETS
        z = np.abs(points)
        return (z.max(axis=1) <= 1.0 + slack) & (z.sum(axis=1) <= 1.5 + slack)
    if isinstance(T, Polytope):
        return np.all(points @ T.A.T <= T.b + slack, axis=1)
    if isinstance(T, Product):
        return ((points[:, 0] >= -slack) & (points[:, 0] <= 1 + slack)
                & (np.hypot(points[:, 1], points[:, 2]) <= 1 + slack))
    return points[:, 0] ** 2 + points[:, 1] ** 4 <= 1.0 + slack
