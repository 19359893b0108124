"""Certified global pricing for Gaussian families by DC branch and bound (gehler_nowozin §3.2).

For :class:`~sipkl.kernel_learning.families.GaussianIso` (one scale s, on all features or on a subset —
which covers every member of :class:`~sipkl.kernel_learning.families.GaussianSeparate`) and
:class:`~sipkl.kernel_learning.families.GaussianARD` with at most three scales, the price on the support of W is

    <W, K(s)> = Σ_i W_ii + Σ_{i<j} (W_ij + W_ji) exp(−Σ_d s_d D_ijd),

with D_ij = ‖x_i − x_j‖² (one scale) or D_ijd = ([x_i]_d − [x_j]_d)² (one scale per
dimension): a signed sum of exponentials of s, split by sign into a difference of convex
functions (eq. 10, after Argyriou et al. 2006) and maximized globally by
:func:`solvers.dc.maximize_exp_sum`, which proves an upper bound. By Theorem 2.2, column
generation stopped by a global pricing step is optimal for the whole family: this bound is
what lets the engine report ``"certified_optimal"``.
"""
from __future__ import annotations

import numpy as np

from ..solvers import Attempt, Status
from ..solvers.dc import MAX_DIM, maximize_exp_sum

from ..core.contracts import OracleBase, OracleResult, PricingRound
from ..core.selection import best_distinct
from .families.base import ExponentialSum

#: statuses of the branch and bound, best first (the round reports its worst)
_RANK = (Status.OPTIMAL, Status.OPTIMAL_INACCURATE, Status.ITERATION_LIMIT)


def exp_sum_terms(problem):
    """Weights w and exponent rows D of ``<W, K(s)> = Σ_k w_k exp(−⟨s, D_k⟩)`` for the pricing
    problem of a family whose price is such a sum (:class:`~sipkl.kernel_learning.families.base.
    ExponentialSum`: GaussianIso, the members of GaussianSeparate, GaussianARD): the diagonal
    as one constant term (D = 0), then each pair i < j once."""
    family = problem.family
    if not isinstance(family, ExponentialSum):
        raise TypeError(f"DCGaussianOracle prices GaussianIso, GaussianSeparate and GaussianARD "
                        f"(≤ {MAX_DIM} scales) only, got {family!r}")
    D = family.exp_sum_exponents(problem.geometry)
    if D.shape[1] > MAX_DIM:
        raise ValueError(f"DCGaussianOracle handles at most {MAX_DIM} scales, got "
                         f"{D.shape[1]} ({family!r}; select features, or use MultiStartOracle)")
    W = problem.W
    iu = np.triu_indices(len(W), 1)
    weights = np.concatenate([[np.trace(W)], W[iu] + W.T[iu]])
    return weights, np.vstack([np.zeros((1, D.shape[1])), D])


class DCGaussianOracle(OracleBase):
    """Global pricing with a proven upper bound, for Gaussian families written with scales.

    Parameters
    ----------
    rtol, atol : float
        The branch and bound stops when its bound exceeds the best price by at most
        ``max(atol, rtol·|best|)`` (plus the floating-point resolution of the price, see
        :mod:`sipkl.solvers.dc`). Keep ``rtol`` below the engine's ``tol`` so that the bound can
        certify: the engine stops as ``"certified_optimal"`` when it is at most
        ``λ + tol·|λ| + atol``.
    max_nodes : int
        Simplices bisected at most per family; past it the bound is still valid but looser
        (status ``ITERATION_LIMIT``, recorded as an attempt).

    The result's ``upper_bound`` is the largest of the families' bounds, ``n_evals`` the
    number of price evaluations. Pricing problems carrying a ``regularizer`` (an arbitrary
    callable r(θ), which no bound can cover) are refused with a ``ValueError``.
    """

    def __init__(self, rtol: float = 1e-6, atol: float = 0.0, max_nodes: int = 20_000):
        self.rtol, self.atol, self.max_nodes = rtol, atol, max_nodes

    def proves_bound(self, family, n_features: int) -> bool:
        """Always: every round's result carries a proven upper bound."""
        return True

    def price(self, pricing_round: PricingRound) -> OracleResult:
        scored, bounds, statuses, attempts, n_evals = [], [], [], [], 0
        for problem in pricing_round.problems:
            if problem.regularizer is not None:
                raise ValueError("DCGaussianOracle cannot bound a pricing regularizer r(θ); "
                                 "use MultiStartOracle or GridOracle with a regularizer")
            weights, exponents = exp_sum_terms(problem)
            own = sum(c.family == problem.family for c in pricing_round.columns)
            res = maximize_exp_sum(weights, exponents, problem.lower, problem.upper,
                                   rtol=self.rtol, atol=self.atol, n_best=pricing_round.n_price + own,
                                   max_nodes=self.max_nodes)
            n_evals += res.nfev
            bounds.append(res.upper_bound)
            statuses.append(res.status)
            if res.status is not Status.OPTIMAL:
                attempts.append(Attempt("dc", res.status, f"{problem.family!r}: {res.message}"))
            scored += [(v, problem.column(x)) for v, x in zip(res.fun, res.x)]
        columns, scores = best_distinct(scored, pricing_round.n_price, exclude=pricing_round.columns)
        return OracleResult(columns, scores, n_evals, status=max(statuses, key=_RANK.index),
                            upper_bound=max(bounds), attempts=attempts)
