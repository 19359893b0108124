"""Certified pricing over boxes: a batched branch and bound with a proven bound per cell.

A cell [lo, hi] of the box is bounded above by a rule of the subclass: from a stated
Lipschitz constant (:class:`LipschitzOracle`: if t ↦ h(t) is L-Lipschitz in the Euclidean
norm, ``max_cell h ≤ h(c) + L·‖r‖₂`` for the centre c and the half-widths r, the bound of
Piyavskii's method), or from interval arithmetic on g itself (:class:`IntervalOracle`: the
mean-value form of :mod:`~sipkl.sip.constraints.intervals`, no constant needed). The oracle
splits every cell whose bound may still matter, all of them at once (one vectorized
evaluation of the new cells per round), in two at the midpoint of its longest side (the two
halves share that float: they cover the cell exactly): while no value above the engine's
cut is found, until every bound is at most the cut — a proof that no index point is
violated; once one is, until every bound lies within ``max(cut − λ, best − cut)`` of the
best value found: the best point then violates by at least half the largest violation (or
is the maximum to the cut's slack), enough for the exchange method, which needs a violated
point, not the most violated one.
"""
from __future__ import annotations

import abc

import numpy as np

from ...core.contracts import OracleBase, OracleResult, PricingRound
from ...core.selection import best_distinct
from ...solvers import Attempt, Status

#: evaluated points per pricing problem, the best, among which the candidates are chosen
CANDIDATES = 1000


class BranchAndBoundOracle(OracleBase, abc.ABC):
    """Global pricing over boxes with a proven ``upper_bound``: the branch and bound of the
    module docstring, the bound of a cell given by :meth:`cell_bounds`.

    Parameters
    ----------
    max_evals : int
        Cells evaluated at most per pricing problem and round. Past it the bound is still
        valid but looser (status ``ITERATION_LIMIT``, recorded as an attempt); the engine
        then ends ``no_new_column`` rather than certifying.
    """

    def __init__(self, max_evals: int = 2_000_000):
        self.max_evals = max_evals

    def proves_bound(self, family, n_features=None) -> bool:
        """Always: every result carries a proven upper bound."""
        return True

    @abc.abstractmethod
    def cell_bounds(self, problem, lower: np.ndarray, upper: np.ndarray,
                    values: np.ndarray) -> np.ndarray:
        """Proven upper bounds of the pricing ``problem``'s function on the cells
        ``[lower_k, upper_k]`` (rows), whose values at their centres are ``values``."""

    def check(self, problem) -> None:
        """A ``ValueError`` where this oracle cannot bound ``problem`` (default: none)."""

    def price(self, pricing_round: PricingRound) -> OracleResult:
        cut = pricing_round.price_cut()
        slack = max(cut - pricing_round.threshold, 0.0)
        scored, bounds, attempts, status = [], [], [], Status.OPTIMAL
        for problem in pricing_round.problems:
            self.check(problem)
            points, values, bound, done = self.branch_and_bound(problem, cut, slack)
            bounds.append(bound)
            if not done:
                status = Status.ITERATION_LIMIT
                attempts.append(Attempt(self.name, status, f"{problem.family!r}: max_evals="
                                        f"{self.max_evals} reached, bound {bound:.6g}"))
            top = np.argsort(-values, kind="stable")[:CANDIDATES]
            scored += [(values[i], problem.column(points[i])) for i in top]
        # new points (a point near an index point may be violated above the cut, and is
        # then a new one: only equal points are the same), then one per peak (1 % apart)
        new, scores = best_distinct(scored, len(scored), exclude=pricing_round.columns,
                                    rtol=1e-12)
        columns, scores = best_distinct(list(zip(scores, new)), pricing_round.n_price, rtol=1e-2)
        return OracleResult(columns, scores, pricing_round.n_evals(),
                            status=status, upper_bound=max(bounds), attempts=attempts)

    def branch_and_bound(self, problem, cut: float, slack: float = 0.0):
        """The search of the module docstring on one pricing problem: every evaluated point
        (the cells' centres) and value, the proven bound on the maximum, and whether the
        search ended by its rule (``False``: ``max_evals`` reached). With ``cut = 0`` and no
        value above it found, a bound ≤ 0 proves t ↦ g(x, t) ≤ 0 on T."""
        lower, upper = problem.lower[None, :], problem.upper[None, :]
        centres = 0.5 * (lower + upper)
        values = problem.values(centres)
        points, evaluated = [centres], [values]
        best, settled = float(values.max()), -np.inf  # settled: the bound of dropped cells
        n_evals = 1
        while True:
            bounds = self.cell_bounds(problem, lower, upper, values)
            keep = bounds > (best + max(slack, best - cut) if best > cut else cut)
            settled = max(settled, float(bounds[~keep].max(initial=-np.inf)))
            if not keep.any():
                return np.vstack(points), np.concatenate(evaluated), max(settled, best), True
            if n_evals + 2 * keep.sum() > self.max_evals:
                bound = max(settled, float(bounds[keep].max()))
                return np.vstack(points), np.concatenate(evaluated), bound, False
            lower, upper = _halves(lower[keep], upper[keep])
            centres = 0.5 * (lower + upper)
            values = problem.values(centres)
            n_evals += len(centres)
            points.append(centres)
            evaluated.append(values)
            best = max(best, float(values.max()))


class LipschitzOracle(BranchAndBoundOracle):
    """The branch and bound with the bounds of a stated Lipschitz constant
    (``problem.lipschitz``: :class:`~sipkl.sip.pricing.space.IndexPointPricing` from
    ``SemiInfiniteProgram.solve(lipschitz=L)``): ``h(c) + L·‖r‖₂`` per cell.

    Parameters
    ----------
    max_evals : int
        As for :class:`BranchAndBoundOracle`. The cost grows like (L·width/tol)^p near the
        maximizers: a proof to a tight tolerance is cheap for p = 1, affordable for p = 2
        with a moderate ``tol``.
    """

    name = "lipschitz"

    def check(self, problem) -> None:
        if problem.lipschitz is None:
            raise ValueError(f"lipschitz: LipschitzOracle needs a stated Lipschitz constant "
                             f"for {problem.family!r} (solve(..., lipschitz=L))")

    def cell_bounds(self, problem, lower, upper, values):
        centres = 0.5 * (lower + upper)
        radii = np.maximum(upper - centres, centres - lower)
        return values + problem.lipschitz * np.linalg.norm(radii, axis=1)


class IntervalOracle(BranchAndBoundOracle):
    """The branch and bound with the bounds of interval arithmetic on g
    (:func:`~sipkl.sip.constraints.intervals.upper_bounds`: the natural extension and the
    mean-value form, whose overestimate shrinks with the square of the cell's width): no
    constant from the user, for g written with NumPy's elementary operations on t.

    Parameters
    ----------
    max_evals : int
        As for :class:`BranchAndBoundOracle` (default 200 000: a cell costs about two
        evaluations of g on intervals, each some ten times a plain one). Near a
        nondegenerate maximum the cells to split per level stay few in any dimension; the
        count grows like 2^p per level, so proofs are cheap for p ≤ 3 and may run out of
        ``max_evals`` beyond.
    """

    name = "interval"

    def __init__(self, max_evals: int = 200_000):
        super().__init__(max_evals)

    def check(self, problem) -> None:
        """A ``ValueError`` (the reason) where g has no interval form."""
        reason = problem.constraint.interval_form(problem.x)
        if reason is not None:
            raise ValueError(f"oracle: IntervalOracle cannot bound {problem.constraint.name!r}"
                             f": {reason}")

    def cell_bounds(self, problem, lower, upper, values):
        return problem.upper_bounds(lower, upper)


def _halves(lower: np.ndarray, upper: np.ndarray):
    """The two halves of each cell [lower, upper], split at the midpoint of its longest
    side."""
    axis = np.argmax(upper - lower, axis=1)
    rows = np.arange(len(lower))
    middle = 0.5 * (lower[rows, axis] + upper[rows, axis])
    left_upper, right_lower = upper.copy(), lower.copy()
    left_upper[rows, axis] = middle
    right_lower[rows, axis] = middle
    return np.vstack([lower, right_lower]), np.vstack([left_upper, upper])
