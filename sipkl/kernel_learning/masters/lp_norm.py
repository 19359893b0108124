"""ℓp-norm MKL with hinge loss (Kloft, Brefeld, Sonnenburg & Zien, JMLR 2011; afkanpour's D2
is p = 2).

Over the current columns K_1 … K_m the master minimizes the SVM dual value of the combined
kernel over the non-negative part of the ℓp unit ball, p > 1:

    J(d) = max_α { 1ᵀα − Σ_m d_m T_m(α) : 0 ≤ α ≤ C, yᵀα = 0 },   T_m(α) = ½ (α∘y)ᵀ K_m (α∘y),
    min_d J(d)   s.t.  d ≥ 0,  ‖d‖_p ≤ 1.

Its dual replaces the ℓ1 master's max_m T_m by the dual norm, q = p/(p − 1):

    max_α  1ᵀα − ‖T(α)‖_q   s.t.  0 ≤ α ≤ C,  yᵀα = 0,

so the duality gap of (d, α), α optimal for K(d), is ‖T(α)‖_q − dᵀT(α) ≥ 0 (Hölder), zero
exactly at d = T^{q−1}/‖T‖_q^{q−1}. Solved by Kloft's alternation (their eq. 12 with the
primal block norms ‖w_m‖² = 2 d_m² T_m(α)): an SVM for K(d), then

    d_m ← ‖w_m‖^{2/(p+1)} / (Σ_k ‖w_k‖^{2p/(p+1)})^{1/p},

until the gap is at most ``gap_tol·|J|``.

Pricing. The price matrix is the ℓ1 master's, W = ½ (α∘y)(α∘y)ᵀ, so a candidate's price is
T_θ(α). Unlike the ℓ1 ball, the ℓp ball (p > 1) is smooth at a point with d_θ = 0: giving a
new kernel the weight ε costs O(ε^p) of the budget and gains ε T_θ(α), so *every* candidate with
a positive price improves J, and the threshold is λ = 0. At the optimum every kernel of the
family carries a positive weight: use this master over a finite list (the grid oracle then
certifies the run once every candidate is a column); over a continuous family it never prices
out.
"""
from __future__ import annotations

import numpy as np

from ...compute.gram_storage import gram_storage
from ...core.contracts import MasterBase, MasterSolution
from ...solvers import Attempt, Status
from ...utils.threads import one_blas_thread
from ...utils.validation import check_labels, check_positive
from ..price_matrix import PriceMatrix
from .hinge import combined_svm
from .models import HingeModel


class HingeMKLLpNorm(MasterBase):
    """ℓp-norm MKL master (hinge loss, p > 1): Kloft's alternation of SVM and weight updates.

    Parameters
    ----------
    y : array of ±1 labels
    C : float
        Soft-margin parameter.
    p : float
        The norm of the weight constraint ‖d‖_p ≤ 1, p > 1 (p = 2: afkanpour's D2).
    gap_tol : float
        Stop when the duality gap ‖T‖_q − dᵀT is at most ``gap_tol·|J|`` (relative).
    svm_tol : float
        libsvm's tolerance for each SVM.
    max_steps : int
        SVM solves per master solve at most (the run then reports ``ITERATION_LIMIT``).
    """

    def __init__(self, y, C: float = 1.0, p: float = 2.0, gap_tol: float = 1e-6,
                 svm_tol: float = 1e-6, max_steps: int = 500):
        self.y, self.C = check_labels(y), check_positive(C, "C")
        if not (np.isscalar(p) and np.isfinite(p) and p > 1):
            raise ValueError(f"p must be a finite number above 1, got {p!r}")
        self.p, self.gap_tol, self.svm_tol, self.max_steps = float(p), gap_tol, svm_tol, max_steps

    def solve(self, grams, warm_start=None) -> MasterSolution:
        # matrix-vector products and small solves: see sipkl.utils.threads
        with one_blas_thread():
            return self._solve(gram_storage(grams), warm_start)

    def _unit(self, v) -> np.ndarray:
        """``v ≥ 0`` scaled to the ℓp unit sphere."""
        return v / np.linalg.norm(v, self.p)

    def _svm(self, grams, d, start=None):
        """The SVM for K(d), and T(α) (the columns' prices); on lazy Gram matrices its
        working set starts from the support of ``start`` (the last SVM's α)."""
        svm, _ = combined_svm(grams, d, self.y, self.C, self.svm_tol, start=start)
        w = svm.alpha * self.y
        return svm, 0.5 * w @ grams.products(w)

    def _solve(self, grams, warm_start) -> MasterSolution:
        m, p = len(grams), self.p
        q = p / (p - 1.0)
        d = np.full(m, 1.0)
        if warm_start is not None and len(warm_start) == m and np.any(np.asarray(warm_start) > 0):
            d = np.clip(np.asarray(warm_start, dtype=float), 0.0, None)
        d = self._unit(d)
        svm, T = self._svm(grams, d)
        attempts, status = list(svm.attempts), svm.status
        if np.any(d == 0) and T.max() > 0:
            # Kloft's update keeps a zero weight at zero (‖w_m‖ = 0): start the new columns
            # from the dual's optimality condition d ∝ T^{q−1} instead
            d = self._unit(T ** (q - 1.0))
            svm, T = self._svm(grams, d, svm.alpha)
            attempts += svm.attempts
        for _ in range(self.max_steps):
            J = svm.objective
            if np.linalg.norm(T, q) - d @ T <= self.gap_tol * abs(J) or not T.any():
                break
            norms = np.sqrt(2.0 * d ** 2 * T)  # ‖w_m‖
            d = self._unit(norms ** (2.0 / (p + 1.0)))
            svm, T = self._svm(grams, d, svm.alpha)
            attempts += svm.attempts
            status = svm.status if svm.status is not Status.OPTIMAL else status
        else:
            status = Status.ITERATION_LIMIT
            attempts.append(Attempt("lp_norm", status, f"max_steps={self.max_steps} reached"))
        alpha, y = svm.alpha, self.y
        w = alpha * y
        dual_norm = float(np.linalg.norm(T, q))
        return MasterSolution(weights=d, objective=float(alpha.sum() - d @ T),
                              price=PriceMatrix.rank_one(w, 0.5), threshold=0.0,
                              gap=dual_norm - float(d @ T), status=status,
                              model=HingeModel(alpha, svm.bias, y, self.C),
                              column_prices=T, attempts=attempts)
