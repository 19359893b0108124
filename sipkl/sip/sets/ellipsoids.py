"""Ellipsoids {c + P u : ‖u‖₂ ≤ 1} and balls."""
from __future__ import annotations

import numpy as np

from ...utils.validation import finite_array
from .base import ConvexSet
from .conic import unit_ball
from .geometry import INTERIOR_RTOL, nlp_arrays, onto_ball, rounded_up


class Ellipsoid(ConvexSet):
    """The ellipsoid ``{c + P u : ‖u‖₂ ≤ 1}`` (P an invertible p × p matrix; a vector: the
    diagonal, a number: a ball of that radius).

    Closed forms: membership ‖P⁻¹(t − c)‖ ≤ 1, the ray's exit 1/‖P⁻¹d‖, the support function
    ``max vᵀt = vᵀc + ‖Pᵀv‖`` at ``c + P Pᵀv/‖Pᵀv‖``; the frame is P itself (two points are
    the same when their u's are, to ``2·rtol``). A singular P (a flat ellipsoid, without
    interior) is an error: write such a set as a ball in the coordinates u.

    Examples
    --------
    >>> import numpy as np
    >>> from sipkl.sip.sets import Ellipsoid
    >>> T = Ellipsoid([1.0, 0.0], [[2.0, 0.0], [0.0, 0.5]])
    >>> t, bound = T.support([0.0, 1.0])              # max t_2 = 0.5 at (1, 0.5)
    >>> t.tolist(), round(bound, 12)
    ([1.0, 0.5], 0.5)
    >>> T.contains([[2.9, 0.0], [1.0, 0.6]]).tolist()
    [True, False]
    """

    def __init__(self, center, P, name: str = None):
        self.center = finite_array(center, "center")
        p = len(self.center)
        P = np.asarray(P, dtype=float) if np.ndim(P) else float(P)
        if np.ndim(P) == 0:
            P = P * np.eye(p)
        elif np.ndim(P) == 1:
            P = np.diag(finite_array(P, "P"))
        P = finite_array(P, "P", 2)
        if P.shape != (p, p):
            raise ValueError(f"Ellipsoid: P must be {p} × {p} (the center has {p} entries), "
                             f"got shape {P.shape}")
        singular = np.linalg.svd(P, compute_uv=False)
        if not singular[-1] > INTERIOR_RTOL * singular[0]:
            raise ValueError(f"Ellipsoid: P is singular (singular values "
                             f"{singular.tolist()}): the set has no interior; write a flat "
                             "ellipsoid as a Ball in the coordinates u")
        self.P, self.name = P, name
        reach = np.linalg.norm(P, axis=1)
        self.lower, self.upper = self.center - reach, self.center + reach
        self._set_frame(self.center, P)

    def contains(self, points, rtol: float = 1e-9) -> np.ndarray:
        u = (self.as_points(points) - self.center) @ self._inverse_frame.T
        return np.linalg.norm(u, axis=1) <= 1.0 + rtol

    def exit(self, directions) -> np.ndarray:
        u = np.atleast_2d(np.asarray(directions, dtype=float)) @ self._inverse_frame.T
        norm = np.linalg.norm(u, axis=1)
        with np.errstate(divide="ignore"):
            return np.where(norm > 0, 1.0 / norm, np.inf)

    def extremes(self) -> np.ndarray:
        rows = self.P / np.linalg.norm(self.P, axis=1)[:, None]  # e_iᵀP / ‖e_iᵀP‖
        reach = rows @ self.P.T  # [i] = P Pᵀe_i / ‖Pᵀe_i‖
        return np.stack([self.center + reach, self.center - reach], axis=1).reshape(-1, self.dim)

    def support(self, v) -> tuple[np.ndarray, float]:
        v = self._direction(v)
        w = self.P.T @ v
        norm = float(np.linalg.norm(w))
        if norm == 0:
            return self.centre(), float(v @ self.center)
        return self.center + self.P @ (w / norm), rounded_up(
            float(v @ self.center) + norm, float(np.abs(v) @ np.abs(self.center)) + norm)

    def nlp(self) -> dict:
        return nlp_arrays(self.dim, quadratic=[(np.arange(self.dim), self.center,
                                          self._inverse_frame)])

    def projector(self):
        """The unit ball in the frame P (see :meth:`IndexSet.projector`)."""
        return self.center, self.P, onto_ball

    def conic_form(self):
        """The unit ball in the frame P (see :meth:`IndexSet.conic_form`)."""
        return unit_ball(self.dim)

    def inequalities(self):
        """``‖P⁻¹(t − c)‖² − 1 ≤ 0`` (see :meth:`IndexSet.inequalities`)."""
        inverse = np.linalg.inv(self.P)
        gram = inverse.T @ inverse
        return self.lower, self.upper, [
            (lambda t, c=self.center, M=inverse: np.sum(((t - c) @ M.T) ** 2, axis=1)[:, None]
             - 1.0,
             lambda t, c=self.center, G=gram: 2.0 * ((t - c) @ G.T)[:, None, :])]


    def __repr__(self):
        return f"Ellipsoid(center={self.center.tolist()}, P={self.P.tolist()}{self._name()})"


class Ball(Ellipsoid):
    """The Euclidean ball ``{t : ‖t − c‖₂ ≤ r}`` (r > 0): an :class:`Ellipsoid` with P = r·I.

    Examples
    --------
    >>> from sipkl.sip.sets import Ball
    >>> T = Ball([0.0, 0.0], 2.0)
    >>> t, bound = T.support([3.0, 4.0])              # 2·‖(3, 4)‖ at 2·(3, 4)/5
    >>> t.tolist(), round(bound, 12)
    ([1.2, 1.6], 10.0)
    """

    def __init__(self, center, radius: float, name: str = None):
        if not (isinstance(radius, (int, float, np.number)) and np.isfinite(radius)
                and radius > 0):
            raise ValueError(f"Ball: radius must be a finite number > 0, got {radius!r}")
        super().__init__(center, float(radius), name)
        self.radius = float(radius)

    def __repr__(self):
        return f"Ball(center={self.center.tolist()}, radius={self.radius:g}{self._name()})"
