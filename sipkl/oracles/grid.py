"""Enumeration over a finite candidate list: global over the list."""
from __future__ import annotations

import numpy as np

from ..engine import OracleResult, PricingRound
from .common import best_distinct


class GridOracle:
    """Price every candidate of a finite list and return the best.

    Parameters
    ----------
    candidates : array (n_candidates, n_params), optional
        The list, used for every family whose parameter dimension matches. ``None``: each
        family's default list of ``size`` points (all members of a finite family).
    size : int
        Length of the default list per family.

    When every family is finite and ``candidates`` is ``None``, the whole family is
    enumerated, and the result carries the maximum price as a proven ``upper_bound``.
    """

    def __init__(self, candidates=None, size: int = 50):
        self.candidates = candidates
        self.size = size

    def price(self, round: PricingRound) -> OracleResult:
        scored = []
        n_evals = 0
        exhaustive = self.candidates is None and all(p.family.finite for p in round.problems)
        for problem in round.problems:
            if self.candidates is not None:
                thetas = np.asarray(self.candidates, float).reshape(len(self.candidates), -1)
            else:
                thetas = problem.family.grid(round.X, self.size, 0)
            values = problem.values(thetas)
            n_evals += len(thetas)
            scored += [(v, problem.column(t)) for v, t in zip(values, thetas)]
        columns, scores = best_distinct(scored, round.n_price, exclude=round.columns)
        bound = max(v for v, _ in scored) if exhaustive else None
        return OracleResult(columns, scores, n_evals, upper_bound=bound)
