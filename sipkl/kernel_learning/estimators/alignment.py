"""Two-stage kernel learning by centred alignment (afkanpour §2–3; Cortes et al. 2010):
:class:`AlignmentKernelClassifier`, :class:`AlignmentKernelRegressor`.

Stage 1 learns ``k = Σ_m μ_m k_{θ_m}`` over a kernel family by column generation with an
alignment master (:mod:`sipkl.kernel_learning.masters.alignment`): FSAM (afkanpour Algorithm 1, stagewise),
alignf (totally corrective) or uniform weights over a finite dictionary. Stage 2 fits a
standard kernel machine on the learned kernel: ``SVC`` for classification, kernel ridge
regression for regression. CA-1D is ``family=GaussianIso()``, CA-nD ``family=GaussianARD()``
(with ``shrinkage`` for eq. 4).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import solve
from sklearn.utils.validation import validate_data

from ...core.contracts import Column
from ...pricing import GridOracle
from ...utils.sklearn_api import StrOptions, fit_context
from ..expansion import KernelExpansion
from ..families import LearnedKernel
from ..masters.alignment import Shrinkage
from ..names import MASTERS, make_family, make_oracle, register_estimator
from ..space import KernelSpace
from .base import (ENGINE_CONSTRAINTS, NON_NEGATIVE, POSITIVE, ColumnGenerationEstimator,
                   ExpansionClassifierMixin, ExpansionRegressorMixin, check_classes, one_vs_rest,
                   store_runs, svc_expansions, unchanged_on_error, with_fit_threads)


def dictionary(family, X, oracle) -> list[Column]:
    """The finite list of the uniform master: the candidates of ``oracle`` when it is a
    :class:`GridOracle` with a list, else each member's default grid (all of a finite family)."""
    grid = oracle if isinstance(oracle, GridOracle) else GridOracle()
    columns = []
    for member in family.members(X.shape[1]):
        thetas = member.grid(X, grid.size, 0) if grid.candidates is None else grid.candidates
        columns += [Column.make(member, theta) for theta in np.asarray(thetas, dtype=float)]
    return columns


class AlignmentKernelEstimator(ColumnGenerationEstimator):
    """Stage 1, shared by the classifier and the regressor (parameters: see the subclasses)."""

    _parameter_constraints = {
        **ENGINE_CONSTRAINTS,
        "master": [StrOptions({"fsam", "alignf", "uniform"})],
        "shrinkage": [NON_NEGATIVE],
    }

    def _learn_kernel(self, X, target):
        """Run the engine; return the run and the learned kernel (weights summing to one).

        FSAM and alignf start from no column: the engine's first round solves the master
        over none (FSAM: K_0 = ε I_n, Algorithm 1 line 2) and prices the first column (lines
        4–6), under the engine's time limit and callback; T columns take T + 1 master solves.
        """
        family, oracle = make_family(self.family), make_oracle(self.oracle)
        shrinkage = Shrinkage(self.shrinkage)
        uniform = self.master == "uniform"
        engine = self._engine(
            MASTERS[self.master](target), oracle, self.random_state, tol=0.0, atol=0.0,
            obj_atol=self.tol, max_iter=self.max_iter + (0 if uniform else 1), n_price=1,
            regularizer=shrinkage if shrinkage.lam > 0 else None)
        result = engine.run(KernelSpace(X, family), dictionary(family, X, oracle) if uniform else [])
        columns, weights = result.columns, result.weights
        if not columns:  # stopped in the first round: its column alone (if one was priced)
            if result.pricing is None or not result.pricing.columns:
                raise RuntimeError(f"{type(self).__name__}: column generation ended with "
                                   f"status {result.status} before finding a first column: "
                                   f"{result.message}")
            columns, weights = result.pricing.columns[:1], np.ones(1)
        total = weights.sum()
        # all weights 0: no column improved on FSAM's K_0 = εI; keep the columns, equally
        weights = weights / total if total > 0 else np.full(len(weights), 1.0 / len(weights))
        return result, LearnedKernel(columns, weights)


@register_estimator
class AlignmentKernelClassifier(ExpansionClassifierMixin, AlignmentKernelEstimator):
    """Alignment-based kernel learning, then an SVM (afkanpour's CA, two-stage).

    Stage 1 maximizes the centred alignment with the label kernel ``YYᵀ``, Y the one-hot
    label matrix: ``(YYᵀ)_ij = 1`` when x_i and x_j share a class. One kernel serves every
    class; for two classes the centred alignment with one-hot labels equals that with ±1
    labels (``C(yyᵀ)C = 2 C(YYᵀ)C``), so this is exactly the paper's binary setting.
    Stage 2 is ``SVC(kernel="precomputed", C=C)`` on the learned kernel (one-vs-rest for
    more than two classes), uncentred: centring is a translation in feature space, absorbed
    by the SVM's bias, so train and test need no centring there (the alignment of stage 1 is
    computed on centred training Gram matrices).

    Parameters
    ----------
    family : KernelFamily or str, default=None (GaussianIso, i.e. CA-1D)
        A family object or a name of :data:`sipkl.kernel_learning.names.FAMILIES`; ``GaussianARD()`` is
        CA-nD, ``Dirichlet()`` the family of afkanpour §3.1.
    oracle : str or oracle object, default="ipopt"
        A name of :data:`sipkl.kernel_learning.names.ORACLES` or an object with a
        ``price(pricing_round)`` method.
    master : {"fsam", "alignf", "uniform"}, default="fsam"
        ``"fsam"``: stagewise steps of Prop. 2 (Algorithm 1); ``"alignf"``: the alignf QP over
        all current columns (totally corrective); ``"uniform"``: equal weights over a finite
        dictionary (the oracle's candidate list if it is a ``GridOracle`` with one, else the
        family's default grid) and no column generation (DU).
    C : float, default=1.0
        Soft-margin parameter of the SVC.
    shrinkage : float, default=0.0
        λ of eq. (4): the pricing objective becomes ``<W, K(θ)> − λ ‖θ − θ̄‖²`` (θ̄ the mean
        of θ's components; for Gaussian families θ are the scales s = 1/σ², see
        :class:`~sipkl.kernel_learning.masters.alignment.Shrinkage`). 0 switches it off.
    max_iter : int, default=50
        T of Algorithm 1 (master solves).
    tol : float, default=1e-3
        θ of Algorithm 1: stop when the alignment grows by less than ``tol`` in one
        iteration (the engine's absolute ``obj_atol``).
        Column generation also stops when no column has a positive price (λ = 0).
    time_limit : float or None
    random_state : int or None
        Seeds the oracle's random starts; ``None`` is the fixed seed
        :data:`~sipkl.core.engine.DEFAULT_SEED` (a fit gives the same model in every process).
    verbose : int, default=0
    callback : callable or None
        ``callback(intermediate_result)``; raise ``StopIteration`` to stop early.
    n_jobs : int or None, default=None
        Threads of the fit, with scikit-learn's meaning: ``None`` is 1 unless inside a
        ``joblib.parallel_config(n_jobs=…)`` context, −1 all CPUs. They compute the blocks
        of the pricing searches and of the Gram matrices (one BLAS thread each); the
        model is the same to the bit for every ``n_jobs`` (see :mod:`sipkl.utils.threads`).

    Attributes
    ----------
    kernel_ : LearnedKernel
        The learned kernel, weights rescaled to sum to one (alignment is scale invariant; the
        scale fixes the meaning of ``C``); equal weights if the run ended with all weights 0
        (no column improved on ``ε I_n``). FSAM's ridge ``ε I_n`` (Algorithm 1, line 2) is a
        training-only device of the first stage and is not part of it.
    result_ : CGResult
        The column-generation run (``result_.history["objective"]`` is −A_c per iteration).
    n_iter_ : int
    expansions_ : list of KernelExpansion, the second stage as ``Σ_i c_i k(x, x_i) + b``
    n_features_in_ : int
    classes_ : array

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> X, y = make_moons(80, noise=0.2, random_state=0)
    >>> from sipkl import AlignmentKernelClassifier
    >>> clf = AlignmentKernelClassifier(random_state=0).fit(X, y)
    >>> clf.result_.success, clf.score(X, y) > 0.9
    (True, True)
    """

    _parameter_constraints = {**AlignmentKernelEstimator._parameter_constraints, "C": [POSITIVE]}

    def __init__(self, family=None, oracle="ipopt", master="fsam", C=1.0, shrinkage=0.0,
                 max_iter=50, tol=1e-3, time_limit=None, random_state=None, verbose=0,
                 callback=None, n_jobs=None):
        self.family = family
        self.oracle = oracle
        self.master = master
        self.C = C
        self.shrinkage = shrinkage
        self.max_iter = max_iter
        self.tol = tol
        self.time_limit = time_limit
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback
        self.n_jobs = n_jobs

    @fit_context(prefer_skip_nested_validation=True)
    @unchanged_on_error
    @with_fit_threads
    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        self.classes_ = check_classes(y)
        result, kernel = self._learn_kernel(X, (y[:, None] == self.classes_[None, :]).astype(float))
        store_runs(self, [result], [kernel])
        self.expansions_ = svc_expansions(self.kernel_, X, one_vs_rest(y, self.classes_),
                                          self.C)
        return self


@register_estimator
class AlignmentKernelRegressor(ExpansionRegressorMixin, AlignmentKernelEstimator):
    """Alignment-based kernel learning, then kernel ridge regression (two-stage).

    Stage 1 maximizes the centred alignment with ``yyᵀ`` (real targets). Stage 2 is ridge
    regression with an unpenalized intercept in the learned feature space: kernel ridge
    ``(K̃ + αI) a = y − ȳ`` on the *centred* training kernel K̃ = CKC, and test rows centred
    with the training means (test features translated by the same training mean):

        f(x) = Σ_i a_i k̃(x, x_i) + ȳ,  k̃(x, x_i) = k(x, x_i) − m(x) − c_i + c̄,

    with m(x) = mean_j k(x, x_j), c_i = mean_j k(x_j, x_i), c̄ = mean_i c_i. Expanding,
    f(x) = Σ_j (a_j − S/n) k(x, x_j) + ȳ − aᵀc + S c̄ with S = Σ_i a_i: a plain kernel
    expansion, which is what is stored. (Unlike the SVM's, ridge predictions change with
    centring: there is no penalized-free bias otherwise.)

    Parameters
    ----------
    family : KernelFamily or str, default=None (GaussianIso, i.e. CA-1D)
        A family object or a name of :data:`sipkl.kernel_learning.names.FAMILIES`; ``GaussianARD()`` is
        CA-nD, ``Dirichlet()`` the family of afkanpour §3.1.
    oracle : str or oracle object, default="ipopt"
        A name of :data:`sipkl.kernel_learning.names.ORACLES` or an object with a
        ``price(pricing_round)`` method.
    master : {"fsam", "alignf", "uniform"}, default="fsam"
        ``"fsam"``: stagewise steps of Prop. 2 (Algorithm 1); ``"alignf"``: the alignf QP over
        all current columns (totally corrective); ``"uniform"``: equal weights over a finite
        dictionary (the oracle's candidate list if it is a ``GridOracle`` with one, else the
        family's default grid) and no column generation (DU).
    alpha : float, default=1.0
        Ridge parameter of the second stage.
    shrinkage : float, default=0.0
        λ of eq. (4): the pricing objective becomes ``<W, K(θ)> − λ ‖θ − θ̄‖²`` (θ̄ the mean
        of θ's components; for Gaussian families θ are the scales s = 1/σ², see
        :class:`~sipkl.kernel_learning.masters.alignment.Shrinkage`). 0 switches it off.
    max_iter : int, default=50
        T of Algorithm 1 (master solves).
    tol : float, default=1e-3
        θ of Algorithm 1: stop when the alignment grows by less than ``tol`` in one
        iteration (the engine's absolute ``obj_atol``).
        Column generation also stops when no column has a positive price (λ = 0).
    time_limit : float or None
    random_state : int or None
        Seeds the oracle's random starts; ``None`` is the fixed seed
        :data:`~sipkl.core.engine.DEFAULT_SEED` (a fit gives the same model in every process).
    verbose : int, default=0
    callback : callable or None
        ``callback(intermediate_result)``; raise ``StopIteration`` to stop early.
    n_jobs : int or None, default=None
        Threads of the fit, with scikit-learn's meaning: ``None`` is 1 unless inside a
        ``joblib.parallel_config(n_jobs=…)`` context, −1 all CPUs. They compute the blocks
        of the pricing searches and of the Gram matrices (one BLAS thread each); the
        model is the same to the bit for every ``n_jobs`` (see :mod:`sipkl.utils.threads`).

    Attributes
    ----------
    kernel_ : LearnedKernel
        The learned kernel, weights rescaled to sum to one (alignment is scale invariant; the
        scale fixes the meaning of ``alpha``); equal weights if the run ended with all
        weights 0 (no column improved on ``ε I_n``). FSAM's ridge ``ε I_n`` (Algorithm 1,
        line 2) is a training-only device of the first stage and is not part of it.
    result_ : CGResult
        The column-generation run (``result_.history["objective"]`` is −A_c per iteration).
    n_iter_ : int
    expansions_ : list of KernelExpansion, the second stage as ``Σ_i c_i k(x, x_i) + b``
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = X[:, 0] * X[:, 1] + 0.05 * rng.normal(size=80)    # a product of two features
    >>> X_test = rng.normal(size=(200, 3))
    >>> from sipkl import AlignmentKernelRegressor
    >>> reg = AlignmentKernelRegressor(random_state=0).fit(X, y)
    >>> reg.result_.success, reg.score(X_test, X_test[:, 0] * X_test[:, 1]) > 0.5
    (True, True)
    """

    _parameter_constraints = {**AlignmentKernelEstimator._parameter_constraints,
                              "alpha": [POSITIVE]}

    def __init__(self, family=None, oracle="ipopt", master="fsam", alpha=1.0, shrinkage=0.0,
                 max_iter=50, tol=1e-3, time_limit=None, random_state=None, verbose=0,
                 callback=None, n_jobs=None):
        self.family = family
        self.oracle = oracle
        self.master = master
        self.alpha = alpha
        self.shrinkage = shrinkage
        self.max_iter = max_iter
        self.tol = tol
        self.time_limit = time_limit
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback
        self.n_jobs = n_jobs

    @fit_context(prefer_skip_nested_validation=True)
    @unchanged_on_error
    @with_fit_threads
    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True,
                             ensure_min_samples=2)
        result, kernel = self._learn_kernel(X, y)
        store_runs(self, [result], [kernel])
        K = kernel(X)
        c = K.mean(axis=0)
        K_centred = K - c[:, None] - c[None, :] + c.mean()
        a = solve(K_centred + self.alpha * np.eye(len(K)), y - y.mean(), assume_a="pos")
        S = a.sum()
        self.expansions_ = [KernelExpansion(self.kernel_, X, a - S / len(a),
                                            float(y.mean() - a @ c + S * c.mean()))]
        return self
