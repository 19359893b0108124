"""The two contracts of an index set T: :class:`IndexSet` (what the pricing oracles search)
and :class:`ConvexSet` (a convex body that samples itself through a radial map of the cube).

An index set has ``param_bounds``, ``grid``, ``starting_points``, ``finite`` and
``param_name = "t"``, so :class:`~sipkl.pricing.GridOracle`,
:class:`~sipkl.pricing.MultiStartOracle` and :func:`~sipkl.core.selection.best_distinct` work
on it unchanged. Two index sets are the same family only when they are the same object: each
semi-infinite constraint owns its copy.

A convex set states membership (``contains``), the exact maximum of a linear function
(``support``, with a proven bound: the exact pricing of a g affine in t,
:class:`~sipkl.sip.pricing.sets.AffineOracle`) and its description as smooth inequalities
(``nlp``, for the local searches of :mod:`sipkl.sip.pricing.search`). Every set checks its
input on construction: an empty set, one without interior, an unbounded polytope or arrays
of the wrong shapes are a ``ValueError``.
"""
from __future__ import annotations

import numpy as np

from ...utils.validation import finite_array
from .geometry import spread_points


class IndexSet:
    """What the oracles read of an index set (the family interface of :mod:`sipkl.kernel_learning.families`).

    Subclasses set ``lower`` and ``upper`` (the enclosing box, length p) and implement
    :meth:`grid` and :meth:`starting_points`; ``name`` is the constraint's, for printing.
    """

    finite = False
    param_name = "t"
    #: the points t have signs and an origin of no meaning (see
    #: :class:`~sipkl.core.contracts.ColumnFamily`)
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

    def as_points(self, points) -> np.ndarray:
        """``points`` as an (m, p) array of this set's dimension (a ``ValueError`` else)."""
        array = np.asarray(points, dtype=float)
        array = array.reshape(-1, 1) if array.ndim == 1 and self.dim == 1 else np.atleast_2d(array)
        if array.ndim != 2 or array.shape[1] != self.dim:
            raise ValueError(f"points of {self!r} must be an (m, {self.dim}) array, got shape "
                             f"{np.shape(points)}")
        return array

    def contains(self, points, rtol: float = 1e-9) -> np.ndarray:
        """Whether each row of ``points`` lies in the set, to ``rtol`` of its extent (the
        box ``[lower, upper]`` here)."""
        points = self.as_points(points)
        slack = rtol * self.width
        return np.all((points >= self.lower - slack) & (points <= self.upper + slack), axis=1)

    def support(self, v) -> tuple[np.ndarray, float]:
        """``(t*, bound)``: a maximizer t* of ``vᵀt`` over the set and a proven upper bound
        on that maximum (its value up to round-off): the exact pricing of a g affine in t."""
        raise NotImplementedError(f"{type(self).__name__} states no support function")

    def _direction(self, v) -> np.ndarray:
        v = finite_array(v, "v")
        if len(v) != self.dim:
            raise ValueError(f"v must have {self.dim} entries (the dimension of {self!r}), "
                             f"got {len(v)}")
        return v

    # -- what pricing and robust counterparts ask of a set (each set answers for itself) --
    def projector(self):
        """``(c, M, project)`` where the set is ``{c + M z : z ∈ Z}`` and ``project`` is the
        Euclidean projection onto Z of the rows of an array, where that projection is cheap
        (then the local searches of :mod:`sipkl.sip.pricing.search` are projected gradient
        ascents); ``None`` otherwise (the default: IPOPT on :meth:`ConvexSet.nlp`)."""
        return None

    def lift(self, t: np.ndarray) -> np.ndarray:
        """The auxiliary variables w of the set's smooth description (:meth:`ConvexSet.nlp`)
        at its point ``t``: feasible ones where the set knows them (none here)."""
        return np.zeros(0)

    def conic_form(self):
        """Z, where the set is ``{c + F z : z ∈ Z}`` (c = ``centre()``, F = ``frame()``), as
        a :class:`~sipkl.sip.sets.conic.ConicForm`: ``{z : ∃u, h − G z − H u ∈ K}``, K a
        product of an orthant and second-order cones. From it, conic duality gives the
        support function of the set as a conic program — the exact robust counterpart of the
        constraints affine in t over it (:mod:`sipkl.sip.sets.conic`,
        :func:`sipkl.sip.robust.robust_counterpart`). A ``ValueError`` for a set with no
        conic form (the default)."""
        raise ValueError(f"robust_counterpart: no conic form of {self!r}")

    def quadrature(self, degree: int):
        """A :class:`~sipkl.sip.sets.quadrature.QuadratureRule` that integrates the
        polynomials of total degree ≤ ``degree`` over the set exactly; a ``TypeError`` for a
        set without one (the default: boxes, simplices and polytopes have one)."""
        raise TypeError(f"T: {self!r} has no quadrature rule (Box, Polytope and "
                        "Polytope.simplex have one)")

    def inequalities(self):
        """``(lower, upper, rows)``: the set as its bounding box and smooth inequalities
        ``fun(t) ≤ 0``, ``rows`` a list of pairs ``(fun, jac)`` on rows of points (``jac``
        ``None`` where not stated) — what an intersection with other sets is made of
        (:func:`~sipkl.sip.sets.smooth.smooth_intersection`). A ``ValueError`` saying why
        for a set without such a description (the default)."""
        raise ValueError("states no inequalities (IndexSet.inequalities)")


    def named(self, name: str) -> "IndexSet":
        """A copy of this set owned by the constraint ``name`` (a family of its own), whose
        :attr:`origin` is this set's."""
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__, name=name, _origin=self.origin)
        return copy

    @property
    def origin(self) -> "IndexSet":
        """The set this one is a named copy of (:meth:`named`; itself where it is none):
        constraints over copies of one origin range over the same points."""
        return self.__dict__.get("_origin", self)


class ConvexSet(IndexSet):
    """What the convex index sets beyond boxes share.

    A set states a point deep inside (``centre()``), a frame F (an invertible p × p matrix,
    its extent per direction: the half-widths of the bounding box, or an ellipsoid's P), the
    step to its boundary along a ray from the centre (``exit``), membership (``contains``),
    the exact maximum of a linear function (``support``), its extreme points in ±t_i
    (``extremes``) and its description as smooth inequalities (``nlp``). The rest follows,
    through the radial map of the cube ``[−1, 1]^p`` onto the set,

        u ↦ c + ‖u‖_∞ · s(F u) · F u,        s(d) = max{s : c + s d ∈ T},

    a homeomorphism (T convex, c inside) that sends the faces of the cube to the boundary
    of T: ``tensor_grid(k)`` is the image of the cube's tensor grid (k^p points; grid
    neighbours stay neighbours, so the dense oracle finds its local maxima as on a box; the
    outer layer lies on the boundary, where an affine g has its maxima), ``initial_points``
    are c, the 2p extremes, then images of a Halton sequence, and ``starting_points`` add
    images of uniform random points. Two points are the same when ``|F⁻¹(t − t′)| ≤ 2·rtol``
    in every coordinate: ``rtol`` of the set's extent (of the width, for a box). All of it is
    affine in the set: the set in other units (×1000) gives the same points in those units.
    """

    def centre(self) -> np.ndarray:
        """A point deep inside the set, the start of the radial map's rays."""
        return self._centre.copy()

    def frame(self) -> np.ndarray:
        return self._frame.copy()

    def exit(self, directions) -> np.ndarray:
        """``s(d) = max{s ≥ 0 : centre + s·d ∈ T}`` per row d (``inf`` for d = 0)."""
        raise NotImplementedError

    def extremes(self) -> np.ndarray:
        """2p points of the set: maximizers of t_1, −t_1, t_2, … (the bounding box's)."""
        raise NotImplementedError

    def nlp(self) -> dict:
        """The set as smooth inequalities over y = (t, w), with ``k`` auxiliary variables w:
        ``A_t t + A_w w ≤ b``, per ``(index, c, G)`` of ``quadratic``
        ``‖G (t[index] − c)‖² ≤ 1``, and per ``(index, fun, jac)`` of ``smooth``
        ``fun(t[index]) ≤ 0`` (q values, q × len(index) Jacobian ``jac``) (the bounds
        ``lower ≤ t ≤ upper`` hold as well)."""
        raise NotImplementedError

    def from_cube(self, u) -> np.ndarray:
        """The radial map of the class docstring at the rows of ``u`` (in ``[−1, 1]^p``)."""
        u = np.atleast_2d(np.asarray(u, dtype=float))
        d = u @ self._frame.T
        norm = np.max(np.abs(u), axis=1)
        reach = np.zeros(len(u))
        moving = norm > 0
        reach[moving] = norm[moving] * self.exit(d[moving])
        return self._centre + reach[:, None] * d

    def grid(self, X=None, size: int = 50, random_state=None) -> np.ndarray:
        per_axis = max(2, int(round(size ** (1.0 / self.dim))))
        return self.tensor_grid(per_axis)

    def tensor_grid(self, per_axis: int) -> np.ndarray:
        """The radial image of the cube's tensor grid, ``per_axis`` points per coordinate
        (rows in the grid's C order: ``reshape((per_axis,) * p)`` keeps the neighbours)."""
        axes = np.linspace(-1.0, 1.0, per_axis)
        unit = np.stack(np.meshgrid(*[axes] * self.dim, indexing="ij"), -1).reshape(-1, self.dim)
        return self.from_cube(unit)

    def initial_points(self, n: int) -> np.ndarray:
        """``n`` deterministic distinct points of the set: the centre, the extremes
        (maximizers of t_1, −t_1, t_2, …), then radial images of a Halton sequence."""
        if n <= 1:
            return self._centre[None].copy()
        points = np.vstack([self._centre[None], self.extremes()])
        kept = [0]  # the extremes of a polytope may coincide (a vertex extreme in two ways)
        for k in range(1, len(points)):
            if not self.same_columns(points[kept], points[k], 1e-9).any():
                kept.append(k)
        points = points[kept[:n]]
        if len(points) == n:
            return points
        halton = 2.0 * spread_points(self.dim, n - len(points) + 1)[1:] - 1.0
        return np.vstack([points, self.from_cube(halton)])

    def starting_points(self, X, n: int, random_state=None) -> np.ndarray:
        """Half ``initial_points``, half radial images of uniform random points."""
        spread = self.initial_points((n + 1) // 2)
        rng = np.random.default_rng(random_state)
        random = self.from_cube(rng.uniform(-1.0, 1.0, (max(n - len(spread), 0), self.dim)))
        return np.vstack([spread, random])

    def same_columns(self, thetas, theta, rtol: float) -> np.ndarray:
        """Within ``2·rtol`` in every coordinate of the frame (``rtol`` of the extent)."""
        diff = np.asarray(thetas, dtype=float) - np.asarray(theta, dtype=float)
        return np.all(np.abs(diff @ self._inverse_frame.T) <= 2.0 * rtol, axis=-1)

    def lift(self, t: np.ndarray) -> np.ndarray:
        """Zeros for the auxiliary variables of :meth:`nlp` (a set that knows feasible ones
        states them)."""
        return np.zeros(self.nlp()["k"])


    def _set_frame(self, centre, frame) -> None:
        self._centre = np.asarray(centre, dtype=float)
        self._frame = np.asarray(frame, dtype=float)
        self._inverse_frame = np.linalg.inv(self._frame)

    def _name(self) -> str:
        return "" if self.name is None else f", name={self.name!r}"
