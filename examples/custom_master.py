"""Write your own restricted master: fit the label kernel y yᵀ by non-negative least squares.

A master is any object with ``solve(grams, warm_start) -> MasterSolution``. This one solves

    min_{d ≥ 0}  ½ ‖Σ_m d_m K_m − y yᵀ‖²_F

over the current columns K_1 … K_m. The derivative of the objective in the weight of a new
column K is −<y yᵀ − K_d, K>_F (K_d = Σ_m d_m K_m), so a column improves the master iff
<W, K> > 0 with the price matrix W = y yᵀ − K_d and the threshold λ = 0. At the optimum
(KKT) every column prices at most 0, exactly 0 where d_m > 0: the semi-infinite program is
min ½‖K_d − y yᵀ‖² over non-negative measures d on the family, and its dual constraint
<W, K(θ)> ≤ 0 for every θ is what the oracle checks.
``main`` runs it with the DC oracle on the tutorial data and scores an SVM on the kernel.
"""
import numpy as np
from scipy.optimize import nnls

from sipkl import MasterSolution, PriceMatrix
from sipkl.solvers import Status
from sipkl.kernel_learning.space import KernelSpace


class TargetFitMaster:
    """Non-negative least-squares fit of ``y yᵀ`` by the current columns (λ = 0)."""

    def __init__(self, y):
        self.target = np.outer(y, y).astype(float)

    def solve(self, grams, warm_start):
        A = np.stack([K.ravel() for K in grams], axis=1)  # one column per Gram matrix
        weights, _ = nnls(A, self.target.ravel())  # exact: warm_start is not needed
        W = self.target - (A @ weights).reshape(self.target.shape)
        prices = A.T @ W.ravel()  # <W, K_m>: 0 where d_m > 0, ≤ 0 elsewhere
        return MasterSolution(
            weights=weights, objective=0.5 * float(np.sum(W * W)),
            price=PriceMatrix(dense=W), threshold=0.0,
            gap=max(0.0, float(prices.max())),  # KKT residual of the restricted master
            status=Status.OPTIMAL, column_prices=prices)


def main(argv=None) -> dict:
    import argparse

    from sklearn.datasets import make_moons
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from sipkl import ColumnGeneration, GaussianIso, LearnedKernel
    from sipkl.kernel_learning.dc_oracle import DCGaussianOracle
    from sipkl.core.contracts import Column

    parser = argparse.ArgumentParser(description="TargetFitMaster with the DC oracle")
    parser.add_argument("--quick", action="store_true", help="40 points instead of 100")
    X, y = make_moons(40 if parser.parse_args(argv).quick else 100, noise=0.25, random_state=0)
    X, y = StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)
    engine = ColumnGeneration(TargetFitMaster(y), DCGaussianOracle(), atol=1e-6 * len(y) ** 2,
                              n_price=1, random_state=0)
    result = engine.run(KernelSpace(X, GaussianIso()), [Column.make(GaussianIso(), 1.0)])
    kernel = LearnedKernel(result.columns, result.weights)
    accuracy = SVC(kernel="precomputed").fit(kernel(X), y).score(kernel(X), y)
    print(f"{result.status}: {kernel}\nobjective {result.objective:.6g}, "
          f"{result.nit} iterations, SVM training accuracy {accuracy:.3f}")
    return {"result": result, "kernel": kernel, "accuracy": accuracy}


if __name__ == "__main__":
    main()
