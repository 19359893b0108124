"""Centred-alignment masters: FSAM (afkanpour Algorithm 1), alignf (Cortes et al. 2010), uniform.

**Centred alignment** (afkanpour §2, after Cortes et al. 2010). With the centring matrix
``C_n = I − 11ᵀ/n`` and ``K_c = C_n K C_n``, the empirical centred alignment of a Gram matrix K
with the target ``K̂* = YYᵀ`` is

    A_c(K, K̂*) = <K_c, K̂*_c>_F / (‖K_c‖_F ‖K̂*_c‖_F),

i.e. ``F(K_c)`` for the F of Appendix A.1, ``F(K) = <K, K̂*_c>_F / (‖K‖_F ‖K̂*_c‖_F)``.
``Y`` is the ±1 label vector in the paper (a column); here it may also be a one-hot label
matrix (multiclass: ``YYᵀ`` is 1 on pairs of the same class) or real targets (regression).
Since ``C_n`` is symmetric and idempotent, ``<K_c, K̂*_c> = <K, K̂*_c> = tr(Y_cᵀ K Y_c)`` with
``Y_c = C_n Y`` and ``‖K̂*_c‖_F = ‖Y_cᵀ Y_c‖_F``: the n × n target is never needed to evaluate
an alignment. Centring is ``K − 1rᵀ − r1ᵀ + m`` with r the column means and m the grand mean.

**Price.** Prop. 1: the steepest-ascent column maximizes ``<K(κ_σ), F′(K_c)>`` with, eq. (3),

    F′(K) = (K̂*_c − ‖K‖⁻² <K, K̂*_c> K) / (‖K‖ ‖K̂*_c‖),

the derivative of the alignment (``d/dη A_c(K + ηK′) = <F′(K_c), K′>`` at η = 0, Lemma 3; an
uncentred K′ is fine because F′(K_c) is centred). The masters hand the engine the positive
multiple ``W = ‖K_c‖ F′(K_c) = (K̂*_c − ρ K_c) / ‖K̂*_c‖, ρ = <K_c, K̂*_c> / ‖K_c‖²``: the same
argmax and the same sign, but invariant to the scale of K. FSAM's weights live at the scale of
its initialization ``ε I`` (ε = 10⁻¹⁰, and every closed-form step of Prop. 2 scales with it), so
F′ itself would be ~1/ε and a pricing regularizer (eq. 4) or an absolute tolerance would mean
something different at every scale. The threshold is λ = 0: ``<W, K′> > 0`` iff ``g′(0) > 0`` for
``g(η) = A_c(K + ηK′)`` (``g′(0) ∝ bc − ad`` in the notation of Prop. 2), i.e. iff a small step on
K′ increases the alignment; Prop. 2 then returns η > 0. (A column with g′(0) ≤ 0 can still gain
at η_max, past the one minimum of g; first-order pricing ignores it, as eq. 1 does.) W is dense:
its ``K̂*_c`` part has rank k but ``ρ K_c`` has full rank.
"""
from __future__ import annotations

import numbers
from typing import Sequence

import cvxpy as cp
import numpy as np

from ...solvers import Status, solve_cvxpy
from ...solvers.cvx import DEFAULT_SOLVERS, check_solvers

from ...core.contracts import MasterBase, MasterSolution
from ..price_matrix import PriceMatrix
from .models import AlignmentModel


def center(K: np.ndarray) -> np.ndarray:
    """``C_n K C_n`` for a symmetric K, by subtracting row/column means (no matrix product)."""
    r = K.mean(axis=0)
    return K - r[None, :] - r[:, None] + r.mean()


class AlignmentTarget:
    """The target ``K̂* = YYᵀ`` of the alignment, kept as the centred factor ``Y_c = C_n Y``.

    ``y`` is a vector (labels ±1 or real targets) or an (n, k) matrix (one-hot labels,
    several targets). Raises ``ValueError`` when ``K̂*_c = 0`` (constant targets): the
    alignment is then undefined.
    """

    def __init__(self, y):
        Y = np.asarray(y, dtype=float)
        Y = Y[:, None] if Y.ndim == 1 else Y
        if Y.ndim != 2 or len(Y) < 2 or not np.all(np.isfinite(Y)):
            raise ValueError(f"y must be a finite vector or (n, k) matrix with n ≥ 2, got "
                             f"shape {np.shape(y)}")
        self.Yc = Y - Y.mean(axis=0)
        self.norm = float(np.linalg.norm(self.Yc.T @ self.Yc))  # ‖K̂*_c‖_F
        if self.norm == 0:
            raise ValueError("y is constant: the centred alignment with YYᵀ is undefined")

    def __len__(self):
        return len(self.Yc)

    def inner(self, K: np.ndarray) -> float:
        """``<K, K̂*_c>_F = tr(Y_cᵀ K Y_c)`` (equal to ``<K_c, K̂*_c>``)."""
        return float(np.sum(self.Yc * (K @ self.Yc)))

    def matrix(self) -> np.ndarray:
        """``K̂*_c = Y_c Y_cᵀ``."""
        return self.Yc @ self.Yc.T

    def alignment(self, Kc: np.ndarray) -> float:
        """``A_c`` of an already centred ``Kc`` (0 when ``Kc = 0``: a kernel constant on the
        sample has no centred part). A_c does not depend on the scale of K: it is computed
        from Kc / max|Kc|, whose squares in ‖Kc‖ neither underflow nor overflow (entries
        of 10⁻¹⁵⁶ lost 12 digits there)."""
        scale = max(Kc.max(), -Kc.min())
        if scale == 0:
            return 0.0
        Kc = Kc / scale
        return self.inner(Kc) / (np.linalg.norm(Kc) * self.norm)


def centered_alignment(K: np.ndarray, y) -> float:
    """Empirical centred alignment ``A_c(K, yyᵀ)`` (afkanpour §2; Cortes et al. 2010)."""
    return AlignmentTarget(y).alignment(center(np.asarray(K, dtype=float)))


def residual_price(target: AlignmentTarget, fit: np.ndarray) -> PriceMatrix:
    """``W = (K̂*_c − fit) / ‖K̂*_c‖`` (dense: ``fit`` is a full-rank centred kernel).

    FSAM passes ``fit = ρ K_c`` (``W = ‖K_c‖ F′(K_c)``, see the module notes); alignf passes its
    QP fit ``K_{v*}``, for which the same identity holds (see :class:`AlignfMaster`).
    """
    return PriceMatrix(dense=(target.matrix() - fit) / target.norm)


def fsam_step(K: np.ndarray, K_new: np.ndarray, target: AlignmentTarget,
              eta_max: float = 1.0) -> float:
    """The step of Prop. 2: ``argmax_{0 ≤ η ≤ η_max} A_c(K + η K_new)``, K and K_new centred.

    With a = <K, K̂*_c>, b = <K′, K̂*_c>, c = ‖K‖², d = <K, K′>, e = ‖K′‖²,
    ``g(η) ∝ (a + bη) / (c + 2dη + eη²)^½`` has ``g′(η) ∝ bc − ad + (bd − ae)η`` (proof of
    Prop. 2): at most one stationary point, ``η* = max(0, (ad − bc)/(bd − ae))`` (0 when
    bd = ae). The best of {0, min(η*, η_max), η_max} is returned; the paper's set
    {0, η*, η_max} is read with η* clipped to the box, which it must be for a step in [0, η_max].
    Ties go to the smaller step.
    """
    a, b = target.inner(K), target.inner(K_new)
    c, d, e = np.vdot(K, K), np.vdot(K, K_new), np.vdot(K_new, K_new)
    den = b * d - a * e
    eta_star = max(0.0, (a * d - b * c) / den) if den != 0 else 0.0
    etas = np.array([0.0, min(eta_star, eta_max), eta_max])
    g = (a + b * etas) / np.sqrt(c + 2.0 * d * etas + e * etas ** 2)
    return float(etas[np.argmax(g)])


class FSAMMaster(MasterBase):
    """Forward stagewise additive modelling of the centred alignment (afkanpour Algorithm 1).

    The combination is ``K_t = ε I_n + Σ_m w_m K_m`` (line 2: ``K_0 = ε I_n``). Each solve
    keeps the weights of the previous columns (``warm_start``; stagewise, not totally
    corrective) and adds every column whose warm-start weight is 0 — the columns just priced
    in — one after the other with the closed-form step of Prop. 2 (lines 7–9). With
    ``warm_start=None`` every column is added that way from ``K_0``; with no columns at all
    the solution is that of ``K_0`` (its price is the one of line 4 at t = 1). It carries

    * ``objective = −A_c(K_t)`` (the engine minimizes),
    * the price ``W = (K̂*_c − ρ K_{t,c}) / ‖K̂*_c‖ = ‖K_{t,c}‖ F′(K_{t,c})`` for the next column
      (Prop. 1, eq. 3; see the module notes for the scaling), threshold λ = 0,
    * ``gap = 0``: the step of Prop. 2 is the exact line maximizer,
    * ``model = {"ridge": ε, "alignment": A_c(K_t), "steps": the η of this solve}``.

    The stopping test of line 10, ``F(K_t) ≤ F(K_{t−1}) + θ`` (θ = 10⁻³), is the engine's
    ``obj_tol = θ``: it stops when the alignment grows by less than ``θ·F(K_t)``, which is at
    most θ (F ≤ 1), so it never stops earlier than line 10.

    Parameters
    ----------
    y : array (n,) or (n, k)
        Targets (see :class:`AlignmentTarget`).
    epsilon : float, default=1e-10
        ε of line 2 (the paper's value). Prop. 2 steps are proportional to the scale of K,
        so ε I stays a ridge of the same relative size as the steps whenever they are
        interior; only η_max breaks this homogeneity.
    eta_max : float, default=1.0
        Largest step (the paper's value; with T it acts as a regularizer, footnote 3).
    """

    #: solves over no column (K_0 = ε I_n): the engine may start from an empty list
    empty_start = True

    def __init__(self, y, epsilon: float = 1e-10, eta_max: float = 1.0):
        for name, value in (("epsilon", epsilon), ("eta_max", eta_max)):
            if not (_real(value) and value > 0):
                raise ValueError(f"{name} must be a positive finite number, got {value!r}")
        self.target = AlignmentTarget(y)
        self.epsilon, self.eta_max = float(epsilon), float(eta_max)

    def solve(self, grams: Sequence[np.ndarray], warm_start=None) -> MasterSolution:
        t = self.target
        weights = (np.zeros(len(grams)) if warm_start is None
                   else np.array(warm_start, dtype=float))
        if weights.shape != (len(grams),):
            raise ValueError(f"warm_start must have shape ({len(grams)},), got {weights.shape}")
        K = center(self.epsilon * np.eye(len(t))
                   + sum(w * G for w, G in zip(weights, grams) if w > 0))
        new = np.flatnonzero(weights == 0)
        for m in new:  # the columns just added (n_price of them), stagewise
            K_new = center(grams[m])
            weights[m] = fsam_step(K, K_new, t, self.eta_max)
            K += weights[m] * K_new
        fit = t.inner(K) / np.vdot(K, K) * K  # ρ K_t
        price = residual_price(t, fit)
        W = price.dense()
        alignment = t.alignment(K)
        return MasterSolution(weights=weights, objective=-alignment, price=price, threshold=0.0,
                              gap=0.0, status=Status.OPTIMAL,
                              model=AlignmentModel(alignment, ridge=self.epsilon,
                                                   steps=weights[new]),
                              column_prices=np.array([np.vdot(W, G) for G in grams]))


class AlignfMaster(MasterBase):
    """alignf (Cortes, Mohri & Rostamizadeh 2010, Prop. 3; "DA" in afkanpour Table 1).

    Maximizes the centred alignment over non-negative weights of the current columns
    (totally corrective): with ``M_kl = <K_kc, K_lc>_F`` and ``a_k = <K_kc, K̂*>_F``,

        v* = argmin_{v ≥ 0} vᵀ M v − 2 vᵀ a = argmin_{v ≥ 0} ‖Σ_k v_k K_kc − K̂*_c‖²_F − ‖K̂*_c‖²,

    and the weights are ``μ = v*/‖v*‖``. The QP is solved in cvxpy (solver fallback list, cold
    starts: ``warm_start`` is not used), after the change of variables
    ``v_k = ṽ_k ‖K̂*_c‖ / ‖K_kc‖`` that gives M a unit diagonal.

    Price of a new column K′ with weight u: ``∂/∂u`` of the QP objective at u = 0 is
    ``2 <K′_c, K_{v*} − K̂*_c>``, ``K_{v*} = Σ v*_k K_kc``, so K′ improves the master iff
    ``<W, K′> > 0`` with ``W = (K̂*_c − K_{v*}) / ‖K̂*_c‖`` and threshold λ = 0. At the optimum
    the KKT conditions give ``<K_{v*}, K_{v*} − K̂*_c> = 0``, i.e. ``ρ = <K_{v*}, K̂*_c> /
    ‖K_{v*}‖² = 1``: W is FSAM's price ``(K̂*_c − ρ K_c)/‖K̂*_c‖`` at the alignf combination —
    the same pricing problem, with a totally corrective master.

    ``column_prices`` are ``<W, K_k> = (a − M v*)_k / ‖K̂*_c‖`` (≤ 0 at the optimum, = 0 where
    ``v*_k > 0``); ``gap`` is their positive part, the KKT residual. When ``v* = 0`` (no
    non-negative combination is positively aligned) the weight goes to the single best
    aligned column. With no columns, v* = 0: the price is ``W = K̂*_c / ‖K̂*_c‖`` (the first
    column of column generation is the best aligned one), the objective 0.
    """

    #: solves over no column (v* = 0): the engine may start from an empty list
    empty_start = True

    def __init__(self, y, solvers: Sequence[str] = DEFAULT_SOLVERS):
        self.target = AlignmentTarget(y)
        self.solvers = check_solvers(solvers)

    def solve(self, grams: Sequence[np.ndarray], warm_start=None) -> MasterSolution:
        t, m = self.target, len(grams)
        if m == 0:
            return MasterSolution(weights=np.zeros(0), objective=0.0,
                                  price=residual_price(t, np.zeros((len(t), len(t)))),
                                  threshold=0.0, gap=0.0, status=Status.OPTIMAL,
                                  model=AlignmentModel(0.0, v=np.zeros(0)),
                                  column_prices=np.zeros(0))
        Kc = np.stack([center(G) for G in grams])
        B = Kc.reshape(m, -1)
        M = B @ B.T
        a = B @ t.matrix().ravel()
        norms = np.sqrt(np.diag(M))
        scale = np.where(norms > 0, norms, 1.0)
        v = cp.Variable(m, nonneg=True)
        M_unit = M / np.outer(scale, scale)
        problem = cp.Problem(cp.Minimize(cp.quad_form(v, cp.psd_wrap(0.5 * (M_unit + M_unit.T)))
                                         - 2.0 * (a / (scale * t.norm)) @ v))
        status, attempts = solve_cvxpy(problem, self.solvers)
        if not status.usable or v.value is None:
            return MasterSolution.failed(m, status, attempts)
        v_star = np.where(norms > 0, np.clip(v.value, 0.0, None) * t.norm / scale, 0.0)
        prices = (a - M @ v_star) / t.norm
        if np.any(v_star > 0):
            weights = v_star / np.linalg.norm(v_star)
        else:
            weights = np.eye(m)[np.argmax(a / scale)]
        alignment = t.alignment(np.tensordot(weights, Kc, axes=1))
        return MasterSolution(weights=weights, objective=-alignment,
                              price=residual_price(t, np.tensordot(v_star, Kc, axes=1)),
                              threshold=0.0, gap=max(0.0, float(prices.max())), status=status,
                              model=AlignmentModel(alignment, v=v_star),
                              column_prices=prices, attempts=attempts)


class UniformMaster(MasterBase):
    """Equal weights over the given columns ("DU" in afkanpour Table 1).

    It prices no column (``price=None``): the engine stops after the first solve with the
    status ``fixed_columns``, as no column generation runs. Meant for a finite list of
    columns given as the initial columns.
    ``objective = −A_c(Σ_m K_m / m)`` for comparison with the other masters.
    """

    def __init__(self, y):
        self.target = AlignmentTarget(y)

    def solve(self, grams: Sequence[np.ndarray], warm_start=None) -> MasterSolution:
        m = len(grams)
        alignment = self.target.alignment(center(sum(grams) / m))
        return MasterSolution(weights=np.full(m, 1.0 / m), objective=-alignment,
                              price=None, threshold=0.0, gap=0.0, status=Status.OPTIMAL,
                              model=AlignmentModel(alignment), column_prices=np.zeros(m))


class Shrinkage:
    """The pricing regularizer of afkanpour eq. (4): ``r(θ) = λ ‖θ − θ̄ 1‖²``, θ̄ = mean(θ).

    Subtracted from every price by the engine, it shrinks the parameters of a candidate
    towards their common average (an isotropic kernel). For the Gaussian families θ is the
    vector of scales ``s_d = 1/σ_d²`` rather than the paper's bandwidths σ_d: s = 0 (a
    switched-off dimension) is inside the box where σ = ∞, the price is smooth in s, and both
    penalties vanish exactly on isotropic candidates. λ is in price units (prices are at most
    ``‖K_c(θ)‖_F``) per squared unit of θ; one-parameter families are unaffected.
    The gradient is ``2λ(θ − θ̄)`` (the θ̄ terms cancel since Σ(θ − θ̄) = 0), the Hessian
    the constant ``2λ(I − 11ᵀ/p)`` (:meth:`hessian`), which lets the searches of the
    Gaussian families take their Newton steps with the regularizer too.
    """

    def __init__(self, lam: float):
        if not (_real(lam) and lam >= 0):
            raise ValueError(f"shrinkage must be a non-negative finite number, got {lam!r}")
        self.lam = float(lam)
        self._hessian = None

    def __call__(self, theta):
        dev = np.asarray(theta, dtype=float) - np.mean(theta)
        return self.lam * float(dev @ dev), 2.0 * self.lam * dev

    def hessian(self, theta) -> np.ndarray:
        """``∇²r(θ) = 2λ(I − 11ᵀ/p)``, p × p: the same at every θ, so made once per p and
        returned read-only."""
        p = np.size(theta)
        cached = self._hessian
        if cached is None or len(cached) != p:
            cached = 2.0 * self.lam * (np.eye(p) - 1.0 / p)
            cached.setflags(write=False)
            self._hessian = cached
        return cached


def _real(value) -> bool:
    """A finite real number (not a bool)."""
    return (isinstance(value, numbers.Real) and not isinstance(value, bool)
            and bool(np.isfinite(value)))
