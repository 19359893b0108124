"""Polynomial combinations of kernels for kernel ridge regression, NKRR
(cortes_mohri_rostamizadeh §2–3).

For base kernels K_1 … K_p, weights µ ≥ 0 and a degree d ∈ {1, …, 4},

    K_µ = (Σ_k µ_k K_k)^{∘d}            (∘: entrywise power)
        = Σ_{k₁+…+k_p = d} (d choose k₁ … k_p) µ₁^{k₁}⋯µ_p^{k_p} K₁^{k₁} ∘ ⋯ ∘ K_p^{k_p}.

This is eq. (4) for d = 2 (Σ_{k,l} µ_k µ_l K_k ∘ K_l runs over ordered pairs) and its
extension to higher degree. Eq. (3), read literally, sums each monomial once — without the
multinomial coefficients — which is a different kernel for p ≥ 2; Proposition 1's gradient
U_k = (Σ_r µ_r K_r) ∘ K_k is that of eq. (4), so we follow eq. (4).

The learning problem (10), α = (K_µ + λI)⁻¹ y (9), is

    min F(µ) = yᵀ (K_µ + λI)⁻¹ y    over  M = {µ ≥ 0, ‖µ − µ₀‖ ≤ Λ}  (ℓ1: eq. 7, ℓ2: eq. 8),

with gradient (Proposition 1, any degree)

    ∂F/∂µ_k = −d αᵀ ((Σ_r µ_r K_r)^{∘(d−1)} ∘ K_k) α = −<W, K_k>,
    W = d (ααᵀ) ∘ (Σ_r µ_r K_r)^{∘(d−1)}.

W is positive semi-definite (a Hadamard product of such), so ∇F ≤ 0 and F decreases in
every µ_k. Hence for any µ ∈ M the point max(µ, µ₀) is in M and no worse: the problem is
unchanged when restricted to µ = µ₀ + δ with δ ≥ 0, ‖δ‖ ≤ Λ. The master works in δ with
the fixed *offset kernel* K₀ = Σ_k µ₀_k K_k (the paper's µ₀ = 1: the uniform baseline), so
the columns of column generation all have offset 0 and pruning a column with δ = 0 loses
nothing: Σ µ_k K_k = K₀ + Σ_j δ_j K_j.

**Price of a new column** G (δ_G = 0): −∂F/∂δ_G = <W, G>. With ℓ2, moving t into it costs
the budget only O(t²) (‖(δ, t)‖ = √(‖δ‖² + t²)), so it improves F iff <W, G> > 0: threshold
0. With ℓ1 on the active boundary Σ δ = Λ, moving mass t from the current mix δ/‖δ‖₁ to G
changes F by −t (<W, G> − <W, δ>/‖δ‖₁): threshold ν = Σ_j δ_j <W, K_j> / ‖δ‖₁ (0 when the
constraint is inactive).

**Master step**: Algorithm 1, projected gradient δ′ = P(δ − η∇F) from the warm start. A
step is rejected and retried with η × 0.8 when ‖δ′ − δ‖ grew (§4.1: "reduced it by a factor
of 0.8 if the step was found to be too large, i.e., the difference ‖µ′ − µ‖ increased") or,
a safeguard the paper does not state, when F would increase; after an accepted step η grows
back by 1/0.8, up to the paper's η = 1. It stops when the full step moves δ by less than ε,
‖P(δ − ∇F) − δ‖ < ε: P(δ − η∇F) = δ for one η > 0 iff for all (a fixed point of the
projected gradient map is a KKT point), so this test — unlike ‖δ′ − δ‖ at the current η — is
not passed merely because η has shrunk. P is the Euclidean projection on {δ ≥ 0, ‖δ‖ ≤ Λ}
(the pseudo-code normalizes onto ‖µ − µ₀‖ = Λ, which agrees on the boundary, where
Propositions 2–3 put the optimum); its thresholding at 0 is kept although ∇F ≤ 0 makes it
inactive. It also stops once the first-order gap below is at most ``gap_tol·|F|``: ε
measures δ + ∇F, whose units the paper's η = 1 mixes (F scales with y², δ with Λ), and on
the UCI sets of §4.1 the ε rule often outlasts 500 steps where the gap is already below
10⁻⁴ of F. For d = 1 (F convex, below) the gap bounds F(δ) − min F over the restricted
problem, so this stop is a relative accuracy in F, the same at any scale of y.

F is not convex in general (Fig. 1), so there is no duality gap; ``gap`` is the first-order
(Frank–Wolfe) measure max_{v feasible} <−∇F, v − δ> — Λ max_k g_k − <g, δ> (ℓ1) or
Λ‖g‖ − <g, δ> (ℓ2), g = −∇F — zero exactly at KKT points of the restricted problem.

**What a stop certifies.** For d = 1, F(µ) = yᵀ(Σ µ_k K_k + λI)⁻¹y is a matrix-fractional
function of an affine K_µ, convex on either ball: a KKT point is a minimum, and with a
proven pricing bound the engine may report ``certified_optimal``. For d ≥ 2, F is not
convex on the ℓ1 or the ℓ2 ball (Fig. 1; Proposition 4 gives convexity only on regions the
algorithm cannot check), so the solution says ``convex=False``: the same stop is reported as
``stationary_point`` — a KKT point of the whole problem over the family, no proof of a
global minimum.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from ...solvers import Attempt, Status

from ...core.contracts import MasterBase, MasterSolution
from ...utils.validation import check_positive, check_targets
from ..price_matrix import PriceMatrix
from .models import NKRRModel

NORMS = ("l1", "l2")

#: η is multiplied by this when a step is too large (§4.1), divided by it after a good step
SHRINK = 0.8


def project(delta: np.ndarray, radius: float, norm: str) -> np.ndarray:
    """Euclidean projection on {δ ≥ 0, ‖δ‖ ≤ Λ} for the ℓ1 or ℓ2 norm."""
    v = np.clip(delta, 0.0, None)
    if norm == "l2":
        length = np.linalg.norm(v)
        return v if length <= radius else v * (radius / length)
    if v.sum() <= radius:
        return v
    # projection on the simplex {v ≥ 0, Σ v = Λ}: threshold τ from the sorted values
    u = np.sort(v)[::-1]
    cumulative = np.cumsum(u) - radius
    rho = np.flatnonzero(u - cumulative / np.arange(1, len(u) + 1) > 0)[-1]
    return np.clip(v - cumulative[rho] / (rho + 1), 0.0, None)


def nkrr_terms(grams: np.ndarray, delta: np.ndarray, y: np.ndarray, ridge: float, degree: int,
               offset: np.ndarray | None = None):
    """F, α and g = −∇F (Proposition 1) at δ, with the price matrix W.

    ``grams`` has shape (m, n, n); ``offset`` is K₀ (``None``: zero).
    """
    S = np.tensordot(delta, grams, axes=1)
    if offset is not None:
        S = S + offset
    factor = cho_factor(S ** degree + ridge * np.eye(len(y)), lower=True)
    alpha = cho_solve(factor, y)
    W = degree * np.outer(alpha, alpha) * S ** (degree - 1)
    g = np.tensordot(grams, W, axes=([1, 2], [0, 1]))
    return float(y @ alpha), alpha, g, W


class NonlinearKRRMaster(MasterBase):
    """Algorithm 1 of cortes_mohri_rostamizadeh as a restricted master (see module notes).

    Parameters
    ----------
    y : targets (the paper centres them).
    ridge : λ of (5)–(10), positive.
    radius : Λ, the radius of the ball around µ₀.
    degree : d in K_µ = (Σ µ_k K_k)^{∘d}, an integer in 1 … 4.
    norm : "l1" (eq. 7) or "l2" (eq. 8).
    offset : K₀ = Σ_k µ₀_k K_k on the training points, or ``None`` (µ₀ = 0).
    tol : ε of Algorithm 1, on ‖P(δ − ∇F) − δ‖ (the full step, see the module notes).
    gap_tol : the solve also stops when the first-order gap is at most ``gap_tol·|F|``
        (0: Algorithm 1's rule alone).
    max_steps : projected-gradient steps per solve (rejected trial steps count).

    With ``warm_start=None`` δ starts at the uniform point on the sphere ‖δ‖ = Λ (in M, on
    the boundary where the optimum lies, and away from δ = 0, a stationary point when
    K₀ = 0 and d ≥ 2); later solves start from the previous δ (0 for new columns).
    ``model`` holds α (predict with Σ_j α_j K_µ(x_j, ·)), the degree and the last η.
    """

    def __init__(self, y, ridge: float = 1.0, radius: float = 1.0, degree: int = 2,
                 norm: str = "l2", offset: np.ndarray | None = None, tol: float = 1e-6,
                 max_steps: int = 500, gap_tol: float = 1e-4):
        self.y = check_targets(y)
        self.ridge = check_positive(ridge, "ridge")
        self.radius = check_positive(radius, "radius")
        if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)) \
                or not 1 <= degree <= 4:
            raise ValueError(f"degree must be an integer in 1 … 4, got {degree!r}")
        if norm not in NORMS:
            raise ValueError(f"norm must be one of {NORMS}, got {norm!r}")
        if offset is not None:
            offset = np.asarray(offset, dtype=float)
            if offset.shape != (len(self.y), len(self.y)):
                raise ValueError(f"offset must be an n × n Gram matrix, n = {len(self.y)}, "
                                 f"got shape {offset.shape}")
        self.degree, self.norm, self.offset = int(degree), norm, offset
        self.tol, self.max_steps = check_positive(tol, "tol"), max_steps
        if not gap_tol >= 0:
            raise ValueError(f"gap_tol must be non-negative, got {gap_tol!r}")
        self.gap_tol = float(gap_tol)

    def start(self, m: int) -> np.ndarray:
        """The uniform point of the sphere ‖δ‖ = Λ."""
        return np.full(m, self.radius / (m if self.norm == "l1" else np.sqrt(m)))

    def terms(self, grams, delta):
        return nkrr_terms(grams, delta, self.y, self.ridge, self.degree, self.offset)

    def solve(self, grams: Sequence[np.ndarray],
              warm_start: np.ndarray | None = None) -> MasterSolution:
        grams = np.asarray(grams, dtype=float)
        m = len(grams)
        delta = (self.start(m) if warm_start is None
                 else project(np.asarray(warm_start, float), self.radius, self.norm))
        try:
            delta, (F, alpha, g, W), eta, status = self._descend(grams, delta)
        except LinAlgError as exc:
            status = Status.SOLVER_ERROR
            return MasterSolution.failed(m, status,
                                         [Attempt("cholesky", status, f"K_µ + λI: {exc}")])
        attempts = [] if status is Status.OPTIMAL else [
            Attempt("projected-gradient", status, f"‖P(δ − ∇F) − δ‖ ≥ tol={self.tol} and gap "
                                                   f"> gap_tol·|F| after max_steps="
                                                   f"{self.max_steps} (η={eta:.3g})")]
        threshold = 0.0
        if self.norm == "l1" and delta.sum() >= self.radius * (1 - 1e-9):  # active
            threshold = float(g @ delta / delta.sum())
        price = (PriceMatrix.rank_one(alpha) if self.degree == 1
                 else PriceMatrix(dense=W))
        return MasterSolution(weights=delta, objective=F, price=price, threshold=threshold,
                              gap=self._gap(delta, g), status=status,
                              model=NKRRModel(alpha, self.degree, eta),
                              column_prices=g, attempts=attempts, convex=self.degree == 1)

    def _gap(self, delta, g) -> float:
        """The first-order gap max_{v feasible} <g, v − δ>, g = −∇F: Λ max_k g_k⁺ − <g, δ>
        (ℓ1) or Λ‖g⁺‖ − <g, δ> (ℓ2)."""
        g_plus = np.clip(g, 0.0, None)
        reach = self.radius * (g_plus.max() if self.norm == "l1" else np.linalg.norm(g_plus))
        return max(0.0, float(reach - g @ delta))

    def _descend(self, grams, delta):
        """Algorithm 1 from ``delta``: returns δ, its terms, the final η and a status."""
        terms = self.terms(grams, delta)
        eta, last_step = 1.0, np.inf
        for _ in range(self.max_steps):
            F, g = terms[0], terms[2]
            if (np.linalg.norm(project(delta + g, self.radius, self.norm) - delta) < self.tol
                    or self._gap(delta, g) <= self.gap_tol * abs(F)):
                return delta, terms, eta, Status.OPTIMAL
            trial = project(delta + eta * g, self.radius, self.norm)
            step = float(np.linalg.norm(trial - delta))
            trial_terms = self.terms(grams, trial)
            if step > last_step or trial_terms[0] > terms[0]:
                eta *= SHRINK
                continue
            delta, terms, last_step = trial, trial_terms, step
            eta = min(1.0, eta / SHRINK)
        return delta, terms, eta, Status.ITERATION_LIMIT
