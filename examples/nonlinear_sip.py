"""A semi-infinite program that is not convex, written once in NumPy: CUTEst's TFI1.

    min ‖x‖²   s.t.   x₁ + x₂·exp(x₃t) + exp(2t) − 2 sin(4t) ≤ 0   for all t ∈ [0, 1]

(Tanaka, Fukushima & Ibaraki 1988). g is not convex in x, so the convex cvxpy master cannot
take it; :class:`~sipkl.sip.NonlinearSemiInfiniteProgram` runs the same exchange method with
a local NLP master (IPOPT, warm-started from the last round's x) and takes the x-gradients by
the complex step. Then the fseminf documentation example, from MATLAB's start: its printed
answer 0.0771 is a local solution, and the run finds the optimum 0 at (½, ½, ½).
"""
import numpy as np

from sipkl.sip import Box, NonlinearConstraint, NonlinearSemiInfiniteProgram
from sipkl.sip.library.nonlinear import NONLINEAR_PROBLEMS


def main(argv=None) -> dict:
    import argparse

    parser = argparse.ArgumentParser(description="TFI1 and the fseminf example")
    parser.add_argument("--quick", action="store_true", help="(the same run: it is quick)")
    parser.parse_args(argv)

    def g(x, t):  # t: (m, 1) index points -> m values
        s = t[:, 0]
        return x[0] + x[1] * np.exp(x[2] * s) + np.exp(2 * s) - 2 * np.sin(4 * s)

    program = NonlinearSemiInfiniteProgram(lambda x: x @ x,
                                           NonlinearConstraint(g, Box([0.0], [1.0])),
                                           x0=[1.0, 1.0, 1.0])
    tfi1 = program.solve()
    print(f"TFI1: {tfi1.status}, f = {tfi1.objective:.10f} (SIF solution 5.3346872) at "
          f"x = {np.round(tfi1.x, 6).tolist()}, active t = {tfi1.points[0].ravel().tolist()}, "
          f"{tfi1.nit} rounds, derivatives: {tfi1.differences}")
    fseminf = NONLINEAR_PROBLEMS["fseminf"]
    local = fseminf.build().solve(lipschitz=fseminf.lipschitz())
    print(f"fseminf: {local.status}, f = {local.objective:.3g} at x = "
          f"{np.round(local.x, 6).tolist()} (MATLAB prints 0.0771, a local solution); "
          f"proven bound on max g/s: {local.upper_bound:.3g}")
    return {"tfi1": tfi1, "fseminf": local}


if __name__ == "__main__":
    main()
