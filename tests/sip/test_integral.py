"""Integrals over index sets (sipkl.sip.sets.quadrature, sipkl.sip.integral): the rules
against closed-form integrals of every monomial of their degree (boxes: products of
(b^(a+1) − a^(a+1))/(a + 1); simplices: the Dirichlet integrals of the barycentric
coordinates; polygons: the moments of the regular polygon; a polytope: the
cross-polytope's), the box rule's remainder bound against the true error of exponentials,
and the one-sided L1 approximations written with ``integral`` against the same programs
with their integrals by hand (fractions and closed-form moments), in other units too."""
import dataclasses
import itertools
import math

import cvxpy as cp
import numpy as np
import pytest

from sipkl.sip import (Box, FiniteSet, SemiInfiniteConstraint, SemiInfiniteProgram, integral)
from sipkl.sip.library.convex import PROBLEMS
from sipkl.sip.sets import Polytope
from sipkl.sip.sets.quadrature import simplex_rule


def exponents(p, degree):
    """Every α ∈ N^p with |α| ≤ degree."""
    return [a for a in itertools.product(range(degree + 1), repeat=p) if sum(a) <= degree]


@pytest.mark.parametrize("p", [1, 2, 3])
@pytest.mark.parametrize("degree", [0, 1, 4, 7])
def test_the_box_rule_integrates_every_monomial_of_its_degree(p, degree):
    rng = np.random.default_rng(10 * p + degree)
    a = rng.uniform(-2.0, 1.0, p)
    b = a + rng.uniform(0.5, 3.0, p)
    rule = Box(a, b).quadrature(degree)
    assert np.all(rule.weights > 0) and Box(a, b).contains(rule.nodes).all()
    for alpha in exponents(p, degree):
        exact = np.prod([(b[i] ** (k + 1) - a[i] ** (k + 1)) / (k + 1)
                         for i, k in enumerate(alpha)])
        assert rule.integrate(lambda t: np.prod(t ** np.array(alpha), axis=1)) == \
            pytest.approx(exact, rel=1e-12, abs=1e-12 * np.prod(b - a))


@pytest.mark.parametrize("p", [2, 3])
@pytest.mark.parametrize("degree", [0, 2, 5])
def test_the_simplex_rule_integrates_every_barycentric_monomial_of_its_degree(p, degree):
    """On a random simplex: ∫ λ^β = p!·vol·β!/(|β| + p)! for the barycentric coordinates λ
    (the Dirichlet integral); on Polytope.simplex(p, size) ∫ t^α = α!·size^(|α|+p)/(|α|+p)!."""
    rng = np.random.default_rng(p + 7 * degree)
    vertices = rng.normal(size=(p + 1, p))
    nodes, weights = simplex_rule(vertices, degree)
    edges = vertices[1:] - vertices[0]
    volume = abs(np.linalg.det(edges)) / math.factorial(p)
    tail = np.linalg.solve(edges.T, (nodes - vertices[0]).T).T
    lam = np.column_stack([1.0 - tail.sum(1), tail])
    for beta in exponents(p + 1, degree):
        exact = math.factorial(p) * volume * np.prod([math.factorial(k) for k in beta]) \
            / math.factorial(sum(beta) + p)
        assert weights @ np.prod(lam ** np.array(beta), axis=1) == pytest.approx(exact, rel=1e-12)
    size = 1e3
    rule = Polytope.simplex(p, size).quadrature(degree)
    for alpha in exponents(p, degree):
        exact = np.prod([math.factorial(k) for k in alpha]) * size ** (sum(alpha) + p) \
            / math.factorial(sum(alpha) + p)
        assert rule.integrate(lambda t: np.prod(t ** np.array(alpha), axis=1)) == \
            pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("sides", [6, 120])
def test_a_polygon_integrates_its_moments(sides):
    """The regular polygon of apothem r about c: area n·r·a, a = r·tan(π/n), and
    ∫ |t − c|² = n(a r³/2 + a³ r/6), half of it each coordinate, first moments c·area;
    120 sides: more row pairs than the set enumerates, so the vertices come from Qhull."""
    r, c = 2.0, np.array([3.0, -1.0])
    angles = 2 * np.pi * np.arange(sides) / sides
    normals = np.column_stack([np.cos(angles), np.sin(angles)])
    T = Polytope(normals, r + normals @ c)
    assert len(T.vertices()) >= sides
    rule = T.quadrature(2)
    a = r * np.tan(np.pi / sides)
    area, polar = sides * r * a, sides * (a * r**3 / 2 + a**3 * r / 6)
    assert rule.integrate(lambda t: np.ones(len(t))) == pytest.approx(area, rel=1e-12)
    assert rule.integrate(lambda t: t[:, 0]) == pytest.approx(c[0] * area, rel=1e-12)
    assert rule.integrate(lambda t: (t[:, 1] - c[1]) ** 2) == pytest.approx(polar / 2, rel=1e-12)
    assert rule.integrate(lambda t: (t[:, 0] - c[0]) * (t[:, 1] - c[1])) == \
        pytest.approx(0.0, abs=1e-12 * polar)


def test_the_cross_polytope_integrates_every_monomial_of_its_degree():
    """{Σ |t_i| ≤ 1} in R³ as 8 rows: 2³ orthant simplices, so ∫ t^α = 8·α!/(|α| + 3)! for
    even α and 0 otherwise."""
    A = np.array(list(itertools.product((-1.0, 1.0), repeat=3)))
    rule = Polytope(A, np.ones(8)).quadrature(4)
    for alpha in exponents(3, 4):
        exact = 0.0 if any(k % 2 for k in alpha) else \
            8 * np.prod([math.factorial(k) for k in alpha]) / math.factorial(sum(alpha) + 3)
        assert rule.integrate(lambda t: np.prod(t ** np.array(alpha), axis=1)) == \
            pytest.approx(exact, abs=1e-13)


@pytest.mark.parametrize("degree", [1, 3, 6, 9])
def test_the_box_remainder_bounds_the_error_of_exponentials(degree):
    """F = e^(s + 2u) on [0, 2] × [−1, 1]: ∂^(2k)_s F ≤ e⁴ and ∂^(2k)_u F ≤ 2^(2k) e⁴ there;
    the true error is at most the bound, and the estimate by the rule of degree 2D + 1 is
    within a factor 1.1 of the true error."""
    T = Box([0.0, -1.0], [2.0, 1.0])
    rule = T.quadrature(degree)
    F = lambda t: np.exp(t[:, 0] + 2 * t[:, 1])  # noqa: E731
    exact = (np.exp(2.0) - 1.0) * (np.exp(2.0) - np.exp(-2.0)) / 2.0
    k = degree // 2 + 1
    error = abs(rule.integrate(F) - exact)
    bound = rule.error_bound([np.exp(4.0), 2.0 ** (2 * k) * np.exp(4.0)])
    assert error <= bound
    assert error / 1.1 <= rule.error_estimate(F) <= 1.1 * error


def test_expectations_and_integrals_in_constraints():
    """E (z − t)² under the Beta(2, 2) density 6t(1 − t) is least at z = E t = 1/2 with the
    value Var t = 1/20; min ‖x‖² s.t. ∫_0^1 (x₀ + x₁t + x₂t²) ≥ 1 is w/‖w‖², w = (1, 1/2, 1/3)."""
    z = cp.Variable()
    beta = integral(lambda z, t: cp.square(z - t[0]), z, Box([0.0], [1.0]), 4,
                    density=lambda t: 6 * t[:, 0] * (1 - t[:, 0]), vectorized=False)
    problem = cp.Problem(cp.Minimize(beta))
    problem.solve(solver="CLARABEL")
    assert z.value == pytest.approx(0.5, abs=1e-7)
    assert problem.value == pytest.approx(1 / 20, rel=1e-7)
    x = cp.Variable(3)
    area = integral(lambda x, t: np.vander(t[:, 0], 3, increasing=True) @ x, x,
                    Box([0.0], [1.0]), 2)
    cp.Problem(cp.Minimize(cp.sum_squares(x)), [area >= 1]).solve(solver="CLARABEL")
    w = np.array([1.0, 1 / 2, 1 / 3])
    np.testing.assert_allclose(x.value, w / (w @ w), rtol=1e-7)


@pytest.mark.parametrize("name", ["tanaka_tan3", "tanaka_tan6", "watson8"])
def test_one_sided_approximations_written_with_integrals_reach_those_written_by_hand(name):
    """The library's problems state ∫ p by ``integral``; with the integrals as fractions
    instead (the 1-D moments 1/(k + 1), the quadratics' over [0, 1]²), the same optimum to
    10⁻¹⁰, both the closed form to 10⁻⁸."""
    problem = PROBLEMS[name]
    moments = (1.0 / np.arange(1, problem.n + 1) if problem.p == 1
               else np.array([1.0, 1 / 2, 1 / 2, 1 / 3, 1 / 4, 1 / 3]))
    by_hand = dataclasses.replace(problem, objective=lambda x: cp.Minimize(moments @ x))
    ours, theirs = problem.solve(), by_hand.solve()
    assert ours.status.value == theirs.status.value == "certified_optimal"
    assert ours.objective == pytest.approx(theirs.objective, rel=1e-10)
    assert ours.objective == pytest.approx(problem.optimum, rel=1e-8)


@pytest.mark.roundoff  # the exchange method's path, a local search on the simplex
@pytest.mark.parametrize("size", [1.0, 1e3])
def test_the_one_sided_approximation_on_a_triangle(size):
    """min ∫_Δ p s.t. p(t) ≥ e^((s + u)/size) on Δ = {t ≥ 0, s + u ≤ size}, p a quadratic in
    t/size. Its optimum is size²·(e^(1/2)/3 + e/6): the quadratic in w = (s + u)/size of the
    one-sided approximation of e^w on [0, 1] under the weight w (tangent at 1/2, equal at 1;
    the weight's Gauss–Radau nodes 1/2 and 1 with the masses 1/3 and 1/6) is feasible, and
    the uniform measures of masses 1/3 and 1/6 on the segments w = 1/2 and w = 1 have the
    triangle's moments of every quadratic (1/2, 1/6, 1/12, 1/24 for 1, s, s², su), so their
    value bounds the optimum from below. The triangle 10³ times larger: the same run, its
    optimum 10⁶ times larger. Pricing on a simplex is a local search (no certificate)."""
    x = cp.Variable(6)
    T = Polytope.simplex(2, size)

    def basis(t):
        s, u = t[:, 0] / size, t[:, 1] / size
        return np.column_stack([np.ones_like(s), s, u, s**2, s * u, u**2])

    g = SemiInfiniteConstraint(lambda x, t: np.exp(t.sum(1) / size) - basis(t) @ x, x, T,
                               vectorized=True)
    grid = np.array(list(itertools.product(np.linspace(0.0, size, 5), repeat=2)))
    area = integral(lambda x, t: basis(t) @ x, x, T, 2, vectorized=True)
    result = SemiInfiniteProgram(cp.Minimize(area), g).solve(
        initial_points=[grid[grid.sum(1) <= size]])
    assert result.status.value == "converged_local", result.message
    assert result.objective == pytest.approx(size**2 * (np.exp(0.5) / 3 + np.e / 6), rel=1e-8)


def test_bad_input_is_named():
    x = cp.Variable(2)
    f = lambda x, t: x[0] + x[1] * t[0]  # noqa: E731
    T = Box([0.0], [1.0])
    with pytest.raises(ValueError, match="degree must be an integer ≥ 0, got -1"):
        integral(f, x, T, -1)
    with pytest.raises(TypeError, match="degree must be an integer"):
        integral(f, x, T, 1.5)
    with pytest.raises(TypeError, match="T: FiniteSet.* has no quadrature rule"):
        integral(f, x, FiniteSet([[0.0], [1.0]]), 1)
    with pytest.raises(TypeError, match="T: Polytope.budget.* write it as a Polytope"):
        integral(f, x, Polytope.budget([0.0], [1.0], 1.0), 1)
    with pytest.raises(TypeError, match="f must be a callable"):
        integral(1.0, x, T, 1)
    with pytest.raises(ValueError, match="density: must return 1 finite values ≥ 0"):
        integral(f, x, T, 1, density=lambda t: -np.ones(len(t)))
    with pytest.raises(ValueError, match="error_bound: no bound is stated"):
        Polytope.simplex(2).quadrature(2).error_bound(1.0)
    with pytest.raises(ValueError, match="derivative_bound must be one number or 2"):
        Box([0.0, 0.0], [1.0, 1.0]).quadrature(2).error_bound([1.0, 2.0, 3.0])
