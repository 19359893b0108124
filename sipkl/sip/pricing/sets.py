"""Pricing over index sets beyond boxes: exact where g is affine in t, searched otherwise.

Where t ↦ g(x_k, t) is affine, its maximum over a convex set is the set's support function
of the gradient (:meth:`~sipkl.sip.sets.base.ConvexSet.support`): a vertex LP over a
polytope (HiGHS, with the bound of LP duality), ``aᵀc + ‖Pᵀa‖`` over an ellipsoid, the
⌊Γ⌋ largest terms over a budget set, a corner of a box, the sum of the blocks' over a
product. :func:`affine_model` fits the affine function to g by least squares on a design
inside the set (its centre and 2p points half way to the boundary along the frame's axes)
and checks it at more points (images of a Halton sequence, out to the boundary, and the
maximizer found): a deviation above ``AFFINE_RTOL`` of the values' magnitude means g is not
affine in t.

How a constraint declares that g is affine in t: by the oracle it is solved with.
:class:`AffineOracle` is the user's statement (as a Lipschitz constant is, for
:class:`~sipkl.sip.LipschitzOracle`): it prices every constraint exactly, each result carries
the proven bound (the support function's, plus the fit's residual), so that a run ends
``certified_optimal``; the numerical check guards the statement at every round, and a
constraint that fails it is a ``ValueError`` naming it. The constraint itself carries no flag
(``SemiInfiniteConstraint`` is unchanged): affinity in t is a property of g that a user states
for the whole program, as the choice of a certified oracle. :class:`SetSearchOracle`, the
default over sets beyond boxes, takes the exact maximizer as its candidate where the check
passes (no proof: a check at finitely many points proves nothing about g elsewhere), and
otherwise searches: the dense sample of the set (its radial grid,
:class:`~sipkl.sip.pricing.dense.DenseSampleOracle`'s search) in dimension ≤ 2, a screened sample in
higher ones, the best points and the current index points refined in the set
(:func:`~sipkl.sip.pricing.search.refine_in_set`: batched projected gradient steps where the
projection is cheap, IPOPT on polytopes).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ...core.contracts import OracleBase, OracleResult, PricingRound, proves_bound
from ...core.selection import best_distinct
from ...solvers import Status
from ..sets.base import ConvexSet
from ..sets.box import Box
from ..sets.geometry import spread_points
from .dense import DenseSampleOracle
from .search import affordable_starts, refine_in_set

#: largest deviation of g from its affine fit, relative to the magnitude of its values (at
#: least 1: the values are relative to the constraint's scale), for g to count as affine
AFFINE_RTOL = 1e-9

#: extra points per round at which the affine fit is checked (images of a Halton sequence)
CHECK_POINTS = 4

#: dimension up to which the search samples the set densely (a radial tensor grid)
DENSE_DIM = 2


@dataclass
class AffineModel:
    """``g/s ≈ value + gradientᵀ(t − centre)`` on an index set, and the largest deviation
    of g from it at the points checked (``residual``) against the ``tolerance``."""

    centre: np.ndarray
    value: float
    gradient: np.ndarray
    residual: float
    tolerance: float
    magnitude: float

    @property
    def affine(self) -> bool:
        return self.residual <= self.tolerance

    def __call__(self, points) -> np.ndarray:
        return self.value + (np.atleast_2d(points) - self.centre) @ self.gradient


def affine_model(problem) -> AffineModel:
    """The least-squares affine fit of the pricing problem's values on its set (module
    docstring; in the set's frame, so that the fit is the same in any units), with its
    residual at the design and at ``CHECK_POINTS`` more points."""
    T = problem.family
    p, centre, frame = T.dim, T.centre(), T.frame()
    axes = np.vstack([0.5 * np.eye(p), -0.5 * np.eye(p)])
    design = np.vstack([centre[None], T.from_cube(axes)])
    check = T.from_cube(2.0 * spread_points(p, CHECK_POINTS + 1)[1:] - 1.0)
    values = problem.values(np.vstack([design, check]))
    offsets = np.linalg.solve(frame, (design - centre).T).T
    matrix = np.c_[np.ones(len(design)), offsets]
    coef, *_ = np.linalg.lstsq(matrix, values[:len(design)], rcond=None)
    model = AffineModel(centre, float(coef[0]), np.linalg.solve(frame.T, coef[1:]), 0.0, 0.0,
                        0.0)
    deviation = np.abs(values - model(np.vstack([design, check])))
    magnitude = max(1.0, float(np.abs(values).max()))
    model.residual, model.magnitude = float(deviation.max()), magnitude
    model.tolerance = AFFINE_RTOL * magnitude
    return model


def affine_maximum(problem, model: AffineModel):
    """``(t*, value, bound)``: the maximizer of the model over the set (its support
    function), g/s there, and a bound on max g/s — the support function's, raised by the
    fit's error (which extrapolates from the design to the boundary: ``(2 + 2p)`` times the
    largest residual) and round-off; ``None`` for the bound where g deviates from the model
    at t* by more than the tolerance (then not affine)."""
    T = problem.family
    t, support = T.support(model.gradient)
    value = float(problem.values(t[None])[0])
    deviation = abs(value - float(model(t[None])[0]))
    model.residual = max(model.residual, deviation)
    if not model.affine:
        return t, value, None
    margin = (2.0 + 2.0 * T.dim) * model.residual + 16 * np.finfo(float).eps * model.magnitude
    bound = model.value - float(model.gradient @ model.centre) + support + margin
    return t, value, max(bound, value)


class AffineOracle(OracleBase):
    """Exact pricing of semi-infinite constraints whose g is affine in t, with a proven bound.

    Choosing this oracle states that every g_j(x, t) is affine in t (module docstring): each
    round fits and checks the affine model of t ↦ g_j(x_k, t)/s_j (:func:`affine_model`; a
    deviation above ``AFFINE_RTOL`` is a ``ValueError`` naming the constraint), maximizes it
    exactly over T_j (the set's support function: vertex LP, ellipsoid's closed form, …;
    every point of a finite set) and returns the maximizer with g's value there and the
    bound, so that the run can end ``certified_optimal``.

    Examples
    --------
    Robust linear constraint over a ball: max x₁ + x₂ s.t. x₁ + x₂ + tᵀx ≤ 1 for ‖t‖ ≤ 0.5,
    whose robust counterpart x₁ + x₂ + 0.5‖x‖ ≤ 1 gives x₁ = x₂ = 1/(2 + √2/2):

    >>> import cvxpy as cp
    >>> import numpy as np
    >>> from sipkl.sip import SemiInfiniteConstraint, SemiInfiniteProgram
    >>> from sipkl.sip.sets import Ball
    >>> from sipkl.sip.pricing.sets import AffineOracle
    >>> x = cp.Variable(2)
    >>> g = SemiInfiniteConstraint(lambda x, t: cp.sum(x) + t @ x - 1, x, Ball([0, 0], 0.5))
    >>> result = SemiInfiniteProgram(cp.Maximize(cp.sum(x)), g).solve(AffineOracle(), tol=1e-9)
    >>> result.status.value, bool(abs(result.objective - 2 / (2 + np.sqrt(2) / 2)) < 1e-8)
    ('certified_optimal', True)
    """

    def proves_bound(self, family, n_features=None) -> bool:
        """Always (under the statement that g is affine in t, checked each round)."""
        return True

    def price(self, pricing_round: PricingRound) -> OracleResult:
        scored, bounds = [], []
        for problem in pricing_round.problems:
            found, bound, model = exact_price(problem)
            if bound is None:
                raise ValueError(
                    f"AffineOracle: g of semi-infinite constraint {problem.constraint.name!r} "
                    f"is not affine in t over {problem.family!r}: it deviates from its affine "
                    f"fit by {model.residual:.3g} (tolerance {model.tolerance:.3g}, relative "
                    "to the constraint's scale); use the default oracle (SetSearchOracle)")
            scored += found
            bounds.append(bound)
        columns, scores = best_distinct(scored, pricing_round.n_price,
                                        exclude=pricing_round.columns,
                                        cut=pricing_round.price_cut())
        return OracleResult(columns, scores, pricing_round.n_evals(),
                            upper_bound=max(bounds))


def exact_price(problem):
    """``(scored, bound, model)`` for one pricing problem priced exactly: every point of a
    finite set with the largest value as its bound (``model`` ``None``), else the maximizer
    of the affine model (:func:`affine_model`, :func:`affine_maximum`) with g's value there
    and the proven bound — ``[]`` and ``None`` where g fails the affinity check."""
    T = problem.family
    if T.finite:
        values = problem.values(T.points)
        return ([(v, problem.column(t)) for v, t in zip(values, T.points)],
                float(values.max()), None)
    model = affine_model(problem)
    t, value, bound = affine_maximum(problem, model) if model.affine else (None,) * 3
    if bound is None:
        return [], None, model
    return [(value, problem.column(t))], bound, model


class ExactWhereAffine(OracleBase):
    """The default oracle of a program some of whose constraints are affine in t: those
    (their index sets: ``families``) priced exactly with a proven bound, as by
    :class:`AffineOracle`, the others by ``rest`` (an oracle, ``None`` where there are none).

    A :class:`~sipkl.sip.SemiInfiniteProgram` chooses it where it found constraints affine
    in t (and imposes them by their exact robust counterparts, :mod:`sipkl.sip.robust`):
    their affinity was checked on chords of T at sampled x, and the check of
    :func:`affine_model` guards it again at every round. A constraint that fails that check
    is priced by ``rest`` (by a :class:`SetSearchOracle` without one) and the round proves
    nothing. The round's bound is the largest of the exact ones and of ``rest``'s, proven
    where every part is (``None`` otherwise).
    """

    def __init__(self, families, rest=None):
        self.families, self.rest = list(families), rest
        #: the exact maxima of the last round by index set: ``(x, scale, (t*, value,
        #: bound))``, which :meth:`exact_maximum` gives back at the same x and scale
        self.last = {}

    def proves_bound(self, family, n_features=None) -> bool:
        """For the constraints priced exactly, and the others where ``rest`` proves its."""
        return any(family is T for T in self.families) or proves_bound(self.rest, family,
                                                                          n_features)

    def exact_maximum(self, problem):
        """``(t*, value, bound)`` of :func:`affine_maximum` for a pricing problem over one of
        the exact ``families``: the last round's where it priced the same x and scale (the
        answer of a run whose last round priced it), else computed."""
        known = self.last.get(id(problem.family))
        if known is not None and known[1] == problem.scale and _same_x(known[0], problem.x):
            return known[2]
        return affine_maximum(problem, affine_model(problem))

    def price(self, pricing_round: PricingRound) -> OracleResult:
        scored, bounds, others = [], [], []
        self.last = {}
        for problem in pricing_round.problems:
            found, bound = ([], None) if not any(problem.family is T for T in self.families) \
                else exact_price(problem)[:2]
            if bound is None:
                others.append(problem)
            else:
                (value, column), = found
                self.last[id(problem.family)] = (problem.x, problem.scale,
                                                 (np.array(column.theta), value, bound))
            scored += found
            bounds.append(bound)
        status, attempts = Status.OPTIMAL, []
        if others:
            rest = SetSearchOracle() if self.rest is None else self.rest
            result = rest.price(dataclasses.replace(pricing_round, problems=others))
            scored += list(zip(result.scores, result.columns))
            bounds = [b for b in bounds if b is not None] + [result.upper_bound]
            status, attempts = result.status, result.attempts
        columns, scores = best_distinct(scored, pricing_round.n_price,
                                        exclude=pricing_round.columns,
                                        cut=pricing_round.price_cut())
        bound = None if any(b is None for b in bounds) else max(bounds)
        return OracleResult(columns, scores, pricing_round.n_evals(), status=status,
                            upper_bound=bound, attempts=attempts)


def _same_x(a, b) -> bool:
    """Whether two numeric x (an array, or a tuple of them) are equal, bit for bit."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) \
            and all(map(_same_x, a, b))
    return np.array_equal(np.asarray(a), np.asarray(b))


class SetSearchOracle(OracleBase):
    """The default oracle over index sets beyond boxes: exact where g is affine in t (to the
    check of :func:`affine_model`), else a sampled search refined inside the set. No proof
    (``upper_bound`` ``None``): at best ``converged_local``; :class:`AffineOracle` certifies.

    Parameters
    ----------
    n_samples : int
        Points of the dense sample in dimension ≤ ``dense_dim`` (a radial tensor grid of
        about that many points), and of the screened sample above it.
    max_starts : int, optional
        Starts refined at most per constraint and round: the best local maxima of the sample
        (the best distinct sample points, above ``dense_dim``), and as many of the
        constraint's current index points (the best-priced; the exchange step). Default: 64
        where the local search is the batched projected gradient (one evaluation of g moves
        every start), 8 where it is IPOPT (one search per start: a polytope).
    affine : bool
        Whether to take the exact maximizer where the affine check passes.
    dense_dim : int
        The largest dimension sampled by the tensor grid (default ``DENSE_DIM``, 2).

    Over a box of dimension ≤ ``dense_dim`` the search is
    :class:`~sipkl.sip.pricing.dense.DenseSampleOracle`'s (Newton steps); over a finite set, every
    point.
    """

    def __init__(self, n_samples: int = 4097, max_starts: int = None, affine: bool = True,
                 dense_dim: int = DENSE_DIM):
        self.n_samples, self.max_starts, self.affine = n_samples, max_starts, affine
        self.dense_dim = dense_dim

    def price(self, pricing_round: PricingRound) -> OracleResult:
        cut = pricing_round.price_cut()
        scored, attempts, statuses = [], [], []
        for problem in pricing_round.problems:
            T = problem.family
            own = np.array([c.theta for c in pricing_round.columns
                            if c.family is T]).reshape(-1, T.dim)
            points, values = self.search(problem, own, pricing_round.rng, attempts, statuses)
            scored += [(v, problem.column(t)) for v, t in zip(values, points)]
        columns, scores = best_distinct(scored, pricing_round.n_price,
                                        exclude=pricing_round.columns, cut=cut)
        status = Status.OPTIMAL if not statuses or any(s is Status.OPTIMAL for s in statuses) \
            else Status.OPTIMAL_INACCURATE
        return OracleResult(columns, scores, pricing_round.n_evals(),
                            status=status, attempts=attempts)

    def search(self, problem, own: np.ndarray, rng=None, attempts=None, statuses=None):
        """The points found and their values (best first) for one pricing problem (the
        class docstring); ``attempts`` and ``statuses`` collect the local searches'."""
        T = problem.family
        attempts = [] if attempts is None else attempts
        statuses = [] if statuses is None else statuses
        if T.finite:
            values = problem.values(T.points)
            order = np.argsort(-values, kind="stable")
            return T.points[order], values[order]
        if self.affine and isinstance(T, (Box, ConvexSet)):
            model = affine_model(problem)
            if model.affine:
                t, value, bound = affine_maximum(problem, model)
                if bound is not None:
                    return t[None], np.array([value])
        max_starts = affordable_starts(T) if self.max_starts is None else self.max_starts
        if len(own) > max_starts:  # the best-priced current points climb
            own = own[np.argsort(-problem.values(own), kind="stable")[:max_starts]]
        if T.dim <= self.dense_dim:
            dense = DenseSampleOracle(self.n_samples, max_starts)
            return dense.search(problem, own)
        sample = T.starting_points(None, self.n_samples, rng)
        values = problem.values(sample)
        starts = _distinct_best(T, sample, values, max_starts)
        refined = refine_in_set(problem, np.vstack([own, starts]))
        attempts += refined.attempts
        statuses += refined.statuses
        best = int(np.argmax(values))
        points = np.vstack([refined.x, sample[best]])
        found = np.append(refined.fun, values[best])
        order = np.argsort(-found, kind="stable")
        return points[order], found[order]


def _distinct_best(T, points: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """The ``n`` best rows of ``points``, pairwise not the same to 1 % of the set's extent."""
    chosen = []
    for k in np.argsort(-values, kind="stable"):
        if len(chosen) == n:
            break
        if not chosen or not T.same_columns(points[chosen], points[k], 1e-2).any():
            chosen.append(k)
    return points[chosen]


__all__ = ["AffineModel", "AffineOracle", "ExactWhereAffine", "SetSearchOracle", "affine_maximum",
           "affine_model", "exact_price"]
