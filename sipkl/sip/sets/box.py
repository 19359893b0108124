"""Boxes and finite sets: the index sets that are not :class:`~sipkl.sip.sets.base.ConvexSet` objects."""
from __future__ import annotations

import numpy as np

from ...utils.validation import finite_array
from .base import IndexSet
from .conic import cube
from .geometry import nlp_arrays, rounded_up, spread_points
from .quadrature import QuadratureRule, box_rule, checked_degree


class Box(IndexSet):
    """The box ``T = [lower, upper] ⊂ R^p`` (``lower < upper`` coordinatewise, finite).

    ``grid(X, size)`` is the tensor grid with ``max(2, round(size^(1/p)))`` points per
    coordinate (endpoints included); ``starting_points(X, n, rng)`` is the box's centre and a
    Halton sequence (a deterministic spread), then uniform random points, for half the ``n``
    each. Both are affine in the box, so a rescaled box ``1000·T`` gives the rescaled points.
    ``X`` is unused (it is the training data of a kernel family).

    Examples
    --------
    >>> from sipkl.sip import Box
    >>> T = Box([0.0], [1.0])
    >>> T.tensor_grid(3).ravel().tolist(), T.same_columns(T.tensor_grid(3), [0.5], 1e-6).tolist()
    ([0.0, 0.5, 1.0], [False, True, False])
    """

    def __init__(self, lower, upper, name: str = None):
        self.lower, self.upper = finite_array(lower, "lower"), finite_array(upper, "upper")
        if self.lower.shape != self.upper.shape:
            raise ValueError(f"Box: lower and upper must have the same length, got "
                             f"{len(self.lower)} and {len(self.upper)}")
        if np.any(self.lower >= self.upper):
            raise ValueError(f"Box: lower {self.lower.tolist()} must be smaller than upper "
                             f"{self.upper.tolist()} in every coordinate")
        self.name = name

    def _from_unit(self, u: np.ndarray) -> np.ndarray:
        return self.lower + u * (self.upper - self.lower)

    def grid(self, X=None, size: int = 50, random_state=None) -> np.ndarray:
        per_axis = max(2, int(round(size ** (1.0 / self.dim))))
        return self.tensor_grid(per_axis)

    def tensor_grid(self, per_axis: int) -> np.ndarray:
        """The ``per_axis^p`` points of the tensor grid, endpoints included (rows)."""
        axes = np.linspace(0.0, 1.0, per_axis)
        unit = np.stack(np.meshgrid(*[axes] * self.dim, indexing="ij"), -1).reshape(-1, self.dim)
        return self._from_unit(unit)

    def initial_points(self, n: int) -> np.ndarray:
        """The centre, then the Halton sequence without its first point (a corner) and the
        centre (its second point in one dimension): ``n`` deterministic points."""
        return self._from_unit(spread_points(self.dim, max(n, 1)))

    def starting_points(self, X, n: int, random_state=None) -> np.ndarray:
        spread = self.initial_points((n + 1) // 2)
        rng = np.random.default_rng(random_state)
        return np.vstack([spread, self._from_unit(rng.random((n - len(spread), self.dim)))])

    # -- what a Product of sets and the exact pricing read (see ConvexSet) -------------
    def frame(self) -> np.ndarray:
        """The half-widths on the diagonal (see :class:`ConvexSet`)."""
        return np.diag(0.5 * self.width)

    def from_cube(self, u) -> np.ndarray:
        """The affine map of the cube ``[−1, 1]^p`` onto the box (rows)."""
        return self.centre() + np.atleast_2d(np.asarray(u, dtype=float)) * (0.5 * self.width)

    def exit(self, directions) -> np.ndarray:
        """``max{s ≥ 0 : centre + s·d ∈ T}`` per row d."""
        d = np.atleast_2d(np.asarray(directions, dtype=float))
        with np.errstate(divide="ignore"):
            steps = np.where(d != 0, 0.5 * self.width / np.abs(d), np.inf)
        return steps.min(axis=1)

    def support(self, v) -> tuple[np.ndarray, float]:
        """The corner where ``vᵀt`` is largest (the centre's coordinate where v_i = 0) and
        ``Σ max(v_i·lower_i, v_i·upper_i)`` (exact)."""
        v = self._direction(v)
        t = np.where(v > 0, self.upper, np.where(v < 0, self.lower, self.centre()))
        return t, rounded_up(float(v @ t), np.abs(v) @ np.maximum(np.abs(self.lower),
                                                                   np.abs(self.upper)))

    def extremes(self) -> np.ndarray:
        """The centres of the faces: t_i at its upper, then lower bound, for i = 1 … p."""
        p, centre = self.dim, self.centre()
        points = np.repeat(centre[None], 2 * p, axis=0)
        points[2 * np.arange(p), np.arange(p)] = self.upper
        points[2 * np.arange(p) + 1, np.arange(p)] = self.lower
        return points

    def nlp(self) -> dict:
        """No inequality beyond the bounds (see :meth:`ConvexSet.nlp`)."""
        return nlp_arrays(self.dim)

    def quadrature(self, degree: int) -> QuadratureRule:
        """Tensor Gauss–Legendre, exact for total degree ``degree``, with its remainder
        bound (:mod:`~sipkl.sip.sets.quadrature`)."""
        degree = checked_degree(degree)
        return QuadratureRule(*box_rule(self.lower, self.upper, degree), degree, self,
                              widths=self.upper - self.lower)

    def projector(self):
        """The cube ``[−1, 1]^p`` in the frame of the half-widths (see
        :meth:`IndexSet.projector`)."""
        return self.centre(), self.frame(), lambda z: np.clip(z, -1.0, 1.0)

    def conic_form(self):
        """The cube ``[−1, 1]^p`` in the frame of the half-widths (see
        :meth:`IndexSet.conic_form`)."""
        return cube(self.dim)

    def inequalities(self):
        """The bounds alone (see :meth:`IndexSet.inequalities`)."""
        return self.lower, self.upper, []


    def __repr__(self):
        name = "" if self.name is None else f", name={self.name!r}"
        return f"Box({self.lower.tolist()}, {self.upper.tolist()}{name})"


class FiniteSet(IndexSet):
    """A finite index set: the rows of ``points`` (m × p). Priced exactly by enumeration
    (``oracle="grid"``), which proves the maximum violation.

    Examples
    --------
    >>> from sipkl.sip import FiniteSet
    >>> FiniteSet([[0.0], [0.5], [1.0]]).tensor_grid(5).ravel().tolist()   # every point
    [0.0, 0.5, 1.0]
    """

    finite = True

    def __init__(self, points, name: str = None):
        try:
            points = np.asarray(points, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"points must be an array of numbers, got {points!r}") from None
        points = points.reshape(-1, 1) if points.ndim == 1 else points
        if points.ndim != 2 or len(points) == 0 or not np.all(np.isfinite(points)):
            raise ValueError(f"points must be a non-empty finite (m, p) array, got shape "
                             f"{points.shape}")
        self.points = np.unique(points, axis=0)
        self.lower, self.upper = self.points.min(axis=0), self.points.max(axis=0)
        self.name = name

    def grid(self, X=None, size: int = 50, random_state=None) -> np.ndarray:
        """Every point (the whole set, whatever ``size``)."""
        return self.points

    def starting_points(self, X, n: int, random_state=None) -> np.ndarray:
        return self.points

    def tensor_grid(self, per_axis: int) -> np.ndarray:
        """Every point (a finite set is its own grid, whatever ``per_axis``)."""
        return self.points

    def initial_points(self, n: int) -> np.ndarray:
        """``n`` points spread along the (sorted) list."""
        index = np.unique(np.linspace(0, len(self.points) - 1, max(n, 1)).round().astype(int))
        return self.points[index]

    def contains(self, points, rtol: float = 0.0) -> np.ndarray:
        """Whether each row is one of the points (within ``rtol`` of the width)."""
        points = self.as_points(points)
        close = np.abs(points[:, None] - self.points[None]) <= rtol * self.width
        return np.all(close, axis=-1).any(axis=1)

    def support(self, v) -> tuple[np.ndarray, float]:
        """The point where ``vᵀt`` is largest, by enumeration (exact)."""
        v = self._direction(v)
        values = self.points @ v
        best = int(np.argmax(values))
        return self.points[best].copy(), float(values[best])

    def __repr__(self):
        name = "" if self.name is None else f", name={self.name!r}"
        return f"FiniteSet({len(self.points)} points in R^{self.dim}{name})"


# -- sets beyond boxes -------------------------------------------------------------------
