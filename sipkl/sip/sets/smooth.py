"""Index sets given by smooth convex inequalities: ``{t ∈ [lower, upper] : h(t) ≤ 0}``, and
the intersections of ellipsoids, polytopes, boxes and such sets.

A :class:`SmoothSet` is a :class:`~sipkl.sip.sets.base.ConvexSet`: it samples itself through
the radial map of the cube, so the dense grids, starting designs and "same point" rule of the
convex sets hold, and its local searches (:mod:`sipkl.sip.pricing.search`) run IPOPT on h. What a
polytope or an ellipsoid knows in closed form is computed here by small NLPs (SciPy's SLSQP,
in the frame t = m + d∘z of the user's box, |z| ≤ 1, and with each h_k divided by its
magnitude σ_k on the box: the same problems in any units), once on construction:

* the statements checked on samples (no proof: a check at finitely many points says nothing
  of h elsewhere), each a ``ValueError`` naming h or jac and where it fails — h convex on
  the box, the inequality h̃_k(λa + (1 − λ)b) ≤ λh̃_k(a) + (1 − λ)h̃_k(b) (h̃ = h/σ) to
  ``CONVEXITY_RTOL``·max(1, |h̃_k|) along 96 chords of the box
  (:func:`~sipkl.sip.sets.geometry.chords`: between uniform points, and a tenth and a
  hundredth of those, where a local concavity shows), and a stated ``jac`` within
  ``JAC_RTOL`` of central differences at 32 points; in the box's frame, the same decision
  in any units of t or h;
* the centre, the deepest point: max s s.t. h_k(t)/σ_k + s ≤ 0 — no positive s means the
  set is empty or has no interior, an error;
* the extremes min/max t_i (the bounding box ``lower``, ``upper``; the frame its half-widths);

and the ray's exit from the centre by bisection (h is convex: one crossing), all rays at once.
The support function max vᵀt is an SLSQP solve with a bound from Lagrangian duality: at the
solver's point z* with multipliers λ ≥ 0 (NNLS on the stationarity of the active rows),
φ(z) = wᵀz − λᵀh̃(z) is concave and at least wᵀz on the set (h̃ ≤ 0 there), so

    max over the set of wᵀz  ≤  φ(z*) + Σ_i max(r_i (1 − z*_i), r_i (−1 − z*_i)),
    r = ∇φ(z*) = w − J̃(z*)ᵀλ,

a proof where h is convex and its Jacobian exact (stated ``jac``; central differences are
accurate to about 10⁻¹⁰ of h's magnitude).
"""
from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from scipy.optimize import minimize, nnls

from .base import ConvexSet, IndexSet
from .box import Box
from .conic import ConicForm, intersected, moved
from .geometry import (INTERIOR_RTOL, check_interior, chord_gaps, chords, half_spaces,
                       linear_rows, nlp_arrays, rounded_up)

#: the ray's exit is bisected to this fraction of its length
EXIT_RTOL = 1e-12

#: a row with h_k/σ_k above −this at the support's point is active there
ACTIVE_RTOL = 1e-7

#: central differences of h when no ``jac`` is stated: ε^(1/3) of the box's half-width
FD_STEP = np.finfo(float).eps ** (1.0 / 3.0)

#: chords of the box (per length, as fractions of u′ − u in :func:`chords`) along which h's
#: convexity is checked
CONVEXITY_CHORDS, CHORD_LENGTHS = 32, (1.0, 1e-1, 1e-2)

#: a gap of the convexity inequality above this, relative to max(1, |h_k/σ_k|) at the
#: chord's points, refuses h
CONVEXITY_RTOL = 1e-9

#: a stated Jacobian (in the box's frame, of h/σ) further than this from central
#: differences, relative to max(1, |difference|), refuses jac
JAC_RTOL = 1e-6


class SmoothSet(ConvexSet):
    """The set ``{t ∈ [lower, upper] : h_k(t) ≤ 0, k = 1, …, q}`` for h convex and smooth on
    the box (see the module docstring). Construction checks on samples that h is convex on
    the box and ``jac`` its Jacobian, and that the set has an interior point (a Slater
    point): a ``ValueError`` naming h or jac and the points where a check fails. A check at
    finitely many points is no proof: convexity stays the user's statement.

    Parameters
    ----------
    h : callable
        ``h(points) -> (m, q)`` (or ``(m,)`` for one inequality) for an (m, p) array of points,
        finite on the box.
    lower, upper : array (p,)
        A box that holds the set (its bounding box is computed: ``lower``, ``upper``).
    jac : callable, optional
        ``jac(points) -> (m, q, p)``, the Jacobians of h; default: central differences.
    name : str, optional

    Examples
    --------
    The unit disk cut by t₁ ≤ ½, as one set:

    >>> import numpy as np
    >>> from sipkl.sip import SmoothSet
    >>> T = SmoothSet(lambda t: np.c_[np.sum(t**2, axis=1) - 1.0, t[:, 0] - 0.5],
    ...               [-2.0, -2.0], [2.0, 2.0])
    >>> np.round(T.upper, 6).tolist(), np.round(T.lower, 6).tolist()
    ([0.5, 1.0], [-1.0, -1.0])
    >>> t, bound = T.support([1.0, 1.0])              # the cut binds: t = (½, √¾)
    >>> np.round(t, 6).tolist(), bool(abs(bound - (0.5 + 0.75 ** 0.5)) < 1e-8)
    ([0.5, 0.866025], True)
    """

    def __init__(self, h: Callable, lower, upper, jac: Callable = None, name: str = None):
        if not callable(h):
            raise TypeError(f"h must be a callable h(points) -> (m, q), got {h!r}")
        if jac is not None and not callable(jac):
            raise TypeError(f"jac must be a callable jac(points) -> (m, q, p) or None, got "
                            f"{jac!r}")
        box = Box(lower, upper)
        self.h, self.jac, self.name = h, jac, name
        self.box, self.lower, self.upper = box, box.lower, box.upper  # until the extremes
        self._mid, self._half = 0.5 * (box.lower + box.upper), 0.5 * box.width
        p = box.dim
        probe = self._mid + self._half * np.vstack([np.zeros(p), np.eye(p), -np.eye(p)])
        values = self._raw(probe)
        magnitude = np.abs(values).max(axis=0)
        self._scales = np.where(magnitude > 0, magnitude, 1.0)
        self._check_statements()
        z, slack = self._deepest()
        if not slack > INTERIOR_RTOL:
            raise ValueError(f"SmoothSet: {{t in the box : h(t) ≤ 0}} is empty or has no "
                             f"interior (the largest slack min_k −h_k(t)/σ_k is {slack:.3g})")
        self._extremes = np.vstack([self._extreme(sign * np.eye(p)[i], z)
                                    for i in range(p) for sign in (1.0, -1.0)])
        self.upper = self._extremes[0::2].diagonal().copy()
        self.lower = self._extremes[1::2].diagonal().copy()
        half = 0.5 * (self.upper - self.lower)
        check_interior("SmoothSet", float(half.min() / self._half.max()))
        self._set_frame(self._mid + self._half * z, np.diag(half))

    # -- h, its Jacobian, in the box's frame ---------------------------------------------
    def _raw(self, points) -> np.ndarray:
        """h at the rows of ``points`` as an (m, q) array, checked: shape, finite."""
        points = np.atleast_2d(points)
        values = np.asarray(self.h(points), dtype=float)
        values = values.reshape(len(points), -1) if values.ndim <= 1 else values
        if values.ndim != 2 or len(values) != len(points):
            raise ValueError(f"h must return an (m, q) array for m = {len(points)} points, got "
                             f"shape {values.shape}")
        bad = ~np.all(np.isfinite(values), axis=1)
        if bad.any():
            raise ValueError(f"h is not finite at t = {points[bad][0].tolist()} (h must be "
                             "finite on the box)")
        return values

    def values(self, points) -> np.ndarray:
        """h_k(t)/σ_k at the rows of ``points`` (m × q)."""
        return self._raw(points) / self._scales

    def jacobians(self, points) -> np.ndarray:
        """The Jacobians of h_k/σ_k at the rows of ``points`` (m × q × p): ``jac``, else
        central differences with the steps ``FD_STEP`` times the box's half-widths."""
        points = np.atleast_2d(points)
        m, p = points.shape
        if self.jac is not None:
            jac = np.asarray(self.jac(points), dtype=float).reshape(m, len(self._scales), p)
            return jac / self._scales[:, None]
        return self._differences(points)

    def _differences(self, points) -> np.ndarray:
        """The central differences of h_k/σ_k at the rows of ``points`` (m × q × p)."""
        m, p = points.shape
        step = FD_STEP * self._half
        shifts = np.eye(p) * step
        nodes = np.concatenate([points[:, None] + shifts, points[:, None] - shifts])
        values = self.values(nodes.reshape(-1, p)).reshape(2, m, p, -1)
        return np.transpose((values[0] - values[1]) / (2.0 * step[None, :, None]), (0, 2, 1))

    def _check_statements(self) -> None:
        """h convex on the box and ``jac`` its Jacobian, on samples (module docstring)."""
        points, lam = chords(lambda u: self._mid + self._half * u, self.dim,
                             CONVEXITY_CHORDS, CHORD_LENGTHS)
        values = self.values(points)
        gap, size = chord_gaps(values, lam, np.maximum(np.abs(values), 1.0))
        i, k = np.unravel_index(np.argmax(gap / size), gap.shape)
        if gap[i, k] > CONVEXITY_RTOL * size[i, k]:
            a, b, _ = np.split(points, 3)
            raise ValueError(f"h is not convex on the box (a SmoothSet needs every h_k convex "
                             f"there): h_{k + 1}(λa + (1 − λ)b) exceeds λh_{k + 1}(a) + "
                             f"(1 − λ)h_{k + 1}(b) by {gap[i, k] * self._scales[k]:.6g} at "
                             f"a = {a[i].tolist()}, b = {b[i].tolist()}, λ = {lam[i]:.6g}")
        if self.jac is None:
            return
        ends = points[:CONVEXITY_CHORDS]
        stated, differences = self.jacobians(ends), self._differences(ends)
        error = np.abs(stated - differences) / np.maximum(np.abs(differences),
                                                          1.0 / self._half)
        i, k, j = np.unravel_index(np.argmax(error), error.shape)
        if error[i, k, j] > JAC_RTOL:
            raise ValueError(f"jac is not the Jacobian of h: at t = {ends[i].tolist()}, "
                             f"∂h_{k + 1}/∂t_{j + 1} is {stated[i, k, j] * self._scales[k]:.6g} "
                             f"by jac, {differences[i, k, j] * self._scales[k]:.6g} by central "
                             "differences of h")

    def _constraints(self) -> dict:
        """SLSQP's ``−h̃(z) ≥ 0`` over (z, …) with its Jacobian."""
        p = self.dim

        def fun(y):
            return -self.values(self._mid + self._half * y[:p])[0]

        def jac(y):
            rows = -self.jacobians(self._mid + self._half * y[:p])[0] * self._half
            return np.c_[rows, np.zeros((len(rows), len(y) - p))]
        return {"type": "ineq", "fun": fun, "jac": jac}

    def _slsqp(self, objective, y0, bounds, constraints):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return minimize(objective, y0, jac=True, method="SLSQP", bounds=bounds,
                            constraints=constraints, options={"maxiter": 500, "ftol": 1e-15})

    def _deepest(self) -> tuple[np.ndarray, float]:
        """(z, s): the point of the box's frame with the largest min_k −h_k/σ_k, and that."""
        p = self.dim
        base = self._constraints()
        slackened = {"type": "ineq", "fun": lambda y: base["fun"](y) - y[p],
                     "jac": lambda y: base["jac"](y) - np.eye(len(y))[p]}
        y0 = np.r_[np.zeros(p), float(-self.values(self._mid).max())]
        res = self._slsqp(lambda y: (-y[p], -np.eye(p + 1)[p]), y0,
                          [(-1.0, 1.0)] * p + [(None, None)], [slackened])
        z = np.clip(res.x[:p], -1.0, 1.0)
        return z, float(-self.values(self._mid + self._half * z).max())

    def _argmax(self, w, z0) -> np.ndarray:
        """SLSQP's maximizer of wᵀz over the set from z0, in the box's frame (in the box, not
        necessarily in the set)."""
        res = self._slsqp(lambda z: (-float(w @ z), -w), z0, [(-1.0, 1.0)] * self.dim,
                          [self._constraints()])
        return np.clip(res.x, -1.0, 1.0)

    def _extreme(self, w, z0) -> np.ndarray:
        """A maximizer of wᵀz over the set, in t (pulled inside along its ray)."""
        return self._pulled(self._mid + self._half * self._argmax(w, z0), z0)

    def _pulled(self, t, z0) -> np.ndarray:
        """``t`` moved into the set along its ray from the point z0 of the box's frame."""
        start = self._mid + self._half * z0
        d = t - start
        if not np.any(d):
            return t
        return start + min(1.0, float(self._exit_from(start, d[None])[0])) * d

    # -- the ConvexSet interface ---------------------------------------------------------
    def contains(self, points, rtol: float = 1e-9) -> np.ndarray:
        points = self.as_points(points)
        return self.box.contains(points, rtol) & np.all(self.values(points) <= rtol, axis=1)

    def exit(self, directions) -> np.ndarray:
        return self._exit_from(self._centre, np.atleast_2d(np.asarray(directions, dtype=float)))

    def _exit_from(self, start, d) -> np.ndarray:
        """max{s ≥ 0 : start + s·d in the set} per row d (start inside): the box's limit, or
        the crossing of h by bisection to ``EXIT_RTOL`` (the inside end)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            reach = np.where(d > 0, (self.box.upper - start) / d,
                             np.where(d < 0, (self.box.lower - start) / d, np.inf))
        high = reach.min(axis=1)
        moving = np.isfinite(high)
        steps = np.full(len(d), np.inf)
        if not moving.any():
            return steps
        high, d = high[moving], d[moving]
        inside = np.all(self.values(start + high[:, None] * d) <= 0, axis=1)
        low = np.where(inside, high, 0.0)
        while np.any(high - low > EXIT_RTOL * high):
            middle = 0.5 * (low + high)
            ok = np.all(self.values(start + middle[:, None] * d) <= 0, axis=1)
            low, high = np.where(ok, middle, low), np.where(ok, high, middle)
        steps[moving] = low
        return steps

    def extremes(self) -> np.ndarray:
        return self._extremes.copy()

    def support(self, v) -> tuple[np.ndarray, float]:
        """A maximizer of vᵀt over the set (SLSQP, pulled inside) and the bound of the module
        docstring (Lagrangian duality at the solver's point)."""
        v = self._direction(v)
        w = v * self._half
        size = float(np.abs(w).max())
        if size == 0:
            return self.centre(), float(v @ self._mid)
        w = w / size
        z0 = (self._centre - self._mid) / self._half
        z = self._argmax(w, z0)
        point = self._mid + self._half * z
        h = self.values(point)[0]
        active = h >= -ACTIVE_RTOL
        lam = np.zeros(len(h))
        if active.any():
            J = self.jacobians(point)[0][active] * self._half  # in the frame z
            lam[active], _ = nnls(J.T, w)
            r = w - J.T @ lam[active]
        else:
            r = w
        phi = float(w @ z - lam @ h)
        bound = phi + float(np.sum(np.maximum(r * (1.0 - z), r * (-1.0 - z))))
        t = self._pulled(point, z0)
        return t, rounded_up(float(v @ self._mid) + size * bound,
                              float(np.abs(v) @ np.abs(self._mid)) + size * (
                                  1.0 + np.abs(w) @ np.abs(z) + np.abs(lam) @ np.abs(h)))

    def nlp(self) -> dict:
        """h/σ as one smooth block of inequalities (see :func:`~sipkl.sip.sets.geometry.nlp_arrays`)."""
        return nlp_arrays(self.dim, smooth=[(np.arange(self.dim),
                                       lambda t: self.values(t[None])[0],
                                       lambda t: self.jacobians(t[None])[0])])

    def inequalities(self):
        """Its own h ≤ 0 in its box (see :meth:`~sipkl.sip.sets.base.IndexSet.inequalities`)."""
        return self.box.lower, self.box.upper, [(self._raw, self.jac)]

    def conic_form(self):
        """The intersection of its parts' conic forms, each restated in this set's frame
        (:func:`~sipkl.sip.sets.conic.moved`), where :func:`smooth_intersection` made it of
        parts that state one (ellipsoids, boxes, polytopes, half-spaces); a ``ValueError``
        for a set given by its h alone (see :meth:`IndexSet.conic_form`)."""
        parts = self.__dict__.get("_conic_parts")
        if parts is None:
            raise ValueError(f"robust_counterpart: no conic form of {self!r} (a set given by "
                             "its inequalities h alone)")
        return intersected([moved(form, centre, frame, self.centre(), self.frame())
                            for form, centre, frame in parts])

    def __repr__(self):
        return (f"SmoothSet({len(self._scales)} inequalities in R^{self.dim}, box "
                f"{self.box.lower.tolist()} to {self.box.upper.tolist()}{self._name()})")


def smooth_intersection(parts: list, name: str = None) -> SmoothSet:
    """The intersection of index sets (and pairs ``(A, b)``: ``A t ≤ b``) as one
    :class:`SmoothSet`: each set's inequalities
    (:meth:`~sipkl.sip.sets.base.IndexSet.inequalities` — a box its bounds, a polytope
    A t − b, an ellipsoid ‖P⁻¹(t − c)‖² − 1, a smooth set its h), over the intersection of
    the bounding boxes."""
    boxes, blocks, forms = [], [], []
    for k, T in enumerate(parts):
        if isinstance(T, tuple) and len(T) == 2:
            A, b = half_spaces(T, k)
            blocks.append(linear_rows(A, b))
            forms.append((ConicForm(A, b, len(b)), np.zeros(A.shape[1]), np.eye(A.shape[1])))
            continue
        if not isinstance(T, IndexSet):
            raise ValueError(f"Intersection: set {k} ({T!r}) is not a Box, a Polytope, an "
                             "Ellipsoid, a SmoothSet or a pair (A, b)")
        try:
            lower, upper, rows = T.inequalities()
        except ValueError as exc:
            raise ValueError(f"Intersection: set {k} ({T!r}) {exc}") from None
        boxes.append((lower, upper))
        blocks += rows
        forms.append(_conic_part(T))
    if not boxes:
        raise ValueError("Intersection: no set bounds the intersection (pairs (A, b) alone "
                         "may be unbounded: add a box)")
    dims = {len(lo) for lo, _ in boxes}
    if len(dims) > 1:
        raise ValueError(f"Intersection: the sets must have one dimension, got {sorted(dims)}")
    lower = np.max([lo for lo, _ in boxes], axis=0)
    upper = np.min([hi for _, hi in boxes], axis=0)
    if np.any(lower >= upper):
        raise ValueError("Intersection: the sets' bounding boxes do not overlap: the "
                         "intersection is empty")

    def h(t):
        return np.hstack([np.asarray(fun(t), dtype=float).reshape(len(t), -1)
                          for fun, _ in blocks])

    def jac(t):
        return np.concatenate([np.asarray(d(t), dtype=float).reshape(len(t), -1, t.shape[1])
                               for _, d in blocks], axis=1)
    smooth = SmoothSet(h, lower, upper, name=name,
                       jac=None if any(d is None for _, d in blocks) else jac)
    if all(form is not None for form in forms):  # its conic form (SmoothSet.conic_form)
        smooth._conic_parts = forms
    return smooth


def _conic_part(T) -> tuple | None:
    """``(form, centre, frame)`` of a part with a conic form (:meth:`IndexSet.conic_form`),
    else ``None``."""
    try:
        return T.conic_form(), T.centre(), T.frame()
    except ValueError:
        return None


__all__ = ["SmoothSet", "smooth_intersection"]
