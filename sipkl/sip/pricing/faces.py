"""The lower level's optimality on the active face of an index set, and Newton steps there.

An index set states itself as ``T = {t : lower ≤ t ≤ upper, h_k(t) ≤ 0}``
(:meth:`~sipkl.sip.sets.base.IndexSet.inequalities`: a box its bounds, a polytope A t − b,
an ellipsoid ‖P⁻¹(t − c)‖² − 1, a smooth set its h). At a local maximizer t* of g(x, ·)
over T the active constraints A (a bound within ``FACE_RTOL`` of the box's width, an h_k
within ``ACTIVE_RTOL`` of the set's extent of its boundary) carry multipliers μ ≥ 0 with

    ∇_t g(t*) = Σ_{k ∈ A} μ_k ∇h_k(t*)                         (first order, KKT),

and t* is a nondegenerate maximum where the Hessian of the Lagrangian on the tangent space of
the active constraints is negative definite (second order; Hettich & Kortanek 1993, §7,
the lower level's conditions behind the reduction):

    A = Dᵀ (∇²g − Σ_k μ_k ∇²h_k) D ≺ 0,      D = diag(½ width) Z,

Z an orthonormal basis of the null space of the active gradients in the box's frame
y = (t − mid)/(½ width) (so that every rule is the same in any units of t), D its columns in
t. On a box the face is axis-aligned: Z the identity's columns on the free coordinates,
and the bounds add no curvature. :func:`face` finds A, μ and D at a point;
:func:`tangent_hessian` the matrix A by second differences along D (of g's stated
t-gradient where it has one, else of its values, with those of the h_k);
:func:`climb` the maximizers from starts: projected Newton steps on a box, elsewhere the
set's local search (:func:`~sipkl.sip.pricing.search.refine_in_set`) then Newton steps on
the face (:func:`polish`), which reach the face's maximizer to round-off — what the local
reduction (:mod:`sipkl.sip.phases.reduction`) needs of t*.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..constraints.semi_infinite import FD_STEP
from ..sets.box import Box
from .dense import HESSIAN_STEP, climb_box, pricing_hessians, second_differences
from .search import refine_in_set

#: a coordinate within this fraction of the box's width of a bound is on that bound
FACE_RTOL = 1e-9

#: an inequality h_k whose value is within this fraction of the set's extent of 0
#: (h_k/‖∇h_k‖ in the box's frame) is active
ACTIVE_RTOL = 1e-7

#: Newton steps on a face at most (each one evaluation of g's gradient and Hessian there)
POLISH_ITER = 8

#: Newton steps back onto the active constraints after a step along their tangent space
RESTORE_ITER = 3


@dataclass
class Face:
    """The active face of an index set at ``t`` (module docstring): ``directions`` D
    (p × q, the tangent space of the active constraints in t, one column per free
    direction), ``coords`` the free coordinates where the face is axis-aligned (a box's:
    D's columns are ½ width_i e_i), else ``None``; ``active`` the active inequalities as
    ``(fun, jac, index, multiplier)`` (``fun`` and ``jac`` one of the set's pairs,
    ``index`` the row of its values); ``bounds`` the coordinates on a bound and the bound's
    value; ``half`` the box's half-widths."""

    t: np.ndarray
    directions: np.ndarray
    coords: Optional[np.ndarray]
    active: list
    bounds: tuple
    half: np.ndarray

    @property
    def dim(self) -> int:
        """q, the dimension of the face."""
        return self.directions.shape[1]


def face(T, t: np.ndarray, gradient: np.ndarray) -> Optional[Face]:
    """The active face of ``T`` at its point ``t`` where g has the t-gradient ``gradient``
    (module docstring): the active bounds and inequalities, their multipliers by least
    squares (an inequality whose multiplier is not positive does not hold the maximum and is
    left out), and the tangent directions D. ``None`` for a set that states no
    inequalities (a budget set, a product with one)."""
    try:
        lower, upper, rows = T.inequalities()
    except ValueError:
        return None
    half = 0.5 * (upper - lower)
    at_lower = t - lower <= FACE_RTOL * 2 * half
    at_upper = upper - t <= FACE_RTOL * 2 * half
    fixed = np.flatnonzero(at_lower | at_upper)
    bounds = (fixed, np.where(at_lower, lower, upper)[fixed])
    candidates, normals = [], []  # active inequalities and their gradients in the frame
    for fun, jac in rows:
        values = np.asarray(fun(t[None]), dtype=float).reshape(-1)
        jacobian = _jacobian(fun, jac, t, half).reshape(len(values), -1)
        scaled = jacobian * half
        norms = np.linalg.norm(scaled, axis=1)
        for k in np.flatnonzero(values >= -ACTIVE_RTOL * np.maximum(norms, 1e-300)):
            candidates.append((fun, jac, k, norms[k]))
            normals.append(scaled[k] / norms[k])
    if normals:  # μ from ∇_y g = Σ μ_k ∇_y h_k + (bounds), the bounds' own multipliers free
        bound_rows = np.eye(len(t))[fixed]
        matrix = np.vstack([np.array(normals), bound_rows]).T
        mu = np.linalg.lstsq(matrix, gradient * half, rcond=None)[0][:len(normals)]
        keep = mu > 0
        candidates = [c for c, k in zip(candidates, keep) if k]
        normals = [n for n, k in zip(normals, keep) if k]
        mu = mu[keep]
    if not normals:
        free = np.setdiff1d(np.arange(len(t)), fixed)
        directions = np.zeros((len(t), len(free)))
        directions[free, np.arange(len(free))] = half[free]
        return Face(t, directions, free, [], bounds, half)
    active = np.vstack([np.array(normals), np.eye(len(t))[fixed]])
    _, singular, vt = np.linalg.svd(active)
    rank = int(np.sum(singular > 1e-10 * singular[0]))
    # the rows were normalized: μ_k of ∇h_k itself is the least squares' over ‖∇_y h_k‖
    return Face(t, half[:, None] * vt[rank:].T, None,
                [(fun, jac, k, m / norm) for (fun, jac, k, norm), m in zip(candidates, mu)],
                bounds, half)


def _jacobian(fun, jac, t: np.ndarray, half: np.ndarray) -> np.ndarray:
    """The Jacobian of the set's ``fun`` at ``t`` (r × p): ``jac``'s where stated, else by
    central differences with steps ``FD_STEP`` of the box's width."""
    if jac is not None:
        return np.asarray(jac(t[None]), dtype=float)[0]
    step = FD_STEP * 2 * half
    nodes = np.vstack([t + np.diag(step), t - np.diag(step)])
    values = np.asarray(fun(nodes), dtype=float).reshape(2 * len(t), -1)
    return ((values[:len(t)] - values[len(t):]) / (2 * step[:, None])).T


def tangent_hessian(problem, f: Face) -> np.ndarray:
    """A = Dᵀ(∇²g − Σ μ_k ∇²h_k)D of the pricing problem's (scaled) g on the face ``f``
    (q × q): on an axis-aligned face g's own Hessian on the free coordinates
    (:func:`~sipkl.sip.pricing.dense.pricing_hessians`) times ¼ width_i width_j; else
    second differences along D with the steps ``HESSIAN_STEP`` (of the box's width) — of the
    stated t-gradient where g has one, of the values otherwise — and the active h_k's."""
    t, D = f.t, f.directions
    if f.coords is not None:
        H = pricing_hessians(problem)(t[None], f.coords)[0]
        return H * np.multiply.outer(D[f.coords, np.arange(f.dim)],
                                     D[f.coords, np.arange(f.dim)])
    step = 2 * HESSIAN_STEP
    offsets = step * D.T
    if problem.hessian_batch() is not None:  # differences of the stated gradient
        _, grads = problem.values_and_grads(np.vstack([t + offsets, t - offsets]))
        columns = (grads[:f.dim] - grads[f.dim:]) @ D / (2 * step)
        A = 0.5 * (columns + columns.T)
    else:
        A = second_differences(problem.values, t[None], offsets)[0] / step ** 2
    for fun, _, k, mu in f.active:
        h = second_differences(lambda points, fun=fun, k=k: np.asarray(
            fun(points), dtype=float).reshape(len(points), -1)[:, k], t[None], offsets)[0]
        A = A - mu * h / step ** 2
    return A


def polish(problem, t: np.ndarray) -> np.ndarray:
    """Newton steps on the active face from ``t``, a point of the set near a local
    maximizer of the pricing problem (up to ``POLISH_ITER``): the step u = −A⁻¹Dᵀ∇g along
    the face (:func:`tangent_hessian`), then back onto its active constraints (the bounds
    set, the inequalities by Gauss–Newton steps t ← t − J⁺h(t)); a step is taken only where
    A is negative definite, the new point lies in the set and g is not lower there (to
    round-off). Returns the last point taken (``t`` itself where no step was)."""
    T = problem.family
    value, gradient = problem.values_and_grads(t[None])
    for _ in range(POLISH_ITER):
        f = face(T, t, gradient[0])
        if f is None or f.dim == 0:
            break
        A = tangent_hessian(problem, f)
        eigenvalues, vectors = np.linalg.eigh(0.5 * (A + A.T))
        if not eigenvalues.max() < -1e-8 * np.abs(eigenvalues).max():
            break
        u = -vectors @ ((vectors.T @ (f.directions.T @ gradient[0])) / eigenvalues)
        trial = _restore(f, t + f.directions @ u)
        if not T.contains(trial[None])[0]:
            break
        new_value, new_gradient = problem.values_and_grads(trial[None])
        if new_value[0] < value[0] - 1e-14 * max(1.0, abs(value[0])):
            break
        moved = np.max(np.abs(u))
        t, value, gradient = trial, new_value, new_gradient
        if moved <= 1e-12:
            break
    return t


def _restore(f: Face, t: np.ndarray) -> np.ndarray:
    """``t`` moved back onto the face's active constraints: the bounds set, then
    ``RESTORE_ITER`` Gauss–Newton steps on the active inequalities."""
    t = t.copy()
    fixed, values = f.bounds
    t[fixed] = values
    if not f.active:
        return t
    free = np.setdiff1d(np.arange(len(t)), fixed)
    for _ in range(RESTORE_ITER):
        h = np.array([np.asarray(fun(t[None]), dtype=float).reshape(-1)[k]
                      for fun, _, k, _ in f.active])
        J = np.array([_jacobian(fun, jac, t, f.half).reshape(-1, len(t))[k]
                      for fun, jac, k, _ in f.active])[:, free]
        t[free] -= np.linalg.lstsq(J, h, rcond=None)[0]
    return t


def climb(problem, starts: np.ndarray):
    """The local maximizers of a pricing problem reached from the rows of ``starts``: by
    projected Newton steps over a box (:func:`~sipkl.sip.pricing.dense.climb_box`), else by
    the set's local search (:func:`~sipkl.sip.pricing.search.refine_in_set`) and Newton
    steps on the active face (:func:`polish`). Returns an OptimizeResult with ``x`` (best
    first) and ``fun``."""
    if isinstance(problem.family, Box):
        return climb_box(problem, starts)
    found = refine_in_set(problem, starts)
    found.x = np.array([polish(problem, t) for t in found.x]).reshape(found.x.shape)
    found.fun = problem.values(found.x)
    order = np.argsort(-found.fun, kind="stable")
    found.x, found.fun = found.x[order], found.fun[order]
    return found
