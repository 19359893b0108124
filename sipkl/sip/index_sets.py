"""Index sets T of semi-infinite constraints: boxes, finite sets, polytopes, balls and
ellipsoids, products of them, and intersections of boxes and polytopes (sets given by smooth
convex inequalities, and intersections with ellipsoids: :mod:`sipkl.sip.smooth_sets`).

An index set plays, for a semi-infinite program, the part a kernel family plays for kernel
learning: it is the "family" of the columns (index points t) that the pricing oracles search,
with ``param_bounds``, ``grid``, ``starting_points``, ``finite`` and ``param_name = "t"``, so
:class:`~sipkl.oracles.GridOracle`, :class:`~sipkl.oracles.MultiStartOracle` and
:func:`~sipkl.oracles.best_distinct` work on it unchanged. Two index sets are the same family
only when they are the same object: each semi-infinite constraint owns its copy.

Beyond the box and the finite set, the convex sets (:class:`ConvexSet`: :class:`Polytope`
with its constructors :meth:`Polytope.simplex` and :meth:`Polytope.budget` — a
:class:`Simplex`, a :class:`Budget` —, :class:`Ellipsoid`, :class:`Ball`, :class:`Product`,
and :func:`Intersection`) sample themselves through a radial map of the cube (dense grids,
starting designs, random points: all inside), state membership (``contains``), the exact
maximum of a linear function (``support``, with a proven bound: the exact pricing of a g
affine in t, :class:`~sipkl.sip.sets_pricing.AffineOracle`) and their description as smooth
inequalities (``nlp``, for the local searches of :mod:`sipkl.sip.set_search`). Every set
checks its input on construction: an empty set, one without interior, an unbounded polytope
or arrays of the wrong shapes are a ``ValueError``. Their oracles are those of
:mod:`sipkl.sip.sets_pricing` (the default, :class:`~sipkl.sip.sets_pricing.SetSearchOracle`,
and :class:`~sipkl.sip.sets_pricing.AffineOracle`) and the grid oracle (its grid lies in the
set); the box oracles — ``"dense"``, ``"ipopt"``, ``"lipschitz"`` — search boxes.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.optimize import linprog, nnls
from scipy.stats import qmc


def finite_array(values, name: str, ndim: int = 1) -> np.ndarray:
    """``values`` as a non-empty finite float array of ``ndim`` dimensions (a scalar is a 1-D
    array of one), or a TypeError/ValueError naming ``name``."""
    kind = "sequence" if ndim == 1 else "array"
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a{'n' if ndim > 1 else ''} {kind} of numbers, got "
                        f"{values!r}") from None
    array = np.atleast_1d(array) if ndim == 1 else array
    if array.ndim != ndim or array.size == 0:
        raise ValueError(f"{name} must be a non-empty {ndim}-D {kind}, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite" + (f", got {array.tolist()}" if ndim == 1
                                                       else ""))
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
        return t, _rounded_up(float(v @ t), np.abs(v) @ np.maximum(np.abs(self.lower),
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
        return _nlp(self.dim)

    def __repr__(self):
        name = "" if self.name is None else f", name={self.name!r}"
        return f"Box({self.lower.tolist()}, {self.upper.tolist()}{name})"


@lru_cache(maxsize=64)
def spread_points(dim: int, n: int) -> np.ndarray:
    """The ``n`` points of :meth:`Box.initial_points` in the unit cube (computed once per
    ``(dim, n)``: the pricing rounds ask for the same ones; read-only)."""
    centre = np.full(dim, 0.5)
    halton = qmc.Halton(dim, scramble=False).random(n + 1)[1:]
    halton = halton[np.any(halton != centre, axis=1)][:n - 1]
    points = np.vstack([centre, halton])
    points.flags.writeable = False
    return points


def chords(to_set, dim: int, n: int, lengths=(1.0,)) -> tuple[np.ndarray, np.ndarray]:
    """Chords along which a function is checked convex or affine on samples: n pairs u, u′
    of uniform points of the cube ``[−1, 1]^p`` and weights λ ∈ [0.1, 0.9] (fixed seed:
    the same chords in every run), and for each s in ``lengths`` the chord from
    a = to_set(u) to b = to_set(u + s(u′ − u)) (short chords see a curvature that long
    ones average out). Returns the rows [a; b; λa + (1 − λ)b] of its m = n·len(lengths)
    chords, (3m, p), and their λ (m,): f is convex along them where
    f(λa + (1 − λ)b) ≤ λf(a) + (1 − λ)f(b), affine where equal (:func:`chord_gaps`)."""
    rng = np.random.default_rng(0)
    u, far = rng.uniform(-1.0, 1.0, (2, n, dim))
    lam = np.tile(rng.uniform(0.1, 0.9, n), len(lengths))
    a = to_set(np.tile(u, (len(lengths), 1)))
    b = to_set(np.vstack([u + s * (far - u) for s in lengths]))
    return np.vstack([a, b, lam[:, None] * a + (1.0 - lam[:, None]) * b]), lam


def chord_gaps(values, lam, sizes) -> tuple[np.ndarray, np.ndarray]:
    """f(λa + (1 − λ)b) − λf(a) − (1 − λ)f(b) per chord of :func:`chords`, from f's
    ``values`` at its points (rows; a column per function), and the largest of ``sizes``
    at the chord's three points (the scale of the gap's round-off)."""
    fa, fb, fm = np.split(np.asarray(values, dtype=float), 3)
    w = lam.reshape((-1,) + (1,) * (fa.ndim - 1))
    return fm - w * fa - (1.0 - w) * fb, np.max(np.split(np.asarray(sizes), 3), axis=0)


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
#: HiGHS's tolerances in the polytopes' LPs (dual simplex: vertex solutions), which are
#: posed in the set's own frame (rows of unit norm, the bounding box [−1, 1]^p)
_LP_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}

#: a polytope whose largest inscribed ball has a radius below this fraction of its
#: bounding box has no interior (an ellipsoid: a condition number of P above its inverse)
INTERIOR_RTOL = 1e-9


def _rounded_up(value: float, magnitude: float) -> float:
    """``value`` raised by the round-off of a sum of terms of total ``magnitude`` (a bound
    computed in floating point stays a bound)."""
    return float(value + 16.0 * np.finfo(float).eps * (abs(value) + magnitude))


def _nlp(p: int, k: int = 0, A_t=None, A_w=None, b=None, quadratic=(), smooth=()) -> dict:
    """The smooth description of :meth:`ConvexSet.nlp` (no inequality by default)."""
    A_t = np.zeros((0, p)) if A_t is None else A_t
    return {"k": k, "A_t": A_t, "A_w": np.zeros((len(A_t), k)) if A_w is None else A_w,
            "b": np.zeros(len(A_t)) if b is None else b, "quadratic": list(quadratic),
            "smooth": list(smooth)}




def _lp_max(c, A, b):
    """``max cᵀz s.t. A z ≤ b`` (z free) by HiGHS's dual simplex: ``(status, z, y)``, status
    0 optimal (y ≥ 0 the duals, Aᵀy = c), 2 infeasible, 3 unbounded."""
    res = linprog(-np.asarray(c, dtype=float), A_ub=A, b_ub=b,
                  bounds=[(None, None)] * A.shape[1], method="highs-ds", options=_LP_OPTIONS)
    if res.status != 0:
        return res.status, None, None
    return 0, res.x, np.clip(-res.ineqlin.marginals, 0.0, None)


#: the tie-breaking perturbation of the polytopes' LPs (a fraction of the objective's
#: largest entry, in the set's frame): among optimal vertices, the one that a fixed generic
#: direction prefers, so that the set in other units picks the same vertex (HiGHS's own
#: choice among ties follows round-off)
TIE_BREAK = 1e-9


def _tie_breaker(p: int) -> np.ndarray:
    """A fixed generic direction of R^p (fractional parts of multiples of the golden ratio,
    centred), of ∞-norm at most ½."""
    return np.mod(np.arange(1, p + 1) * 0.6180339887498949, 1.0) - 0.5


def _vertex(c, A, b):
    """A maximizer of ``cᵀz`` over ``{A z ≤ b}`` chosen the same way whatever the round-off
    (the LP with the objective ``c + TIE_BREAK·‖c‖_∞·w``, w :func:`_tie_breaker`; where that
    vertex is not optimal for c itself — a gap below the perturbation — HiGHS's vertex for
    c): ``(status, z, y)`` as :func:`_lp_max`."""
    status, z, y = _lp_max(c, A, b)
    if status != 0:
        return status, z, y
    size = float(np.abs(c).max())
    tilted, zt, yt = _lp_max(c + TIE_BREAK * size * _tie_breaker(len(c)), A, b)
    if tilted == 0 and c @ zt >= c @ z - 1e-14 * size * (1.0 + np.abs(z).sum()):
        return 0, zt, y
    return 0, z, y


def _analytic_centre(A, b, z, max_iter: int = 100) -> np.ndarray:
    """The analytic centre of ``{A z ≤ b}`` (the maximizer of Σ log(b − A z), unique and
    strictly inside), by damped Newton steps from the interior point ``z``."""
    for _ in range(max_iter):
        slack = b - A @ z
        scaled = A / slack[:, None]
        gradient = scaled.sum(axis=0)  # of −Σ log(b − A z)
        step = -np.linalg.solve(scaled.T @ scaled, gradient)
        decrement = float(-gradient @ step)
        if decrement <= 1e-20:
            break
        length = 1.0 if decrement < 0.25 else 1.0 / (1.0 + np.sqrt(decrement))
        while np.any(b - A @ (z + length * step) <= 0):
            length *= 0.5
        z = z + length * step
    return z


def _check_interior(name: str, ratio: float) -> None:
    if not ratio > INTERIOR_RTOL:
        raise ValueError(f"{name}: the set has no interior (its largest inscribed ball has "
                         f"{ratio:.3g} of its extent)")


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
        n = max(n, 1)
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

    def _set_frame(self, centre, frame) -> None:
        self._centre = np.asarray(centre, dtype=float)
        self._frame = np.asarray(frame, dtype=float)
        self._inverse_frame = np.linalg.inv(self._frame)

    def _name(self) -> str:
        return "" if self.name is None else f", name={self.name!r}"


class Polytope(ConvexSet):
    """The polytope ``T = {t ∈ R^p : A t ≤ b}`` (m × p, m rows), bounded, with an interior.

    Checked on construction by LPs (HiGHS), twice — in the user's units, then again in the
    frame of the set's own bounding box, so that the results are the same in any units: the
    largest inscribed ball (none: the set is empty, an error; its radius below
    ``INTERIOR_RTOL`` of the box: no interior, an error) and the 2p extremes min/max t_i (the
    bounding box ``lower``, ``upper``; one without bound is an error). The set's ``centre()``
    is its analytic centre (the maximizer of Σ log(b − A t): unique, unlike the inscribed
    ball's, and well inside). ``A`` and ``b`` are kept with the rows of A of unit norm.

    :meth:`support` (the exact pricing of an affine g) is a vertex LP with a proven bound from
    LP duality; the LPs break ties between optimal vertices by a fixed generic tilt of the
    objective in the set's frame (``TIE_BREAK``), so that the set in other units gives the
    same vertices. :meth:`simplex` and :meth:`budget` make the common ones.

    Examples
    --------
    >>> import numpy as np
    >>> from sipkl.sip.index_sets import Polytope
    >>> T = Polytope.simplex(2)                       # t ≥ 0, t_1 + t_2 ≤ 1
    >>> np.round(T.lower, 12).tolist(), np.round(T.upper, 12).tolist()
    ([0.0, 0.0], [1.0, 1.0])
    >>> t, bound = T.support([1.0, 2.0])              # max t_1 + 2 t_2: the vertex (0, 1)
    >>> np.round(t, 12).tolist(), round(bound, 12)
    ([0.0, 1.0], 2.0)
    >>> T.contains([[0.2, 0.3], [0.8, 0.8]]).tolist()
    [True, False]
    """

    def __init__(self, A, b, name: str = None):
        A = finite_array(A, "A", 2)
        b = finite_array(b, "b")
        if len(b) != len(A):
            raise ValueError(f"Polytope: A has {len(A)} rows but b has {len(b)} entries")
        norms = np.linalg.norm(A, axis=1)
        zero = norms == 0
        if np.any(b[zero] < 0):
            raise ValueError("Polytope: a row 0·t ≤ b_i with b_i < 0: the set is empty")
        if zero.all():
            raise ValueError("Polytope: every row of A is 0: the set is unbounded")
        self.A, self.b = A[~zero] / norms[~zero, None], b[~zero] / norms[~zero]
        self.name = name
        p = A.shape[1]
        scale = max(float(np.abs(self.b).max()), np.finfo(float).tiny)
        lower, upper, _, _, _ = self._analyse(np.zeros(p), np.full(p, scale))
        half = 0.5 * (upper - lower)
        _check_interior("Polytope", float(half.min() / half.max()))
        mid = 0.5 * (lower + upper)
        self.lower, self.upper, ball, radius, self._extremes = self._analyse(mid, half)
        _check_interior("Polytope", radius)
        centre = _analytic_centre(self._A_z, self._b_z, (ball - mid) / half)
        self._set_frame(mid + half * centre, np.diag(0.5 * (self.upper - self.lower)))

    def _analyse(self, mid, half):
        """In the frame t = mid + half∘z (rows renormalized, kept as the set's own LP data
        ``_A_z``, ``_b_z``): the bounding box, the inscribed ball's centre and radius (in z)
        and the extremes, in t; the set's errors."""
        A_z, b_z = self.A * half, self.b - self.A @ mid
        norms = np.linalg.norm(A_z, axis=1)
        self._A_z, self._b_z, self._mid, self._half = A_z / norms[:, None], b_z / norms, mid, half
        p = len(mid)
        status, ball, _ = _lp_max(np.r_[np.zeros(p), 1.0],
                                  np.c_[self._A_z, np.ones(len(self._A_z))], self._b_z)
        if status == 2 or (status == 0 and ball[-1] < 0):
            raise ValueError("Polytope: the set {t : A t ≤ b} is empty")
        if status == 3:
            raise ValueError("Polytope: the set {t : A t ≤ b} is unbounded (it holds balls of "
                             "any radius)")
        extremes = np.empty((2 * p, p))
        for i in range(p):
            for sign, k in ((1.0, 2 * i), (-1.0, 2 * i + 1)):
                status, z, _ = _vertex(sign * np.eye(p)[i], self._A_z, self._b_z)
                if status != 0:
                    raise ValueError(f"Polytope: the set {{t : A t ≤ b}} is unbounded "
                                     f"({'' if sign > 0 else '−'}t_{i + 1} has no upper bound)")
                extremes[k] = z
        extremes = mid + half * extremes
        upper, lower = extremes[0::2].diagonal().copy(), extremes[1::2].diagonal().copy()
        return lower, upper, mid + half * ball[:-1], float(ball[-1]), extremes

    @classmethod
    def simplex(cls, p: int, size: float = 1.0, name: str = None) -> "Simplex":
        """``{t ∈ R^p : t ≥ 0, Σ t_i ≤ size}`` (the standard simplex, with an interior): a
        :class:`Simplex`."""
        return Simplex(p, size, name)

    @classmethod
    def budget(cls, center, radius, budget: float, name: str = None) -> "Budget":
        """The budget set ``{t : |t_i − c_i| ≤ r_i, Σ |t_i − c_i| / r_i ≤ Γ}`` (Bertsimas and
        Sim's uncertainty set): a :class:`Budget`."""
        return Budget(center, radius, budget, name)

    def contains(self, points, rtol: float = 1e-9) -> np.ndarray:
        """Whether ``A t ≤ b`` holds for each row, to ``rtol`` of the set's extent."""
        z = (self.as_points(points) - self._mid) / self._half
        return np.all(z @ self._A_z.T <= self._b_z + rtol, axis=1)

    def exit(self, directions) -> np.ndarray:
        d = np.atleast_2d(np.asarray(directions, dtype=float)) / self._half
        slack = self._b_z - self._A_z @ ((self._centre - self._mid) / self._half)  # > 0
        rate = d @ self._A_z.T
        with np.errstate(divide="ignore", invalid="ignore"):
            steps = np.where(rate > 0, slack / rate, np.inf)
        return steps.min(axis=1)

    def extremes(self) -> np.ndarray:
        return self._extremes.copy()

    def support(self, v) -> tuple[np.ndarray, float]:
        """A vertex maximizing ``vᵀt`` (HiGHS's dual simplex in the set's frame) and the bound
        of LP duality: with y ≥ 0 the duals (refined by NNLS on the tight rows),
        ``max vᵀt ≤ vᵀm + bᵀy + ‖w − Aᵀy‖₁`` in the frame (|z| ≤ 1 on the bounding box)."""
        v = self._direction(v)
        w = v * self._half  # the objective in the frame t = mid + half∘z
        size = float(np.abs(w).max())
        if size == 0:
            return self.centre(), float(v @ self._mid)
        status, z, y = _vertex(w / size, self._A_z, self._b_z)
        if status != 0:  # the set's own LP: bounded and feasible by construction
            raise RuntimeError(f"{self!r}: the support LP failed (HiGHS status {status})")
        tight = np.flatnonzero(self._A_z @ z >= self._b_z - 1e-9)
        if len(tight):  # duals exact to round-off on the tight rows
            refined, _ = nnls(self._A_z[tight].T, w / size)
            if np.abs(self._A_z[tight].T @ refined - w / size).sum() \
                    <= np.abs(self._A_z.T @ y - w / size).sum():
                y = np.zeros(len(self._b_z))
                y[tight] = refined
        residual = np.abs(w / size - self._A_z.T @ y).sum() * (1.0 + 1e-9)
        dual = float(self._b_z @ y)
        bound = v @ self._mid + size * (dual + residual)
        t = self._mid + self._half * np.clip(z, -1.0, 1.0)
        return t, _rounded_up(bound, abs(v) @ np.abs(self._mid)
                              + size * (np.abs(self._b_z) @ y + 1.0))

    def nlp(self) -> dict:
        return _nlp(self.dim, A_t=self.A, b=self.b)

    def __repr__(self):
        return f"Polytope({len(self.A)} inequalities in R^{self.dim}{self._name()})"


class Simplex(Polytope):
    """The simplex ``{t ∈ R^p : t ≥ 0, Σ t_i ≤ size}`` (made by :meth:`Polytope.simplex`): a
    :class:`Polytope` that also knows its Euclidean projection (:meth:`project`, a sort),
    for the local searches of :mod:`sipkl.sip.set_search`."""

    def __init__(self, p: int, size: float = 1.0, name: str = None):
        if not (isinstance(p, (int, np.integer)) and p >= 1):
            raise ValueError(f"simplex: p must be an integer ≥ 1, got {p!r}")
        if not (isinstance(size, (int, float, np.number)) and np.isfinite(size) and size > 0):
            raise ValueError(f"simplex: size must be a finite number > 0, got {size!r}")
        self.size = float(size)
        super().__init__(np.vstack([-np.eye(p), np.ones((1, p))]), np.r_[np.zeros(p), size],
                         name)

    def project(self, points) -> np.ndarray:
        """The Euclidean projections of the rows of ``points`` onto the simplex: the positive
        part where its sum is at most ``size``, else the projection onto the face Σ = size
        (Held, Wolfe and Crowder's sort: ``max(t − τ, 0)`` with the τ that fits)."""
        t = np.atleast_2d(np.asarray(points, dtype=float))
        out = np.maximum(t, 0.0)
        over = out.sum(axis=1) > self.size
        if over.any():
            s = -np.sort(-t[over], axis=1)
            cumulative = np.cumsum(s, axis=1) - self.size
            k = np.arange(1, t.shape[1] + 1)
            count = np.sum(s - cumulative / k > 0, axis=1)
            tau = cumulative[np.arange(len(s)), count - 1] / count
            out[over] = np.maximum(t[over] - tau[:, None], 0.0)
        return out

    def __repr__(self):
        return f"Polytope.simplex({self.dim}, size={self.size:g}{self._name()})"


class Budget(Polytope):
    """The budget set ``{t : |t_i − c_i| ≤ r_i, Σ |t_i − c_i| / r_i ≤ Γ}`` (Bertsimas and Sim,
    "The price of robustness", 2004): at most Γ coordinates at their extremes. Made by
    :meth:`Polytope.budget`.

    A polytope with 2^p facets: every operation here is in closed form instead (membership,
    the exit of a ray, the support function: the ⌊Γ⌋ largest |v_i|·r_i and a fraction Γ −
    ⌊Γ⌋ of the next), and its LP description (:meth:`nlp`, and the robust counterpart of
    :mod:`sipkl.sip.robust`) lifts it with w ≥ |t − c|/r: ``w ≤ 1``, ``Σ w ≤ Γ``.

    Examples
    --------
    >>> from sipkl.sip.index_sets import Polytope
    >>> T = Polytope.budget([0.0, 0.0, 0.0], [1.0, 1.0, 1.0], 1.5)
    >>> t, bound = T.support([3.0, -2.0, 1.0])        # 3·1 + 2·0.5: t = (1, −0.5, 0)
    >>> t.tolist(), round(bound, 12)
    ([1.0, -0.5, 0.0], 4.0)
    """

    def __init__(self, center, radius, budget: float, name: str = None):
        self.center = finite_array(center, "center")
        radius = np.broadcast_to(finite_array(radius, "radius"), self.center.shape) \
            if np.size(radius) in (1, len(self.center)) else None
        if radius is None:
            raise ValueError(f"budget: radius must be one number or {len(self.center)}, got "
                             f"{np.size(radius)}")
        if np.any(radius <= 0):
            raise ValueError(f"budget: radius must be > 0, got {radius.tolist()}")
        if not (isinstance(budget, (int, float, np.number)) and np.isfinite(budget)):
            raise ValueError(f"budget: Γ must be a finite number, got {budget!r}")
        if budget <= 0:
            raise ValueError(f"budget: Γ = {budget} leaves a set without interior (Γ > 0)")
        self.radius, self.budget, self.name = radius.astype(float), float(budget), name
        reach = self.radius * min(1.0, self.budget)
        self.lower, self.upper = self.center - reach, self.center + reach
        self._set_frame(self.center, np.diag(reach))

    def _scaled(self, points) -> np.ndarray:
        return (self.as_points(points) - self.center) / self.radius

    def contains(self, points, rtol: float = 1e-9) -> np.ndarray:
        z = np.abs(self._scaled(points))
        return np.all(z <= 1.0 + rtol, axis=1) & (z.sum(axis=1) <= self.budget * (1.0 + rtol))

    def exit(self, directions) -> np.ndarray:
        z = np.abs(np.atleast_2d(np.asarray(directions, dtype=float)) / self.radius)
        gauge = np.maximum(z.max(axis=1), z.sum(axis=1) / self.budget)
        with np.errstate(divide="ignore"):
            return np.where(gauge > 0, 1.0 / gauge, np.inf)

    def extremes(self) -> np.ndarray:
        reach = self.radius * min(1.0, self.budget)
        p = self.dim
        points = np.repeat(self.center[None], 2 * p, axis=0)
        points[2 * np.arange(p), np.arange(p)] += reach
        points[2 * np.arange(p) + 1, np.arange(p)] -= reach
        return points

    def support(self, v) -> tuple[np.ndarray, float]:
        v = self._direction(v)
        weight = np.abs(v) * self.radius
        order = np.argsort(-weight, kind="stable")
        z = np.zeros(self.dim)
        whole = min(int(np.floor(self.budget)), self.dim)
        z[order[:whole]] = 1.0
        if whole < self.dim:
            z[order[whole]] = self.budget - whole
        t = self.center + self.radius * np.sign(v) * z
        return t, _rounded_up(float(v @ self.center + weight @ z),
                              float(np.abs(v) @ np.abs(self.center) + weight.sum()))

    def nlp(self) -> dict:
        """Lifted by w ≥ |t − c|/r (p auxiliary variables): ``±(t − c)/r − w ≤ 0``,
        ``w ≤ 1``, ``Σ w ≤ Γ``."""
        p = self.dim
        inverse = np.diag(1.0 / self.radius)
        A_t = np.vstack([inverse, -inverse, np.zeros((p + 1, p))])
        A_w = np.vstack([-np.eye(p), -np.eye(p), np.eye(p), np.ones((1, p))])
        b = np.r_[self.center / self.radius, -self.center / self.radius, np.ones(p),
                  self.budget]
        return _nlp(p, p, A_t, A_w, b)

    @property
    def A(self):
        raise AttributeError("a Budget set has 2^p facets and no stored A: see its nlp()")

    def __repr__(self):
        return f"Polytope.budget(Γ={self.budget:g} in R^{self.dim}{self._name()})"


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
    >>> from sipkl.sip.index_sets import Ellipsoid
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
        return self.center + self.P @ (w / norm), _rounded_up(
            float(v @ self.center) + norm, float(np.abs(v) @ np.abs(self.center)) + norm)

    def nlp(self) -> dict:
        return _nlp(self.dim, quadratic=[(np.arange(self.dim), self.center,
                                          self._inverse_frame)])

    def __repr__(self):
        return f"Ellipsoid(center={self.center.tolist()}, P={self.P.tolist()}{self._name()})"


class Ball(Ellipsoid):
    """The Euclidean ball ``{t : ‖t − c‖₂ ≤ r}`` (r > 0): an :class:`Ellipsoid` with P = r·I.

    Examples
    --------
    >>> from sipkl.sip.index_sets import Ball
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


class Product(ConvexSet):
    """The Cartesian product ``T_1 × T_2 × …`` of boxes and convex sets, the coordinates of
    each stacked in order (finite sets are not allowed).

    Membership, extremes and the smooth description are blockwise; the exit of a ray is the
    smallest of its blocks'; the support function is the sum of the blocks' (exact where
    each is); the frame is block diagonal.

    Examples
    --------
    >>> from sipkl.sip.index_sets import Ball, Box, Product
    >>> T = Product(Box([0.0], [1.0]), Ball([0.0, 0.0], 1.0))
    >>> T.dim, T.lower.tolist(), T.upper.tolist()
    (3, [0.0, -1.0, -1.0], [1.0, 1.0, 1.0])
    >>> t, bound = T.support([1.0, 0.0, -2.0])        # 1 + 2
    >>> t.tolist(), round(bound, 12)
    ([1.0, 0.0, -1.0], 3.0)
    """

    def __init__(self, *sets, name: str = None):
        if len(sets) == 1 and isinstance(sets[0], (list, tuple)):
            sets = tuple(sets[0])
        if not sets:
            raise ValueError("Product needs at least one set")
        for k, T in enumerate(sets):
            if not isinstance(T, (Box, ConvexSet)):
                raise TypeError(f"Product: set {k} must be a Box or a convex set (Polytope, "
                                f"Ellipsoid, Ball, Product), got {type(T).__name__}")
        self.sets, self.name = tuple(sets), name
        ends = np.cumsum([0] + [T.dim for T in sets])
        self._blocks = [slice(a, b) for a, b in zip(ends[:-1], ends[1:])]
        self.lower = np.concatenate([T.lower for T in sets])
        self.upper = np.concatenate([T.upper for T in sets])
        frame = np.zeros((ends[-1], ends[-1]))
        for T, block in zip(sets, self._blocks):
            frame[block, block] = T.frame()
        self._set_frame(np.concatenate([T.centre() for T in sets]), frame)

    def contains(self, points, rtol: float = 1e-9) -> np.ndarray:
        points = self.as_points(points)
        return np.all([T.contains(points[:, block], rtol)
                       for T, block in zip(self.sets, self._blocks)], axis=0)

    def exit(self, directions) -> np.ndarray:
        d = np.atleast_2d(np.asarray(directions, dtype=float))
        steps = np.full(len(d), np.inf)
        for T, block in zip(self.sets, self._blocks):
            moving = np.any(d[:, block] != 0, axis=1)
            steps[moving] = np.minimum(steps[moving], T.exit(d[moving, block]))
        return steps

    def extremes(self) -> np.ndarray:
        rows = []
        for T, block in zip(self.sets, self._blocks):
            points = np.repeat(self._centre[None], 2 * T.dim, axis=0)
            points[:, block] = T.extremes()
            rows.append(points)
        return np.vstack(rows)

    def support(self, v) -> tuple[np.ndarray, float]:
        v = self._direction(v)
        parts = [T.support(v[block]) for T, block in zip(self.sets, self._blocks)]
        return (np.concatenate([t for t, _ in parts]),
                _rounded_up(sum(b for _, b in parts), sum(abs(b) for _, b in parts)))

    def nlp(self) -> dict:
        """The blocks' descriptions side by side (their auxiliary variables stacked)."""
        parts = [T.nlp() for T in self.sets]
        p, k = self.dim, sum(d["k"] for d in parts)
        A_t, A_w, b, quadratic, smooth, offset = [], [], [], [], [], 0
        for d, block in zip(parts, self._blocks):
            rows = np.zeros((len(d["b"]), p))
            rows[:, block] = d["A_t"]
            lifted = np.zeros((len(d["b"]), k))
            lifted[:, offset:offset + d["k"]] = d["A_w"]
            A_t.append(rows)
            A_w.append(lifted)
            b.append(d["b"])
            quadratic += [(np.arange(p)[block][index], c, G) for index, c, G in d["quadratic"]]
            smooth += [(np.arange(p)[block][index], fun, jac)
                       for index, fun, jac in d["smooth"]]
            offset += d["k"]
        return _nlp(p, k, np.vstack(A_t), np.vstack(A_w), np.concatenate(b), quadratic,
                    smooth)

    def __repr__(self):
        return f"Product({', '.join(map(repr, self.sets))}{self._name()})"


def Intersection(*sets, name: str = None) -> ConvexSet:
    """The intersection of boxes, polytopes and half-spaces or other inequalities given as
    pairs ``(A, b)`` (of one dimension; a pair alone may be unbounded): the
    :class:`Polytope` of all their inequalities, checked as any (empty, unbounded, without
    interior: errors). With an ellipsoid or a :class:`~sipkl.sip.smooth_sets.SmoothSet`
    among them: the :class:`~sipkl.sip.smooth_sets.SmoothSet` of all their inequalities
    (:func:`~sipkl.sip.smooth_sets.smooth_intersection`); a budget set (2^p facets) is a
    ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> from sipkl.sip.index_sets import Box, Intersection
    >>> T = Intersection(Box([0.0, 0.0], [1.0, 1.0]), ([[1.0, 1.0]], [1.5]))  # t₁ + t₂ ≤ 1.5
    >>> np.round(T.upper, 12).tolist(), round(T.support([1.0, 1.0])[1], 12)
    ([1.0, 1.0], 1.5)
    """
    if len(sets) == 1 and isinstance(sets[0], list):
        sets = tuple(sets[0])
    if not sets:
        raise ValueError("Intersection needs at least one set")
    rows, rhs = [], []
    for k, T in enumerate(sets):
        if isinstance(T, Box):
            p = T.dim
            rows += [np.eye(p), -np.eye(p)]
            rhs += [T.upper, -T.lower]
        elif isinstance(T, Polytope) and not isinstance(T, Budget):
            rows.append(T.A)
            rhs.append(T.b)
        elif isinstance(T, tuple) and len(T) == 2:
            A = finite_array(T[0], f"the A of set {k}", 2)
            b = finite_array(T[1], f"the b of set {k}")
            if len(A) != len(b):
                raise ValueError(f"Intersection: set {k} has {len(A)} rows in A but {len(b)} "
                                 "entries in b")
            rows.append(A)
            rhs.append(b)
        else:  # an ellipsoid, a smooth set: the intersection is a smooth set
            from .smooth_sets import smooth_intersection
            return smooth_intersection(list(sets), name)
    dims = {r.shape[1] for r in rows}
    if len(dims) > 1:
        raise ValueError(f"Intersection: the sets must have one dimension, got {sorted(dims)}")
    return Polytope(np.vstack(rows), np.concatenate(rhs), name)
