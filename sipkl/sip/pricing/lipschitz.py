"""Certified pricing from a stated Lipschitz constant: batched branch and bound over boxes.

If t ↦ h(t) is L-Lipschitz in the Euclidean norm on a cell with centre c and half-widths r,
then ``max_cell h ≤ h(c) + L·‖r‖₂`` (the bound of Piyavskii's method, with a cone over the
whole cell). The oracle splits every cell whose bound may still matter, all of them at once
(one vectorized evaluation of the new centres per round): while no value above the engine's
cut is found, until every bound is at most the cut — a proof that no index point is
violated; once one is, until every bound lies within ``max(cut − λ, best − cut)`` of the best
value found: the best point then violates by at least half the largest violation (or is the
maximum to the cut's slack), enough for the exchange method, which needs a violated point,
not the most violated one.
"""
from __future__ import annotations

import numpy as np

from ...core.contracts import OracleBase, OracleResult, PricingRound
from ...core.selection import best_distinct
from ...solvers import Attempt, Status

#: evaluated points per pricing problem, the best, among which the candidates are chosen
CANDIDATES = 1000


class LipschitzOracle(OracleBase):
    """Global pricing with a proven ``upper_bound`` for pricing problems with a stated
    Lipschitz constant (``problem.lipschitz``: :class:`~sipkl.sip.pricing.space.IndexPointPricing`
    from ``SemiInfiniteProgram.solve(lipschitz=L)``).

    Parameters
    ----------
    max_evals : int
        Evaluations at most per pricing problem and round. Past it the bound is still valid
        but looser (status ``ITERATION_LIMIT``, recorded as an attempt); the engine then
        ends ``no_new_column`` rather than certifying.

    Cells are split in two across their longest side. The cost grows like (L·width/tol)^p
    near the maximizers: a proof to a tight tolerance is cheap for p = 1, affordable for
    p = 2 with a moderate ``tol``.
    """

    def __init__(self, max_evals: int = 2_000_000):
        self.max_evals = max_evals

    def proves_bound(self, family, n_features=None) -> bool:
        """Always: every result carries a proven upper bound."""
        return True

    def price(self, pricing_round: PricingRound) -> OracleResult:
        cut = pricing_round.price_cut()
        slack = max(cut - pricing_round.threshold, 0.0)
        scored, bounds, attempts, status = [], [], [], Status.OPTIMAL
        for problem in pricing_round.problems:
            if problem.lipschitz is None:
                raise ValueError(f"lipschitz: LipschitzOracle needs a stated Lipschitz constant "
                                 f"for {problem.family!r} (solve(..., lipschitz=L))")
            points, values, bound, done = self.branch_and_bound(problem, cut, slack)
            bounds.append(bound)
            if not done:
                status = Status.ITERATION_LIMIT
                attempts.append(Attempt("lipschitz", status, f"{problem.family!r}: max_evals="
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
        """The search of the module docstring on one pricing problem (with its
        ``lipschitz``): every evaluated point and value, the proven bound on the maximum,
        and whether the search ended by its rule (``False``: ``max_evals`` reached). With
        ``cut = 0`` and no value above it found, a bound ≤ 0 proves t ↦ g(x, t) ≤ 0 on T."""
        lower, upper, lipschitz = problem.lower, problem.upper, problem.lipschitz
        centres, radii = (0.5 * (lower + upper))[None, :], (0.5 * (upper - lower))[None, :]
        values = problem.values(centres)
        points, evaluated = [centres], [values]
        best, settled = float(values.max()), -np.inf  # settled: the bound of dropped cells
        n_evals = 1
        while True:
            bounds = values + lipschitz * np.linalg.norm(radii, axis=1)
            keep = bounds > (best + max(slack, best - cut) if best > cut else cut)
            settled = max(settled, float(bounds[~keep].max(initial=-np.inf)))
            if not keep.any():
                return np.vstack(points), np.concatenate(evaluated), max(settled, best), True
            if n_evals + 2 * keep.sum() > self.max_evals:
                bound = max(settled, float(bounds[keep].max()))
                return np.vstack(points), np.concatenate(evaluated), bound, False
            centres, radii = _halves(centres[keep], radii[keep])
            values = problem.values(centres)
            n_evals += len(centres)
            points.append(centres)
            evaluated.append(values)
            best = max(best, float(values.max()))


def _halves(centres: np.ndarray, radii: np.ndarray):
    """The two halves of each cell, split across its longest side."""
    axis = np.argmax(radii, axis=1)
    rows = np.arange(len(centres))
    radii = radii.copy()
    radii[rows, axis] *= 0.5
    shift = np.zeros_like(centres)
    shift[rows, axis] = radii[rows, axis]
    return np.vstack([centres - shift, centres + shift]), np.vstack([radii, radii])
