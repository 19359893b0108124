"""A robust linear program over budget sets (Bertsimas and Sim, "The price of robustness").

    max_x cᵀx   s.t.   ãᵢᵀx ≤ bᵢ   for all ãᵢ ∈ Uᵢ   (i = 1 … m),     0 ≤ x ≤ 1,

    Uᵢ = {aᵢ + âᵢ∘z : |z_j| ≤ 1, Σ_j |z_j| ≤ Γ}:

each coefficient ã_ij may deviate from its nominal a_ij by up to â_ij, but at most Γ of them
in a row at once (fractionally). One semi-infinite constraint per row, g_i(x, t) = tᵀx − b_i
over the budget set Uᵢ = ``Polytope.budget(aᵢ, âᵢ, Γ)``, affine in t: the exchange method with
:class:`~sipkl.sip.pricing.sets.AffineOracle` (the worst coefficients for the current x in
closed form: the ⌊Γ⌋ largest â_ij·x_j at their extremes, a fraction of the next) ends
``certified_optimal``. Its optimum is checked against Bertsimas and Sim's robust counterpart,
the linear program

    max cᵀx   s.t.   aᵢᵀx + Γ λᵢ + Σ_j μ_ij ≤ bᵢ,   λᵢ + μ_ij ≥ â_ij x_j,
                     λ, μ ≥ 0,   0 ≤ x ≤ 1,

assembled here by hand and solved by SciPy's HiGHS (independent of cvxpy and of the
package), and against :func:`sipkl.sip.robust.robust_program`. The same run with the
coefficients in thousandths (the sets ×1000) gives the same x.
"""
import time

import cvxpy as cp
import numpy as np
from scipy.optimize import linprog

from sipkl.sip import SemiInfiniteConstraint, SemiInfiniteProgram
from sipkl.sip.sets.polytopes import Polytope
from sipkl.sip.robust import robust_program
from sipkl.sip.pricing.sets import AffineOracle


def data(n: int = 12, m: int = 4, seed: int = 1):
    """Nominal rows a (m × n), deviations â = 20 % of them, right-hand sides b, costs c."""
    rng = np.random.default_rng(seed)
    a = 1.0 + 9.0 * rng.random((m, n))
    return a, 0.2 * a, 0.3 * a.sum(axis=1), 1.0 + 4.0 * rng.random(n)


def robust_lp(a, deviation, b, c, budget: float, units: float = 1.0):
    """The semi-infinite program, coefficients in ``units`` (1000: thousandths)."""
    x = cp.Variable(len(c))
    rows = [SemiInfiniteConstraint(lambda x, t, i=i: t @ x / units - b[i], x,
                                   Polytope.budget(units * a[i], units * deviation[i], budget),
                                   name=f"row {i}")
            for i in range(len(b))]
    return SemiInfiniteProgram(cp.Maximize(c @ x), rows, [x >= 0, x <= 1]), x


def bertsimas_sim(a, deviation, b, c, budget: float):
    """The robust counterpart as an LP, by HiGHS: variables x (n), λ (m), μ (m × n)."""
    m, n = a.shape
    size = n + m + m * n
    rows, rhs = [], []
    for i in range(m):  # a_iᵀx + Γ λ_i + Σ_j μ_ij ≤ b_i
        row = np.zeros(size)
        row[:n], row[n + i], row[n + m + i * n:n + m + (i + 1) * n] = a[i], budget, 1.0
        rows.append(row)
        rhs.append(b[i])
        for j in range(n):  # â_ij x_j − λ_i − μ_ij ≤ 0
            row = np.zeros(size)
            row[j], row[n + i], row[n + m + i * n + j] = deviation[i, j], -1.0, -1.0
            rows.append(row)
            rhs.append(0.0)
    bounds = [(0.0, 1.0)] * n + [(0.0, None)] * (m + m * n)
    res = linprog(-np.r_[c, np.zeros(m + m * n)], A_ub=np.array(rows), b_ub=rhs,
                  bounds=bounds, method="highs")
    assert res.status == 0, res.message
    return -res.fun, res.x[:n]


def main(argv=None) -> dict:
    import argparse

    parser = argparse.ArgumentParser(description="robust LP over budget sets")
    parser.add_argument("--quick", action="store_true", help="(the same run: it is quick)")
    parser.add_argument("--budget", type=float, default=2.5)
    args = parser.parse_args(argv)
    a, deviation, b, c = data()
    start = time.perf_counter()
    program, x = robust_lp(a, deviation, b, c, args.budget)
    result = program.solve(AffineOracle(), tol=1e-9)
    seconds = time.perf_counter() - start
    solution = x.value.copy()
    print(f"exchange method: {result.status.value}, cᵀx = {result.objective:.10f} after "
          f"{result.nit} rounds ({seconds:.2f} s), "
          f"{sum(len(p) for p in result.points)} index points")
    value, reference = bertsimas_sim(a, deviation, b, c, args.budget)
    print(f"Bertsimas-Sim LP (HiGHS):   {value:.10f}")
    counterpart = robust_program(cp.Maximize(c @ x), program.semi_infinite, program.constraints)
    counterpart.solve(solver="CLARABEL")
    print(f"robust_program (Clarabel):  {counterpart.value:.10f}")
    nominal = cp.Problem(cp.Maximize(c @ x), [a @ x <= b, x >= 0, x <= 1])
    nominal.solve(solver="CLARABEL")
    print(f"difference {abs(result.objective - value):.2e}; the nominal LP's optimum "
          f"{nominal.value:.6f} (the price of robustness: "
          f"{100 * (1 - value / nominal.value):.1f} %)")
    program_k, x_k = robust_lp(a, deviation, b, c, args.budget, units=1000.0)
    again = program_k.solve(AffineOracle(), tol=1e-9)
    print(f"coefficients in thousandths: {again.status.value}, {again.objective:.10f} after "
          f"{again.nit} rounds")
    return {"result": result, "x": solution, "bertsimas_sim": value,
            "bertsimas_sim_x": reference, "counterpart": counterpart.value,
            "nominal": nominal.value, "thousandths": again, "thousandths_x": x_k.value,
            "seconds": seconds}


if __name__ == "__main__":
    main()
