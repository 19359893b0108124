"""The exchange method of sipkl.sip against its fixed-grid baseline, in the same run.

Two uniform approximations: exp on [−1, 1] by a cubic (1-D; the exchange method with the
certified Lipschitz oracle and with IPOPT) and 1/(1 + t1² + 2 t2²) on [0, 1]² by a quadratic
in (t1, t2) (2-D; IPOPT). Each is solved by ``problem.solve`` and by
``problem.solve_discretized(n)`` for grids of n points per coordinate. The table gives the
time of each as a ratio to the exchange method's (measured one after the other, best of
``--repeat``), the error of the objective against a reference (HiGHS on a grid of 20 001
points, 1-D, or 801² points, 2-D), and the largest violation of the computed solution on
that reference grid.

Run:  .venv/bin/python benchmarks/sip_exchange.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import time

import cvxpy as cp
import numpy as np
from scipy.optimize import linprog

from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram


def minimax(basis, target, T: Box):
    """min z s.t. |basis(t) @ a − target(t)| ≤ z on T, and its variables."""
    a, z = cp.Variable(basis(T.initial_points(1)).shape[1]), cp.Variable()
    program = SemiInfiniteProgram(cp.Minimize(z), [
        SemiInfiniteConstraint(lambda a, t: basis(t) @ a - target(t) - z, a, T, vectorized=True),
        SemiInfiniteConstraint(lambda a, t: target(t) - basis(t) @ a - z, a, T, vectorized=True)])
    return program, a


def reference(basis, target, points):
    """The discrete minimax value on ``points`` by HiGHS."""
    B, y = basis(points), target(points)
    ones, n = np.ones((len(points), 1)), B.shape[1]
    res = linprog(np.r_[np.zeros(n), 1.0], A_ub=np.block([[B, -ones], [-B, -ones]]),
                  b_ub=np.r_[y, -y], bounds=[(None, None)] * (n + 1), method="highs")
    return res.fun


def timed(call, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = call()
        best = min(best, time.perf_counter() - start)
    return best, out


CASES = {
    "exp, 1-D": (lambda t: np.vander(t[:, 0], 4, increasing=True), lambda t: np.exp(t[:, 0]),
                 Box([-1.0], [1.0]), 20001,
                 {"lipschitz": lambda a: np.abs(a[1:]) @ np.arange(1, 4) + np.e}, (11, 101, 1001)),
    "rational, 2-D": (lambda t: np.column_stack([np.ones(len(t)), t[:, 0], t[:, 1],
                                                 t[:, 0] * t[:, 1], t[:, 0] ** 2, t[:, 1] ** 2]),
                      lambda t: 1.0 / (1.0 + t[:, 0] ** 2 + 2.0 * t[:, 1] ** 2),
                      Box([0.0, 0.0], [1.0, 1.0]), 801, {}, (11, 31, 101)),
}


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description="exchange method vs fixed grid (sipkl.sip)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    rows = []
    for name, (basis, target, T, n_ref, certified, grids) in CASES.items():
        check = T.tensor_grid(n_ref)
        best = reference(basis, target, check)
        program, a = minimax(basis, target, T)
        runs = [("solve, ipopt", lambda: program.solve("ipopt", random_state=0))]
        if certified:
            runs.append(("solve, lipschitz", lambda: program.solve(**certified)))
        runs += [(f"discretized, n={n}", lambda n=n: program.solve_discretized(n)) for n in grids]
        base = None
        for label, call in runs:
            seconds, res = timed(call, args.repeat)
            violation = np.abs(basis(check) @ a.value - target(check)).max() - res.objective
            base = base or seconds
            rows.append({"case": name, "method": label, "status": str(res.status),
                         "seconds": seconds, "ratio": seconds / base,
                         "objective error": res.objective - best, "violation": violation})
    print("| case | method | status | time / exchange (ipopt) | objective − reference | "
          "max violation |\n|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['method']} | {r['status']} | {r['ratio']:.2f} "
              f"({r['seconds'] * 1e3:.0f} ms) | {r['objective error']:.2e} | "
              f"{r['violation']:.2e} |")
    return rows


if __name__ == "__main__":
    main()
