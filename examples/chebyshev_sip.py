"""Your first semi-infinite program: the best uniform approximation of exp on [−1, 1].

    min_{c, z} z   s.t.   |Σ_k c_k t^k − exp(t)| ≤ z   for all t ∈ [−1, 1]

two semi-infinite constraints (the error below z, and above −z) over the index set
T = [−1, 1]. By Chebyshev's equioscillation theorem the error of the best polynomial of
degree n − 1 reaches ±z with alternating signs at n + 1 points: the active index points of
the solution. ``main`` solves it with the certified Lipschitz oracle and, with
``--figure PATH``, draws the error curve with its active points (the tutorial's figure).
"""
import cvxpy as cp
import numpy as np

from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram


def main(argv=None) -> dict:
    import argparse

    parser = argparse.ArgumentParser(description="Chebyshev approximation of exp on [-1, 1]")
    parser.add_argument("--quick", action="store_true", help="(the same run: it is quick)")
    parser.add_argument("--figure", help="write the error curve to this PNG file")
    args = parser.parse_args(argv)
    # --8<-- [start:model]
    n = 4                                    # coefficients: a polynomial of degree 3
    c, z = cp.Variable(n), cp.Variable()     # the coefficients and the uniform error
    T = Box([-1.0], [1.0])

    def error(c, t):                         # t: (m, 1) index points -> m errors
        return np.vander(t[:, 0], n, increasing=True) @ c - np.exp(t[:, 0])

    above = SemiInfiniteConstraint(lambda c, t: error(c, t) - z, c, T, vectorized=True,
                                   name="above")
    below = SemiInfiniteConstraint(lambda c, t: -error(c, t) - z, c, T, vectorized=True,
                                   name="below")
    problem = SemiInfiniteProgram(cp.Minimize(z), [above, below])
    # --8<-- [end:model]
    # --8<-- [start:solve]
    # |d/dt error| ≤ Σ_k k|c_k| + e on [−1, 1]: a Lipschitz constant at every c
    result = problem.solve(lipschitz=lambda c: np.abs(c[1:]) @ np.arange(1, n) + np.e)
    print(result.status, f"max error {result.objective:.8f} after {result.nit} iterations")
    print("coefficients", np.round(c.value, 6))
    for name, points, weights in zip(("above", "below"), result.points, result.multipliers):
        print(name, "active t:", np.round(points.ravel(), 4), "multipliers:",
              np.round(weights, 4))
    # --8<-- [end:solve]
    if args.figure:
        draw(c.value, result, n, args.figure)
    return {"result": result, "coefficients": c.value}


def draw(coefficients, result, n, path) -> None:
    """The error curve, ±z, and the active index points of each constraint."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # --8<-- [start:plot]
    t = np.linspace(-1.0, 1.0, 801)
    err = lambda t: np.vander(t, n, increasing=True) @ coefficients - np.exp(t)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot(t, err(t), label="error p(t) − exp(t)")
    for level in (result.objective, -result.objective):
        ax.axhline(level, color="grey", lw=0.8, ls="--")
    for (name, marker), points in zip((("above", "^"), ("below", "v")), result.points):
        ax.plot(points[:, 0], err(points[:, 0]), marker, ms=9, ls="none",
                label=f"active points of '{name}'")
    ax.set_xlabel("t")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize=8)
    fig.tight_layout()
    # --8<-- [end:plot]
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
