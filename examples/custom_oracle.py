"""Write your own pricing oracle: a log-grid scan refined by a bounded scalar search.

An oracle is any object with ``price(pricing_round) -> OracleResult``. For every concrete family in
the round it maximizes the price ``θ ↦ <W, K(θ)>`` (``problem.values`` and
``problem.value_and_grad`` evaluate it) and returns its best distinct candidates, best first.
This one handles one-parameter families; it is local (it proves nothing), so a run ends
``converged_local``. ``main`` compares it with the certified DC oracle on the tutorial data.
"""
import numpy as np
from scipy.optimize import minimize_scalar

from sipkl import OracleResult
from sipkl.core.selection import best_distinct


class ScanOracle:
    """Scan ``size`` log-spaced values of θ, then refine the best one by Brent's method."""

    def __init__(self, size: int = 100):
        self.size = size

    def price(self, pricing_round):
        scored = []
        for problem in pricing_round.problems:  # one pricing problem per concrete family
            lo, hi = max(problem.lower[0], 1e-6), problem.upper[0]
            grid = np.geomspace(lo, hi, self.size)
            values = problem.values(grid[:, None])  # all prices in one vectorized call
            k = int(np.argmax(values))
            bracket = (grid[max(k - 1, 0)], grid[min(k + 1, self.size - 1)])
            best = minimize_scalar(lambda t, p=problem: -p.value_and_grad([t])[0],
                                   bounds=bracket, method="bounded",
                                   options={"xatol": 1e-9 * bracket[1]})
            scored += [(values[k], problem.column(grid[k])),
                       (-best.fun, problem.column(best.x))]
        columns, scores = best_distinct(scored, pricing_round.n_price, exclude=pricing_round.columns)
        return OracleResult(columns, scores, sum(p.n_evals for p in pricing_round.problems))


def main(argv=None) -> dict:
    import argparse

    from sklearn.datasets import make_moons
    from sklearn.preprocessing import StandardScaler

    from sipkl import GaussianIso, IKLClassifier

    parser = argparse.ArgumentParser(description="ScanOracle next to the DC oracle (IKL)")
    parser.add_argument("--quick", action="store_true", help="40 points instead of 100")
    X, y = make_moons(40 if parser.parse_args(argv).quick else 100, noise=0.25, random_state=0)
    X = StandardScaler().fit_transform(X)
    out = {}
    for name, oracle in (("scan", ScanOracle()), ("dc", "dc")):
        clf = IKLClassifier(GaussianIso(), C=10.0, oracle=oracle, obj_tol=0.0,
                            random_state=0).fit(X, y)
        out[name] = clf.result_
        print(f"{name:5s} {clf.result_.status:18s} objective {clf.result_.objective:.6g}  "
              f"{len(clf.kernel_)} kernels, {clf.n_iter_} iterations")
    return out


if __name__ == "__main__":
    main()
