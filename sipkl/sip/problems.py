"""Semi-infinite programs from the literature with known optimal values.

Each entry of :data:`PROBLEMS` is a :class:`LiteratureProblem`: the problem's data (name,
source, number of variables ``n``, dimension ``p`` of the index set, the box ``T``, the
optimal value and where it comes from) and a :meth:`LiteratureProblem.build` method that
returns a fresh :class:`sipkl.sip.SemiInfiniteProgram`. Every constraint function ``g(x, t)``
is written once and serves both the cvxpy master (``x`` a variable) and pricing (``x`` a
NumPy array); ``t`` is one index point (shape ``(p,)``) or a stack of them (shape ``(m, p)``).

Only convex problems are collected: ``g(·, t)`` is affine in ``x`` for each fixed ``t`` and the
objective is linear or convex quadratic, so each restricted master is a convex cvxpy problem.

The reference optima are closed forms, so the comparison is exact up to rounding:

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
* the other problems are solved by geometry, shown in each problem's ``optimum_source``.

Every value was also reproduced, independently of the engine, by a fine discretization in
cvxpy with local refinement of the active points (to 10⁻⁸ relative or better).

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

from .constraint import SemiInfiniteConstraint
from .index_sets import Box
from .program import SemiInfiniteProgram

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
        ``"linear"`` or ``"quadratic"`` (convex).
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
    return np.asarray(s, dtype=float)[..., None] ** np.arange(k)


def _powers_derivative(s, k: int) -> np.ndarray:
    """The derivatives 0, 1, 2s, …, (k−1)·s^(k−2) of :func:`_powers` (same shape)."""
    degree = np.arange(k)
    return degree * np.asarray(s, dtype=float)[..., None] ** np.maximum(degree - 1, 0)


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
        s = np.asarray(t)[..., 0]
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
            + (" = tan(1)/4 + 3·tan(1/3)/4" if n == 3 else "")
        ),
        objective=lambda x: cp.Minimize((1.0 / np.arange(1, n + 1)) @ x),
        # |d/dt g| ≤ sec²(1) + Σ_k k·|x_k| on [0, 1]
        constraints=(IndexedConstraint("tan", g, grad_t, (0.0,), (1.0,), lambda x: (
            1.0 / np.cos(1.0) ** 2 + np.arange(n) @ np.abs(x))),),
    )


def _chebyshev(degree: int) -> LiteratureProblem:
    def residual(x, t):
        s = np.asarray(t)[..., 0]
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
        s = np.asarray(t)[..., 0]
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
    s = np.asarray(t)[..., 0]
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


def _tensor_exp2d() -> LiteratureProblem:
    def g(x, t):
        t = np.asarray(t)
        basis = _powers(t[..., 0], 3)[..., :, None] * _powers(t[..., 1], 3)[..., None, :]
        return np.exp(t[..., 0] + t[..., 1]) - basis.reshape(*t.shape[:-1], 9) @ x

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
    means = 1.0 / np.arange(1, 4)
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
        objective=lambda x: cp.Minimize(np.outer(means, means).ravel() @ x),
        constraints=(IndexedConstraint("exp", g, grad_t, (0.0, 0.0), (1.0, 1.0), lipschitz),),
    )


def _unit_sphere(t):
    t = np.asarray(t)
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
