"""Greedy pairwise maximization of the kernel-target alignment (pothin_richard §3–4).

Alignment with the target T = Y Yᵀ (eqs. 2–4; binary: Y = y ∈ {±1}ⁿ, so T = K* = y yᵀ):

    A(K) = <K, T>_F / (‖K‖_F ‖T‖_F)                                          (uncentred, eq. 4)

and, as an option, the centred alignment A(HKH, HTH) with H = I − 11ᵀ/n; every formula below
holds with K, T replaced by their centred versions (<HKH, HTH> = <HKH, T>). For several
classes Y holds the ±1 one-vs-rest codes, so that T is the sum of the binary targets; with
two classes this is 2 y yᵀ, the paper's target.

**Master step** — Table 1 with the closed form (7). The current combination K̂ = Σ_i μ_i K_i
and one candidate K_j are combined as μ₁K̂ + μ₂K_j maximizing problem (6) with m = 2 and
λ = 0; for λ = 0 the maximizer of (6) maximizes the alignment (max_t −t²‖K‖² + t<K, T> =
<K, T>²/4‖K‖², so (6) maximizes A² over the cone). With p = ‖K̂‖², q = ‖K_j‖², r = <K̂, K_j>,
a = <K̂, T>, b = <K_j, T>:

    μ₂* = (p b − r a) / (2 (p q − r²)),   μ₁* = (a − 2 r μ₂*) / (2 p),
    (μ₁⁺, μ₂⁺) = (μ₁*, μ₂*) if both > 0,  (1, 0) if μ₂* ≤ 0,  (0, 1) if μ₁* ≤ 0.     (7)

The alignment is scale invariant, so the weights are then normalized to sum to one (the
learned kernel stays on the scale of its columns, which matters for the SVM's C).

**Price.** The gain of the best pair is not linear in K_j. Its sign is: μ₂* > 0 ⇔ p b − r a > 0
⇔ <W, K_j> > 0 for

    W = ∇A(K̂) = T / (‖K̂‖ ‖T‖) − <K̂, T> K̂ / (‖K̂‖³ ‖T‖)                    (eq. 12's gradient)

(<W, K̂> = 0 by scale invariance). So W is the price matrix with threshold 0, and the exact
pairwise alignment is, by a 2 × 2 Schur complement,

    A(best pair)² = A(K̂)² + <W, K_j>² ‖K̂‖² / (q − r²/p)      (when (7) is interior):

the linear price divided by the norm of the part of K_j orthogonal to K̂. The oracle ranks by
the linear price; the master re-ranks the candidates the engine just added by this exact gain
and merges the best one only (Table 1's argmax_j); the others keep weight 0 and are pruned.
With a grid oracle and ``n_price`` ≥ the number of candidates this is exactly Table 1.

**Stop.** Table 1 stops when the best gain is at most ε. That gain is the objective decrease
(objective = −A), so the engine's ``obj_tol`` = ε stops it — relative to A (≤ 1, hence never
earlier than the paper's absolute rule), and after keeping that last small step.

**Parameter steps** (§4, eq. 12) change the θ of the columns, which the engine owns and the
master never sees (it receives Gram matrices only), so they cannot be a master step without
breaking the engine's contract. They are :func:`refine_parameters`, a post-processing of a
learned kernel through the families' ``price_and_grad`` with the same W.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...solvers import Status

from ...core.contracts import Column, MasterBase, MasterSolution
from ..families import LearnedKernel
from ..price_matrix import PriceMatrix
from .alignment import AlignmentTarget, center
from .models import AlignmentModel


def target_codes(y) -> np.ndarray:
    """Y with T = Y Yᵀ: the ±1 labels (binary) or the ±1 one-vs-rest codes (one column each)."""
    y = np.asarray(y)
    if y.ndim != 1 or len(y) == 0:
        raise ValueError("y must be a non-empty 1-D array of labels")
    classes = np.unique(y)
    if len(classes) < 2:
        raise ValueError(f"y must contain at least 2 classes, got {len(classes)}")
    codes = np.where(y[:, None] == classes[None, :], 1.0, -1.0)
    return codes[:, 1:] if len(classes) == 2 else codes


class _Target(AlignmentTarget):
    """T = Y Yᵀ for the ±1 codes of :func:`target_codes`; with ``centered=False`` the factor is
    left uncentred (the paper's alignment), so ``inner`` and ``alignment`` of
    :class:`~sipkl.kernel_learning.masters.alignment.AlignmentTarget` give <K, T> and A(K) of eq. (4)."""

    def __init__(self, y, centered: bool):
        codes = target_codes(y)
        super().__init__(codes)
        self.centered = centered
        if not centered:
            self.Yc, self.norm = codes, float(np.linalg.norm(codes.T @ codes))

    def kernel(self, K):
        return center(K) if self.centered else K

    def alignment_and_gradient(self, K) -> tuple[float, np.ndarray]:
        """A(K) and W = ∇A(K) (through H when ``centered``); K is not yet centred."""
        Kc = self.kernel(K)
        norm = np.linalg.norm(Kc)
        A = self.alignment(Kc)
        W = (self.matrix() - (A * self.norm / norm) * Kc) / (norm * self.norm)
        return A, 0.5 * (W + W.T)


def pairwise_weights(p, q, r, a, b):
    """The closed form (7) for λ = 0, vectorized over candidates (q, r, b arrays).

    Returns (μ₁⁺, μ₂⁺). When K̂ and K_j are parallel (p q = r²) the better one alone is kept.
    """
    q, r, b = (np.asarray(v, dtype=float) for v in (q, r, b))
    det = p * q - r * r
    parallel = det <= 1e-12 * p * q
    safe = np.where(parallel, 1.0, det)
    mu2 = (p * b - r * a) / (2.0 * safe)
    mu1 = (a - 2.0 * r * mu2) / (2.0 * p)
    interior = (mu1 > 0) & (mu2 > 0) & ~parallel
    second = np.where(parallel, b * np.sqrt(p) > a * np.sqrt(q), (mu1 <= 0) & (mu2 > 0))
    return (np.where(interior, mu1, np.where(second, 0.0, 1.0)),
            np.where(interior, mu2, np.where(second, 1.0, 0.0)))


def pair_alignment(mu1, mu2, p, q, r, a, b, target_norm):
    """A(μ₁K̂ + μ₂K_j) from the inner products (vectorized)."""
    norm2 = mu1 ** 2 * p + 2 * mu1 * mu2 * r + mu2 ** 2 * q
    return (mu1 * a + mu2 * b) / (np.sqrt(norm2) * target_norm)


class PairwiseAlignmentMaster(MasterBase):
    """The stagewise master of pothin_richard Table 1 (see the module notes).

    ``solve(grams, warm_start)``: with ``warm_start=None`` the combination is the best
    aligned column alone (Table 1's first line, "Choose j* = argmax_j A(K_j, K*)"); the
    others get weight 0. Otherwise the columns with warm-start weight 0 are the candidates
    just added: the best by exact pairwise alignment is merged by (7) if it improves A.

    The solution carries W = ∇A(K̂) (dense), threshold 0, ``objective`` −A(K̂) and
    ``gap`` 0: the master is stagewise, its problem is the pair problem, which (7) solves
    exactly (``column_prices`` show how far K̂ is from stationary over the columns' cone).
    """

    def __init__(self, y, centered: bool = False):
        self.target = _Target(y, centered)
        self.centered = centered

    def solve(self, grams: Sequence[np.ndarray],
              warm_start: np.ndarray | None = None) -> MasterSolution:
        fresh = warm_start is None or not np.any(np.asarray(warm_start) > 0)
        weights = (self._start(grams) if fresh
                   else self._merge(grams, np.asarray(warm_start, dtype=float)))
        K = sum(w * G for w, G in zip(weights, grams) if w > 0)
        A, W = self.target.alignment_and_gradient(K)
        prices = np.array([np.sum(W * G) for G in grams])
        return MasterSolution(weights=weights, objective=-A, price=PriceMatrix(dense=W),
                              threshold=0.0, gap=0.0,
                              status=Status.OPTIMAL, model=AlignmentModel(A),
                              column_prices=prices)

    def _start(self, grams):
        t = self.target
        kc = [t.kernel(G) for G in grams]
        align = [t.alignment(G) for G in kc]
        weights = np.zeros(len(grams))
        weights[int(np.argmax(align))] = 1.0
        return weights

    def _merge(self, grams, warm_start):
        t = self.target
        weights = np.clip(warm_start, 0.0, None) / np.clip(warm_start, 0.0, None).sum()
        new = np.flatnonzero(weights == 0)
        if len(new) == 0:
            return weights
        Kc = t.kernel(sum(w * G for w, G in zip(weights, grams) if w > 0))
        p, a = float(np.sum(Kc * Kc)), t.inner(Kc)
        cand = [t.kernel(grams[j]) for j in new]
        q = np.array([np.sum(G * G) for G in cand])
        r = np.array([np.sum(Kc * G) for G in cand])
        b = np.array([t.inner(G) for G in cand])
        mu1, mu2 = pairwise_weights(p, q, r, a, b)
        gains = pair_alignment(mu1, mu2, p, q, r, a, b, t.norm)
        best = int(np.argmax(gains))
        if gains[best] <= a / (np.sqrt(p) * t.norm):
            return weights
        weights = mu1[best] * weights
        weights[new[best]] = mu2[best]
        return weights / weights.sum()


def refine_parameters(kernel: LearnedKernel, X, y, *, centered: bool = False, eta: float = 0.5,
                      tol: float = 1e-5, max_steps: int = 100):
    """Gradient ascent of the alignment in the parameters of the selected kernels (§4).

    Step 3 of the alternating procedure: for every column with weight μ_i > 0 from a
    continuous family, θ_i ← θ_i + η ∇_{θ_i} A(K_Θ) (eq. 12), with the weights fixed. Since
    ∂A/∂θ_i = μ_i <∇A(K_Θ), ∂K_i/∂θ_i> and ∇A(K_Θ) is the master's price matrix W, each
    gradient is the family's ``price_and_grad(geometry, θ_i, W)`` gradient times μ_i.
    Steps are clipped to the families' boxes; a step that does not increase A is retried
    with η halved (the paper keeps η = 0.5 fixed; the halving keeps the ascent monotone).
    Stops when a step improves A by less than ``tol`` (the paper: 10⁻⁵), or after
    ``max_steps``. Returns the refined :class:`LearnedKernel` and the alignment after each step.
    """
    X = np.asarray(X, dtype=float)
    target = _Target(y, centered)
    columns, weights = list(kernel.columns), np.asarray(kernel.weights, dtype=float)
    active = [i for i, (c, w) in enumerate(zip(columns, weights))
              if w > 0 and not c.family.finite]
    geometry = {c.family: c.family.geometry(X) for c in columns}
    thetas = [np.asarray(c.theta, dtype=float) for c in columns]

    def gram(ths):
        return sum(w * c.family.gram_from(geometry[c.family], th)
                   for c, w, th in zip(columns, weights, ths) if w > 0)

    A, W = target.alignment_and_gradient(gram(thetas))
    history = [A]
    for _ in range(max_steps):
        if not active:
            break
        trial = list(thetas)
        for i in active:
            family = columns[i].family
            grad = family.price_and_grad(geometry[family], thetas[i], W)[1]
            lo, hi = family.param_bounds(X.shape[1])
            trial[i] = np.clip(thetas[i] + eta * weights[i] * grad, lo, hi)
        A_new, W_new = target.alignment_and_gradient(gram(trial))
        if A_new <= A:
            eta *= 0.5
            if eta < 1e-12:
                break
            continue
        thetas, W, gain, A = trial, W_new, A_new - A, A_new
        history.append(A)
        if gain < tol:
            break
    refined = [Column.make(c.family, th) for c, th in zip(columns, thetas)]
    return LearnedKernel(refined, weights), history
