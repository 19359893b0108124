"""Second-order check of a local answer of a nonlinear semi-infinite program: is it a saddle?

A local NLP method stops at a KKT point, which need not be a local minimizer: from a start
that is symmetric in some of the variables (OET6 and OET7 from 0, whose terms
a_i·exp(b_i t) are interchangeable) every iterate keeps the symmetry, and the run ends at the
best point of the symmetric subspace, a saddle of the whole program. The second-order
necessary condition for a minimizer of the reduced problem (Hettich & Kortanek 1993, §3,
Theorem 3.5; Nocedal & Wright 2006, Theorem 12.5) is

    dᵀ ∇²L(x*) d ≥ 0   for every d with ∇φ_i(x*)ᵀd = 0 on the active constraints,

L = f + Σ λ_i φ_i + Σ μ_k c_k, φ_i(x) = g_j(x, t_i(x)) the reduced constraints (t_i(x) the
local maximizer of g_j(x, ·) near the active point t_i). ∇²L is taken by central
differences of ∇L = ∇f + Σ λ_i ∇ₓg_j(x, t_i(x)) + Σ μ_k ∇c_k (the envelope theorem's
gradients, so the differences carry the curvature of the maximizers' motion), in the
coordinates x_k / D_k (D the variables' sizes) and divided by σ_f, so that its eigenvalues
are scale-free; the tangent space is the null space of the active rows (constraints with
positive multipliers, equalities, bounds at which x lies). The differences' error is measured,
not assumed: the reduced Hessian is taken with the step h and with 2h, and a most negative
eigenvalue below ``−CURVATURE_NOISE`` times their largest difference is a direction of
descent along which a run can leave the saddle.
"""
from __future__ import annotations

import numpy as np

from ..masters.nonlinear import ScaledProgram
from ..pricing.faces import climb
from ..pricing.space import ConstraintPrice, IndexPointPricing
from .reduction import active_mask

#: the relative step of the central differences of ∇L (of the variables' sizes D)
HESSIAN_RSTEP = 1e-5

#: negative curvature: the least eigenvalue of the reduced Hessian below −this times its
#: differences' error, measured as the change of the reduced Hessian when the step doubles
CURVATURE_NOISE = 100.0

#: a variable within this fraction of its size D_k of a bound lies at it
BOUND_RTOL = 1e-8

#: the seed of :meth:`Saddle.escape_directions`' pseudo-random directions
ESCAPE_SEED = 0

#: projections whose lengths differ by less than this fraction are tied
#: (:func:`canonical_directions`): far above round-off, far below a real difference
TIE_RTOL = 1e-6


class Saddle:
    """A KKT point x at which the Lagrangian has negative curvature on the active
    constraints' tangent space: its ``directions`` of negative curvature (a (k, n) array in
    x's units, ‖d / D‖ = 1, by :func:`canonical_directions`), the variables' sizes D
    (``size``) and the variables at a bound (``fixed``)."""

    def __init__(self, directions: np.ndarray, size: np.ndarray, fixed: np.ndarray):
        self.directions, self.size, self.fixed = directions, size, fixed

    def toward(self, x: np.ndarray, start: np.ndarray) -> np.ndarray:
        """The point of x + span(directions) nearest ``start`` in the coordinates z_k / D_k.

        Along a flat family of KKT points (OET6's b₁ = b₂ for any split of a₁ + a₂) a local
        method ends wherever round-off drifts it, and the directions of negative curvature
        there lie mostly along the family; this point moves back along them to the member
        nearest the start (from a symmetric start, the symmetric one, a clear saddle): a
        rule, in place of the drift."""
        unit = self.directions / self.size  # orthonormal rows (canonical_directions)
        return x + self.size * (unit.T @ (unit @ ((start - x) / self.size)))

    def escape_directions(self, n_curvature: int, n_fixed_random: int) -> np.ndarray:
        """The first ``n_curvature`` directions of negative curvature, then
        ``n_fixed_random`` pseudo-random ones (a generator seeded with ``ESCAPE_SEED``: the
        same in every run), 0 on the variables at a bound, ‖d / D‖ = 1. The random ones
        leave saddles that second-order information does not show: a flat family of KKT
        points (OET6's b₁ = b₂ for any split of a₁ + a₂) along which the curvature changes
        sign further away."""
        rng = np.random.default_rng(ESCAPE_SEED)
        random = rng.standard_normal((n_fixed_random, len(self.size)))
        random[:, self.fixed] = 0.0
        random /= np.linalg.norm(random, axis=1, keepdims=True)
        return np.vstack([self.directions[:n_curvature], random * self.size])


def negative_curvature(master, x, points, multipliers, scales, finite_multipliers):
    """The :class:`Saddle` at ``x`` where the Lagrangian has negative curvature on the
    tangent space of the active constraints, else ``None`` (the reduced Hessian positive
    semidefinite to ``CURVATURE_NOISE`` times its measured error, or the tangent space
    {0}). ``points``, ``multipliers``, ``scales`` and ``finite_multipliers`` are a
    result's; the index sets are boxes or finite sets (the maximizers climb by Newton steps
    in a box; a finite set's points stay)."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    size = np.maximum(np.abs(x), master.typical)
    tops, weights = [], []
    for sic, p, m, s in zip(master.semi_infinite, points, multipliers, scales):
        on = active_mask(m)
        moving = on.any() and not sic.T.finite  # the points of a finite set stay
        tops.append(climb(IndexPointPricing(sic, ConstraintPrice(x, s)), p[on]).x if moving
                    else p[on])
        weights.append(m[on] * s)
    objective_scale = master.objective_scale(x)
    program = ScaledProgram(master, [t[:0] for t in tops], objective_scale,
                            np.asarray(scales, dtype=float), master.finite_scales(x),
                            climbed=tops)
    row_weights = [np.concatenate(weights) / objective_scale] if weights else []
    for kind, k in program.blocks:
        if kind == "c":
            row_weights.append(finite_multipliers[k] * program.finite_scales[k]
                               / objective_scale)
    lam = np.concatenate(row_weights) if row_weights else np.zeros(0)

    def lagrangian_gradient(z):
        return program.gradient(z) + program.jacobian(z).T @ lam

    def hessian(rstep):  # ∇²L by central differences, in the coordinates x_k / D_k
        columns = []
        for k in range(n):
            e = np.zeros(n)
            e[k] = rstep * size[k]
            columns.append((lagrangian_gradient(x + e) - lagrangian_gradient(x - e))
                           / (2 * rstep))
        h = np.array(columns).T * size[:, None]
        return 0.5 * (h + h.T)

    jacobian = program.jacobian(x) * size[None, :]
    equality = np.arange(len(lam)) >= len(lam) - program.n_equality
    rows = (lam > 0) | equality
    fixed = (x - master.lower <= BOUND_RTOL * size) | (master.upper - x <= BOUND_RTOL * size)
    active = np.vstack([jacobian[rows], np.eye(n)[fixed]])
    if len(active):
        _, singular, vt = np.linalg.svd(active)
        rank = int(np.sum(singular > 1e-10 * max(singular.max(initial=0.0), 1e-300)))
        tangent = vt[rank:].T
    else:
        tangent = np.eye(n)
    if tangent.shape[1] == 0:
        return None
    reduced = tangent.T @ hessian(HESSIAN_RSTEP) @ tangent
    noise = np.abs(reduced - tangent.T @ hessian(2 * HESSIAN_RSTEP) @ tangent).max()
    eigenvalues, vectors = np.linalg.eigh(reduced)
    negative = eigenvalues < -CURVATURE_NOISE * noise
    if not negative.any():
        return None
    return Saddle(canonical_directions(tangent @ vectors[:, negative]) * size, size, fixed)


def canonical_directions(basis: np.ndarray) -> np.ndarray:
    """Unit vectors (rows) spanning the column space of the orthonormal (n, k) ``basis`` that
    depend on that space only, not on the basis an eigensolver returned for it.

    Where eigenvalues are equal (a start symmetric in several variables makes them so) an
    eigensolver's basis of their space, and each vector's sign, are set by round-off. Here
    the projections P e_i = B Bᵀ e_i of the coordinate axes (functions of the space alone)
    are taken by pivoted Gram–Schmidt: the longest remaining projection first, lengths
    within ``TIE_RTOL`` of the longest being ties that go to the lowest index i (each vector
    has a positive i-th entry, ‖P e_i‖², P staying a projector as it is deflated)."""
    projections = basis @ basis.T  # column i: P e_i
    directions = []
    for _ in range(basis.shape[1]):
        lengths = np.linalg.norm(projections, axis=0)
        i = int(np.flatnonzero(lengths >= (1 - TIE_RTOL) * lengths.max())[0])
        d = projections[:, i] / lengths[i]
        directions.append(d)
        projections = projections - np.outer(d, d @ projections)
    return np.array(directions)
