"""Exact robust counterparts: a semi-infinite constraint affine in t as finitely many conic ones.

Where g(x, t) = g(x, c) + Δ(x)ᵀz for t = c + F z (c the set's centre, F its frame, Δ_i(x) =
g(x, c + F e_i) − g(x, c), affine in x), the constraint ``g(x, t) ≤ 0 for all t ∈ T`` is

    g(x, c) + max_{z ∈ Z} Δ(x)ᵀz ≤ 0,       Z = F⁻¹(T − c),

and the maximum is a closed form or a conic program's dual (Ben-Tal, El Ghaoui and
Nemirovski, "Robust optimization", 2009, ch. 1–2):

* ellipsoid / ball (Z the unit ball): ``g(x, c) + ‖Δ(x)‖₂ ≤ 0`` (a second-order cone);
* box (Z = [−1, 1]^p): ``g(x, c) + ‖Δ(x)‖₁ ≤ 0``;
* polytope {A t ≤ b} (Z = {A F z ≤ b − A c}): LP duality, ``g(x, c) + (b − Ac)ᵀy ≤ 0``,
  ``(AF)ᵀy = Δ(x)``, ``y ≥ 0``;
* budget set (z ∈ [−1, 1]^p, ‖z‖₁ ≤ Γ, t = c + r∘z; Bertsimas and Sim 2004):
  ``g(x, c) + Γλ + Σ μ_i ≤ 0``, ``λ + μ_i ≥ |Δ_i(x)|``, ``λ, μ ≥ 0``;
* product: the sum of the blocks' maxima (each block's own centre and frame);
* finite set: the constraint at every point.

``robust_counterpart(constraint)`` builds these cvxpy constraints from the user's g (p + 1
evaluations of g as cvxpy expressions). It is a fast path where it applies: one conic
program instead of the exchange method's rounds, and the tests compare the two. It needs
g affine in t and Δ(x) affine in x as cvxpy sees it (g = a(x) + B(x)t with B affine; a
convex part a(x) cancels in Δ only where it is written once, outside the t-dependent
terms — else a ``ValueError``). Affinity in t is checked on samples, for the counterpart
of any other g is exact for nothing: along ``AFFINE_CHORDS`` chords of T
(:func:`~sipkl.sip.sets.geometry.chords`) at ``AFFINE_DRAWS`` values of the variables and of
the parameters without a value (uniform in [0.5, 1.5], projected on their attributes;
their own values are restored),

    |g(x, λa + (1 − λ)b) − λg(x, a) − (1 − λ)g(x, b)|  ≤  ``AFFINE_RTOL`` · S,

S the largest Σ|terms| of g (:func:`~sipkl.sip.constraints.semi_infinite.magnitude`) at the chord's
points: the same decision with t or g in other units. A chord that breaks it is a
``ValueError`` naming the constraint's g and the chord; so is a g that cannot be evaluated
at any of these x (its affinity then unchecked). A check at finitely many points is no
proof; a g that is not affine in t is solved by the exchange method
(:class:`~sipkl.sip.SemiInfiniteProgram`).
"""
from __future__ import annotations

import cvxpy as cp
import numpy as np

from .constraints.semi_infinite import IndexConstraint, SemiInfiniteConstraint
from .pricing.sets import AFFINE_RTOL
from .sets.geometry import chord_gaps, chords

#: chords of T and draws of the variables at which g's affinity in t is checked
AFFINE_CHORDS, AFFINE_DRAWS = 8, 3


def robust_counterpart(constraint: SemiInfiniteConstraint, weight=1.0) -> list:
    """The cvxpy constraints equivalent to ``constraint`` where its g is affine in t (module
    docstring), over any box, polytope (budget sets included), ellipsoid, product of those,
    or finite set: those of ``weight``·g ≤ 0 (``weight`` a positive number or a nonnegative
    cvxpy Parameter: the constraint in the units where a solver's tolerances apply, as the
    master divides g by its scale).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from sipkl.sip import SemiInfiniteConstraint
    >>> from sipkl.sip.sets import Ball
    >>> from sipkl.sip.robust import robust_counterpart
    >>> x = cp.Variable(2)
    >>> g = SemiInfiniteConstraint(lambda x, t: cp.sum(x) + t @ x - 1, x, Ball([0, 0], 0.5))
    >>> problem = cp.Problem(cp.Maximize(cp.sum(x)), robust_counterpart(g))
    >>> round(float(problem.solve()), 8)               # 2 / (2 + √2/2)
    0.73879612
    """
    if not isinstance(constraint, SemiInfiniteConstraint):
        raise TypeError(f"constraint must be a SemiInfiniteConstraint, got "
                        f"{type(constraint).__name__}")
    T = constraint.T
    if T.finite:
        return [weight * e <= 0 for e in constraint.expressions(T.points)]
    centre = T.centre()
    at_centre = _values(constraint, centre[None], weight)[0]
    worst, extra = T.worst_case(
        lambda frame, block: _differences(constraint, centre, block, frame, weight),
        np.arange(T.dim))
    _check_affine_in_t(constraint)
    return [at_centre + worst <= 0] + extra


def affine_counterparts(semi_infinite, skip=(), weights=None) -> dict:
    """``{j: robust_counterpart(c_j, weights[j])}`` for each constraint ``c_j`` (by position,
    those in ``skip`` aside; ``weights`` default 1) over a continuous index set that has a
    conic form and whose g passes the affinity checks of :func:`robust_counterpart`; a
    constraint for which it raises its ``ValueError`` (g not affine in t or its coefficients
    not affine in x, a set without a conic form) is left out: the exchange method solves it
    (:meth:`~sipkl.sip.SemiInfiniteProgram.solve` imposes the others by these)."""
    found = {}
    for j, constraint in enumerate(semi_infinite):
        if j in skip or constraint.T.finite:
            continue
        try:
            found[j] = robust_counterpart(constraint, 1.0 if weights is None else weights[j])
        except ValueError:
            continue
    return found


def robust_program(objective, semi_infinite, constraints=()) -> cp.Problem:
    """The cvxpy problem with every semi-infinite constraint replaced by its robust
    counterpart (:func:`robust_counterpart`)."""
    sics = [semi_infinite] if isinstance(semi_infinite, IndexConstraint) \
        else list(semi_infinite)
    robust = [c for sic in sics for c in robust_counterpart(sic)]
    return cp.Problem(objective, list(constraints) + robust)


def _differences(constraint, point, block, frame, weight) -> cp.Expression:
    """Δ_i = w·(g(x, point + F_i) − g(x, point)) over the coordinates ``block`` (F_i the
    i-th column of the frame there, w the ``weight``), checked affine in x."""
    shifted = np.repeat(point[None], len(block) + 1, axis=0)
    shifted[1:, block] += frame.T
    values = _values(constraint, shifted, weight)
    delta = cp.hstack([values[i + 1] - values[0] for i in range(len(block))])
    if not delta.is_affine():
        raise ValueError(f"robust_counterpart: the coefficients of t in g of constraint "
                         f"{constraint.name!r} are not affine in x as cvxpy sees them "
                         f"({delta.curvature.lower()}): write g as a(x) + B(x)t with B affine")
    return delta


def _check_affine_in_t(constraint) -> None:
    """g affine in t along chords of T at sampled values of the variables (module
    docstring), else a ``ValueError``."""
    T = constraint.T
    points, lam = chords(T.from_cube, T.dim, AFFINE_CHORDS)
    exprs = constraint.expressions(points)
    leaves = list({v.id: v for e in exprs for v in e.variables()
                  + [q for q in e.parameters() if q.value is None]}.values())
    saved = [v.value for v in leaves]
    rng, checked = np.random.default_rng(0), False
    try:
        for _ in range(AFFINE_DRAWS):
            for v in leaves:
                v.value = v.project(rng.uniform(0.5, 1.5, v.shape))
            with np.errstate(all="ignore"):
                values = np.concatenate([np.ravel(np.asarray(e.value, dtype=float))
                                         for e in exprs])
                gap, size = chord_gaps(values, lam, constraint.magnitudes(exprs))
            finite = np.isfinite(gap) & np.isfinite(size)
            checked = checked or finite.any()
            broken = np.flatnonzero(finite & (np.abs(gap) > AFFINE_RTOL * size))
            if broken.size:
                i, (a, b, _) = broken[0], np.split(points, 3)
                raise ValueError(
                    f"robust_counterpart: g of constraint {constraint.name!r} is not affine in "
                    f"t, which its exact robust counterpart needs: g(x, λa + (1 − λ)b) − "
                    f"λg(x, a) − (1 − λ)g(x, b) = {gap[i]:.6g} at a = {a[i].tolist()}, "
                    f"b = {b[i].tolist()}, λ = {lam[i]:.6g} (x sampled); solve it by the "
                    "exchange method, SemiInfiniteProgram")
    finally:
        for v, value in zip(leaves, saved):
            v.value = value
    if not checked:
        raise ValueError(f"robust_counterpart: g of constraint {constraint.name!r} is not "
                         "finite at any sampled value of its variables (uniform in [0.5, 1.5]) "
                         "and its parameters, so its affinity in t, which the robust "
                         "counterpart needs, is unchecked: solve it by the exchange method, "
                         "SemiInfiniteProgram")


def _values(constraint, points, weight=1.0) -> list:
    """w·g(x, t) at the rows of ``points`` as a list of scalar cvxpy expressions (w the
    ``weight``)."""
    exprs = constraint.expressions(points)
    if len(exprs) == 1 and exprs[0].size == len(points) and len(points) > 1:
        return [weight * exprs[0][i] for i in range(len(points))]
    return [weight * (cp.reshape(e, (), order="F") if e.size == 1 else e) for e in exprs]
