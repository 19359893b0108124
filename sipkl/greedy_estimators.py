"""scikit-learn estimators for the stagewise and non-linear masters:

* :class:`GreedyKernelRidge`, :class:`GreedyKernelRidgeClassifier` — argyriou's greedy
  convex combination with the square loss (:class:`~sipkl.masters.greedy.GreedySquareLossMaster`);
* :class:`PairwiseAlignmentClassifier` — pothin_richard's pairwise greedy alignment, then an
  SVM on the learned kernel (:class:`~sipkl.masters.pairwise.PairwiseAlignmentMaster`);
* :class:`NonlinearKernelRidge` — cortes_mohri_rostamizadeh's NKRR
  (:class:`~sipkl.masters.nonlinear.NonlinearKRRMaster`).

All run the one :class:`~sipkl.engine.ColumnGeneration` loop and take the same ``family`` and
``oracle`` arguments as :class:`~sipkl.estimators.IKLClassifier`.
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted, validate_data

from .engine import ColumnGeneration
from .estimators import (
    ExpansionClassifierMixin,
    check_classes,
    check_positive,
    make_family,
    store_runs,
)
from .expansion import KernelExpansion
from .kernels import KernelFamily, LearnedKernel, LinearPerFeature
from .masters.greedy import GreedySquareLossMaster
from .masters.nonlinear import NORMS, NonlinearKRRMaster
from .masters.pairwise import PairwiseAlignmentMaster, refine_parameters
from .oracles import make_oracle
from .contracts import Column


def starting_columns(family: KernelFamily, X, n: int) -> list[Column]:
    """Every member's default candidate list: all of a finite member, ``n`` points of the
    default grid of a continuous one (argyriou §4.1 starts from ten such kernels)."""
    return list(dict.fromkeys(Column.make(member, theta)
                              for member in family.members(X.shape[1])
                              for theta in member.grid(X, n, 0)))


class _ColumnGenerationEstimator(BaseEstimator):
    """Parameter checks and the engine, shared by the estimators of this module."""

    def _check_common(self, default_family=None):
        check_positive(self.tol, "tol")
        check_positive(self.max_iter, "max_iter", integer=True)
        check_positive(self.n_price, "n_price", integer=True)
        check_positive(self.n_start, "n_start", integer=True)
        check_positive(self.time_limit, "time_limit", allow_none=True)
        if self.callback is not None and not callable(self.callback):
            raise TypeError("callback must be callable")
        family = default_family if self.family is None and default_family is not None \
            else make_family(self.family)
        return family, make_oracle(self.oracle)

    def _engine(self, master, oracle, seed, obj_tol=0.0) -> ColumnGeneration:
        return ColumnGeneration(master, oracle, tol=self.tol, obj_tol=obj_tol,
                                max_iter=self.max_iter, time_limit=self.time_limit,
                                n_price=self.n_price, callback=self.callback,
                                verbose=self.verbose, random_state=seed)


# -- argyriou: greedy square loss ----------------------------------------------------------
_GREEDY_DOC = """
    Parameters
    ----------
    family : KernelFamily or str, default=None (GaussianIso)
    alpha : float, default=1e-2
        The regularization parameter μ of the functional (1), the ridge of kernel ridge
        regression (scikit-learn's ``KernelRidge(alpha=μ)``); the paper used 1e-7 on raw
        MNIST pixels.
    oracle : {"ipopt", "grid"} or oracle object, default="ipopt"
        ``"ipopt"``: the continuous algorithm; ``"grid"``: the finite one (a candidate list).
    tol : float, default=1e-3
        ε of §4.1, relative: a kernel G enters iff (c, G c) > (c, K c)(1 + ε), inequality (29)
        (for the oracle's candidates and, in the master, for the current columns).
    max_iter : int, default=100
        T of §4.1.
    n_price : int, default=1
        Columns added per iteration (Fig. 1 adds one; the master merges each that helps).
    n_start : int, default=10
        The start is the average of ``n_start`` kernels of each member's default grid (all
        members of a finite family), as in §4.1.
    time_limit : float or None
    random_state : int or None
    verbose : int, default=0
    callback : callable or None
"""


class _GreedySquareLoss(_ColumnGenerationEstimator):
    def __init__(self, family=None, alpha=1e-2, oracle="ipopt", tol=1e-3, max_iter=100,
                 n_price=1, n_start=10, time_limit=None, random_state=None, verbose=0,
                 callback=None):
        self.family = family
        self.alpha = alpha
        self.oracle = oracle
        self.tol = tol
        self.max_iter = max_iter
        self.n_price = n_price
        self.n_start = n_start
        self.time_limit = time_limit
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def _fit_targets(self, X, targets):
        """One greedy run per column of ``targets``, each stored as the expansion
        Σ_j α_j k(x, x_j) over all training points."""
        family, oracle = self._check_common()
        check_positive(self.alpha, "alpha")
        start = starting_columns(family, X, self.n_start)
        seeds = np.random.SeedSequence(self.random_state).spawn(targets.shape[1])
        results, self.expansions_ = [], []
        for target, seed in zip(targets.T, seeds):
            master = GreedySquareLossMaster(target, self.alpha, tol=self.tol)
            result = self._engine(master, oracle, seed).run(family, X, start)
            self.expansions_.append(KernelExpansion(LearnedKernel(result.columns, result.weights),
                                                    X, result.master.model["alpha"]))
            results.append(result)
        store_runs(self, results, [e.kernel for e in self.expansions_])


class GreedyKernelRidge(RegressorMixin, _GreedySquareLoss):
    __doc__ = """Kernel ridge regression with a kernel learned by argyriou's greedy algorithm.

    Fig. 1 of argyriou_micchelli_pontil with the square loss: the kernel is a convex
    combination of members of ``family``, grown one column at a time by the line search (30)
    while some θ satisfies inequality (29). Predicts f(x) = Σ_j α_j K(x_j, x) with
    (K + μI) α = y, the minimizer of the regularization functional (1) for the learned K.
""" + _GREEDY_DOC + """
    Attributes
    ----------
    kernel_ : LearnedKernel
    result_ : CGResult (``result_.objective`` is Q_μ(K) = −g(K))
    n_iter_ : int
    expansions_ : [KernelExpansion], the prediction model Σ_j α_j k(x, x_j)
    n_features_in_
    """

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        self._fit_targets(X, y[:, None])
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.expansions_[0](X)


class GreedyKernelRidgeClassifier(ExpansionClassifierMixin, _GreedySquareLoss):
    __doc__ = """Argyriou's greedy kernel learning with the square loss on ±1 targets.

    As :class:`GreedyKernelRidge` on the targets +1 (the class) / −1 (the rest), the setting
    of argyriou §4.1; several classes are handled one-vs-rest, one learned kernel per class,
    and predicted by the largest score.
""" + _GREEDY_DOC + """
    Attributes
    ----------
    classes_, n_features_in_
    kernel_ : LearnedKernel (binary) or list of LearnedKernel (one per class)
    result_ : CGResult or list of CGResult
    n_iter_ : int or array of int
    expansions_ : list of KernelExpansion, one per binary problem
    """

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_ = check_classes(y)
        targets = self.classes_[1:] if len(self.classes_) == 2 else self.classes_
        self._fit_targets(X, np.where(y[:, None] == targets[None, :], 1.0, -1.0))
        return self


# -- pothin_richard: pairwise greedy alignment ---------------------------------------------
class PairwiseAlignmentClassifier(ExpansionClassifierMixin, _ColumnGenerationEstimator):
    """Kernel learned by pothin_richard's greedy alignment, then an SVM (two stages).

    Stage 1: Table 1 — starting from the best aligned candidate, merge one kernel at a time
    with the closed form (7), candidates priced by the alignment gradient and re-ranked by
    the exact pairwise alignment (see :mod:`sipkl.masters.pairwise`). Stage 2:
    ``SVC(kernel="precomputed", C)`` on the learned kernel. Several classes share one kernel
    aligned with the sum of the one-vs-rest targets, and get one SVC each (one-vs-rest).

    Parameters
    ----------
    family : KernelFamily or str, default=None (GaussianIso)
    C : float, default=1.0
        The SVM's C.
    oracle : {"grid", "ipopt"} or oracle object, default="grid"
        The paper enumerates a candidate list (``"grid"``); ``"ipopt"`` searches θ locally.
    centered : bool, default=False
        Centred alignment (HKH) instead of the paper's uncentred one.
    tol : float, default=1e-3
        ε of Table 1: stop when the alignment gain is below ``tol`` × alignment.
    max_iter : int, default=50
    n_price : int, default=5
        Candidates handed to the master per iteration, re-ranked there by exact gain.
    n_start : int, default=10
        Initial candidates per continuous member (all of a finite one); the best aligned
        starts the combination.
    refine : bool, default=False
        Then adjust the parameters of the selected kernels by gradient ascent of the
        alignment (§4, eq. 12; :func:`~sipkl.masters.pairwise.refine_parameters`), one pass
        of step 3 with the weights fixed (the paper's outer alternation is not repeated).
    eta, refine_tol : float, default=0.5, 1e-5
        Gradient step and stopping gain of the refinement (the paper's values).
    time_limit, random_state, verbose, callback : as in IKLClassifier.

    Attributes
    ----------
    classes_, n_features_in_
    kernel_ : LearnedKernel
    result_ : CGResult (``-result_.objective`` is the training alignment of the greedy)
    n_iter_ : int
    alignment_ : float, training alignment of ``kernel_`` (after refinement if any)
    expansions_ : list of KernelExpansion, the SVC(s) as Σ_i c_i k(x, x_i) + b
    """

    def __init__(self, family=None, C=1.0, oracle="grid", centered=False, tol=1e-3,
                 max_iter=50, n_price=5, n_start=10, refine=False, eta=0.5, refine_tol=1e-5,
                 time_limit=None, random_state=None, verbose=0, callback=None):
        self.family = family
        self.C = C
        self.oracle = oracle
        self.centered = centered
        self.tol = tol
        self.max_iter = max_iter
        self.n_price = n_price
        self.n_start = n_start
        self.refine = refine
        self.eta = eta
        self.refine_tol = refine_tol
        self.time_limit = time_limit
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def fit(self, X, y):
        family, oracle = self._check_common()
        check_positive(self.C, "C")
        check_positive(self.eta, "eta")
        check_positive(self.refine_tol, "refine_tol")
        for name in ("centered", "refine"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise TypeError(f"{name} must be a bool, got {getattr(self, name)!r}")
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_ = check_classes(y)
        master = PairwiseAlignmentMaster(y, self.centered)
        engine = self._engine(master, oracle, self.random_state, obj_tol=self.tol)
        result = engine.run(family, X, starting_columns(family, X, self.n_start))
        kernel = LearnedKernel(result.columns, result.weights)
        self.alignment_ = -result.objective
        if self.refine:
            kernel, history = refine_parameters(kernel, X, y, centered=self.centered,
                                                eta=self.eta, tol=self.refine_tol)
            self.alignment_ = history[-1]
        store_runs(self, [result], [kernel])
        K = kernel(X)
        targets = self.classes_[1:] if len(self.classes_) == 2 else self.classes_
        self.expansions_ = [KernelExpansion.from_svc(kernel, X, SVC(
            C=self.C, kernel="precomputed").fit(K, np.where(y == target, 1, -1)))
            for target in targets]
        return self


# -- cortes_mohri_rostamizadeh: non-linear combinations -----------------------------------
class NonlinearKernelRidge(RegressorMixin, _ColumnGenerationEstimator):
    """Kernel ridge regression with a learned polynomial combination of kernels (NKRR).

    cortes_mohri_rostamizadeh Algorithm 1: K_µ = (Σ_k µ_k K_k)^{∘d}, µ minimizing
    F(µ) = yᵀ(K_µ + λI)⁻¹y over {µ ≥ 0, ‖µ − µ₀‖ ≤ Λ} by projected gradient; with a
    continuous ``family`` new base kernels enter by column generation (see
    :mod:`sipkl.masters.nonlinear`). The targets are centred (§4.1: "both labels and features
    were centered"; centre and scale the features yourself, e.g. in a Pipeline);
    f(x) = ȳ + Σ_j α_j K_µ(x_j, x), α = (K_µ + λI)⁻¹(y − ȳ).

    Parameters
    ----------
    family : KernelFamily or str, default=None (:class:`~sipkl.kernels.LinearPerFeature`,
        one linear kernel per feature, §4.1)
    degree : int in 1 … 4, default=2
    alpha : float, default=1.0
        λ of (5)–(10), the ridge.
    radius : float, default=1.0
        Λ of (7)–(8).
    norm : {"l1", "l2"}, default="l2"
    mu0 : float, default=1.0
        µ₀ for every initial kernel ("µ₀ = 1 corresponding to the weights of the baseline
        kernel"); kernels added by column generation have µ₀ = 0.
    oracle : {"grid", "ipopt"} or oracle object, default="grid"
    tol : float, default=1e-4
        Relative pricing tolerance of the engine.
    step_tol : float, default=1e-6
        ε of Algorithm 1, on the full projected-gradient step ‖µ′ − µ‖ (η = 1).
    max_iter : int, default=50
    n_price : int, default=5
    n_start : int, default=10
        Initial kernels per continuous member (all of a finite one): the base kernels.
    time_limit, random_state, verbose, callback : as in IKLClassifier.

    Attributes
    ----------
    kernel_ : LearnedKernel of degree d (base kernels with weight µ₀ + δ)
    result_ : CGResult (``result_.weights`` are δ = µ − µ₀ of ``result_.columns``)
    n_iter_ : int
    expansions_ : [KernelExpansion], f(x) = Σ_j α_j k(x, x_j) + ȳ
    n_features_in_ : int
    """

    def __init__(self, family=None, degree=2, alpha=1.0, radius=1.0, norm="l2", mu0=1.0,
                 oracle="grid", tol=1e-4, step_tol=1e-6, max_iter=50, n_price=5, n_start=10,
                 time_limit=None, random_state=None, verbose=0, callback=None):
        self.family = family
        self.degree = degree
        self.alpha = alpha
        self.radius = radius
        self.norm = norm
        self.mu0 = mu0
        self.oracle = oracle
        self.tol = tol
        self.step_tol = step_tol
        self.max_iter = max_iter
        self.n_price = n_price
        self.n_start = n_start
        self.time_limit = time_limit
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def fit(self, X, y):
        family, oracle = self._check_common(default_family=LinearPerFeature())
        check_positive(self.alpha, "alpha")
        check_positive(self.radius, "radius")
        check_positive(self.step_tol, "step_tol")
        if isinstance(self.degree, bool) or not isinstance(self.degree, numbers.Integral) \
                or not 1 <= self.degree <= 4:
            raise ValueError(f"degree must be an integer in 1 … 4, got {self.degree!r}")
        if self.norm not in NORMS:
            raise ValueError(f"norm must be one of {NORMS}, got {self.norm!r}")
        if isinstance(self.mu0, bool) or not isinstance(self.mu0, numbers.Real) \
                or not np.isfinite(self.mu0) or self.mu0 < 0:
            raise ValueError(f"mu0 must be a non-negative number, got {self.mu0!r}")
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        y_mean = float(y.mean())
        base = starting_columns(family, X, self.n_start)
        offset = LearnedKernel(base, np.full(len(base), float(self.mu0)))
        master = NonlinearKRRMaster(y - y_mean, self.alpha, self.radius, self.degree,
                                    self.norm, offset(X) if self.mu0 > 0 else None,
                                    tol=self.step_tol)
        result = self._engine(master, oracle, self.random_state).run(family, X, base)
        kernel = LearnedKernel(offset.columns + result.columns,
                               np.concatenate([offset.weights, result.weights]), self.degree)
        store_runs(self, [result], [kernel])
        self.expansions_ = [KernelExpansion(kernel, X, result.master.model["alpha"], y_mean)]
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.expansions_[0](X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # (Σ µ_k x_k x′_k)^d with d ≥ 2 has no term of degree < d: it cannot fit a linear
        # target, which is what scikit-learn's score check asks of a regressor.
        tags.regressor_tags.poor_score = self.degree != 1
        return tags
