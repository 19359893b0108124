"""Staged pricing: cheap oracles first, an exact one only when they find no violation."""
from __future__ import annotations

import dataclasses

from ..core.contracts import Oracle, OracleBase, OracleResult, PricingRound, proves_bound


class OracleChain(OracleBase):
    """Call ``oracles`` in order; return the first result with a violator.

    A violator is a candidate priced above ``pricing_round.cut`` — the value above which the engine
    adds a column, λ + tol·|λ| + atol: the tolerance is the engine's, the chain only reads it
    (a round built without a cut uses the threshold λ). When no oracle finds one, the last
    result is returned, so an exact last oracle (e.g. :class:`DCGaussianOracle`) is called
    exactly when the cheap ones (grid, IPOPT) see no violation, and its upper bound is what
    certifies optimality.

    The result carries the ``n_evals`` and ``attempts`` of every oracle called, and as
    ``upper_bound`` the smallest bound any of them proved (each is valid).
    """

    def __init__(self, oracles):
        self.oracles = list(oracles)
        if not self.oracles:
            raise ValueError("oracles: at least one oracle is needed")
        for oracle in self.oracles:
            if not isinstance(oracle, Oracle):
                raise TypeError(f"oracles must have a price(pricing_round) method, got {oracle!r}")

    def proves_bound(self, family, n_features: int) -> bool:
        """Whether the last oracle proves its bound (it answers every round that ends a run)."""
        return proves_bound(self.oracles[-1], family, n_features)

    def price(self, pricing_round: PricingRound) -> OracleResult:
        cut = pricing_round.price_cut()
        n_evals, attempts, bounds = 0, [], []
        for oracle in self.oracles:
            result = oracle.price(pricing_round)
            n_evals += result.n_evals
            attempts += result.attempts
            if result.upper_bound is not None:
                bounds.append(result.upper_bound)
            if len(result.scores) and result.scores[0] > cut:
                break
        return dataclasses.replace(result, n_evals=n_evals, attempts=attempts,
                                   upper_bound=min(bounds) if bounds else None)

    def __repr__(self):
        return f"OracleChain({self.oracles!r})"
