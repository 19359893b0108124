"""The binary soft-margin SVM for a low-rank kernel K = Z Zᵀ (Z: m × p features, p ≪ m) by a
primal-dual interior-point method on the normal equations of the primal (Ferris & Munson
2003, "Interior-point methods for massive support vector machines"; Mehrotra's
predictor-corrector).

With G the rows y_i z_i, Ḡ = [G, y] (m × (p + 1)) and ŵ = (v, b), the primal

    min ½‖v‖² + C 1ᵀξ   s.t.  Ḡŵ + ξ − 1 = s,  s ≥ 0,  ξ ≥ 0,

has the SVM dual (:mod:`sipkl.solvers.svm`) as its dual, α ≥ 0 the multipliers of s ≥ 0 and
C − α ≥ 0 those of ξ ≥ 0. The KKT conditions, with the complementarity relaxed to μ,

    E ŵ = Ḡᵀα  (E = diag(1, …, 1, 0): v = Gᵀα and yᵀα = 0),   α∘s = μ,   (C − α)∘ξ = μ,

are solved by Newton steps. Eliminating Δs, Δξ and Δα (θ_i = 1 / (s_i/α_i + ξ_i/(C − α_i)))
leaves one symmetric positive definite system of p + 1 unknowns,

    (E + Ḡᵀ diag(θ) Ḡ) Δŵ = Ḡᵀ θ∘ρ − r_ŵ,        Δα = θ∘(ρ − Ḡ Δŵ),

whose matrix costs m (p + 1)² operations (one product) and its factor (p + 1)³/3: the solve
never forms the m × m kernel, and its cost is linear in m. u = C − α is held as a variable of
its own (exact where α nears C). Once μ ≤ ``tol``·C (9–16 steps on the working sets of the
benchmarks, θ then large on the free points only: the normal equations' benign
ill-conditioning) the sets the iterates point to are read off (α_i = 0 where α_i/C ≤ s_i,
α_i = C where u_i/C ≤ ξ_i, free otherwise), and the SVM is solved exactly on them by
active-set steps (:func:`~sipkl.solvers.svm.svm_on_active_set`, which moves a point between
the sets where its margin says so, and accepts its answer only where libsvm's own stopping
rule holds on every point to ``tol``): the answer meets what libsvm guarantees for its own.
Where those steps do not settle, the interior-point steps go on, and the sets are read off
again once μ has fallen tenfold (a bound on the active-set solves of one call). NumPy arrays or torch
tensors (a GPU): the same code on either.
"""
from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from .status import Attempt, SolverError, Status
from .svm import SVMSolution, meets_libsvm_rule, svm_on_active_set

#: Newton steps of :func:`svm_on_features` before it gives up (μ falls by 10–100 a step
#: once the iterates are near the central path: 13 steps reached 2·10⁻¹² C on a working
#: set of 3225 points at n = 10⁵)
IPM_STEPS = 80

#: the fraction of the way to the boundary each step goes
STEP_FRACTION = 0.99


class _NumPy:
    """What :func:`svm_on_features` needs of NumPy."""

    @staticmethod
    def asarray(x, like):
        return np.asarray(x, dtype=like.dtype)

    @staticmethod
    def numpy(x) -> np.ndarray:
        return x

    diag = staticmethod(np.diag)

    @staticmethod
    def columns(*blocks):
        return np.hstack(blocks)

    @staticmethod
    def solver(N):
        factor = cho_factor(N, lower=True, check_finite=False)
        return lambda r: cho_solve(factor, r, check_finite=False)


class _Torch:
    """What :func:`svm_on_features` needs of torch (on the tensors' device)."""

    def __init__(self, torch):
        self.torch = torch

    def asarray(self, x, like):
        return self.torch.as_tensor(np.asarray(x), dtype=like.dtype, device=like.device)

    @staticmethod
    def numpy(x) -> np.ndarray:
        return x.cpu().numpy()

    @staticmethod
    def diag(x):
        return x.diag()

    def columns(self, *blocks):
        return self.torch.cat(blocks, dim=1)

    def solver(self, N):
        factor, info = self.torch.linalg.cholesky_ex(N)
        if int(info):
            raise np.linalg.LinAlgError("the normal equations are not positive definite")
        return lambda r: self.torch.cholesky_solve(r[:, None], factor)[:, 0]


def _namespace(Z):
    if isinstance(Z, np.ndarray):
        return _NumPy()
    import torch
    return _Torch(torch)


def _step_limit(x, dx) -> float:
    """The largest t with x + t dx ≥ 0 (x > 0), ∞ where dx ≥ 0."""
    falling = dx < 0
    return float((-x[falling] / dx[falling]).min()) if bool(falling.any()) else np.inf


class LowRankGram:
    """K = Z Zᵀ held by its features ``Z`` (m × p, a NumPy array or a torch tensor), read as
    :func:`~sipkl.solvers.svm.svm_on_active_set` reads a Gram matrix: ``K[np.ix_(rows,
    columns)]`` forms that block, ``K @ w`` is Z (Zᵀ w) (NumPy in, NumPy out), and
    ``np.asarray(K)`` the whole matrix (m² entries: libsvm's input)."""

    def __init__(self, Z):
        self.Z, self.backend = Z, _namespace(Z)
        self.shape = (Z.shape[0], Z.shape[0])

    def __getitem__(self, key) -> np.ndarray:
        rows, columns = (np.ravel(k) for k in key)
        return self.backend.numpy(self.Z[rows] @ self.Z[columns].T)

    def __matmul__(self, w) -> np.ndarray:
        return self.backend.numpy(self.Z @ (self.backend.asarray(w, self.Z) @ self.Z))

    def __array__(self, dtype=None, copy=None):
        K = self.backend.numpy(self.Z @ self.Z.T)
        return K if dtype is None else K.astype(dtype, copy=False)


def _on_sets(Z, y, C, tol, alpha, u, s, xi, bias):
    """The SVM on the sets the iterates point to (α_i = 0 where α_i/C ≤ s_i, C where
    u_i/C ≤ ξ_i, u = C − α, free otherwise), or None.

    With at most p + 1 free points it is solved exactly on those sets by active-set steps
    (:func:`~sipkl.solvers.svm.svm_on_active_set` on :class:`LowRankGram`). With more, the
    SVM is degenerate — K = Z Zᵀ has rank p, so the bordered system of those steps is
    singular and the free α are not unique; typically a kernel that separates nothing, whose
    SVM has v = Gᵀα = 0 and a whole class on its margin — and the iterate itself, with the
    sets' α at their bounds, is the answer where it is feasible (Σ α_i y_i = 0 to
    10⁻¹⁰ Σ α_i) and libsvm's own stopping rule holds at it on every point to ``tol``
    (:func:`~sipkl.solvers.svm.meets_libsvm_rule`): what libsvm guarantees for its own."""
    lower, upper = alpha / C <= s, u / C <= xi
    free = ~lower & ~upper
    if np.count_nonzero(free) <= Z.shape[1] + 1:
        return svm_on_active_set(LowRankGram(Z), y, C, free, upper & ~lower, tol,
                                 rank=Z.shape[1])
    alpha = np.where(lower, 0.0, np.where(upper, C, alpha))
    w = alpha * y
    Kw = LowRankGram(Z) @ w
    if not meets_libsvm_rule(alpha, y, Kw, C, tol):
        return None
    attempt = Attempt("degenerate_sets", Status.OPTIMAL, f"{np.count_nonzero(free)} free "
                      f"points for rank {Z.shape[1]}")
    return SVMSolution(alpha, bias, float(alpha.sum() - 0.5 * w @ Kw), Status.OPTIMAL,
                       [attempt])


def svm_on_features(Z, y: np.ndarray, C: float, tol: float = 1e-6,
                    max_steps: int = IPM_STEPS):
    """The SVM dual for K = Z Zᵀ and labels ``y`` ∈ {−1, +1} (NumPy), by the interior-point
    method of the module doc. ``Z``: a NumPy array or a torch tensor (m × p, double).

    Returns an :class:`~sipkl.solvers.svm.SVMSolution` (α in NumPy; its attempts this
    method's, with its number of Newton steps, and the active-set steps') at which libsvm's
    criterion holds on all m points to ``tol``. Raises
    :class:`~sipkl.solvers.status.SolverError` where the steps run out before, or the normal
    equations are not positive definite (round-off, at μ near 10⁻¹⁶ C): solve that SVM with
    libsvm."""
    start = time.perf_counter()
    backend = _namespace(Z)
    m = len(y)
    y_dev = backend.asarray(y, Z)
    Gbar = backend.columns(Z * y_dev[:, None], y_dev[:, None])
    E = backend.asarray(np.append(np.ones(Z.shape[1]), 0.0), Z)
    w = E * 0
    alpha = u = y_dev * 0 + 0.5 * C    # u = C − α, held apart: exact where α nears C
    xi, s = y_dev * 0 + 1, y_dev * 0 + 1     # ŵ = 0: Ḡŵ + ξ − 1 = s
    read_at = tol * C
    for step in range(1, max_steps + 1):
        r_w = E * w - Gbar.T @ alpha
        r_s = Gbar @ w + xi - 1 - s
        mu = float((alpha @ s + u @ xi) / (2 * m))
        if mu <= read_at:  # the sets read off again only once μ has fallen tenfold
            read_at, seconds = mu / 10, time.perf_counter() - start
            solution = _on_sets(Z, y, C, tol, *(backend.numpy(x) for x in (alpha, u, s, xi)),
                                float(w[-1]))
            if solution is not None:
                attempt = Attempt("interior_point", Status.OPTIMAL, f"{step} steps", seconds)
                return replace(solution, attempts=[attempt] + solution.attempts)
        theta = 1 / (s / alpha + xi / u)
        try:
            solve = backend.solver(Gbar.T @ (Gbar * theta[:, None]) + backend.diag(E))
        except np.linalg.LinAlgError:
            raise SolverError(f"interior point: the normal equations are not positive "
                              f"definite at step {step} (μ = {mu / C:.1e} C)") from None

        def direction(c1, c2):
            rho = -r_s - c2 / u + c1 / alpha
            dw = solve(Gbar.T @ (theta * rho) - r_w)
            da = theta * (rho - Gbar @ dw)
            return dw, da, (c1 - s * da) / alpha, (c2 + xi * da) / u

        def longest(da, ds, dxi):
            return min(_step_limit(alpha, da), _step_limit(u, -da),
                       _step_limit(s, ds), _step_limit(xi, dxi))

        dw, da, ds, dxi = direction(-alpha * s, -u * xi)
        t = min(1.0, longest(da, ds, dxi))
        mu_aff = float(((alpha + t * da) @ (s + t * ds)
                        + (u - t * da) @ (xi + t * dxi)) / (2 * m))
        sigma = (mu_aff / mu) ** 3
        dw, da, ds, dxi = direction(sigma * mu - alpha * s - da * ds,
                                    sigma * mu - u * xi + da * dxi)
        t = min(1.0, STEP_FRACTION * longest(da, ds, dxi))
        w, alpha, u = w + t * dw, alpha + t * da, u - t * da
        s, xi = s + t * ds, xi + t * dxi
    raise SolverError(f"interior point: libsvm's criterion not met in {max_steps} steps "
                      f"(μ = {mu / C:.1e} C)")
