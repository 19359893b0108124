"""Index sets T of semi-infinite constraints: a box in R^p, or a finite set of points.

An index set plays, for a semi-infinite program, the part a kernel family plays for kernel
learning: it is the "family" of the columns (index points t) that the pricing oracles search,
with ``param_bounds``, ``grid``, ``starting_points``, ``finite`` and ``param_name = "t"``, so
:class:`~sipkl.oracles.GridOracle`, :class:`~sipkl.oracles.MultiStartOracle` and
:func:`~sipkl.oracles.best_distinct` work on it unchanged. Two index sets are the same family
only when they are the same object: each semi-infinite constraint owns its copy.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.stats import qmc


def _vector(values, name: str) -> np.ndarray:
    try:
        array = np.atleast_1d(np.asarray(values, dtype=float))
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a sequence of numbers, got {values!r}") from None
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite, got {array.tolist()}")
    return array


class IndexSet:
    """What the oracles read of an index set (the family interface of :mod:`sipkl.kernels`).

    Subclasses set ``lower`` and ``upper`` (the enclosing box, length p) and implement
    :meth:`grid` and :meth:`starting_points`; ``name`` is the constraint's, for printing.
    """

    finite = False
    param_name = "t"
    #: the points t have signs and an origin of no meaning (see
    #: :class:`~sipkl.contracts.ColumnFamily`)
    index_points = True

    @property
    def dim(self) -> int:
        """p, the dimension of the index points."""
        return len(self.lower)

    def members(self, n_features=None) -> list["IndexSet"]:
        return [self]

    def n_params(self, n_features=None) -> int:
        return self.dim

    def param_bounds(self, n_features=None) -> tuple[np.ndarray, np.ndarray]:
        return self.lower.copy(), self.upper.copy()

    @property
    def width(self) -> np.ndarray:
        """``upper − lower``: the scale to which two index points are the same."""
        return self.upper - self.lower

    def same_columns(self, thetas, theta, rtol: float) -> np.ndarray:
        """Whether the rows of ``thetas`` and ``theta`` (broadcast) are the same index point:
        equal in a finite set, else within ``rtol·width`` in every coordinate."""
        if self.finite:
            return np.all(thetas == theta, axis=-1)
        return np.all(np.abs(thetas - theta) <= rtol * self.width, axis=-1)

    def centre(self) -> np.ndarray:
        return 0.5 * (self.lower + self.upper)

    def initial_points(self, n: int) -> np.ndarray:
        """``n`` deterministic points spread over the set (the first index points)."""
        raise NotImplementedError

    def named(self, name: str) -> "IndexSet":
        """A copy of this set owned by the constraint ``name`` (a family of its own)."""
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__, name=name)
        return copy


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
        self.lower, self.upper = _vector(lower, "lower"), _vector(upper, "upper")
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
        return self._from_unit(_spread(self.dim, max(n, 1)))

    def starting_points(self, X, n: int, random_state=None) -> np.ndarray:
        spread = self.initial_points((n + 1) // 2)
        rng = np.random.default_rng(random_state)
        return np.vstack([spread, self._from_unit(rng.random((n - len(spread), self.dim)))])

    def __repr__(self):
        name = "" if self.name is None else f", name={self.name!r}"
        return f"Box({self.lower.tolist()}, {self.upper.tolist()}{name})"


@lru_cache(maxsize=64)
def _spread(dim: int, n: int) -> np.ndarray:
    """The ``n`` points of :meth:`Box.initial_points` in the unit cube (computed once per
    ``(dim, n)``: the pricing rounds ask for the same ones; read-only)."""
    centre = np.full(dim, 0.5)
    halton = qmc.Halton(dim, scramble=False).random(n + 1)[1:]
    halton = halton[np.any(halton != centre, axis=1)][:n - 1]
    points = np.vstack([centre, halton])
    points.flags.writeable = False
    return points


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

    def __repr__(self):
        name = "" if self.name is None else f", name={self.name!r}"
        return f"FiniteSet({len(self.points)} points in R^{self.dim}{name})"
