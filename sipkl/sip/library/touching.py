"""Semi-infinite programs with a known optimum on any index set, built by touching points.

Choose an index set T, a point x* of coefficients, points t_1 … t_m of T (inside, or one on
its boundary with its outward normal n) and weights λ_i > 0, and set

    min cᵀx   s.t.   g(x, t) = f(t) − xᵀφ(t) ≤ 0   for all t ∈ T,   ‖x − x*‖_∞ ≤ 1,
    φ(t) = (1, u_1, …, u_p, u_1², …, u_p²)  (u the set's frame),   c = Σ λ_i φ(t_i),
    f(t) = x*ᵀφ(t) − ψ(t),      ψ(t) = ψ_b(t) · Π_i ‖u(t) − u(t_i)‖²,
    ψ_b(t) = nᵀ(u(t_b) − u(t)) + ‖u(t) − u(t_b)‖²

(u(·) the frame's coordinates; ψ_b = 1 without a boundary point). ψ ≥ 0 on T —
nᵀ(u(t_b) − u(t)) ≥ 0 on a convex set whose outward normal at t_b is n (in the frame) —
and vanishes exactly at the t_i, so x* is feasible and g(x*, ·) has its maxima, 0, at the
t_i (the boundary one with a positive multiplier of T's constraint there, the others
nondegenerate interior maxima). For every
feasible x, cᵀx = Σ λ_i xᵀφ(t_i) ≥ Σ λ_i f(t_i) (weak duality of the semi-infinite LP), and
x* attains it (inside the box ‖x − x*‖_∞ ≤ 1, which bounds every restricted master and
whose multipliers are 0 there): the optimum is

    Σ λ_i f(t_i) = Σ λ_i x*ᵀφ(t_i),

a closed form independent of any solver. The maximizers move with x (over the curved
boundary of an ellipsoid, along a polytope's facet, inside the set): what the exchange
method converges to only linearly and the local reduction in a few Newton rounds. With two
touching points whose coordinates differ, x* is the unique solution (each point's
maximizer moves with the 2p coefficients of u and u², which its p equations ∇_t g = 0 and
the other point's fix): the reduced problem is nondegenerate.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import cvxpy as cp
import numpy as np

from ..constraints.semi_infinite import SemiInfiniteConstraint
from ..program import SemiInfiniteProgram


@dataclass
class TouchingProblem:
    """A problem of the module docstring: ``build()`` the program (fresh variables each
    time), ``optimum`` its value, ``points`` the t_i (the boundary one last)."""

    name: str
    T: object
    x_star: np.ndarray
    points: np.ndarray
    weights: np.ndarray
    normal: Optional[np.ndarray] = None

    @property
    def optimum(self) -> float:
        return float(self.weights @ (self._features(self.points) @ self.x_star))

    def _frame(self, t: np.ndarray) -> np.ndarray:
        """u(t): t in the set's bounding-box frame, (t − mid)/(½ width)."""
        lower, upper = self.T.param_bounds()
        return (np.atleast_2d(t) - 0.5 * (lower + upper)) / (0.5 * (upper - lower))

    def _features(self, t: np.ndarray) -> np.ndarray:
        """φ(t): 1, u, u² per row (m × (2p + 1))."""
        u = self._frame(t)
        return np.column_stack([np.ones(len(u)), u, u ** 2])

    def psi(self, t: np.ndarray) -> np.ndarray:
        """ψ(t) of the module docstring (≥ 0 on T, 0 exactly at the touching points)."""
        u, centres = self._frame(t), self._frame(self.points)
        value = np.ones(len(u))
        interior = centres if self.normal is None else centres[:-1]
        for c in interior:
            value = value * np.sum((u - c) ** 2, axis=1)
        if self.normal is not None:
            b = centres[-1]
            value = value * ((b - u) @ self.normal + np.sum((u - b) ** 2, axis=1))
        return value

    def build(self) -> tuple[SemiInfiniteProgram, cp.Variable]:
        """The program (vectorized g) and its variable x."""
        x = cp.Variable(len(self.x_star))
        c = self.weights @ self._features(self.points)
        f = lambda t: self._features(t) @ self.x_star - self.psi(t)
        g = SemiInfiniteConstraint(lambda v, t: f(t) - self._features(t) @ v, x, self.T,
                                   vectorized=True, name="g")
        return SemiInfiniteProgram(cp.Minimize(c @ x), g,
                                   [cp.norm(x - self.x_star, "inf") <= 1.0]), x


def touching(name: str, T, interior, boundary=None, normal=None, seed: int = 0
             ) -> TouchingProblem:
    """A :class:`TouchingProblem` over ``T`` touching at the rows of ``interior`` and, where
    given, at the point ``boundary`` of T's boundary whose outward normal is ``normal`` (in
    t; the gradient of the active constraint there); x* drawn from a fixed seed, every weight
    1."""
    points = np.atleast_2d(np.asarray(interior, dtype=float))
    if boundary is not None:
        points = np.vstack([points, boundary])
        lower, upper = T.param_bounds()
        normal = 0.5 * (upper - lower) * np.asarray(normal, dtype=float)  # in the frame u
        normal = normal / np.linalg.norm(normal)
    n = 1 + 2 * T.dim
    x_star = np.random.default_rng(seed).uniform(-1.0, 1.0, n)
    return TouchingProblem(name, T, x_star, points, np.ones(len(points)), normal)
