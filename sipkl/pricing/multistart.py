"""Local pricing by multi-start over the family's box (gehler_nowozin §3.2): screened
starts moved at once by batched projected ascent, their basins refined by batched Newton
steps, the best ones polished by IPOPT (the registry's ``"ipopt"``)."""
from __future__ import annotations

import threading
from functools import partial

import numpy as np

from ..solvers import Status, ascend_box, maximize_box, newton_box

from ..core.contracts import OracleBase, OracleResult, PricingRound
from ..core.selection import best_distinct
from ..utils.threads import one_blas_thread

#: held around the polishes of stage (3): IPOPT (with MUMPS, not thread-safe in every build)
#: and SciPy's L-BFGS-B, by the searches of several threads at once (one-vs-rest problems
#: fitted in parallel, :func:`sipkl.utils.threads.map_tasks`), run one at a time; a polish is a
#: few points of a round
POLISH_LOCK = threading.Lock()


class MultiStartOracle(OracleBase):
    """Maximize ``<W, K(θ)>`` by local searches from several starting points.

    Starts, per family: the ``n_warm`` current columns of that family with the highest
    price (warm starts), and the ``n_starts`` best of ``n_samples`` sample points (the
    family's deterministic spread, then random points), each costing one price evaluation.
    Screening a large sample finds basins that a few blind starts miss (e.g. the pair of
    signal dimensions of the IKL chessboard, invisible to the gradient of either dimension
    alone).

    The search has three stages. (1) All starts ascend together (:func:`solvers.ascend_box`,
    relative tolerance ``tol``, at most ``max_iter // 2`` steps) in ``search_dtype`` (single
    precision by default, about twice as fast; the screening too): one batched evaluation
    of the family (:meth:`KernelFamily.batch_pricer`, two matrix products for the
    Gaussians) moves every start, by diagonal Newton steps where the pricing problem states
    the diagonals of its Hessians (``curvature_batch``: the Gaussian families, from the
    same products), else by spectral projected gradient. (2) The end points that are new
    columns are grouped into basins (1 % apart, see :meth:`_basins`), at most the round's
    ``n_price``, and refined together in double precision to the relative tolerance
    ``10⁻³·tol`` (at most ``max_iter // 2`` iterations): by projected Newton steps
    (:func:`solvers.newton_box`, Hessians in ``search_dtype`` on the free coordinates only)
    where the pricing problem has Hessians (``hessian_batch``: the Gaussian families), else
    by projected gradient. (3) IPOPT, with
    analytic gradients and a limited-memory Hessian (same ``tol`` and ``max_iter``; the
    objective scaled by the pricing problem's ``value_scale`` when it states one), polishes
    the ``n_polish`` best that stage (2) did not bring to a Newton-converged point; SciPy's
    L-BFGS-B takes over when cyipopt is missing or a polish fails (``method="lbfgsb"`` uses
    it throughout), each fallback an attempt in the result. Every returned price is
    evaluated in double precision at its returned θ. A kernel family's θ are scales in the
    data's units: all three stages size their steps by θ itself (``relative=True`` of the
    solvers), so that the search is the same in any units of the data with the family's
    default box. Where the round asks only for a violator
    (:attr:`~sipkl.core.contracts.PricingRound.any_violator`), stage (1) stops as soon as one of
    its points is a new column priced above the cut (in ``search_dtype``); those of its
    points that are new columns above the cut in double precision are the answer, and the
    whole search runs only when there is none.

    Over an index set of a semi-infinite program (a family with ``index_points``; its prices are
    double precision whatever ``search_dtype``) every current index point climbs with the
    stage (2) points, in the same batch, and is a candidate (the exchange step: an active
    point sits near a maximizer of t ↦ g(x_k, t) that the master's new x_k has moved, by a
    violation of the size of the cut, 10⁻⁸ of the terms of g say, which a search from far
    cannot resolve); a point priced above the engine's cut is a new candidate however close
    to a current one (:func:`~sipkl.core.selection.best_distinct` with ``cut``). Where its pricing
    problem also has Hessians (a constraint with a stated t-gradient), stage (1) is left
    out: the ``n_starts`` screened starts climb by Newton steps in stage (2) directly (no
    warm starts: every current point climbs), and their end points are then grouped into
    basins. Not global: see the DC oracle for a bound.

    Past the round's ``deadline`` (:attr:`~sipkl.core.contracts.PricingRound.deadline`, the run's
    time limit) stages (1) and (2) stop after their current batched evaluation, stage (3)
    is not begun (IPOPT's wall-time limit is the deadline), and the answer is the points
    reached, their prices in double precision, status ``iteration_limit``: a pricing
    overruns the limit by one batched evaluation (the screening's, the longest) or one
    IPOPT iteration.
    """

    def __init__(self, n_starts: int = 8, n_samples: int = 200, n_warm: int = 4,
                 method: str = "ipopt", tol: float = 1e-5, max_iter: int = 60,
                 n_polish: int = 1, search_dtype=np.float32):
        self.n_starts, self.n_samples, self.n_warm = n_starts, n_samples, n_warm
        self.method, self.tol, self.max_iter, self.n_polish = method, tol, max_iter, n_polish
        self.search_dtype = search_dtype

    def price(self, pricing_round: PricingRound) -> OracleResult:
        # thin products (pairs × D times D × starts): see sipkl.utils.threads. The batched stages
        # evaluate every start at once through the family's batch pricer, whose blocks of
        # pairs are computed by the worker threads of the fit (sipkl.utils.threads.ordered_map):
        # they serve all three stages with nothing threaded here.
        with one_blas_thread():
            return self._price(pricing_round)

    def _price(self, pricing_round: PricingRound) -> OracleResult:
        """The search of the class docstring, family by family: the screened starts
        (:meth:`_screened_starts`), stage (1) (:meth:`_climb`; left out over an index set
        with Hessians), stage (2) (:meth:`_refine`, the current index points climbing with
        the others: the exchange step), stage (3) (:meth:`_polish`), then the best distinct
        candidates of all families (:meth:`_result`)."""
        scored, attempts, statuses = [], [], []

        def halt(x, f):  # the solvers' stop: the round's deadline
            return pricing_round.out_of_time()
        for problem in pricing_round.problems:
            if problem.family.finite:
                raise ValueError(f"MultiStartOracle needs a continuous family, got the finite "
                                 f"{problem.family!r}: use oracle='grid'")
            index_set = problem.family.index_points
            starts, own = self._screened_starts(problem, pricing_round)
            one_stage = index_set and self._hessians(problem) is not None
            if one_stage:
                climbing = starts
            else:
                if len(own) and self.n_warm > 0:
                    starts = np.vstack([self._best(problem, own, self.n_warm,
                                                   self.search_dtype), starts])
                if pricing_round.any_violator:
                    found = self._first_violators(problem, starts, pricing_round,
                                                  not index_set)
                    if found is not None:
                        return found
                climbing = self._climb(problem, starts, pricing_round, not index_set, halt)
            moving = own if index_set else own[:0]  # the exchange step
            if not len(climbing) + len(moving):  # nothing new, nothing to move
                continue
            refined = self._refine(problem, np.vstack([moving, climbing]), not index_set,
                                   halt)
            moved = refined.order < len(moving)
            scored += [(v, problem.column(x)) for v, x in zip(refined.fun[moved],
                                                               refined.x[moved])]
            ends = np.flatnonzero(~moved)  # best first
            if one_stage:
                ends = ends[self._basins(problem, refined.x[ends], refined.fun[ends],
                                         pricing_round)]
            if len(ends):  # else every start climbed to a current column: nothing new here
                self._polish(problem, refined, ends, not index_set, pricing_round, scored,
                             attempts, statuses)
        return self._result(pricing_round, scored, attempts, statuses)

    def _screened_starts(self, problem, pricing_round: PricingRound):
        """The ``n_starts`` best of ``n_samples`` sample points of the family (screened in
        ``search_dtype``), and the family's current columns (their θ's)."""
        sample = problem.family.starting_points(
            pricing_round.X, max(self.n_samples, self.n_starts), pricing_round.rng)
        starts = self._best(problem, sample, self.n_starts, self.search_dtype)
        own = np.array([c.theta for c in pricing_round.columns
                        if c.family == problem.family]).reshape(-1, len(problem.lower))
        return starts, own

    def _climb(self, problem, starts, pricing_round: PricingRound, relative: bool, stop):
        """Stage (1): every start ascends together (:func:`solvers.ascend_box`, ended early
        by ``stop``); the end points grouped into basins (:meth:`_basins`), best first."""
        ascent = ascend_box(self._search_function(problem), starts, problem.lower,
                            problem.upper, tol=self.tol, max_iter=self.max_iter // 2,
                            relative=relative, stop=stop)
        return ascent.x[self._basins(problem, ascent.x, ascent.fun, pricing_round)]

    def _polish(self, problem, refined, ends, relative: bool, pricing_round: PricingRound,
                scored, attempts, statuses):
        """Stage (3): IPOPT (or L-BFGS-B) polishes the ``n_polish`` best end points of
        stage (2) that its Newton steps did not converge (none past the round's deadline,
        which is IPOPT's wall-time limit); the others keep stage (2)'s prices, evaluated in
        double precision. Appends to ``scored``, ``attempts``, ``statuses``."""
        points, converged = refined.x[ends], refined.converged[ends]
        polish = np.arange(len(ends)) < (0 if pricing_round.out_of_time() else self.n_polish)
        if refined.newton:
            statuses += [Status.OPTIMAL] * int(np.sum(polish & converged))
            polish &= ~converged
        if polish.any():
            with POLISH_LOCK:
                res = maximize_box(problem.value_and_grad, points[polish], problem.lower,
                                   problem.upper, method=self.method, tol=self.tol,
                                   max_iter=self.max_iter, relative=relative,
                                   value_scale=problem.value_scale,
                                   deadline=pricing_round.deadline)
            attempts += [a for a in res.attempts
                         if a.solver != self.method or not a.status.usable]
            statuses += res.statuses
            scored += [(v, problem.column(x)) for v, x in zip(res.fun, res.x)]
        scored += [(v, problem.column(x)) for v, x in zip(refined.fun[ends][~polish],
                                                           points[~polish])]

    @staticmethod
    def _result(pricing_round: PricingRound, scored, attempts, statuses) -> OracleResult:
        """The best distinct candidates of the round and its status: ``iteration_limit``
        where the round's deadline has passed (a stage may have stopped there), else optimal
        where a polish (or a Newton-converged point) was, or none was needed (the searches
        found only current columns, a complete answer)."""
        # local maxima found from different starts agree only to the solver's tolerance
        # (an index point priced above the cut is new however close to a current one)
        columns, scores = best_distinct(scored, pricing_round.n_price,
                                        exclude=pricing_round.columns, rtol=1e-3,
                                        cut=pricing_round.cut)
        status = Status.OPTIMAL if not statuses or any(s is Status.OPTIMAL for s in statuses) \
            else Status.OPTIMAL_INACCURATE if any(s.usable for s in statuses) \
            else Status.SOLVER_ERROR
        if pricing_round.out_of_time():
            status = Status.ITERATION_LIMIT
        return OracleResult(columns, scores, pricing_round.n_evals(),
                            status=status, attempts=attempts)

    def _first_violators(self, problem, starts, pricing_round,
                         relative) -> OracleResult | None:
        """Where only a violator is asked for (:attr:`PricingRound.any_violator`): stage (1)
        from ``starts``, stopped as soon as a new column prices above the cut in
        ``search_dtype``; the new columns among its points that price above the cut in
        double precision (best first, at most ``n_price``), or ``None`` when there is none
        and the whole search runs."""
        cut = pricing_round.price_cut()

        def violators(points, values):
            above = values > cut
            if not above.any():
                return [], np.zeros(0)
            columns, scores = best_distinct(
                [(v, problem.column(x)) for v, x in zip(values[above], points[above])],
                pricing_round.n_price, exclude=pricing_round.columns, rtol=1e-3,
                cut=pricing_round.cut)
            return columns, scores

        ascent = ascend_box(self._search_function(problem), starts, problem.lower,
                            problem.upper, tol=self.tol, max_iter=self.max_iter // 2,
                            relative=relative, stop=lambda x, f: len(violators(x, f)[0]) > 0
                            or pricing_round.out_of_time())
        columns, scores = violators(ascent.x,
                                    problem.values_and_grads(ascent.x, grad=False)[0])
        if not len(columns):
            return None
        return OracleResult(columns, scores, pricing_round.n_evals())

    def _refine(self, problem, ends, relative, stop):
        """Stage (2): the basins' end points refined in double precision (relative tolerance
        ``10⁻³·tol``, at most ``max_iter // 2`` iterations, ended early by ``stop``), by
        projected Newton steps (:func:`solvers.newton_box`, Hessians in ``search_dtype``)
        where the problem has Hessians, else by projected gradient. ``newton`` says
        which."""
        hessians = self._hessians(problem)
        kwargs = dict(tol=1e-3 * self.tol, max_iter=self.max_iter // 2, relative=relative,
                      stop=stop)
        if hessians is None:
            res = ascend_box(problem.values_and_grads, ends, problem.lower, problem.upper,
                             **kwargs)
        else:
            res = newton_box(problem.values_and_grads, hessians, ends, problem.lower,
                             problem.upper, **kwargs)
        res.newton = hessians is not None
        return res

    def _search_function(self, problem):
        """Stage (1)'s function, in ``search_dtype``: values, gradients and, where the
        pricing problem has them (``curvature_batch``), the diagonals of the Hessians, which
        turn the ascent into diagonal Newton steps (see :func:`solvers.ascend_box`)."""
        curvatures = problem.curvature_batch(self.search_dtype)
        return curvatures or partial(problem.values_and_grads, dtype=self.search_dtype)

    def _hessians(self, problem):
        """The pricing problem's Hessians ``H(thetas, coords)`` in ``search_dtype``, or
        ``None`` (see :class:`~sipkl.core.contracts.PricingProblem`)."""
        return problem.hessian_batch(self.search_dtype)

    @staticmethod
    def _basins(problem, ends, values, pricing_round) -> np.ndarray:
        """The rows of the end points ``ends`` (with their ``values``) that are not current
        columns (to ``rtol = 10⁻³``, as in the result), best first, at most ``n_price``,
        pairwise 1 % apart: end points closer than that climb the same peak, and an ascent
        stops short of it."""
        columns = [problem.column(x) for x in ends]
        new, scores = best_distinct(list(zip(values, columns)), len(columns),
                                    exclude=pricing_round.columns, rtol=1e-3)
        basins, _ = best_distinct(list(zip(scores, new)), pricing_round.n_price, rtol=1e-2)
        row = {id(c): i for i, c in enumerate(columns)}
        return np.array([row[id(c)] for c in basins], dtype=int)

    @staticmethod
    def _best(problem, thetas, n, dtype) -> np.ndarray:
        """The ``n`` distinct points of ``thetas`` with the highest price (searched among the
        best ``4n``, then among all when fewer than ``n`` of those are distinct)."""
        values, _ = problem.values_and_grads(thetas, grad=False, dtype=dtype)
        order = np.argsort(-values, kind="stable")
        for top in (order[:4 * n], order):
            chosen, _ = best_distinct([(values[i], problem.column(thetas[i])) for i in top], n)
            if len(chosen) == n:
                break
        return np.array([c.theta for c in chosen])
