"""Enumeration over a finite candidate list: global over the list."""
from __future__ import annotations

import numpy as np

from ..core.contracts import OracleBase, OracleResult, PricingRound
from ..core.selection import best_distinct


class GridOracle(OracleBase):
    """Price every candidate of a finite list and return the best.

    Parameters
    ----------
    candidates : array (n_candidates, n_params), optional
        The list, used for every family whose parameter dimension matches. ``None``: each
        family's default list of ``size`` points (all members of a finite family).
    size : int
        Length of the default list per family.

    When every family is finite and ``candidates`` is ``None``, the whole family is
    enumerated, and the result carries as a proven ``upper_bound`` the maximum price of the
    members that are not columns yet (−∞ when every member is one): the bound on the price of
    a *new* column, which is what a certificate needs (the current columns' own prices are
    the master's business, and need not lie below the threshold, e.g. for NKRR).
    """

    def __init__(self, candidates=None, size: int = 50):
        self.candidates = candidates
        self.size = size

    def proves_bound(self, family, n_features: int) -> bool:
        """Whether pricing ``family`` enumerates it whole (every member finite, no
        ``candidates``), so that each result carries a proven upper bound."""
        return self.candidates is None and all(m.finite for m in family.members(n_features))

    def price(self, pricing_round: PricingRound) -> OracleResult:
        values, thetas, owners = [], [], []
        exhaustive = self.candidates is None and all(p.family.finite for p in pricing_round.problems)
        for k, problem in enumerate(pricing_round.problems):
            if self.candidates is not None:
                grid = np.asarray(self.candidates, float).reshape(len(self.candidates), -1)
            else:
                grid = problem.family.grid(pricing_round.X, self.size, 0)
            values.append(problem.values(grid))
            thetas += list(grid)
            owners.append(np.full(len(grid), k))
        values, owners = np.concatenate(values), np.concatenate(owners)
        order = np.argsort(-values, kind="stable")
        # Columns are built for the best candidates only; the list grows until n_price
        # distinct new ones are found (or the candidates run out), so the result is exact.
        top = pricing_round.n_price + len(pricing_round.columns)
        while True:
            scored = [(values[i], pricing_round.problems[owners[i]].column(thetas[i])) for i in order[:top]]
            columns, scores = best_distinct(scored, pricing_round.n_price, exclude=pricing_round.columns)
            if len(columns) == pricing_round.n_price or top >= len(order):
                break
            top *= 2
        bound = self._new_column_bound(pricing_round, values, thetas, owners) if exhaustive else None
        return OracleResult(columns, scores, len(values), upper_bound=bound)

    @staticmethod
    def _new_column_bound(pricing_round: PricingRound, values, thetas, owners) -> float:
        """The largest price of a candidate that is not a current column (−∞ if none)."""
        current = set(pricing_round.columns)
        fresh = [i for i in range(len(values))  # a loop over the members of a finite family
                 if pricing_round.problems[owners[i]].column(thetas[i]) not in current]
        return float(values[fresh].max()) if fresh else -np.inf
