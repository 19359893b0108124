"""Local NLP pricing: multi-start over the family's box (gehler_nowozin §3.2), all starts
moved at once by projected gradient ascent, the best ones polished by IPOPT."""
from __future__ import annotations

import numpy as np

from solvers import Status, ascend_box, maximize_box

from ..engine import OracleResult, PricingRound
from .common import best_distinct


class IpoptOracle:
    """Maximize ``<W, K(θ)>`` by local searches from several starting points.

    Starts, per family: the ``n_warm`` current columns of that family with the highest
    price (warm starts), and the ``n_starts`` best of ``n_samples`` sample points (the
    family's deterministic spread, then random points), each costing one price evaluation.
    Screening a large sample finds basins that a few blind starts miss (e.g. the pair of
    signal dimensions of the IKL chessboard, invisible to the gradient of either dimension
    alone).

    The search has two stages. All starts ascend together by spectral projected gradient
    (:func:`solvers.ascend_box`, relative tolerance ``tol``, at most ``max_iter`` steps):
    one batched evaluation of the family (:meth:`KernelFamily.batch_pricer`, two matrix
    products for the Gaussians) moves every start. Then the ``n_polish`` (default: the
    round's ``n_price``) best distinct end points are polished by IPOPT with analytic
    gradients and a limited-memory Hessian (same ``tol`` and ``max_iter``), and only the
    polished points are candidates: local maxima reached from different starts then agree
    to IPOPT's tolerance. SciPy's L-BFGS-B takes over when cyipopt is missing or a polish
    fails (``method="lbfgsb"`` uses it throughout), each fallback an attempt in the result.
    Not global: see the DC oracle for a bound.
    """

    def __init__(self, n_starts: int = 8, n_samples: int = 200, n_warm: int = 4,
                 method: str = "ipopt", tol: float = 1e-5, max_iter: int = 60,
                 n_polish: int | None = None):
        self.n_starts, self.n_samples, self.n_warm = n_starts, n_samples, n_warm
        self.method, self.tol, self.max_iter, self.n_polish = method, tol, max_iter, n_polish

    def price(self, round: PricingRound) -> OracleResult:
        scored, attempts, statuses = [], [], []
        for problem in round.problems:
            if problem.family.finite:
                raise ValueError(f"IpoptOracle needs a continuous family, got the finite "
                                 f"{problem.family!r}: use oracle='grid'")
            sample = problem.family.starting_points(round.X, max(self.n_samples, self.n_starts),
                                                    round.rng)
            starts = self._best(problem, sample, self.n_starts)
            own = np.array([c.theta for c in round.columns if c.family == problem.family])
            if len(own) and self.n_warm > 0:
                starts = np.vstack([self._best(problem, own, self.n_warm), starts])
            ascent = ascend_box(problem.values_and_grads, starts, problem.lower, problem.upper,
                                tol=self.tol, max_iter=self.max_iter)
            ends = [(v, problem.column(x)) for v, x in zip(ascent.fun, ascent.x)]
            polish, _ = best_distinct(ends, self.n_polish or round.n_price, rtol=1e-3)
            res = maximize_box(problem.value_and_grad, np.array([c.theta for c in polish]),
                               problem.lower, problem.upper, method=self.method, tol=self.tol,
                               max_iter=self.max_iter)
            attempts += [a for a in res.attempts if a.solver != self.method or not a.status.usable]
            statuses += res.statuses
            scored += [(v, problem.column(x)) for v, x in zip(res.fun, res.x)]
        # local maxima found from different starts agree only to the solver's tolerance
        columns, scores = best_distinct(scored, round.n_price, exclude=round.columns, rtol=1e-3)
        status = Status.OPTIMAL if any(s is Status.OPTIMAL for s in statuses) else (
            Status.OPTIMAL_INACCURATE if any(s.usable for s in statuses) else Status.SOLVER_ERROR)
        return OracleResult(columns, scores, sum(p.n_evals for p in round.problems),
                            status=status, attempts=attempts)

    @staticmethod
    def _best(problem, thetas, n) -> np.ndarray:
        """The ``n`` distinct points of ``thetas`` with the highest price."""
        values, _ = problem.values_and_grads(thetas, grad=False)
        chosen, _ = best_distinct([(v, problem.column(t)) for v, t in zip(values, thetas)], n)
        return np.array([c.theta for c in chosen])
