"""Semi-infinite programs from the literature with known optimal values.

Each entry of :data:`PROBLEMS` is a :class:`LiteratureProblem`: the problem's data (name,
source, number of variables ``n``, dimension ``p`` of the index set, the box ``T``, the
optimal value and where it comes from) and a :meth:`LiteratureProblem.build` method that
returns a fresh :class:`sipkl.sip.SemiInfiniteProgram`. Every constraint function ``g(x, t)``
is written once and serves both the cvxpy master (``x`` a variable) and pricing (``x`` a
NumPy array); ``t`` is one index point (shape ``(p,)``) or a stack of them (shape ``(m, p)``).

Only convex problems are collected: ``g(·, t)`` is affine in ``x`` for each fixed ``t`` and the
objective is linear, convex quadratic or (``tfi3``) a sum of exponentials, so each restricted
master is a convex cvxpy problem.

Besides problems of the classical literature, the collection holds the convex semi-infinite
programs of the CUTE/CUTEst set (SIPOW1–4, TFI2–3, KSIP, OET1, OET3, PT; their SIF files are
finite discretizations, and their solution lines the discretizations' values or inexact ones:
each ``optimum_source`` compares) and the convex problems 5, 7, 8, 9 of Watson (1983) in the
statement of Mitsos's test set.

The reference optima are closed forms where one exists, so the comparison is exact up to
rounding:

* one-sided L1 approximation (``tanaka_tan3``, ``tanaka_tan6``, ``tensor_exp2d``): the dual of
  ``min ∫ p  s.t.  p ≥ f on [0, 1]`` over polynomials of degree < n maximizes ``∫ f dμ`` over
  the nonnegative measures μ with the first n moments of Lebesgue measure (Karlin & Studden,
  *Tchebycheff Systems*, Interscience 1966; Krein & Nudel'man, *The Markov Moment Problem and
  Extremal Problems*, AMS 1977). When ``f⁽ⁿ⁾ > 0`` the
  maximizer is the *upper principal representation*: the Gauss–Radau rule with the node 1 for
  odd n, the Gauss–Lobatto rule for even n. The optimum is that quadrature of f, computed
  here from the nodes (roots of Jacobi polynomials) to machine precision.
* Chebyshev approximation (``chebyshev_t6``, ``chebyshev_t10``): the monic polynomial of
  degree d with least sup-norm on [−1, 1] is 2^(1−d)·T_d (Chebyshev 1854), so the optimum is
  2^(1−d).
* the other closed forms come from geometry or from a primal point and a dual measure of the
  same value, shown in each problem's ``optimum_source``.

Where there is none (``sipow4``, ``tfi3``, ``ksip*``, ``oettershagen1``, ``oettershagen3``) the
optimum is numerical: a fine discretization in cvxpy with local refinement of the active
points, polished by Newton's method on the KKT system at the contact points (``rtol``
:data:`NUMERICAL_RTOL`). Every value was also reproduced, independently of the engine, by a
fine discretization in cvxpy with local refinement of the active points (to 10⁻⁸ relative or
better; ``tests/sip/test_sip_problems.py`` does it again).

Each constraint states a Lipschitz constant ``L(x)`` of t ↦ g(x, t), from a bound on its
t-gradient, for the certified :class:`~sipkl.sip.LipschitzOracle`, and
:meth:`LiteratureProblem.solve` starts from a tensor grid that keeps the first restricted
master bounded.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import cvxpy as cp
import numpy as np
from scipy.special import roots_jacobi

from ..constraints.integral import integral
from ..constraints.semi_infinite import SemiInfiniteConstraint
from ..program import SemiInfiniteProgram
from ..sets.box import Box

__all__ = ["IndexedConstraint", "LiteratureProblem", "PROBLEMS", "get_problem", "upper_quadrature"]


@dataclass(frozen=True)
class IndexedConstraint:
    """One semi-infinite constraint ``g(x, t) ≤ 0 ∀ t ∈ [lower, upper]`` of a problem, with
    ``grad_t(x, t)``: the t-gradient of g at numeric x (shape ``(m, p)`` for a stack of m
    index points; the derivative of the closed form), and ``lipschitz(x)``: a Lipschitz
    constant of t ↦ g(x, t) on the box (Euclidean norm in t), derived from g by bounding its
    t-gradient (see each problem)."""

    name: str
    g: Callable
    grad_t: Callable
    lower: tuple[float, ...]
    upper: tuple[float, ...]
    lipschitz: Callable


@dataclass(frozen=True)
class LiteratureProblem:
    """A semi-infinite program with a known optimal value.

    Attributes
    ----------
    name : str
        Short identifier, the key in :data:`PROBLEMS`.
    source : str
        Where the problem is stated (paper and problem number).
    n, p : int
        Number of variables and dimension of the index set T.
    objective_kind : str
        ``"linear"``, ``"quadratic"`` (convex) or ``"convex"`` (another smooth convex function
        that cvxpy models: the exponentials of ``tfi3``).
    optimum : float
        The reference optimal value.
    optimum_source : str
        Where the value comes from (the closed form and the result behind it).
    rtol : float
        Relative precision of ``optimum`` (rounding for a closed form).
    objective : callable
        ``objective(x) -> cvxpy.Minimize`` for the variable ``x`` of length n.
    constraints : tuple of IndexedConstraint
        The semi-infinite constraints; ``g(x, t)`` accepts a cvxpy variable or a NumPy array x
        and one index point t of shape (p,) or a stack of shape (m, p), ``grad_t(x, t)`` a
        NumPy array x and a stack t of shape (m, p).
    many_local_maxima : bool
        Whether ``t ↦ g(x, t)`` has many local maxima near the solution.
    """

    name: str
    source: str
    n: int
    p: int
    objective_kind: str
    optimum: float
    optimum_source: str
    objective: Callable
    constraints: tuple[IndexedConstraint, ...]
    rtol: float = 1e-12
    many_local_maxima: bool = False

    def build(self) -> SemiInfiniteProgram:
        """A fresh :class:`~sipkl.sip.SemiInfiniteProgram` of this problem (new variables)."""
        x = cp.Variable(self.n, name="x")
        sics = [
            SemiInfiniteConstraint(c.g, x, Box(c.lower, c.upper), grad_t=c.grad_t,
                                   vectorized=True, name=c.name)
            for c in self.constraints
        ]
        return SemiInfiniteProgram(self.objective(x), sics)

    def lipschitz(self) -> dict[str, Callable]:
        """The Lipschitz constants ``L(x)`` by constraint name, for
        ``solve(oracle="lipschitz", lipschitz=problem.lipschitz())``."""
        return {c.name: c.lipschitz for c in self.constraints}

    def initial_points(self) -> list[np.ndarray]:
        """First index points that keep every restricted master bounded: per box, a tensor
        grid of max(5, n + 1) points per coordinate for p = 1 and 5 for p = 2 (the default of
        ``solve``, n + 1 scattered points, leaves the one-sided approximations unbounded)."""
        per_axis = max(5, self.n + 1) if self.p == 1 else 5
        return [Box(c.lower, c.upper).tensor_grid(per_axis) for c in self.constraints]

    def solve(self, oracle: str = "ipopt", **options):
        """Build and solve with :meth:`initial_points` and, for ``oracle="lipschitz"``, the
        constants of :meth:`lipschitz`; ``options`` go to
        :meth:`~sipkl.sip.SemiInfiniteProgram.solve` (and override these)."""
        defaults = {"initial_points": self.initial_points()}
        if oracle == "lipschitz":
            defaults["lipschitz"] = self.lipschitz()
        return self.build().solve(oracle, **{**defaults, **options})


def _powers(s, k: int) -> np.ndarray:
    """The monomials 1, s, …, s^(k−1) of s (any shape) along a new last axis."""
    return s[..., None] ** np.arange(k)


def _powers_derivative(s, k: int) -> np.ndarray:
    """The derivatives 0, 1, 2s, …, (k−1)·s^(k−2) of :func:`_powers` (same shape)."""
    degree = np.arange(k)
    return degree * s[..., None] ** np.maximum(degree - 1, 0)


def upper_quadrature(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights on [0, 1] of the upper principal representation of n moments.

    For odd n the Gauss–Radau rule with the node 1 ((n + 1)/2 nodes), for even n the
    Gauss–Lobatto rule (n/2 + 1 nodes); both integrate the polynomials of degree < n exactly.
    The free nodes are the roots of the Jacobi polynomials P^(1,0)_{(n−1)/2} and
    P^(1,1)_{n/2−1} on [−1, 1]; the weights solve the moment equations.
    """
    if n % 2:
        inner = roots_jacobi((n - 1) // 2, 1.0, 0.0)[0] if n > 1 else np.empty(0)
        nodes = np.append((inner + 1.0) / 2.0, 1.0)
    else:
        inner = roots_jacobi(n // 2 - 1, 1.0, 1.0)[0] if n > 2 else np.empty(0)
        nodes = np.concatenate([[0.0], (inner + 1.0) / 2.0, [1.0]])
    k = nodes.size
    weights = np.linalg.solve(_powers(nodes, k).T, 1.0 / np.arange(1, k + 1))
    return nodes, weights


def _one_sided_tan(n: int) -> LiteratureProblem:
    def g(x, t):
        s = t[..., 0]
        return np.tan(s) - _powers(s, n) @ x

    def grad_t(x, t):  # sec²(s) − Σ_k k·x_k·s^(k−1)
        s = t[:, :1]
        return 1.0 / np.cos(s) ** 2 - _powers_derivative(s, n) @ x

    nodes, weights = upper_quadrature(n)
    return LiteratureProblem(
        name=f"tanaka_tan{n}",
        source=(
            "Tanaka, Fukushima & Ibaraki (1988), A comparative study of several semi-infinite "
            "nonlinear programming algorithms, EJOR 36:92–100 (CUTE problem TFI2, n = 3)"
            + ("" if n == 3 else f"; the same one-sided approximation with n = {n}")
        ),
        n=n,
        p=1,
        objective_kind="linear",
        optimum=float(weights @ np.tan(nodes)),
        optimum_source=(
            "closed form: the "
            + ("Gauss–Radau" if n % 2 else "Gauss–Lobatto")
            + " quadrature of tan on [0, 1] (upper principal representation, tan⁽ⁿ⁾ > 0)"
            + (" = tan(1)/4 + 3·tan(1/3)/4; the SIF file TFI2's solution line 0.64903110696 "
               "is its 101-point discretization's value" if n == 3 else "")
        ),
        objective=lambda x: cp.Minimize(integral(  # ∫_0^1 p, p of degree n − 1
            lambda x, t: _powers(t[..., 0], n) @ x, x, Box([0.0], [1.0]), n - 1,
            vectorized=True)),
        # |d/dt g| ≤ sec²(1) + Σ_k k·|x_k| on [0, 1]
        constraints=(IndexedConstraint("tan", g, grad_t, (0.0,), (1.0,), lambda x: (
            1.0 / np.cos(1.0) ** 2 + np.arange(n) @ np.abs(x))),),
    )


def _chebyshev(degree: int) -> LiteratureProblem:
    def residual(x, t):
        s = t[..., 0]
        return s**degree - _powers(s, degree) @ x[:degree]

    def derivative(x, t):  # d/dt residual = degree·t^(degree−1) − Σ_k k·x_k·t^(k−1)
        s = t[:, :1]
        return degree * s ** (degree - 1) - _powers_derivative(s, degree) @ x[:degree]

    def lipschitz(x):  # |d/dt residual| ≤ degree + Σ_k k·|x_k| on [−1, 1]
        return degree + np.arange(degree) @ np.abs(x[:degree])

    return LiteratureProblem(
        name=f"chebyshev_t{degree}",
        source=(
            f"Chebyshev approximation of t^{degree} on [−1, 1] by polynomials of degree "
            f"< {degree}, the linear SIP of Hettich & Kortanek (1993), Semi-infinite "
            "programming: theory, methods, and applications, SIAM Review 35:380–429"
        ),
        n=degree + 1,
        p=1,
        objective_kind="linear",
        optimum=2.0 ** (1 - degree),
        optimum_source=(
            f"closed form 2^(1−{degree}): the monic polynomial of least sup-norm on [−1, 1] "
            f"is 2^(1−{degree})·T_{degree} (Chebyshev 1854)"
        ),
        objective=lambda x: cp.Minimize(x[degree]),
        constraints=(
            IndexedConstraint("above", lambda x, t: residual(x, t) - x[degree], derivative,
                              (-1.0,), (1.0,), lipschitz),
            IndexedConstraint("below", lambda x, t: -residual(x, t) - x[degree],
                              lambda x, t: -derivative(x, t), (-1.0,), (1.0,), lipschitz),
        ),
        many_local_maxima=degree >= 10,
    )


def _exp_linear_minimax() -> LiteratureProblem:
    def residual(x, t):
        s = t[..., 0]
        return np.exp(s) - _powers(s, 2) @ x[:2]

    def derivative(x, t):  # d/dt residual = e^t − x₁
        return np.exp(t[:, :1]) - x[1]

    def lipschitz(x):  # |d/dt residual| ≤ e + |x₁| on [0, 1]
        return np.e + abs(x[1])

    slope = np.e - 1.0
    return LiteratureProblem(
        name="exp_minimax_linear",
        source=(
            "best uniform approximation of e^t on [0, 1] by a straight line, Cheney (1966), "
            "Introduction to Approximation Theory (the linear SIP min z s.t. "
            "|e^t − x₀ − x₁t| ≤ z)"
        ),
        n=3,
        p=1,
        objective_kind="linear",
        optimum=(2.0 - np.e + slope * np.log(slope)) / 2.0,
        optimum_source=(
            "closed form (2 − e + (e − 1)·ln(e − 1))/2: slope e − 1, equioscillation at "
            "0, ln(e − 1) and 1"
        ),
        objective=lambda x: cp.Minimize(x[2]),
        constraints=(
            IndexedConstraint("above", lambda x, t: residual(x, t) - x[2], derivative, (0.0,),
                              (1.0,), lipschitz),
            IndexedConstraint("below", lambda x, t: -residual(x, t) - x[2],
                              lambda x, t: -derivative(x, t), (0.0,), (1.0,), lipschitz),
        ),
    )


def _norm(x):
    """‖x‖: the Lipschitz constant of t ↦ u(t)·x for the unit circle u(t) = (cos t, sin t)."""
    return np.linalg.norm(x)


def _unit_circle(t):
    s = t[..., 0]
    return np.stack([np.cos(s), np.sin(s)], axis=-1)


def _unit_circle_slope(x, t):
    """d/dt u(t)·x = −x₁ sin t + x₂ cos t for a stack t of shape (m, 1)."""
    return -x[0] * np.sin(t) + x[1] * np.cos(t)


def _powell_disc() -> LiteratureProblem:
    return LiteratureProblem(
        name="powell_disc",
        source=(
            "Powell (1992), Log barrier methods for semi-infinite programming calculations, "
            "DAMTP 1992/NA11, Cambridge, problem 1 (CUTE SIPOW1): min x₂ over the unit disc "
            "given by its tangents x₁cos t + x₂sin t ≥ −1, t ∈ [0, 2π]"
        ),
        n=2,
        p=1,
        objective_kind="linear",
        optimum=-1.0,
        optimum_source="closed form −1: the lowest point (0, −1) of the unit disc",
        objective=lambda x: cp.Minimize(x[1]),
        constraints=(
            IndexedConstraint("tangent", lambda x, t: -1.0 - _unit_circle(t) @ x,
                              lambda x, t: -_unit_circle_slope(x, t), (0.0,), (2 * np.pi,),
                              _norm),
        ),
    )


_DISC_POINT = np.array([2.0, 1.0])


def _disc_projection() -> LiteratureProblem:
    return LiteratureProblem(
        name="disc_projection",
        source=(
            "the feasible set of Powell (1992) problem 1 with a convex quadratic objective: "
            "the Euclidean projection of (2, 1) onto the unit disc x₁cos t + x₂sin t ≤ 1"
        ),
        n=2,
        p=1,
        objective_kind="quadratic",
        optimum=float((np.linalg.norm(_DISC_POINT) - 1.0) ** 2),
        optimum_source="closed form (√5 − 1)² = 6 − 2√5: the squared distance to the disc",
        objective=lambda x: cp.Minimize(cp.sum_squares(x - _DISC_POINT)),
        constraints=(
            IndexedConstraint("tangent", lambda x, t: _unit_circle(t) @ x - 1.0,
                              _unit_circle_slope, (0.0,), (2 * np.pi,), _norm),
        ),
    )


def _biquadratic_basis(t) -> np.ndarray:
    """s^i u^j (i, j < 3, i the slower index) at the points t = (s, u)."""
    basis = _powers(t[..., 0], 3)[..., :, None] * _powers(t[..., 1], 3)[..., None, :]
    return basis.reshape(*t.shape[:-1], 9)


def _tensor_exp2d() -> LiteratureProblem:
    def g(x, t):
        return np.exp(t[..., 0] + t[..., 1]) - _biquadratic_basis(t) @ x

    def grad_t(x, t):  # ∂g/∂s = e^(s+t) − Σ i·x_ij s^(i−1) t^j, ∂g/∂t likewise
        coefficients = np.reshape(x, (3, 3))
        s, u = _powers(t[:, 0], 3), _powers(t[:, 1], 3)
        ds, du = _powers_derivative(t[:, 0], 3), _powers_derivative(t[:, 1], 3)
        exp = np.exp(t[:, 0] + t[:, 1])[:, None]
        return exp - np.column_stack([((ds @ coefficients) * u).sum(1),
                                      ((s @ coefficients) * du).sum(1)])

    def lipschitz(x):  # |∂g/∂s| ≤ e² + Σ i·|x_ij|, |∂g/∂t| ≤ e² + Σ j·|x_ij| on [0, 1]²
        weight = np.abs(np.reshape(x, (3, 3)))
        degree = np.arange(3)
        return np.hypot(np.e**2 + degree @ weight.sum(1), np.e**2 + degree @ weight.sum(0))

    nodes, weights = upper_quadrature(3)
    return LiteratureProblem(
        name="tensor_exp2d",
        source=(
            "two-dimensional one-sided L1 approximation in the style of Tanaka et al. (1988): "
            "min ∫∫ p over [0, 1]² s.t. p(s, t) ≥ e^(s+t), p biquadratic (9 coefficients)"
        ),
        n=9,
        p=2,
        objective_kind="linear",
        optimum=float(weights @ np.exp(nodes)) ** 2,
        optimum_source=(
            "closed form ((e + 3e^(1/3))/4)²: the product of the 1-D optimal polynomials is "
            "feasible (both factors ≥ the positive factors of e^s·e^t) and the product of "
            "the 1-D Gauss–Radau measures is dual feasible, with equal values"
        ),
        objective=lambda x: cp.Minimize(integral(  # ∫∫ p over [0, 1]², p of degree 4
            lambda x, t: _biquadratic_basis(t) @ x, x, Box([0.0, 0.0], [1.0, 1.0]), 4,
            vectorized=True)),
        constraints=(IndexedConstraint("exp", g, grad_t, (0.0, 0.0), (1.0, 1.0), lipschitz),),
    )


def _unit_sphere(t):
    theta, phi = t[..., 0], t[..., 1]
    return np.stack(
        [np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)], axis=-1
    )


def _unit_sphere_slopes(x, t):
    """(∂/∂θ u·x, ∂/∂φ u·x) for a stack t = (θ, φ) of shape (m, 2): ∂u/∂θ = (cos θ cos φ,
    cos θ sin φ, −sin θ), ∂u/∂φ = (−sin θ sin φ, sin θ cos φ, 0)."""
    theta, phi = t[:, 0], t[:, 1]
    along_phi = x[1] * np.cos(phi) - x[0] * np.sin(phi)
    return np.column_stack([np.cos(theta) * (x[0] * np.cos(phi) + x[1] * np.sin(phi))
                            - x[2] * np.sin(theta), np.sin(theta) * along_phi])


_BALL_VECTOR = np.array([1.0, 2.0, 2.0])


def _ball(kind: str) -> LiteratureProblem:
    tangent = IndexedConstraint(  # |∂/∂θ u·x| ≤ ‖x‖ and |∂/∂φ u·x| ≤ ‖x‖
        "tangent", lambda x, t: _unit_sphere(t) @ x - 1.0, _unit_sphere_slopes, (0.0, 0.0),
        (np.pi, 2 * np.pi),
        lambda x: np.sqrt(2.0) * np.linalg.norm(x))
    common = dict(n=3, p=2, constraints=(tangent,))
    if kind == "linear":
        return LiteratureProblem(
            name="ball_linear",
            source=(
                "a linear objective over the unit ball of R³ given by its tangent half-spaces "
                "u(θ, φ)·x ≤ 1, (θ, φ) ∈ [0, π] × [0, 2π] (support-function description of a "
                "convex set, Goberna & López (1998), Linear Semi-Infinite Optimization)"
            ),
            objective_kind="linear",
            optimum=-float(np.linalg.norm(_BALL_VECTOR)),
            optimum_source="closed form −‖c‖ = −3 for c = (1, 2, 2)",
            objective=lambda x: cp.Minimize(_BALL_VECTOR @ x),
            **common,
        )
    return LiteratureProblem(
        name="ball_projection",
        source=(
            "the Euclidean projection of a = (1, 2, 2) onto the unit ball of R³ given by its "
            "tangent half-spaces u(θ, φ)·x ≤ 1, (θ, φ) ∈ [0, π] × [0, 2π]"
        ),
        objective_kind="quadratic",
        optimum=float((np.linalg.norm(_BALL_VECTOR) - 1.0) ** 2),
        optimum_source="closed form (‖a‖ − 1)² = 4: the squared distance to the ball",
        objective=lambda x: cp.Minimize(cp.sum_squares(x - _BALL_VECTOR)),
        **common,
    )


#: the relative precision stated for an optimum computed numerically (no closed form): the
#: KKT system solved to a residual of 10⁻¹⁶ at a point feasible to 10⁻¹⁵, with margin
NUMERICAL_RTOL = 1e-11


# -- the CUTE/CUTEst semi-infinite programs (Conn, Gould & Toint's SIF files discretize them;
# here the continuous programs, with their SIP optima) -------------------------------------

def _constant_in_t(t, value):
    """``value`` (a scalar, or a scalar expression of x) at each of the index points t."""
    return value * np.ones(t.shape[:-1])


def _sipow2() -> LiteratureProblem:
    return LiteratureProblem(
        name="sipow2",
        source=(
            "Powell (1992), Log barrier methods for semi-infinite programming calculations, "
            "DAMTP 1992/NA11, Cambridge, problem 2 (CUTE SIPOW2): problem 1 (powell_disc, "
            "CUTE SIPOW1) with half of its tangents x₁cos t + x₂sin t ≥ −1 replaced by "
            "copies of x₁ ≥ −1; the continuous program keeps the tangents for t ∈ [0, 2π] and "
            "x₁ ≥ −1 as a constraint constant in t"
        ),
        n=2,
        p=1,
        objective_kind="linear",
        optimum=-1.0,
        optimum_source=(
            "closed form −1: the lowest point (0, −1) of the unit disc, which satisfies "
            "x₁ ≥ −1 (the SIF file's solution line −1.0)"
        ),
        objective=lambda x: cp.Minimize(x[1]),
        constraints=(
            IndexedConstraint("tangent", lambda x, t: -1.0 - _unit_circle(t) @ x,
                              lambda x, t: -_unit_circle_slope(x, t), (0.0,), (2 * np.pi,),
                              _norm),
            # constant in t: its t-gradient is 0, and so is its Lipschitz constant
            IndexedConstraint("x1_bound", lambda x, t: _constant_in_t(t, -1.0 - x[0]),
                              lambda x, t: np.zeros_like(t), (0.0,), (2 * np.pi,),
                              lambda x: 0.0),
        ),
    )


def _linear_basis_and_target(s, u):
    """The basis 1, ξ, η of the linear polynomials and ξ²η (SIPOW3, SIPOW4) at (ξ, η)."""
    return np.stack([np.ones_like(s), s, u], axis=-1), s**2 * u


def _powell_one_sided(problem: int, point, point_slope, lower, upper, lipschitz_f: float,
                      lipschitz_point: float, optimum: float, optimum_source: str,
                      set_description: str, rtol: float = 1e-12) -> LiteratureProblem:
    """Powell's problems 3 and 4: min x₄ s.t. x₁ + x₂ξ + x₃η ≤ ξ²η ≤ x₁ + x₂ξ + x₃η + x₄ for
    (ξ, η) = point(t) on a curve (or a set) of the plane; ``point_slope(t)`` gives the
    derivatives (∂ξ/∂t, ∂η/∂t) per coordinate of t as an (m, p, 2) array and
    ``lipschitz_f`` is a Lipschitz constant of t ↦ ξ²η and ``lipschitz_point`` one of
    t ↦ (ξ, η), so that the constraints' is ``lipschitz_f + lipschitz_point·‖(x₂, x₃)‖``."""

    def gap(x, t):  # x₁ + x₂ξ + x₃η − ξ²η
        s, u = point(t)
        basis, f = _linear_basis_and_target(s, u)
        return basis @ x[:3] - f

    def gap_slope(x, t):  # Σ_k (x₂ − 2ξη) ∂ξ/∂t_k + (x₃ − ξ²) ∂η/∂t_k
        s, u = point(t)
        d = point_slope(t)
        return (x[1] - 2 * s * u)[:, None] * d[..., 0] + (x[2] - s**2)[:, None] * d[..., 1]

    def lipschitz(x):
        return lipschitz_f + lipschitz_point * np.hypot(x[1], x[2])

    return LiteratureProblem(
        name=f"sipow{problem}",
        source=(
            f"Powell (1992), Log barrier methods for semi-infinite programming calculations, "
            f"DAMTP 1992/NA11, Cambridge, problem {problem} (CUTE SIPOW{problem}): the "
            f"one-sided approximation of ξ²η by a linear polynomial, min x₄ s.t. "
            f"x₁ + x₂ξ + x₃η ≤ ξ²η ≤ x₁ + x₂ξ + x₃η + x₄ {set_description}"
        ),
        n=4,
        p=len(lower),
        objective_kind="linear",
        optimum=optimum,
        optimum_source=optimum_source,
        rtol=rtol,
        objective=lambda x: cp.Minimize(x[3]),
        constraints=(
            IndexedConstraint("below", gap, gap_slope, lower, upper, lipschitz),
            IndexedConstraint("above", lambda x, t: -gap(x, t) - x[3],
                              lambda x, t: -gap_slope(x, t), lower, upper, lipschitz),
        ),
    )


def _square_point(t):
    return t[..., 0], t[..., 1]


def _square_slope(t):  # ∂(ξ, η)/∂(ξ, η): the identity
    return np.broadcast_to(np.eye(2), (len(t), 2, 2))


_CIRCLE_RADIUS = np.sqrt(0.5)


def _circle_point(t):
    """(ξ, η) = (½ − √½ cos(π/4 − θ), ½ − √½ sin(π/4 − θ)): θ = 0 at (0, 0), π/2 at (0, 1),
    π at (1, 1) (the SIF file's parametrization)."""
    theta = t[..., 0]
    return (0.5 - _CIRCLE_RADIUS * np.cos(np.pi / 4 - theta),
            0.5 - _CIRCLE_RADIUS * np.sin(np.pi / 4 - theta))


def _circle_slope(t):
    theta = t[:, 0]
    return np.stack([-_CIRCLE_RADIUS * np.sin(np.pi / 4 - theta),
                     _CIRCLE_RADIUS * np.cos(np.pi / 4 - theta)], axis=-1)[:, None, :]


def _sipow3() -> LiteratureProblem:
    return _powell_one_sided(
        3, _square_point, _square_slope, (0.0, 0.0), (1.0, 1.0),
        # ‖∇(ξ²η)‖ = ‖(2ξη, ξ²)‖ ≤ √5 on [0, 1]²; (ξ, η) = t
        lipschitz_f=np.sqrt(5.0), lipschitz_point=1.0,
        optimum=float(4.0 - 2.0 * np.sqrt(3.0)),
        optimum_source=(
            "closed form 4 − 2√3: x = (2√3 − 4, 4 − 2√3, 2√3 − 3, 4 − 2√3) is feasible, its "
            "polynomial touching ξ²η from below at (1, 0) and (2 − √3, 1) and from above (plus "
            "x₄) at (0, 0) and (1, 1), and the multipliers 1 − 1/√3, 1/√3 at the first two and "
            "1 − 1/√3, 1/√3 at the last two make a dual feasible measure of the same value "
            "(both checked in the tests). The SIF file's solution lines 0.53465470 (M = 2000) "
            "and 0.53564207 (M = 10000) are its discretizations' values (reproduced here), "
            "which miss the corner (1, 1) and approach 4 − 2√3 like 1/M"),
        set_description=(
            "on the boundary of the unit square [0, 1]²; here on the whole square, the same "
            "program: ξ²η − (x₁ + x₂ξ + x₃η) has the Hessian ((2η, 2ξ), (2ξ, 0)), of "
            "determinant −4ξ² < 0 for ξ > 0, so neither constraint has a local maximum in the "
            "interior of the square"),
    )


def _sipow4() -> LiteratureProblem:
    top = 0.5 + _CIRCLE_RADIUS  # |ξ|, |η| ≤ ½ + √½ on the circle
    return _powell_one_sided(
        4, _circle_point, _circle_slope, (0.0,), (np.pi,),
        # |d(ξ²η)/dθ| ≤ ‖(2ξη, ξ²)‖·‖(ξ', η')‖ ≤ √5·(½ + √½)²·√½; ‖(ξ', η')‖ = √½
        lipschitz_f=np.sqrt(2.5) * top**2, lipschitz_point=_CIRCLE_RADIUS,
        optimum=0.272944737269362,
        rtol=NUMERICAL_RTOL,
        optimum_source=(
            "0.272944737269362 (no closed form): a fine discretization of [0, π] (20 001 "
            "points) in cvxpy with local refinement of the active points, polished by Newton's "
            "method on the KKT system at the four contact points θ = 0, 0.938030, 2.122403, π "
            "(residual 10⁻¹⁶, violation ≤ 10⁻¹⁶ on a fine grid refined). The SIF file's "
            "solution lines 0.27060094 (M = 500) and 0.27236200 (M = 2000) are its "
            "discretizations' values (reproduced here: they are the half circle's, the whole "
            "circle's being 0.60724), approaching this one like 1/M"),
        set_description=(
            "on the circle (ξ − ½)² + (η − ½)² = ½: as in the SIF file, the half circle "
            "from (0, 0) through (0, 1) to (1, 1), θ ∈ [0, π] in (ξ, η) = (½ − √½ cos(π/4 − θ), "
            "½ − √½ sin(π/4 − θ))"),
    )


def _tfi3() -> LiteratureProblem:
    def g(x, t):
        s = t[..., 0]
        return 1.0 / (1.0 + s**2) - _powers(s, 3) @ x

    def grad_t(x, t):  # −2t/(1 + t²)² − x₂ − 2x₃t
        s = t[:, :1]
        return -2.0 * s / (1.0 + s**2) ** 2 - _powers_derivative(s, 3) @ x

    return LiteratureProblem(
        name="tfi3",
        source=(
            "Tanaka, Fukushima & Ibaraki (1988), EJOR 36:92–100 (CUTE TFI3); Watson (1983), "
            "Numerical experiments with globally convergent methods for semi-infinite "
            "programming problems, in Fiacco & Kortanek (eds.), Semi-Infinite Programming and "
            "Applications, Springer LNEMS 215, problem 5 (as stated in Mitsos (2009, revised "
            "by Djelassi 2016), A test set of semi-infinite programs): min eˣ¹ + eˣ² + eˣ³ "
            "s.t. x₁ + x₂t + x₃t² ≥ 1/(1 + t²), t ∈ [0, 1]"
        ),
        n=3,
        p=1,
        objective_kind="convex",
        optimum=4.30118378124475,
        rtol=NUMERICAL_RTOL,
        optimum_source=(
            "4.30118378124475 (no closed form): a fine discretization (20 001 points) in cvxpy "
            "with local refinement of the active points, polished by Newton's method on the KKT "
            "system at the contact points t = 0.106060, 1 (residual 10⁻¹⁶); the SIF file's "
            "solution line 4.3011837737 agrees to 2·10⁻⁹ (its 101-point discretization's value "
            "is 4.3011579)"),
        objective=lambda x: cp.Minimize(cp.sum(cp.exp(x))),
        # |d/dt g| ≤ max 2t/(1 + t²)² + |x₂| + 2|x₃| = 3√3/8 + |x₂| + 2|x₃| (at t = 1/√3)
        constraints=(IndexedConstraint("rational", g, grad_t, (0.0,), (1.0,), lambda x: (
            3.0 * np.sqrt(3.0) / 8.0 + abs(x[1]) + 2.0 * abs(x[2]))),),
    )


#: Kortanek & No's right-hand sides b(t) of KSIP, with b' and a bound on |b'| over [0, 1]
_KSIP_RHS = {
    "sin": (np.sin, np.cos, 1.0),
    "exp": (np.exp, np.exp, np.e),
    "tan": (np.tan, lambda s: 1.0 / np.cos(s) ** 2, 1.0 / np.cos(1.0) ** 2),
}


#: per right-hand side of KSIP: the SIP optimum (see ``optimum_source``), its contact points,
#: the SIF file's solution line and the optimum of the SIF file's 1001-point discretization
_KSIP_OPTIMA = {
    "sin": (0.575797927932371, "0.546014, 0.946990", 0.57579024357147, 0.575797924599270),
    "exp": (2.51160448729331, "0.431894, 0.909947, 1", 2.51159511773383, 2.51160447656261),
    "tan": (0.760805973834171, "0.585475, 0.947242", 0.76079933215965, 0.76080582288096),
}


def _ksip(rhs: str = "sin", n: int = 20) -> LiteratureProblem:
    b, slope, bound = _KSIP_RHS[rhs]
    optimum, contacts, sif, discrete = _KSIP_OPTIMA[rhs]

    def g(x, t):
        s = t[..., 0]
        return b(s) - _powers(s, n) @ x

    def grad_t(x, t):
        s = t[:, :1]
        return slope(s) - _powers_derivative(s, n) @ x

    j = np.arange(1, n + 1)
    return LiteratureProblem(
        name="ksip" if rhs == "sin" else f"ksip_{rhs}",
        source=(
            "Kortanek & No (1993), A central cutting plane algorithm for convex "
            "semi-infinite programming problems, SIAM J. Optim. 3:901–918 (CUTE KSIP, "
            "b(t) = sin t; the SIF file names b = sin, 1/(2 − t), exp and tan): "
            "min Σ_j x_j²/(2j) + x_j/j s.t. Σ_j x_j t^(j−1) ≥ b(t), t ∈ [0, 1], n = 20"
            + ("" if rhs == "sin" else f", here b = {rhs}")
        ),
        n=n,
        p=1,
        objective_kind="quadratic",
        optimum=optimum,
        rtol=NUMERICAL_RTOL,
        optimum_source=(
            f"{optimum!r} (no closed form): a fine discretization (20 001 points) in cvxpy "
            f"with local refinement of the active points, polished by Newton's method on the "
            f"KKT system at the contact points t = {contacts} (residual 10⁻¹⁶, violation "
            f"≤ 10⁻¹⁵ on a fine grid refined). The SIF file's solution line {sif!r} lies "
            f"below the optimum {discrete!r} of its own 1001-point discretization (solved in "
            f"cvxpy and exactly on its active set), itself a lower bound of this program's: it "
            f"is the value of no feasible point of either (an inexact solve)"),
        objective=lambda x: cp.Minimize(cp.sum(cp.multiply(0.5 / j, cp.square(x))) + (1.0 / j) @ x),
        # |d/dt g| ≤ max|b'| + Σ_j (j − 1)|x_j| on [0, 1]
        constraints=(IndexedConstraint(rhs, g, grad_t, (0.0,), (1.0,), lambda x: (
            bound + np.arange(n) @ np.abs(x))),),
    )


def _minimax(name, source, n, residual, derivative, lower, upper, lipschitz, optimum,
             optimum_source, rtol=NUMERICAL_RTOL) -> LiteratureProblem:
    """min z s.t. |r(x, t)| ≤ z on [lower, upper], z = x[n − 1] the last variable; ``lipschitz``
    is a Lipschitz constant of t ↦ r(x, t)."""
    return LiteratureProblem(
        name=name, source=source, n=n, p=1, objective_kind="linear", optimum=optimum,
        optimum_source=optimum_source, rtol=rtol,
        objective=lambda x: cp.Minimize(x[n - 1]),
        constraints=(
            IndexedConstraint("above", lambda x, t: residual(x, t) - x[n - 1], derivative,
                              lower, upper, lipschitz),
            IndexedConstraint("below", lambda x, t: -residual(x, t) - x[n - 1],
                              lambda x, t: -derivative(x, t), lower, upper, lipschitz),
        ),
    )


_OETTERSHAGEN = (
    "Oettershagen (1982), Ein superlinear konvergenter Algorithmus zur Lösung "
    "semi-infiniter Optimierungsprobleme, PhD thesis, Bonn (CUTE OET{k}): the Chebyshev "
    "approximation min max_t |r(x, t)|, as min z s.t. |r(x, t)| ≤ z, "
)


def _oettershagen1() -> LiteratureProblem:
    def residual(x, t):  # t² − x₁t − x₂eᵗ
        s = t[..., 0]
        return s**2 - np.stack([s, np.exp(s)], axis=-1) @ x[:2]

    def derivative(x, t):  # 2t − x₁ − x₂eᵗ
        s = t[:, :1]
        return 2 * s - x[0] - x[1] * np.exp(s)

    return _minimax(
        "oettershagen1", _OETTERSHAGEN.format(k=1) + "r = t² − x₁t − x₂eᵗ, t ∈ [0, 2]", 3,
        residual, derivative, (0.0,), (2.0,),
        # |d/dt r| ≤ 4 + |x₁| + e²|x₂| on [0, 2]
        lambda x: 4.0 + abs(x[0]) + np.e**2 * abs(x[1]), 0.538245318166888,
        "0.538245318166888 (no closed form): a fine discretization (20 001 points) in cvxpy "
        "with local refinement of the active points, polished by Newton's method on the KKT "
        "system at the extremal points t = 0.406376 (r = −z) and 2 (r = z) (residual 10⁻¹⁶); "
        "the SIF file has no solution line (its 501-point discretization's value is 0.5382431)")


def _oettershagen3() -> LiteratureProblem:
    def residual(x, t):  # sin t − x₁ − x₂t − x₃t²
        s = t[..., 0]
        return np.sin(s) - _powers(s, 3) @ x[:3]

    def derivative(x, t):
        s = t[:, :1]
        return np.cos(s) - _powers_derivative(s, 3) @ x[:3]

    return _minimax(
        "oettershagen3", _OETTERSHAGEN.format(k=3) + "r = sin t − x₁ − x₂t − x₃t², t ∈ [0, 1]",
        4, residual, derivative, (0.0,), (1.0,),
        # |d/dt r| ≤ 1 + |x₂| + 2|x₃| on [0, 1]
        lambda x: 1.0 + abs(x[1]) + 2.0 * abs(x[2]), 0.00450506993115521,
        "0.00450506993115521 (no closed form): a fine discretization (20 001 points) in cvxpy "
        "with local refinement of the active points, polished by Newton's method on the KKT "
        "system at the equioscillation points t = 0, 0.242546, 0.740403, 1 (residual "
        "10⁻¹⁶); the SIF file has no solution line (its 501-point discretization's value is "
        "0.004505053)")


def _polak_tits() -> LiteratureProblem:
    def g(x, t):  # (2t² − 1)x₁ + t(1 − t)(1 − x₁) − x₂
        s = t[..., 0]
        return (2 * s**2 - 1) * x[0] + s * (1 - s) * (1 - x[0]) - x[1]

    def grad_t(x, t):  # 4t·x₁ + (1 − 2t)(1 − x₁)
        s = t[:, :1]
        return 4 * s * x[0] + (1 - 2 * s) * (1 - x[0])

    return LiteratureProblem(
        name="polak_tits",
        source=(
            "Polak & Tits (1982), A recursive quadratic programming algorithm for "
            "semi-infinite optimization problems, Appl. Math. Optim. 8:325–349 (CUTE PT): "
            "min_x max_t (2t² − 1)x + t(1 − t)(1 − x), t ∈ [0, 1], as min x₂ s.t. "
            "(2t² − 1)x₁ + t(1 − t)(1 − x₁) ≤ x₂"
        ),
        n=2,
        p=1,
        objective_kind="linear",
        optimum=float((np.sqrt(13.0) - 2.0) / 9.0),
        optimum_source=(
            "closed form (√13 − 2)/9: the smallest x₂ is max_t of (3x₁ − 1)t² + (1 − x₁)t − "
            "x₁, which for x₁ < 1/3 is −x₁ + (1 − x₁)²/(4(1 − 3x₁)) (the vertex), minimal at "
            "x₁ = (13 − 2√13)/39 with the maximizer t = (1 + √13)/6; the SIF file has no "
            "solution line (its 501-point discretization's value is 0.17839423)"),
        objective=lambda x: cp.Minimize(x[1]),
        # |d/dt g| ≤ 4|x₁| + |1 − x₁| on [0, 1]
        constraints=(IndexedConstraint("max", g, grad_t, (0.0,), (1.0,),
                                       lambda x: 4 * abs(x[0]) + abs(1 - x[0])),),
    )


_WATSON = (
    "Watson (1983), Numerical experiments with globally convergent methods for "
    "semi-infinite programming problems, in Fiacco & Kortanek (eds.), Semi-Infinite "
    "Programming and Applications, Springer LNEMS 215, problem {k}, as stated "
    "in Mitsos (2009, revised by Djelassi 2016), A test set of semi-infinite programs, "
    "RWTH Aachen (there with the box X = [−1000, 1000]ⁿ, inactive at the solution)"
)


def _watson7() -> LiteratureProblem:
    def features(t):  # the coefficients of x₁, x₂, x₃ in g
        s, u = t[..., 0], t[..., 1]
        return np.stack([s + u**2 + 1, s * u - u**2, s * u + u**2 + u], axis=-1)

    def grad_t(x, t):
        s, u = t[:, 0], t[:, 1]
        return np.column_stack([x[0] + (x[1] + x[2]) * u,
                                2 * u * x[0] + (s - 2 * u) * x[1] + (s + 2 * u + 1) * x[2]])

    def lipschitz(x):  # |∂g/∂s| ≤ |x₁| + |x₂| + |x₃|, |∂g/∂u| ≤ 2|x₁| + 2|x₂| + 4|x₃|
        a = np.abs(x)
        return np.hypot(a.sum(), 2 * a[0] + 2 * a[1] + 4 * a[2])

    return LiteratureProblem(
        name="watson7",
        source=_WATSON.format(k=7) + ": min ‖x‖² s.t. x₁(s + u² + 1) + x₂(su − u²) + "
        "x₃(su + u² + u) + 1 ≤ 0, (s, u) ∈ [0, 1]²",
        n=3,
        p=2,
        objective_kind="quadratic",
        optimum=1.0,
        optimum_source=(
            "closed form 1: at t = (0, 0) the constraint reads x₁ + 1 ≤ 0, so ‖x‖² ≥ 1, and "
            "x = (−1, 0, 0) is feasible (g = −s − u² ≤ 0)"),
        objective=lambda x: cp.Minimize(cp.sum_squares(x)),
        constraints=(IndexedConstraint("affine", lambda x, t: features(t) @ x + 1.0, grad_t,
                                       (0.0, 0.0), (1.0, 1.0), lipschitz),),
    )


def _quadratic_basis(t):
    """1, s, u, s², su, u² at the points t = (s, u)."""
    s, u = t[..., 0], t[..., 1]
    return np.stack([np.ones_like(s), s, u, s**2, s * u, u**2], axis=-1)


def _quadratic_basis_slope(x, t):
    """The t-gradient of the quadratic Σ x_k·basis_k at the points t (m × 2)."""
    s, u = t[:, 0], t[:, 1]
    return np.column_stack([x[1] + 2 * x[3] * s + x[4] * u, x[2] + x[4] * s + 2 * x[5] * u])


def _quadratic_slope_bounds(x) -> tuple[float, float]:
    """Bounds on |∂/∂s| and |∂/∂u| of that quadratic where |s|, |u| ≤ 1:
    |x₂| + 2|x₄| + |x₅| and |x₃| + |x₅| + 2|x₆|."""
    a = np.abs(x)
    return a[1] + 2 * a[3] + a[4], a[2] + a[4] + 2 * a[5]


def _watson8() -> LiteratureProblem:
    def g(x, t):
        return np.exp(t[..., 0] ** 2 + t[..., 1] ** 2) - _quadratic_basis(t) @ x

    def grad_t(x, t):
        return 2 * t * np.exp((t**2).sum(1))[:, None] - _quadratic_basis_slope(x, t)

    def lipschitz(x):  # |∂g/∂s| ≤ 2e² + |x₂| + 2|x₄| + |x₅| on [0, 1]², ∂g/∂u likewise
        ds, du = _quadratic_slope_bounds(x)
        return np.hypot(2 * np.e**2 + ds, 2 * np.e**2 + du)

    return LiteratureProblem(
        name="watson8",
        source=_WATSON.format(k=8) + ": the one-sided L1 approximation min ∫∫ p over "
        "[0, 1]² s.t. p(s, u) ≥ exp(s² + u²), p quadratic (Mitsos's objective, the integral; "
        "Watson's has a misprinted coefficient of x₄)",
        n=6,
        p=2,
        objective_kind="linear",
        optimum=float(np.e / 6 + 25 * np.exp(8 / 25) / 36 + 5 * np.e**2 / 36),
        optimum_source=(
            "closed form e/6 + 25·e^(8/25)/36 + 5e²/36: the cubature with the nodes (0, 1), "
            "(1, 0), (2/5, 2/5), (1, 1) and the weights 1/12, 1/12, 25/36, 5/36 has the "
            "objective's moments (it integrates the quadratics over [0, 1]²), so its value of "
            "exp(s² + u²) bounds the optimum from below (weak duality), and a feasible p reaches "
            "it: a fine discretization in cvxpy with local refinement, polished by Newton's "
            "method on the KKT system, gives 2.43564348816129, feasible to 10⁻¹⁵, touching at "
            "these four nodes"),
        objective=lambda x: cp.Minimize(integral(  # ∫∫ p over [0, 1]², p quadratic
            lambda x, t: _quadratic_basis(t) @ x, x, Box([0.0, 0.0], [1.0, 1.0]), 2,
            vectorized=True)),
        constraints=(IndexedConstraint("exp", g, grad_t, (0.0, 0.0), (1.0, 1.0), lipschitz),),
    )


def _watson9() -> LiteratureProblem:
    def g(x, t):
        return _quadratic_basis(t) @ x - 3.0 - (t[..., 0] ** 2 - t[..., 1] ** 2) ** 2

    def grad_t(x, t):  # ∇(s² − u²)² = 4(s² − u²)(s, −u)
        s, u = t[:, 0], t[:, 1]
        d = 4 * (s**2 - u**2)
        return _quadratic_basis_slope(x, t) - np.column_stack([d * s, -d * u])

    def lipschitz(x):  # |∂g/∂s| ≤ |x₂| + 2|x₄| + |x₅| + 4 on [−1, 1]², ∂g/∂u likewise
        ds, du = _quadratic_slope_bounds(x)
        return np.hypot(ds + 4, du + 4)

    return LiteratureProblem(
        name="watson9",
        source=_WATSON.format(k=9) + ": min −4x₁ − (2/3)(x₄ + x₆) s.t. p(s, u) ≤ "
        "3 + (s² − u²)², p(s, u) = x₁ + x₂s + x₃u + x₄s² + x₅su + x₆u², (s, u) ∈ [−1, 1]²",
        n=6,
        p=2,
        objective_kind="linear",
        optimum=-12.0,
        optimum_source=(
            "closed form −12: p ≡ 3 is feasible with the value −12, and the measure of mass 1 "
            "at each of (±1/√6, ±1/√6), where (s² − u²)² = 0, has the objective's moments "
            "(∫1 = 4, ∫s² = ∫u² = 2/3, the others 0), so every feasible p has "
            "−4x₁ − (2/3)(x₄ + x₆) = −∫p dμ ≥ −∫3 dμ = −12 (weak duality)"),
        objective=lambda x: cp.Minimize(-4 * x[0] - 2 / 3 * (x[3] + x[5])),
        constraints=(IndexedConstraint("quartic", g, grad_t, (-1.0, -1.0), (1.0, 1.0),
                                       lipschitz),),
        # at the solution p ≡ 3, t ↦ g = −(s² − u²)² is maximal (0) on both diagonals
        many_local_maxima=True,
    )


PROBLEMS: dict[str, LiteratureProblem] = {
    problem.name: problem
    for problem in (
        _one_sided_tan(3),
        _one_sided_tan(6),
        _chebyshev(6),
        _chebyshev(10),
        _exp_linear_minimax(),
        _powell_disc(),
        _disc_projection(),
        _tensor_exp2d(),
        _ball("linear"),
        _ball("projection"),
        _sipow2(),
        _sipow3(),
        _sipow4(),
        _tfi3(),
        _ksip("sin"),
        _ksip("exp"),
        _ksip("tan"),
        _oettershagen1(),
        _oettershagen3(),
        _polak_tits(),
        _watson7(),
        _watson8(),
        _watson9(),
    )
}


def get_problem(name: str) -> LiteratureProblem:
    """The problem called ``name`` (a key of :data:`PROBLEMS`)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    try:
        return PROBLEMS[name]
    except KeyError:
        raise ValueError(f"name must be one of {sorted(PROBLEMS)}, got {name!r}") from None
