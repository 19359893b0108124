"""A robust portfolio: the best worst-case return when the returns lie in an ellipsoid.

    max_{w, z} z   s.t.   rᵀw ≥ z   for all r ∈ E = {μ + κ L u : ‖u‖₂ ≤ 1},
                          w ≥ 0,  Σ w = 1,

with μ the expected returns, Σ = L Lᵀ their covariance and κ the size of the confidence
ellipsoid (Ben-Tal and Nemirovski's robust portfolio; Goldfarb and Iyengar 2003). One
semi-infinite constraint g(w, z, r) = z − rᵀw ≤ 0, affine in the index point r, over an
index set of dimension n (the assets): the exchange method with the exact pricing of
:class:`~sipkl.sip.pricing.sets.AffineOracle` (the worst returns for the current w, in closed
form: r* = μ − κ L Lᵀw / ‖Lᵀw‖) ends ``certified_optimal``, and its optimum is checked
against the robust counterpart, the second-order cone program

    max_w  μᵀw − κ ‖Lᵀw‖₂   s.t.  w ≥ 0,  Σ w = 1

(solved twice: as written here by hand, and as :func:`sipkl.sip.robust.robust_counterpart`
builds it from the semi-infinite constraint). The same run with returns in per-mille
(the set ×1000) gives the same portfolio.
"""
import time

import cvxpy as cp
import numpy as np

from sipkl.sip import SemiInfiniteConstraint, SemiInfiniteProgram
from sipkl.sip.sets.ellipsoids import Ellipsoid
from sipkl.sip.robust import robust_program
from sipkl.sip.pricing.sets import AffineOracle

#: the conic solver's tolerances for the reference counterparts (tighter than its defaults)
TIGHT = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}


def market(n: int = 8, seed: int = 0):
    """Expected returns μ (a few % a period) and a covariance Σ = L Lᵀ with a common factor."""
    rng = np.random.default_rng(seed)
    mu = 0.01 + 0.04 * rng.random(n)
    factor = rng.normal(size=n) * 0.05
    noise = rng.normal(size=(n, n)) * 0.03
    sigma = np.outer(factor, factor) + noise @ noise.T / n + 1e-4 * np.eye(n)
    return mu, np.linalg.cholesky(sigma)


def portfolio_program(mu, L, kappa: float, units: float = 1.0):
    """The semi-infinite program, returns in ``units`` (1000: per mille) — the same program."""
    w, z = cp.Variable(len(mu)), cp.Variable()
    E = Ellipsoid(units * mu, units * kappa * L, name="returns")
    worst = SemiInfiniteConstraint(lambda w, r: z - r @ w / units, w, E, name="worst case")
    return SemiInfiniteProgram(cp.Maximize(z), worst, [w >= 0, cp.sum(w) == 1]), w, z


def closed_form(mu, L, kappa: float):
    """The robust counterpart written by hand: max μᵀw − κ‖Lᵀw‖ over the simplex."""
    w = cp.Variable(len(mu))
    problem = cp.Problem(cp.Maximize(mu @ w - kappa * cp.norm(L.T @ w, 2)),
                         [w >= 0, cp.sum(w) == 1])
    problem.solve(solver="CLARABEL", **TIGHT)
    return problem.value, w.value


def main(argv=None) -> dict:
    import argparse

    parser = argparse.ArgumentParser(description="robust portfolio over an ellipsoid")
    parser.add_argument("--quick", action="store_true", help="(the same run: it is quick)")
    parser.add_argument("--assets", type=int, default=8)
    parser.add_argument("--kappa", type=float, default=1.0)
    args = parser.parse_args(argv)
    mu, L = market(args.assets)
    start = time.perf_counter()
    program, w, z = portfolio_program(mu, L, args.kappa)
    result = program.solve(AffineOracle(), tol=1e-9)
    seconds = time.perf_counter() - start
    weights = w.value.copy()
    print(f"exchange method: {result.status.value}, worst-case return {result.objective:.10f} "
          f"after {result.nit} rounds ({seconds:.2f} s)")
    value, reference = closed_form(mu, L, args.kappa)
    print(f"robust counterpart (SOCP by hand):  {value:.10f}")
    counterpart = robust_program(cp.Maximize(z), program.semi_infinite, program.constraints)
    counterpart.solve(solver="CLARABEL", **TIGHT)
    print(f"robust counterpart (robust_program): {counterpart.value:.10f}")
    print(f"difference {abs(result.objective - value):.2e}; weights "
          f"{np.round(weights, 4).tolist()}")
    per_mille, w_mille, _ = portfolio_program(mu, L, args.kappa, units=1000.0)
    again = per_mille.solve(AffineOracle(), tol=1e-9)
    print(f"returns per mille: {again.status.value}, {again.objective:.10f} after "
          f"{again.nit} rounds")
    return {"result": result, "weights": weights, "closed_form": value,
            "closed_form_weights": reference, "counterpart": counterpart.value,
            "per_mille": again, "per_mille_weights": w_mille.value, "seconds": seconds}


if __name__ == "__main__":
    main()
