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

``robust_counterpart(constraint)`` builds these cvxpy constraints from the user's g: where
g is affine in x too, from its coefficients as numbers (g(x, t) = C(t)·vec(x) + o(t) at the
p + 1 points c and c + F e_i, from n + 1 evaluations of g at numeric x:
:class:`_NumericForm`), else from g's p + 1 cvxpy expressions. It is a fast path where it
applies: one conic program instead of the exchange method's rounds, and the tests compare
the two. :func:`affine_counterparts`, the program's, gives the K constraints over one index
set with numeric coefficients one counterpart: the K rows of Δ in one matrix, the set's
``worst_case`` of all of them at once (one K-vector inequality, one matrix of dual
variables), which cvxpy compiles as fast as the counterpart written by hand. It needs
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
    return _stacked([form], [weight])


@dataclass
class Counterpart:
    """The cvxpy ``constraints`` that impose the semi-infinite constraints ``members`` (their
    positions in the program) exactly: ``constraints[0]`` is their vector inequality, whose
    k-th entry — and its dual, the multiplier — is member k's."""

    members: list
    constraints: list
    #: the semi-infinite constraints of the members, in their order
    imposed: list

    def alone(self, j: int) -> list:
        """The counterpart of the member at position ``j`` by itself (weight 1): what the
        master's diagnosis imposes to test that constraint alone."""
        return robust_counterpart(self.imposed[self.members.index(j)])


def affine_counterparts(semi_infinite, skip=(), weights=None) -> list[Counterpart]:
    """The :class:`Counterpart` of each constraint ``c_j`` (by position, those in ``skip``
    aside) over a continuous index set that has a conic form and whose g passes the
    affinity checks of :func:`robust_counterpart`, in the units of its weight
    ``weights[j]`` (default 1); a constraint for which that raises its ``ValueError`` (g not
    affine in t or its coefficients not affine in x, a set without a conic form) is left
    out: the exchange method solves it (:meth:`~sipkl.sip.SemiInfiniteProgram.solve`
    imposes the others by these). The constraints over one index set (copies of one
    :attr:`~sipkl.sip.sets.base.IndexSet.origin`) whose g has numeric coefficients share a
    counterpart: one vector inequality and one set of dual variables for all of them (K rows
    of a robust LP over one polytope are one matrix constraint, not K)."""
    found, groups, chords_by_set = [], {}, {}
    for j, constraint in enumerate(semi_infinite):
        if j in skip or constraint.T.finite:
            continue
        weight = 1.0 if weights is None else weights[j]
        try:
            form = _NumericForm.of(constraint, chords_by_set)
            if form is None:
                found.append(Counterpart([j], _expression_counterpart(constraint, weight),
                                         [constraint]))
            else:
                groups.setdefault(id(constraint.T.origin), []).append((j, form, weight))
        except ValueError:
            continue
    for group in groups.values():
        members, forms, weights_k = map(list, zip(*group))
        try:
            found.append(Counterpart(members, _stacked(forms, weights_k),
                                     [form.constraint for form in forms]))
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
    worst, extra = _worst_case(
        T, lambda frame, block: _differences(constraint, centre, block, frame, weight), 1)
    _check_affine_in_t(constraint)
    return [at_centre + worst <= 0] + extra


def _differences(constraint, point, block, frame, weight) -> cp.Expression:
    """Δ_i = w·(g(x, point + F_i) − g(x, point)) over the coordinates ``block`` (F_i the
    i-th column of the frame there, w the ``weight``) as a 1 × len(block) row, checked
    affine in x."""
    values = _values(constraint, _shifted(point, block, frame), weight)
    delta = cp.hstack([values[i + 1] - values[0] for i in range(len(block))])
    if not delta.is_affine():
        raise ValueError(f"robust_counterpart: the coefficients of t in g of constraint "
                         f"{constraint.name!r} are not affine in x as cvxpy sees them "
                         f"({delta.curvature.lower()}): write g as a(x) + B(x)t with B affine")
    return cp.reshape(delta, (1, len(block)), order="C")


def _stacked(forms, weights) -> list:
    """The counterpart of K constraints over one index set from their numeric forms
    (:class:`_NumericForm`) and weights: w_k·(g_k(x, c) + max_z Δ_k(x)ᵀz) ≤ 0 as one vector
    inequality, Δ the K × p matrix of the rows w_k·Δ_k(x) (the variables of all K stacked
    once)."""
    T = forms[0].constraint.T
    variables = list({v.id: v for form in forms for v in form.variables}.values())
    offsets = np.cumsum([0] + [v.size for v in variables])
    where = {v.id: np.arange(a, b) for v, a, b in zip(variables, offsets[:-1], offsets[1:])}
    flat = [v if v.ndim == 1 else cp.reshape(v, (v.size,), order="F") for v in variables]
    vector = flat[0] if len(flat) == 1 else cp.hstack(flat)
    columns = [np.concatenate([where[v.id] for v in form.variables]) for form in forms]

    def stacked(points, rows):
        """w_k·(C_k x + o_k) at the rows ``rows`` of g_k's values at ``points`` minus row 0
        (``None``: the values themselves), stacked k-major."""
        C, o = [], []
        for form, cols in zip(forms, columns):
            coefficients, values = form.at(points)
            if rows is not None:
                coefficients = coefficients[rows] - coefficients[0]
                values = values[rows] - values[0]
            C.append(coefficients @ np.eye(offsets[-1])[cols])  # a variable twice: summed
            o.append(values)
        return cp.multiply(_repeated(weights, len(o[0])), np.vstack(C) @ vector
                           + np.concatenate(o))

    centre = T.centre()

    def differences(frame, block):
        points = _shifted(centre, block, frame)
        return cp.reshape(stacked(points, np.arange(1, len(points))),
                          (len(forms), len(block)), order="C")
    worst, extra = _worst_case(T, differences, len(forms))
    return [stacked(centre[None], None) + worst <= 0] + extra


def _worst_case(T, differences, K: int):
    """``T.worst_case`` of K constraints, checked: one entry per row of Δ (a set written
    for a single Δ vector — e.g. ``cp.norm(Δ, 1)`` without ``axis=1`` — is a ``TypeError``,
    its scalar would be a wrong counterpart)."""
    worst, extra = T.worst_case(differences, np.arange(T.dim))
    if tuple(worst.shape) != (K,):
        raise TypeError(f"{T!r}.worst_case returned shape {tuple(worst.shape)} for {K} "
                        f"constraint(s): it must return one entry per row of Δ (the K × p "
                        f"matrix of differences; e.g. cp.norm(Δ, 1, axis=1))")
    return worst, extra


def _repeated(weights, r):
    """Each of the K ``weights`` (numbers or cvxpy Parameters) repeated r times, k-major
    (one weight: itself, which multiplies as a scalar)."""
    if len(weights) == 1:
        return weights[0]
    if not any(isinstance(w, cp.Expression) for w in weights):
        return np.repeat(np.asarray(weights, dtype=float), r)
    column = cp.hstack([cp.reshape(w, (1,), order="C") for w in weights])
    return np.kron(np.eye(len(weights)), np.ones((r, 1))) @ column


def _shifted(point, block, frame) -> np.ndarray:
    """``point`` and ``point + F_i`` over the coordinates ``block`` (rows)."""
    shifted = np.repeat(point[None], len(block) + 1, axis=0)
    shifted[1:, block] += frame.T
    return shifted


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
    counterpart is then a few matrix expressions, which cvxpy compiles in a fraction of the
    time of g's trees at every point. A g far from affine in t is refused first, at one
    sampled x (``PRESCREEN_RTOL``); then g is checked on the same chords of T as by
    :func:`_check_affine_in_t`, at the same sampled x (numbers, here): affine in t along
    them to ``AFFINE_RTOL`` of Σ|terms| = ``|C(t)|·|x| + |o(t)|``. (A g affine in t for every
    x and affine in x at the p + 1 points is affine in x everywhere: an affine combination
    of those points' values.)

    :meth:`of` makes one where it applies: x a cvxpy Variable or a tuple of them, g's
    expressions at those points affine in x, and g closing over no other variable nor over
    a parameter without a value (its numbers are then those of the variables alone; a
    parameter's value is read when the counterpart is built, as
    :meth:`~sipkl.sip.SemiInfiniteProgram.solve` does at each call)."""

    def __init__(self, constraint, variables, points, chord_points, lam):
        self.constraint, self.variables = constraint, variables
        self.sizes = [v.size for v in variables]
        draws = np.random.default_rng(0).uniform(0.5, 1.5, (AFFINE_DRAWS, sum(self.sizes)))
        first = constraint.values(self._point(draws[0]), chord_points)
        # a g far from affine in t is refused at one x, before the n + 1 calls below
        _check_chords(constraint, chord_points, lam, first, np.abs(first), PRESCREEN_RTOL)
        coefficients, offsets = self._coefficients(np.vstack([points, chord_points]))
        self._known = {row.tobytes(): k for k, row in enumerate(points)}
        self._coefficients_at, self._offsets_at = coefficients[:len(points)], offsets[:len(points)]
        on_chords = slice(len(points), None)
        for k, x in enumerate(draws):
            values = first if k == 0 else constraint.values(self._point(x), chord_points)
            _check_chords(constraint, chord_points, lam, values,
                          np.abs(coefficients[on_chords]) @ x + np.abs(offsets[on_chords]))

    @classmethod
    def of(cls, constraint, chords_by_set=None):
        """The numeric form of ``constraint``'s g, or ``None`` where it does not apply
        (``chords_by_set``: a dict that keeps the chords of each index set's origin for the
        other constraints over it)."""
        xs = constraint.x if isinstance(constraint.x, (tuple, list)) else (constraint.x,)
        if not all(isinstance(v, cp.Variable) for v in xs):
            return None
        T = constraint.T
        points = _shifted(T.centre(), np.arange(T.dim), T.frame())
        ids = {v.id for v in xs}
        for e in constraint.expressions(points):
            if not e.is_affine() or any(v.id not in ids for v in e.variables()) \
                    or any(q.value is None for q in e.parameters()):
                return None
        cache = {} if chords_by_set is None else chords_by_set
        if id(T.origin) not in cache:
            cache[id(T.origin)] = chords(T.from_cube, T.dim, AFFINE_CHORDS)
        try:
            return cls(constraint, list(xs), points, *cache[id(T.origin)])
        except NonFiniteValue:  # the expressions' own check says why
            return None

    def _point(self, flat) -> object:
        """The numeric x (g's structure) whose stacked entries are ``flat``."""
        parts = np.split(flat, np.cumsum(self.sizes)[:-1])
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

    def at(self, points) -> tuple[np.ndarray, np.ndarray]:
        """``(C, o)``: g(x, t_i) = C_i · vec(x) + o_i at the rows t_i of ``points``."""
        rows = [self._known.get(row.tobytes()) for row in points]
        if any(k is None for k in rows):
            return self._coefficients(points)
        return self._coefficients_at[rows], self._offsets_at[rows]
