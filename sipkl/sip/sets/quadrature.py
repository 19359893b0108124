"""Quadrature rules on index sets: nodes t_k ∈ T and positive weights w_k with

    Σ_k w_k F(t_k) = ∫_T F(t) dt   for every polynomial F of total degree ≤ D.

* **Box** ``[a, b] ⊂ R^p``: the tensor product of k-point Gauss–Legendre rules,
  k = ⌈(D + 1)/2⌉ (exact for degree 2k − 1 in each coordinate, hence for total degree D).
  Its remainder is bounded (Davis & Rabinowitz, *Methods of Numerical Integration*, 2nd ed.
  1984, eq. (2.7.12) for one coordinate; the tensor rule by telescoping
  I − Q = Σ_i Q_1 ⊗ … ⊗ Q_{i−1} ⊗ (I_i − Q_i) ⊗ I_{i+1} ⊗ … ⊗ I_p, each factor other
  than the i-th of norm h_j = b_j − a_j since the weights are positive):

      |∫_T F − Q F| ≤ Σ_i (vol T / h_i) · c_k h_i^(2k+1) · M_i,
      c_k = (k!)⁴ / ((2k + 1)((2k)!)³),   M_i ≥ max_T |∂^(2k) F / ∂t_i^(2k)|.

* **Simplex** conv(v_0, …, v_p): Stroud's conical product rule (Stroud, *Approximate
  Calculation of Multiple Integrals*, 1971, §2.7): the collapsed coordinates
  u_i = ξ_i ∏_{j<i} (1 − ξ_j) map the cube [0, 1]^p onto the unit simplex with Jacobian
  ∏_i (1 − ξ_i)^(p−i), and the i-th coordinate takes the k-point Gauss–Jacobi rule of the
  weight (1 − ξ)^(p−i) on [0, 1]; a polynomial of total degree D in u has degree ≤ D in each
  ξ_i, so k = ⌈(D + 1)/2⌉ again. The affine map t = v_0 + Σ u_i (v_i − v_0) multiplies the
  weights by |det(v_i − v_0)|.
* **Polytope**: the simplices of the Delaunay triangulation of its vertices (Qhull), each
  with the simplex rule (a flat simplex of the triangulation has weight 0).

No bound is stated on simplices and polytopes; :meth:`QuadratureRule.error_estimate`
compares with the rule of degree 2D + 1 there and everywhere.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy.spatial import Delaunay
from scipy.special import roots_jacobi


def checked_degree(degree) -> int:
    """``degree`` as an int ≥ 0, else a ``ValueError`` (a ``TypeError`` for a non-integer)."""
    if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)):
        raise TypeError(f"degree must be an integer ≥ 0, got {degree!r}")
    if degree < 0:
        raise ValueError(f"degree must be an integer ≥ 0, got {degree}")
    return int(degree)


def nodes_per_axis(degree: int) -> int:
    """k = ⌈(D + 1)/2⌉: the Gauss nodes per coordinate that integrate degree D exactly."""
    return degree // 2 + 1


@functools.lru_cache(maxsize=None)
def gauss_jacobi_unit(k: int, power: int) -> tuple[np.ndarray, np.ndarray]:
    """The k-point Gauss rule of ∫_0^1 F(ξ) (1 − ξ)^power dξ (Gauss–Legendre for power 0):
    scipy's Gauss–Jacobi rule on [−1, 1] with α = power, β = 0, mapped by ξ = (x + 1)/2
    (computed once per (k, power); read-only arrays)."""
    x, w = roots_jacobi(k, float(power), 0.0)
    nodes, weights = (x + 1.0) / 2.0, w / 2.0 ** (power + 1)
    nodes.flags.writeable = weights.flags.writeable = False
    return nodes, weights


def _tensor(axes: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Nodes (rows) and weights of the tensor product of one-dimensional rules."""
    grids = np.meshgrid(*[nodes for nodes, _ in axes], indexing="ij")
    weights = np.meshgrid(*[w for _, w in axes], indexing="ij")
    return (np.stack(grids, -1).reshape(-1, len(axes)),
            np.prod(np.stack(weights, -1), -1).ravel())


def box_rule(lower, upper, degree: int) -> tuple[np.ndarray, np.ndarray]:
    """Tensor Gauss–Legendre on the box [lower, upper], exact for total degree ``degree``."""
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    nodes, weights = _tensor([gauss_jacobi_unit(nodes_per_axis(degree), 0)] * len(lower))
    return lower + nodes * (upper - lower), weights * np.prod(upper - lower)


def simplex_rule(vertices, degree: int) -> tuple[np.ndarray, np.ndarray]:
    """Stroud's conical product rule on the simplex whose p + 1 vertices are the rows of
    ``vertices``, exact for total degree ``degree`` (module doc)."""
    vertices = np.asarray(vertices, float)
    p = vertices.shape[1]
    k = nodes_per_axis(degree)
    xi, weights = _tensor([gauss_jacobi_unit(k, p - 1 - i) for i in range(p)])
    remaining = np.cumprod(np.column_stack([np.ones(len(xi)), 1.0 - xi[:, :-1]]), axis=1)
    u = xi * remaining
    edges = vertices[1:] - vertices[0]
    return vertices[0] + u @ edges, weights * abs(np.linalg.det(edges))


def polytope_rule(vertices, degree: int) -> tuple[np.ndarray, np.ndarray]:
    """The simplex rule on each simplex of the Delaunay triangulation of ``vertices`` (rows,
    p ≥ 2), nodes and weights concatenated."""
    simplices = vertices[Delaunay(vertices).simplices]
    rules = [simplex_rule(simplex, degree) for simplex in simplices]
    return np.vstack([n for n, _ in rules]), np.concatenate([w for _, w in rules])


@dataclass(frozen=True)
class QuadratureRule:
    """Nodes (rows of an (m, p) array), positive weights and the degree D up to which the
    rule integrates polynomials over ``T`` exactly (module doc); ``T.quadrature(D)`` makes
    one. ``widths``: the box's b − a where T is a box (the remainder bound needs them),
    ``None`` else."""

    nodes: np.ndarray
    weights: np.ndarray
    degree: int
    T: object
    widths: np.ndarray | None = None

    def integrate(self, F) -> float:
        """Σ_k w_k F(t_k) for a function ``F`` of an (m, p) array of points (m values)."""
        return float(self.weights @ np.asarray(F(self.nodes), dtype=float))

    def error_estimate(self, F) -> float:
        """|Q' F − Q F|, Q' the rule of degree 2D + 1 on the same set: an estimate of the
        error of Q F, not a bound (it is exact where F is a polynomial of degree ≤ 2D + 1)."""
        return abs(self.T.quadrature(2 * self.degree + 1).integrate(F) - self.integrate(F))

    def error_bound(self, derivative_bound) -> float:
        """The bound of the module doc on |∫_T F − Q F| on a box, ``derivative_bound`` the
        M_i ≥ max_T |∂^(2k) F/∂t_i^(2k)| (one number per coordinate, or one for all),
        k = ⌈(D + 1)/2⌉. A ``ValueError`` on a set other than a box (no bound is stated)."""
        if self.widths is None:
            raise ValueError(f"error_bound: no bound is stated on {self.T!r}, only on boxes "
                             "(see error_estimate)")
        h = self.widths
        M = np.asarray(derivative_bound, dtype=float)
        if M.size not in (1, h.size) or not np.all(np.isfinite(M) & (M >= 0)):
            raise ValueError(f"derivative_bound must be one number or {h.size}, finite and "
                             f"≥ 0, got {derivative_bound!r}")
        k = nodes_per_axis(self.degree)
        c = math.factorial(k) ** 4 / ((2 * k + 1) * math.factorial(2 * k) ** 3)
        return float(np.prod(h) * np.sum(c * h ** (2 * k) * M.ravel()))
