"""Exact robust counterparts: a semi-infinite constraint affine in t as finitely many conic ones.

Where g(x, t) = g(x, c) + Δ(x)ᵀz for t = c + F z (c the set's centre, F its frame, Δ_i(x) =
g(x, c + F e_i) − g(x, c), affine in x), the constraint ``g(x, t) ≤ 0 for all t ∈ T`` is

    g(x, c) + max_{z ∈ Z} Δ(x)ᵀz ≤ 0,       Z = F⁻¹(T − c),

and the maximum is the value of the conic dual (D) of Z's conic form
(:mod:`sipkl.sip.sets.conic`, :meth:`~sipkl.sip.sets.base.IndexSet.conic_form`; Ben-Tal, El
Ghaoui and Nemirovski, "Robust optimization", 2009, ch. 1–2): for Z = {z : ∃u,
h − Gz − Hu ∈ K},

    g(x, c) + hᵀy ≤ 0,   Gᵀy = Δ(x),   Hᵀy = 0,   y ∈ K

— a norm ‖Δ‖₂ over an ellipsoid or a ball (Z the unit ball), ‖Δ‖₁ over a box, LP duality
over a polytope, Bertsimas and Sim's dual over a budget set, the blocks' sum over a
product; a finite set: the constraint at every point.

``robust_counterpart(constraint)`` builds these cvxpy constraints from the user's g: where
g is affine in x too, from its coefficients as numbers (g(x, t) = C(t)·vec(x) + o(t) at the
p + 1 points c and c + F e_i, from n + 1 evaluations of g at numeric x:
:class:`_NumericForm`), else from g's p + 1 cvxpy expressions. It is a fast path where it
applies: one conic program instead of the exchange method's rounds, and the tests compare
the two. :func:`affine_counterparts`, the program's, gives the K constraints over one index
set with numeric coefficients one counterpart: the K rows of Δ in one matrix, the dual (D)
of all of them at once (one K-vector inequality, one matrix of dual variables), kept as
numbers too (:class:`AffineRows`), which a master may hand to a conic solver without
cvxpy's compilation (:mod:`sipkl.sip.masters.conic_data`). It needs
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

from dataclasses import dataclass

import cvxpy as cp
import numpy as np

from .constraints.semi_infinite import IndexConstraint, NonFiniteValue, SemiInfiniteConstraint
from .pricing.sets import AFFINE_RTOL
from .sets.conic import ConicForm
from .sets.geometry import chord_gaps, chords

#: chords of T and draws of the variables at which g's affinity in t is checked
AFFINE_CHORDS, AFFINE_DRAWS = 8, 3

#: the numeric form's first screen, at one sampled x and relative to |g| itself (not
#: Σ|terms|): a g this far from affine in t is refused before its n + 1 evaluations (an
#: affine g fails it only where its terms cancel to 10⁻¹⁰ of themselves; the exchange
#: method then solves it)
PRESCREEN_RTOL = 1e-6


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
    if constraint.T.finite:
        return [weight * e <= 0 for e in constraint.expressions(constraint.T.points)]
    form = _NumericForm.of(constraint)
    if form is None:
        return _expression_counterpart(constraint, weight)
    return _stacked(AffineRows.of([form], [weight]))


class Counterpart:
    """The cvxpy ``constraints`` that impose the semi-infinite constraints ``members`` (their
    positions in the program; ``imposed``: the constraints themselves) exactly:
    ``constraints[0]`` is their vector inequality, whose k-th entry — and its dual, the
    multiplier — is member k's. Where g has numeric coefficients, ``rows`` is the
    counterpart as numbers (:class:`AffineRows`) and the cvxpy constraints are built from
    them at their first use (a master that solves the numbers never asks for them)."""

    def __init__(self, members: list, imposed: list, rows: "AffineRows" = None,
                 constraints: list = None):
        self.members, self.imposed, self.rows = members, imposed, rows
        self._constraints, self._dual = constraints, None

    @property
    def constraints(self) -> list:
        """The cvxpy constraints (built from ``rows`` at the first call)."""
        if self._constraints is None:
            self._constraints = _stacked(self.rows)
        return self._constraints

    @property
    def dual(self):
        """The duals of the vector inequality's entries at the last solve (``None`` before
        one, or where the solver gave none)."""
        return self._dual if self._constraints is None else self._constraints[0].dual_value

    def save_dual(self, value) -> None:
        """Keep the duals of a solve of the counterpart as numbers (in its vector inequality
        where that is built)."""
        if self._constraints is None:
            self._dual = np.asarray(value, dtype=float)
        else:
            self._constraints[0].save_dual_value(value)

    def alone(self, j: int) -> list:
        """The counterpart of the member at position ``j`` by itself (weight 1): what the
        master's diagnosis imposes to test that constraint alone."""
        return robust_counterpart(self.imposed[self.members.index(j)])


def affine_counterparts(semi_infinite, skip=(), weights=None,
                        references=None) -> list[Counterpart]:
    """The :class:`Counterpart` of each constraint ``c_j`` (by position, those in ``skip``
    aside) over a continuous index set that has a conic form and whose g passes the
    affinity checks of :func:`robust_counterpart`, in the units of its weight
    ``weights[j]`` (default 1); a constraint for which that raises its ``ValueError`` (g not
    affine in t or its coefficients not affine in x, a set without a conic form) is left
    out: the exchange method solves it (:meth:`~sipkl.sip.SemiInfiniteProgram.solve`
    imposes the others by these). The constraints over one index set (copies of one
    :attr:`~sipkl.sip.sets.base.IndexSet.origin`) whose g has numeric coefficients share a
    counterpart: one vector inequality and one set of dual variables for all of them (K rows
    of a robust LP over one polytope are one matrix constraint, not K). ``references``:
    per constraint, ``(t, expressions)`` with g's cvxpy expressions at a point t, which the
    numeric form uses where t is the set's centre (the master's, built once)."""
    found, groups, chords_by_set = [], {}, {}
    for j, constraint in enumerate(semi_infinite):
        if j in skip or constraint.T.finite:
            continue
        weight = 1.0 if weights is None else weights[j]
        try:
            form = _NumericForm.of(constraint, chords_by_set,
                                   None if references is None else references[j])
            if form is None:
                found.append(Counterpart([j], [constraint], constraints=_expression_counterpart(
                    constraint, weight)))
            else:
                groups.setdefault(id(constraint.T.origin), []).append((j, form, weight))
        except ValueError:
            continue
    for group in groups.values():
        members, forms, weights_k = map(list, zip(*group))
        try:
            found.append(Counterpart(members, [form.constraint for form in forms],
                                     AffineRows.of(forms, weights_k)))
        except ValueError:  # a set without a conic form
            continue
    return sorted(found, key=lambda counterpart: counterpart.members[0])


def robust_program(objective, semi_infinite, constraints=()) -> cp.Problem:
    """The cvxpy problem with every semi-infinite constraint replaced by its robust
    counterpart (:func:`robust_counterpart`)."""
    sics = [semi_infinite] if isinstance(semi_infinite, IndexConstraint) \
        else list(semi_infinite)
    robust = [c for sic in sics for c in robust_counterpart(sic)]
    return cp.Problem(objective, list(constraints) + robust)


def _expression_counterpart(constraint, weight) -> list:
    """The counterpart of one constraint from g's cvxpy expressions at the centre and at
    c + F e_i (where g has no numeric form: a convex part in x, closed-over variables or
    parameters without values), its affinity in t checked at sampled x."""
    T = constraint.T
    centre = T.centre()
    at_centre = _values(constraint, centre[None], weight)[0]
    worst, extra = _dual(_checked_form(T), _differences(constraint, centre, T.frame(),
                                                          weight))
    _check_affine_in_t(constraint)
    return [at_centre + worst <= 0] + extra


def _differences(constraint, point, frame, weight) -> cp.Expression:
    """Δ_i = w·(g(x, point + F_i) − g(x, point)) (F_i the i-th column of the ``frame``, w the
    ``weight``) as a 1 × p row, checked affine in x."""
    values = _values(constraint, _shifted(point, frame), weight)
    delta = cp.hstack([values[i + 1] - values[0] for i in range(len(frame))])
    if not delta.is_affine():
        raise ValueError(f"robust_counterpart: the coefficients of t in g of constraint "
                         f"{constraint.name!r} are not affine in x as cvxpy sees them "
                         f"({delta.curvature.lower()}): write g as a(x) + B(x)t with B affine")
    return cp.reshape(delta, (1, len(frame)), order="C")


@dataclass
class AffineRows:
    """K constraints over one index set ``T = {c + F z : z ∈ Z}`` with numeric coefficients:
    g_k(x, c) = C_k·x + o_k and Δ_k(x) = D_k x + d_k (the changes of g_k along the frame's
    columns, rows k·p … k·p + p − 1 of D and d), x the variables' entries stacked (each in
    cvxpy's column-major order), and ``form`` Z's :class:`~sipkl.sip.sets.conic.ConicForm`:
    the counterpart w_k·(C_k x + o_k) + hᵀy_k ≤ 0, Gᵀy_k = w_k·(D_k x + d_k), Hᵀy_k = 0,
    y_k ∈ K as numbers, which a master can hand to a conic solver as they are
    (:mod:`sipkl.sip.masters.conic_data`)."""
    variables: list
    C: np.ndarray
    o: np.ndarray
    D: np.ndarray
    d: np.ndarray
    form: ConicForm
    weights: list

    @classmethod
    def of(cls, forms, weights) -> "AffineRows":
        """The rows of the numeric forms ``forms`` (:class:`_NumericForm`, one index set)."""
        T = forms[0].constraint.T
        variables = list({v.id: v for form in forms for v in form.variables}.values())
        offsets = np.cumsum([0] + [v.size for v in variables])
        where = {v.id: np.arange(a, b) for v, a, b in zip(variables, offsets[:-1], offsets[1:])}
        C, o = [], []
        for form in forms:
            placed = np.zeros((len(form.C), offsets[-1]))
            for k, column in enumerate(np.concatenate([where[v.id] for v in form.variables])):
                placed[:, column] += form.C[:, k]  # a variable passed twice: summed
            C.append(placed)
            o.append(form.o)
        C, o = np.stack(C), np.stack(o)  # K × (p + 1) × n, K × (p + 1)
        return cls(variables, C[:, 0], o[:, 0], (C[:, 1:] - C[:, :1]).reshape(-1, offsets[-1]),
                   (o[:, 1:] - o[:, :1]).ravel(), _checked_form(T), list(weights))


def _stacked(rows: AffineRows) -> list:
    """The cvxpy constraints of K constraints over one index set from their numbers
    (:class:`AffineRows`): w_k·(g_k(x, c) + max_z Δ_k(x)ᵀz) ≤ 0 as one vector inequality,
    Δ the K × p matrix of the rows w_k·Δ_k(x) (the variables of all K stacked once), the
    maximum by the dual (D) of :func:`_dual`."""
    flat = [v if v.ndim == 1 else cp.reshape(v, (v.size,), order="F") for v in rows.variables]
    vector = flat[0] if len(flat) == 1 else cp.hstack(flat)
    K, p = len(rows.C), rows.form.G.shape[1]
    at_centre = cp.multiply(_repeated(rows.weights, 1), rows.C @ vector + rows.o)
    delta = cp.reshape(cp.multiply(_repeated(rows.weights, p), rows.D @ vector + rows.d),
                       (K, p), order="C")
    worst, extra = _dual(rows.form, delta)
    return [at_centre + worst <= 0] + extra


def _checked_form(T) -> ConicForm:
    """``T.conic_form()``, checked: a ``TypeError`` for another type, a ``ValueError`` for a
    form of another dimension."""
    form = T.conic_form()
    if not isinstance(form, ConicForm):
        raise TypeError(f"{T!r}.conic_form() must return a ConicForm, got "
                        f"{type(form).__name__}")
    if form.G.shape[1] != T.dim:
        raise ValueError(f"{T!r}.conic_form(): G has {form.G.shape[1]} columns for a set of "
                         f"dimension {T.dim}")
    return form


def _dual(form: ConicForm, delta):
    """``max_{z ∈ Z} Δ_kᵀz`` for each row of the K × p cvxpy matrix ``delta`` by the dual
    (D) of Z's conic ``form`` (:mod:`~sipkl.sip.sets.conic`): the K-vector ``hᵀY`` and the
    constraints on the dual variables Y (r × K, a column per row of Δ)."""
    Y = cp.Variable((form.rows, delta.shape[0]))
    constraints = [form.G.T @ Y == delta.T]
    if form.H.shape[1]:
        constraints.append(form.H.T @ Y == 0)
    if form.nonneg:
        constraints.append(Y[:form.nonneg] >= 0)
    constraints += [cp.SOC(Y[start], Y[start + 1:start + size], axis=0)
                    for start, size in zip(form.cone_starts(), form.cones)]
    return form.h @ Y, constraints


def _repeated(weights, r):
    """Each of the K ``weights`` (numbers or cvxpy Parameters) repeated r times, k-major
    (one weight: itself, which multiplies as a scalar)."""
    if len(weights) == 1:
        return weights[0]
    if not any(isinstance(w, cp.Expression) for w in weights):
        return np.repeat(np.asarray(weights, dtype=float), r)
    column = cp.hstack([cp.reshape(w, (1,), order="C") for w in weights])
    return np.kron(np.eye(len(weights)), np.ones((r, 1))) @ column


def _shifted(point, frame) -> np.ndarray:
    """``point`` and ``point + F_i`` for each column F_i of ``frame`` (rows)."""
    return np.vstack([point, point + frame.T])


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
                checked = _check_chords(constraint, points, lam, values,
                                        constraint.magnitudes(exprs)) or checked
    finally:
        for v, value in zip(leaves, saved):
            v.value = value
    if not checked:
        raise ValueError(f"robust_counterpart: g of constraint {constraint.name!r} is not "
                         "finite at any sampled value of its variables (uniform in [0.5, 1.5]) "
                         "and its parameters, so its affinity in t, which the robust "
                         "counterpart needs, is unchecked: solve it by the exchange method, "
                         "SemiInfiniteProgram")


def _check_chords(constraint, points, lam, values, sizes, rtol=AFFINE_RTOL) -> bool:
    """A ``ValueError`` where g's ``values`` at the chords' ``points`` (:func:`chords`, at
    one x) break affinity by more than ``rtol`` times ``sizes`` (Σ|terms|); whether any
    chord was finite."""
    gap, size = chord_gaps(values, lam, sizes)
    finite = np.isfinite(gap) & np.isfinite(size)
    broken = np.flatnonzero(finite & (np.abs(gap) > rtol * size))
    if broken.size:
        i, (a, b, _) = broken[0], np.split(points, 3)
        raise ValueError(
            f"robust_counterpart: g of constraint {constraint.name!r} is not affine in "
            f"t, which its exact robust counterpart needs: g(x, λa + (1 − λ)b) − "
            f"λg(x, a) − (1 − λ)g(x, b) = {gap[i]:.6g} at a = {a[i].tolist()}, "
            f"b = {b[i].tolist()}, λ = {lam[i]:.6g} (x sampled); solve it by the "
            "exchange method, SemiInfiniteProgram")
    return bool(finite.any())


def _check_model(constraint, points, values, model, sizes) -> None:
    """A ``ValueError`` where g's ``values`` at the frame's ``points`` (at one sampled x)
    differ from its affine model in x (``model``, from the coefficients) by more than
    ``AFFINE_RTOL`` times ``sizes`` (Σ|terms|): g is not affine in x there."""
    gap = np.abs(values - model)
    broken = np.flatnonzero(gap > AFFINE_RTOL * sizes)
    if broken.size:
        i = broken[0]
        raise ValueError(
            f"robust_counterpart: g of constraint {constraint.name!r} is not affine in x at "
            f"t = {points[i].tolist()}: g(x, t) differs from its affine model by {gap[i]:.6g} "
            "(x sampled); write g as a(x) + B(x)t with a and B affine, or solve it by the "
            "exchange method, SemiInfiniteProgram")


def _values(constraint, points, weight=1.0) -> list:
    """w·g(x, t) at the rows of ``points`` as a list of scalar cvxpy expressions (w the
    ``weight``)."""
    exprs = constraint.expressions(points)
    if len(exprs) == 1 and exprs[0].size == len(points) and len(points) > 1:
        return [weight * exprs[0][i] for i in range(len(points))]
    return [weight * (cp.reshape(e, (), order="F") if e.size == 1 else e) for e in exprs]


class _NumericForm:
    """g as numbers where it is affine in x: ``g(x, t) = C(t) · vec(x) + o(t)``, its
    coefficients at the points the counterpart needs (T's centre c and c + F e_i) found
    by evaluating g at numeric x (``x = 0`` and each unit vector: n + 1 calls of g, each
    at all the points), the numbers cvxpy would find in g's expression trees. The
    counterpart is then a few matrix expressions, or numbers a conic solver takes as they
    are. A g far from affine in t is refused first, at one sampled x (``PRESCREEN_RTOL``);
    then g is checked at the same sampled x as by :func:`_check_affine_in_t` (numbers,
    here): affine in t along the same chords of T, and equal to its model C(t)·x + o(t) at
    the p + 1 points, both to ``AFFINE_RTOL`` of Σ|terms| = ``|C(t)|·|x| + |o(t)|`` (g
    affine in t along the chords and equal to the model at p + 1 affinely independent
    points is the model at every t — at the sampled x: checks on samples, as affinity in t
    is).

    :meth:`of` makes one where it applies: x a cvxpy Variable or a tuple of them, g's
    expression at the centre affine in x (cvxpy's DCP analysis), and g closing over no
    other variable nor over a parameter without a value (its numbers are then those of the
    variables alone; a parameter's value is read when the counterpart is built, as
    :meth:`~sipkl.sip.SemiInfiniteProgram.solve` does at each call)."""

    def __init__(self, constraint, variables, points, chord_points, lam):
        self.constraint, self.variables = constraint, variables
        self.sizes = [v.size for v in variables]
        draws = np.random.default_rng(0).uniform(0.5, 1.5, (AFFINE_DRAWS, sum(self.sizes)))
        checked = np.vstack([points, chord_points])
        first = constraint.values(self._point(draws[0]), checked)
        on_chords = slice(len(points), None)
        # a g far from affine in t is refused at one x, before the n + 1 calls below
        _check_chords(constraint, chord_points, lam, first[on_chords],
                      np.abs(first[on_chords]), PRESCREEN_RTOL)
        coefficients, offsets = self._coefficients(checked)
        #: g(x, t_i) = C_i · vec(x) + o_i at the frame's points t_i (c, then c + F e_i)
        self.C, self.o = coefficients[:len(points)], offsets[:len(points)]
        for k, x in enumerate(draws):
            values = first if k == 0 else constraint.values(self._point(x), checked)
            sizes = np.abs(coefficients) @ x + np.abs(offsets)
            _check_chords(constraint, chord_points, lam, values[on_chords], sizes[on_chords])
            _check_model(constraint, points, values[:len(points)],
                         coefficients[:len(points)] @ x + offsets[:len(points)],
                         sizes[:len(points)])

    @classmethod
    def of(cls, constraint, chords_by_set=None, reference=None):
        """The numeric form of ``constraint``'s g, or ``None`` where it does not apply
        (``chords_by_set``: a dict that keeps the chords of each index set's origin for the
        other constraints over it; ``reference``: ``(t, expressions)``, g's cvxpy
        expressions at a point t, which are used where t is the set's centre)."""
        xs = constraint.x if isinstance(constraint.x, (tuple, list)) else (constraint.x,)
        if not all(isinstance(v, cp.Variable) for v in xs):
            return None
        T = constraint.T
        centre = T.centre()
        if reference is None or not np.array_equal(reference[0], centre):
            reference = (centre, constraint.expressions(centre[None]))
        ids = {v.id for v in xs}
        for e in reference[1]:
            if not e.is_affine() or any(v.id not in ids for v in e.variables()) \
                    or any(q.value is None for q in e.parameters()):
                return None
        cache = {} if chords_by_set is None else chords_by_set
        if id(T.origin) not in cache:
            cache[id(T.origin)] = chords(T.from_cube, T.dim, AFFINE_CHORDS)
        try:
            return cls(constraint, list(xs), _shifted(centre, T.frame()), *cache[id(T.origin)])
        except NonFiniteValue:  # the expressions' own check says why
            return None

    def _point(self, flat) -> object:
        """The numeric x (g's structure) whose stacked entries are ``flat``."""
        parts = [flat] if len(self.sizes) == 1 else np.split(flat, np.cumsum(self.sizes)[:-1])
        values = [part.reshape(v.shape, order="F") if v.ndim else float(part[0])
                  for part, v in zip(parts, self.variables)]
        return tuple(values) if isinstance(self.constraint.x, (tuple, list)) else values[0]

    def _coefficients(self, points) -> tuple[np.ndarray, np.ndarray]:
        """``(C, o)`` at the rows of ``points`` by n + 1 evaluations of g."""
        n = sum(self.sizes)
        offsets = self.constraint.values(self._point(np.zeros(n)), points)
        coefficients = np.empty((len(points), n))
        for k, unit in enumerate(np.eye(n)):  # one call of g per coordinate of x
            coefficients[:, k] = self.constraint.values(self._point(unit), points) - offsets
        return coefficients, offsets
