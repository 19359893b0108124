"""Kernel learning at large n: Nyström columns on landmarks drawn once per fit.

An exact column K(θ) has n² entries, and so has every product of the master and every
price of the oracle over it. For a Gaussian family

    k_s(x, x′) = exp(−Σ_d s_d ([x]_d − [x′]_d)²)        (GaussianARD; GaussianIso: all s_d = s)

this column space replaces K(s) by its Nyström approximation on q landmarks L ⊂ X, drawn once
per fit (Williams & Seeger 2001; the same points for every s):

    K̂(s) = K_s(X, L) A_s⁻¹ K_s(L, X) = Φ_s Φ_sᵀ,   A_s = K_s(L, L) + εI = C_s C_sᵀ,
    Φ_s = K_s(X, L) C_s⁻ᵀ   (n × q features),

with a jitter ε = :data:`JITTER` on the unit diagonal (dimensionless, so the same in any units
of X). The learned kernel is Σ_m d_m K̂(s_m) = Z Zᵀ with Z = [√d_m Φ_m]: nothing of size n²
is held, the memory is n·q per column.

**The price** of s for W = U diag(σ) Uᵀ (IKL: ½ w wᵀ, w = α∘y) is, on the support S of U,

    P(s) = <W, K̂(s)> = Σ_k σ_k v_kᵀ A_s⁻¹ v_k,      v_k = K_s(L, X_S) u_k,

smooth in s everywhere (A_s ⪰ εI), s = 0 included. With a_k = A_s⁻¹ v_k, B = K_s(L, X_S) and
Δ_d the squared differences in coordinate d (∂B/∂s_d = −B∘Δ_d, ∂A/∂s_d = −K_s(L, L)∘Δ_d):

    ∂P/∂s_d = Σ_k σ_k [ a_kᵀ (K_s(L, L)∘Δ_d) a_k − 2 a_kᵀ (B∘Δ_d) u_k ],

where, by (x − x′)² = x² − 2xx′ + x′², aᵀ(B∘Δ_d)u = Σ_l a_l x_ld² (Bu)_l −
2 (a∘x_d)ᵀ B (u∘x_d) + Σ_i (Bᵀa)_i u_i x_id²: the products B [u, u∘X_S] and Bᵀa give every
coordinate at once (cost q·|S|·(2D + 3) per s besides forming B, and q³ for A's factor).

**What a certificate means here.** The run solves IKL over the approximated family
{K̂(s)}: its statuses and gaps are those of that problem, exactly as for exact kernels.
How far the answer is from the exact family is measured afterwards, on the support vectors,
by :func:`exact_kernel_gap`.

**Near-identity columns.** Where s is so large that the kernel between a point and its nearest
landmark is below ε, K̂(s) ≈ 0 off the landmarks (an exact column would be ≈ I): such a column
is priced far below its exact price, so the search does not pick it. This is stated, not
repaired: near-identity kernels generalize poorly, and the exact-kernel gap reports the
exact prices of the columns the run kept.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular

from ..compute.arrays import NumpyArrays, array_backend
from ..compute.features import JITTER, FeatureGram, landmark_factor, stacked_gaussian
from ..compute.lazy_gram import LazyGram
from ..core.contracts import Column
from ..utils.config import budget
from ..utils.threads import one_blas_thread, ordered_map
from .families.base import KernelFamily
from .families.gaussian import GaussianARD, GaussianIso
from .price_matrix import PriceMatrix
from .space import KernelPricingProblem, KernelSpace


def check_nystrom_family(family: KernelFamily, n_features: int) -> None:
    """A ``ValueError`` unless every member of ``family`` is a :class:`GaussianIso` or a
    :class:`GaussianARD` (the families whose Nyström prices are differentiated here)."""
    for member in family.members(n_features):
        if type(member) not in (GaussianIso, GaussianARD):
            raise ValueError(f"n_landmarks: Nyström columns are built for the Gaussian "
                             f"families (GaussianIso, GaussianSeparate, GaussianARD), got "
                             f"{type(member).__name__}")


class NystromSpace(KernelSpace):
    """The column space of kernel learning with Nyström columns (see the module doc).

    Parameters
    ----------
    X : array (n, D)
        The training points.
    family : KernelFamily
        A Gaussian family (:func:`check_nystrom_family`).
    landmarks : array of int
        Indices into ``X`` of the landmarks L (drawn by the caller, once per fit).
    device : str or None
        ``None``: NumPy on the CPU. A torch device (``"cuda"``): the features, products,
        K(d) on working sets and prices are computed there (:mod:`sipkl.compute.torch_backend`).
    """

    def __init__(self, X: np.ndarray, family: KernelFamily, landmarks, device=None):
        check_nystrom_family(family, X.shape[1])
        landmarks = np.asarray(landmarks)
        if landmarks.ndim != 1 or not len(landmarks) or landmarks.dtype.kind not in "iu":
            raise ValueError("landmarks must be a non-empty 1-D array of indices into X")
        super().__init__(X, family)
        self.landmarks = landmarks
        self.lazy = True
        self.arrays = array_backend(device)

    def _scaled(self, column: Column) -> tuple[np.ndarray, np.ndarray]:
        """The points and the landmarks in the column's coordinates, coordinate d times
        √s_d (GaussianARD: one scale per coordinate; GaussianIso: the one scale for all)."""
        Xs = column.family._select(self.X)
        r = np.sqrt(np.broadcast_to(np.asarray(column.theta, float), (Xs.shape[1],)))
        return Xs * r, Xs[self.landmarks] * r

    def landmark_coefficients(self, column: Column, weight: float, w: np.ndarray) -> np.ndarray:
        """β = d C⁻ᵀ Φ[S]ᵀ w_S = d A⁻¹ K_θ(L, X_S) w_S (length q): the column's part of the
        decision function, f(x) = Σ_m k_θm(x, L) β_m + b, for the master's w = α∘y."""
        C = landmark_factor(self._scaled(column)[1])
        support = np.flatnonzero(w)
        projected = self.gram(column).feature_product(support, w[support])
        return weight * solve_triangular(C.T, projected, lower=False)

    def _gram(self, column: Column) -> FeatureGram:
        return self.arrays.features(*self._scaled(column))

    def pricing_problem(self, family: KernelFamily, price: PriceMatrix,
                        regularizer=None) -> "NystromPricingProblem":
        if price.factor is None:
            raise ValueError("Nyström columns are priced for a factored price matrix "
                             "W = U diag(σ) Uᵀ (the hinge masters'); got a dense one")
        support = price.support
        Xs = family._select(self.X)
        return NystromPricingProblem(family, Xs[support], price.factor[support], price.signs,
                                     Xs[self.landmarks], self.X.shape[1], regularizer,
                                     self.arrays)


class NystromPricingProblem(KernelPricingProblem):
    """``s ↦ <W, K̂(s)> − r(s)`` on the support of W (see the module doc): the points
    ``X_support`` and landmarks ``X_landmarks`` in the family's selected coordinates, W's
    factor ``U`` on the support and its ``signs`` σ. Values and gradients of many s in one
    call, in chunks of about ``lazy_block_elements`` (a budget of :mod:`sipkl.utils.config`)
    entries of B, on the worker threads in force, computed where ``arrays`` says
    (:class:`NumpyArrays`, or a torch device's: the same code on its ``xp``). No second
    derivatives are stated."""

    def __init__(self, family, X_support, U, signs, X_landmarks, n_features, regularizer=None,
                 arrays=NumpyArrays()):
        self.arrays = arrays
        self.X_support, self.U, self.signs, self.X_landmarks = (
            arrays.asarray(X_support),
            arrays.asarray(np.reshape(U, (len(X_support), -1))),
            arrays.asarray(signs), arrays.asarray(X_landmarks))
        self._setup(family, n_features, regularizer)

    def _batch_pricer(self):
        return self._prices

    def values(self, thetas) -> np.ndarray:
        thetas = np.asarray(thetas, float).reshape(len(thetas), -1)
        return self.values_and_grads(thetas, grad=False)[0]

    def _prices(self, thetas, grad=True, dtype=np.float64):
        """Values (and gradients) of the rows of ``thetas``; ``dtype`` is not used (the
        solves with A need double precision)."""
        thetas = np.atleast_2d(np.asarray(thetas, float))
        q, m = len(self.X_landmarks), len(self.X_support)
        per_chunk = max(1, budget("lazy_block_elements") // max(1, q * m))
        chunks = [thetas[k:k + per_chunk] for k in range(0, len(thetas), per_chunk)]
        to = self.arrays.numpy
        with one_blas_thread():
            parts = [(to(v), g if g is None else to(g)) for v, g in ordered_map(
                lambda chunk: self._chunk(self.arrays.asarray(chunk), grad), chunks)]
        values = np.concatenate([v for v, _ in parts])
        return values, (np.concatenate([g for _, g in parts]) if grad else None)

    def _chunk(self, thetas, grad: bool):
        """Values and gradients of a chunk of θ's, as stacked arrays (c × q × |S|), in the
        arrays of ``xp`` (NumPy's or torch's functions of the same names)."""
        xp = self.arrays.xp
        family, X_S, X_L, U = self.family, self.X_support, self.X_landmarks, self.U
        D = X_S.shape[1]
        r = xp.sqrt(xp.broadcast_to(thetas, (len(thetas), D)))[:, None, :]  # per coordinate
        Z_S, Z_L = X_S[None] * r, X_L[None] * r
        B = stacked_gaussian(Z_L, Z_S, xp)                   # (c, q, m)
        K_LL = stacked_gaussian(Z_L, Z_L, xp)
        diagonal = np.arange(X_L.shape[0])
        K_LL[:, diagonal, diagonal] = 1.0
        A = K_LL + 0.0
        A[:, diagonal, diagonal] = 1.0 + JITTER               # K(L, L) + εI
        V = xp.matmul(B, U)                                   # (c, q, r)
        a = xp.linalg.solve(A, V)                             # A⁻¹ v_k
        values = xp.einsum("cqk,cqk,k->c", V, a, self.signs)
        if not grad:
            return values, None
        quad_S, quad_L = X_S * X_S, X_L * X_L
        gradient = 0.0
        for k, sigma in enumerate(self.signs):  # the rank of W (1 for the hinge masters)
            u, ak = U[:, k], a[:, :, k]                                           # (m,), (c, q)
            Bu = xp.matmul(B, xp.column_stack([u, u[:, None] * X_S]))             # (c, q, D+1)
            Bta = xp.matmul(ak[:, None, :], B)[:, 0]                              # Bᵀa
            aBDu = (xp.einsum("cq,qd,cq->cd", ak, quad_L, Bu[:, :, 0])
                    - 2.0 * xp.einsum("cq,qd,cqd->cd", ak, X_L, Bu[:, :, 1:])
                    + xp.einsum("cm,m,md->cd", Bta, u, quad_S))
            Ka = xp.matmul(K_LL, xp.concatenate([ak[:, :, None], ak[:, :, None] * X_L],
                                                axis=2))                        # (c, q, D+1)
            aKDa = (2.0 * xp.einsum("cq,qd,cq->cd", ak, quad_L, Ka[:, :, 0])
                    - 2.0 * xp.einsum("cq,qd,cqd->cd", ak, X_L, Ka[:, :, 1:]))
            gradient = gradient + sigma * (aKDa - 2.0 * aBDu)
        if type(family) is GaussianIso:
            gradient = gradient.sum(axis=1, keepdims=True)
        return values, gradient


def exact_kernel_gap(columns, weights, X_support, w_support) -> tuple[float, np.ndarray]:
    """The MKL duality gap, relative, of a Nyström run's answer under the exact kernels of its
    own columns, on the support vectors: with T_m = ½ w_Sᵀ K_θm(X_S) w_S (exact, in blocks of
    rows), ``(max_m T_m − Σ_m d_m T_m) / max_m T_m`` and the T_m. It is 0 where the weights d
    are optimal for the exact columns at the run's α; on the approximated family the run's own
    gap is that same quantity with K̂ in place of K."""
    T = np.array([0.5 * w_support @ (LazyGram(c.family, c.theta, X_support) @ w_support)
                  for c in columns])
    top = T.max()
    return float((top - weights @ T) / top) if top > 0 else 0.0, T
