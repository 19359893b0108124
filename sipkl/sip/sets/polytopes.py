"""Polytopes {t : A t ≤ b}, and the two that know more of themselves: the simplex and the budget set."""
from __future__ import annotations

import numpy as np
from scipy.optimize import nnls
from scipy.spatial import HalfspaceIntersection

from ...utils.validation import finite_array
from .base import ConvexSet
from .conic import ConicForm, moved
from .geometry import (analytic_centre, best_vertex, check_interior, linear_rows, lp_max,
                       nlp_arrays, onto_budget, polytope_vertices, rounded_up, vertex)
from .quadrature import QuadratureRule, box_rule, checked_degree, polytope_rule, simplex_rule


class Polytope(ConvexSet):
    """The polytope ``T = {t ∈ R^p : A t ≤ b}`` (m × p, m rows), bounded, with an interior.

    Checked on construction: the 2p extremes min/max t_i in the user's units (the bounding
    box ``lower``, ``upper``) — vertices of the set where there are at most
    ``VERTEX_SUBSETS`` p-subsets of its rows to enumerate, each kept where the duals of its
    tight rows prove it optimal (which also proves the set nonempty and bounded), else LPs
    (HiGHS; one without a solution: the set is empty or unbounded, an error) — then in the
    frame of that box, so that the results are the same in any units, the largest
    inscribed ball (an LP; its radius below ``INTERIOR_RTOL`` of the box: no interior, an
    error). The set's ``centre()`` is its analytic centre (the maximizer of Σ log(b − A t):
    unique, unlike the inscribed ball's, and well inside).
    ``A`` and ``b`` are kept with the rows of A of unit norm.

    :meth:`support` (the exact pricing of an affine g) is a vertex with a proven bound from
    LP duality, from the vertex list in the frame (a product instead of an LP) or a vertex
    LP, as above; both break ties between optimal vertices by a fixed generic tilt of the
    objective in the set's frame (``TIE_BREAK``), so that the set in other units gives the
    same vertices. :meth:`simplex` and :meth:`budget` make the common ones.

    Examples
    --------
    >>> import numpy as np
    >>> from sipkl.sip.sets import Polytope
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
        lower, upper = self._bounding_box()
        half = 0.5 * (upper - lower)
        check_interior("Polytope", float(half.min() / half.max()))
        mid = 0.5 * (lower + upper)
        self.lower, self.upper, ball, radius, self._extremes = self._analyse(mid, half)
        check_interior("Polytope", radius)
        centre = analytic_centre(self._A_z, self._b_z, (ball - mid) / half)
        self._set_frame(mid + half * centre, np.diag(0.5 * (self.upper - self.lower)))

    def _bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)``: the extremes of each coordinate in the user's units (b scaled
        by its largest |b_i|; :meth:`_optimal_vertex`: vertices whose duals prove them
        optimal, which also proves the set bounded, else LPs, which find an empty or
        unbounded set)."""
        p = self.A.shape[1]
        scale = max(float(np.abs(self.b).max()), np.finfo(float).tiny)
        self._set_lp_frame(np.zeros(p), np.full(p, scale))
        box = np.empty((2, p))
        for i in range(p):
            for sign, side in ((1.0, 1), (-1.0, 0)):
                status, z, _ = self._optimal_vertex(sign * np.eye(p)[i])
                if status == 2:
                    raise ValueError("Polytope: the set {t : A t ≤ b} is empty")
                if status != 0:
                    raise ValueError(f"Polytope: the set {{t : A t ≤ b}} is unbounded "
                                     f"({'' if sign > 0 else '−'}t_{i + 1} has no upper bound)")
                box[side, i] = scale * z[i]
        return box[0], box[1]

    def _inscribed_ball(self) -> np.ndarray:
        """``(z, r)`` (p + 1 entries) of the largest ball inside the set in the frame of
        :meth:`_set_lp_frame` (its rows of unit norm: one LP)."""
        p = self._A_z.shape[1]
        status, ball, _ = lp_max(np.r_[np.zeros(p), 1.0],
                                  np.c_[self._A_z, np.ones(len(self._A_z))], self._b_z)
        if status != 0:  # nonempty and bounded: its bounding box is
            raise RuntimeError(f"Polytope: the inscribed ball's LP failed (HiGHS status "
                               f"{status})")
        return ball

    def _set_lp_frame(self, mid, half) -> None:
        """The set in the frame t = mid + half∘z, kept as its own LP data (rows renormalized:
        ``_A_z``, ``_b_z``) with its vertices there where affordable
        (:func:`~sipkl.sip.sets.geometry.polytope_vertices`; ``None`` else)."""
        A_z, b_z = self.A * half, self.b - self.A @ mid
        norms = np.linalg.norm(A_z, axis=1)
        self._A_z, self._b_z, self._mid, self._half = A_z / norms[:, None], b_z / norms, mid, half
        self._vertices = polytope_vertices(self._A_z, self._b_z)

    def _analyse(self, mid, half):
        """In the frame t = mid + half∘z of the bounding box (:meth:`_set_lp_frame`): the
        bounding box, the inscribed ball's centre and radius (in z) and the extremes, in
        t."""
        self._set_lp_frame(mid, half)
        p = len(mid)
        ball = self._inscribed_ball()
        extremes = mid + half * np.array([self._proved_vertex(sign * np.eye(p)[i])[0]
                                          for i in range(p) for sign in (1.0, -1.0)])
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
        z, y = self._proved_vertex(w / size)
        residual = np.abs(w / size - self._A_z.T @ y).sum() * (1.0 + 1e-9)
        dual = float(self._b_z @ y)
        bound = v @ self._mid + size * (dual + residual)
        t = self._mid + self._half * np.clip(z, -1.0, 1.0)
        return t, rounded_up(bound, abs(v) @ np.abs(self._mid)
                              + size * (np.abs(self._b_z) @ y + 1.0))

    def _optimal_vertex(self, c):
        """``(status, z, y)``: a vertex maximizing ``cᵀz`` in the frame, chosen as
        :func:`~sipkl.sip.sets.geometry.vertex` chooses, and duals y ≥ 0 (NNLS on its tight
        rows, or the LP's where those are closer to ``Aᵀy = c``). From the vertex list
        where the set has one and its duals prove the vertex optimal (``‖Aᵀy − c‖₁ ≤
        10⁻⁹‖c‖₁``, the KKT conditions), else by the LP (status as
        :func:`~sipkl.sip.sets.geometry.lp_max`: 2 infeasible, 3 unbounded)."""
        if self._vertices is not None and len(self._vertices):
            z = best_vertex(c, self._vertices)
            y = self._tight_duals(z, c)
            if np.abs(self._A_z.T @ y - c).sum() <= 1e-9 * np.abs(c).sum():
                return 0, z, y
        status, z, y = vertex(c, self._A_z, self._b_z)
        if status != 0:
            return status, z, y
        refined = self._tight_duals(z, c)
        closer = np.abs(self._A_z.T @ refined - c).sum() <= np.abs(self._A_z.T @ y - c).sum()
        return 0, z, refined if closer else y

    def _proved_vertex(self, c) -> tuple[np.ndarray, np.ndarray]:
        """``(z, y)`` of :meth:`_optimal_vertex` over the set, known nonempty and bounded."""
        status, z, y = self._optimal_vertex(c)
        if status != 0:
            raise RuntimeError(f"{self!r}: the vertex LP failed (HiGHS status {status})")
        return z, y

    def _tight_duals(self, z, c) -> np.ndarray:
        """Duals y ≥ 0 of the rows tight at z (within 10⁻⁹; NNLS of Aᵀy = c on them, exact
        to round-off where z is optimal), 0 on the others."""
        y = np.zeros(len(self._b_z))
        tight = np.flatnonzero(self._A_z @ z >= self._b_z - 1e-9)
        if len(tight):
            y[tight] = nnls(self._A_z[tight].T, c)[0]
        return y

    def vertices(self) -> np.ndarray:
        """The set's vertices (rows, in its units): those found in its frame on construction
        where there were few enough row subsets, else Qhull's intersection of the
        half-spaces about the analytic centre."""
        if self._vertices is not None:
            return self._mid + self._half * self._vertices
        return HalfspaceIntersection(np.column_stack([self.A, -self.b]),
                                     self.centre()).intersections

    def quadrature(self, degree: int) -> QuadratureRule:
        """Exact for total degree ``degree``: Gauss–Legendre on an interval (p = 1, with its
        remainder bound), else Stroud's rule on each simplex of the Delaunay triangulation
        of the vertices (:mod:`~sipkl.sip.sets.quadrature`)."""
        degree = checked_degree(degree)
        if self.dim == 1:
            return QuadratureRule(*box_rule(self.lower, self.upper, degree), degree, self,
                                  widths=self.upper - self.lower)
        return QuadratureRule(*polytope_rule(self.vertices(), degree), degree, self)

    def nlp(self) -> dict:
        return nlp_arrays(self.dim, A_t=self.A, b=self.b)

    def conic_form(self):
        """``A(c + F z) ≤ b`` as ``(b − A c) − (A F) z ≥ 0``, its rows scaled to unit norm
        (see :meth:`IndexSet.conic_form`; (D) of :mod:`~sipkl.sip.sets.conic` is then the LP
        dual of max Δᵀz over the polytope)."""
        rows = self.A @ self.frame()
        norms = np.linalg.norm(rows, axis=1)
        return ConicForm(rows / norms[:, None], (self.b - self.A @ self.centre()) / norms,
                         len(rows))

    def inequalities(self):
        """``A t − b ≤ 0`` (see :meth:`IndexSet.inequalities`)."""
        return self.lower, self.upper, [linear_rows(self.A, self.b)]


    def __repr__(self):
        return f"Polytope({len(self.A)} inequalities in R^{self.dim}{self._name()})"


class Simplex(Polytope):
    """The simplex ``{t ∈ R^p : t ≥ 0, Σ t_i ≤ size}`` (made by :meth:`Polytope.simplex`): a
    :class:`Polytope` that also knows its Euclidean projection (:meth:`project`, a sort),
    for the local searches of :mod:`sipkl.sip.pricing.search`."""

    def __init__(self, p: int, size: float = 1.0, name: str = None):
        if not (isinstance(p, (int, np.integer)) and p >= 1):
            raise ValueError(f"simplex: p must be an integer ≥ 1, got {p!r}")
        if not (isinstance(size, (int, float, np.number)) and np.isfinite(size) and size > 0):
            raise ValueError(f"simplex: size must be a finite number > 0, got {size!r}")
        self.size = float(size)
        super().__init__(np.vstack([-np.eye(p), np.ones((1, p))]), np.r_[np.zeros(p), size],
                         name)

    def _bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        """``[0, size]^p`` (see :meth:`Polytope._bounding_box`)."""
        return np.zeros(self.A.shape[1]), np.full(self.A.shape[1], self.size)

    def _inscribed_ball(self) -> np.ndarray:
        """Centre c·1 and radius c in t, c = size/(p + √p) (tangent to the p faces t_i = 0
        and to Σ t_i = size), in the frame of the box [0, size]^p (see
        :meth:`Polytope._inscribed_ball`)."""
        p = self.A.shape[1]
        z = (2.0 - p - np.sqrt(p)) / (np.sqrt(p) * (np.sqrt(p) + 1.0))
        return np.r_[np.full(p, z), 1.0 + z]

    def quadrature(self, degree: int) -> QuadratureRule:
        """Stroud's conical product rule on the simplex itself, exact for total degree
        ``degree`` (:mod:`~sipkl.sip.sets.quadrature`)."""
        degree = checked_degree(degree)
        if self.dim == 1:
            return super().quadrature(degree)
        vertices = np.vstack([np.zeros(self.dim), self.size * np.eye(self.dim)])
        return QuadratureRule(*simplex_rule(vertices, degree), degree, self)

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

    def projector(self):
        """The unit simplex in the frame ``size·I`` (see :meth:`IndexSet.projector`)."""
        return (np.zeros(self.dim), self.size * np.eye(self.dim),
                lambda z: self.project(self.size * z) / self.size)


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
    >>> from sipkl.sip.sets import Polytope
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
        return t, rounded_up(float(v @ self.center + weight @ z),
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
        return nlp_arrays(p, p, A_t, A_w, b)

    def quadrature(self, degree: int):
        """None here: a ``TypeError`` (write the set as a :class:`Polytope` of its rows)."""
        raise TypeError(f"T: {self!r} has no quadrature rule; write it as a Polytope(A, b)")

    @property
    def A(self):
        raise AttributeError("a Budget set has 2^p facets and no stored A: see its nlp()")

    def projector(self):
        """``{|z_i| ≤ 1, Σ|z_i| ≤ Γ}`` in the frame of the radii (see
        :meth:`IndexSet.projector`)."""
        return self.center, np.diag(self.radius), lambda z: onto_budget(z, self.budget)

    def lift(self, t: np.ndarray) -> np.ndarray:
        """The feasible auxiliary variables ``|t − c| / r`` of :meth:`nlp`."""
        return np.abs(t - self.center) / self.radius

    def conic_form(self):
        """``w = (t − c)/r`` with ``|w| ≤ u ≤ 1``, ``Σu ≤ Γ`` (u auxiliary; the dual (D) of
        :mod:`~sipkl.sip.sets.conic` is Bertsimas and Sim's), restated in the frame
        (see :meth:`IndexSet.conic_form`)."""
        p, eye, zero = self.dim, np.eye(self.dim), np.zeros((self.dim, self.dim))
        G = np.vstack([zero, eye, -eye, np.zeros((1, p))])
        H = np.vstack([eye, -eye, -eye, np.ones((1, p))])
        h = np.r_[np.ones(p), np.zeros(2 * p), self.budget]
        return moved(ConicForm(G, h, 3 * p + 1, H=H), self.center, np.diag(self.radius),
                     self.centre(), self.frame())

    def inequalities(self):
        """None without auxiliary variables: a ``ValueError`` (see
        :meth:`IndexSet.inequalities`)."""
        raise ValueError("has 2^p facets and no smooth description without auxiliary "
                         "variables: not here")


    def __repr__(self):
        return f"Polytope.budget(Γ={self.budget:g} in R^{self.dim}{self._name()})"
