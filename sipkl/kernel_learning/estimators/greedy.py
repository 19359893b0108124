"""Argyriou's greedy convex combination with the square loss (argyriou_micchelli_pontil):
:class:`GreedyKernelRidge`, :class:`GreedyKernelRidgeClassifier`, both on the master
:class:`~sipkl.kernel_learning.masters.greedy.GreedySquareLossMaster`."""
from __future__ import annotations

import numpy as np
from sklearn.utils.validation import validate_data

from ...core.engine import default_seed
from ...utils.sklearn_api import fit_context
from ..expansion import KernelExpansion
from ..families import LearnedKernel
from ..masters.greedy import GreedySquareLossMaster
from ..names import make_family, make_oracle, register_estimator
from ..space import KernelSpace
from .base import (ENGINE_CONSTRAINTS, POSITIVE, POSITIVE_INT, ColumnGenerationEstimator,
                   ExpansionClassifierMixin, ExpansionRegressorMixin, check_classes, one_vs_rest,
                   starting_columns, store_runs, unchanged_on_error)


class GreedySquareLossEstimator(ColumnGenerationEstimator):
    """The greedy runs, shared by the regressor and the classifier (parameters: see them)."""

    _parameter_constraints = {**ENGINE_CONSTRAINTS, "alpha": [POSITIVE],
                              "n_price": [POSITIVE_INT], "n_start": [POSITIVE_INT]}

    def __init__(self, family=None, alpha=1e-2, oracle="ipopt", tol=1e-3, max_iter=100,
                 n_price=1, n_start=10, time_limit=None, random_state=None, verbose=0,
                 callback=None, n_jobs=None):
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
        self.n_jobs = n_jobs

    def _fit_targets(self, X, targets):
        """One greedy run per column of ``targets``, each stored as the expansion
        Σ_j α_j k(x, x_j) over all training points."""
        family, oracle = make_family(self.family), make_oracle(self.oracle)
        start = starting_columns(family, X, self.n_start)
        seeds = np.random.SeedSequence(default_seed(self.random_state)).spawn(targets.shape[1])

        def fit_target(task):  # one run
            target, seed = task
            master = GreedySquareLossMaster(target, self.alpha, tol=self.tol)
            result = self._engine(master, oracle, seed, n_price=self.n_price).run(
                KernelSpace(X, family), start)
            return KernelExpansion(LearnedKernel(result.columns, result.weights), X,
                                   result.master.model.alpha), result

        fitted = self._per_target(fit_target, zip(targets.T, seeds))
        self.expansions_ = [expansion for expansion, _ in fitted]
        results = [result for _, result in fitted]
        store_runs(self, results, [e.kernel for e in self.expansions_])


@register_estimator
class GreedyKernelRidge(ExpansionRegressorMixin, GreedySquareLossEstimator):
    """Kernel ridge regression with a kernel learned by argyriou's greedy algorithm.

    Fig. 1 of argyriou_micchelli_pontil with the square loss: the kernel is a convex
    combination of members of ``family``, grown one column at a time by the line search (30)
    while some θ satisfies inequality (29). Predicts f(x) = Σ_j α_j K(x_j, x) with
    (K + μI) α = y, the minimizer of the regularization functional (1) for the learned K.

    Parameters
    ----------
    family : KernelFamily or str, default=None (GaussianIso)
        A family object or a name of :data:`sipkl.kernel_learning.names.FAMILIES`.
    alpha : float, default=1e-2
        The regularization parameter μ of the functional (1), the ridge of kernel ridge
        regression (scikit-learn's ``KernelRidge(alpha=μ)``); the paper used 1e-7 on raw
        MNIST pixels.
    oracle : str or oracle object, default="ipopt"
        ``"ipopt"``: the continuous algorithm; ``"grid"``: the finite one (a candidate list);
        any name of :data:`sipkl.kernel_learning.names.ORACLES` or an object with a
        ``price(pricing_round)`` method.
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
        Seeds the random starts; ``None`` is the fixed seed :data:`~sipkl.core.engine.DEFAULT_SEED`
        (a fit gives the same model in every process).
    verbose : int, default=0
    callback : callable or None
    n_jobs : int or None, default=None
        Threads of the fit, with scikit-learn's meaning: ``None`` is 1 unless inside a
        ``joblib.parallel_config(n_jobs=…)`` context, −1 all CPUs. They compute the blocks
        of the pricing searches and of the Gram matrices (one BLAS thread each); the
        model is the same to the bit for every ``n_jobs`` (see :mod:`sipkl.utils.threads`).

    Attributes
    ----------
    kernel_ : LearnedKernel
    result_ : CGResult (``result_.objective`` is Q_μ(K) = −g(K))
    n_iter_ : int
    expansions_ : [KernelExpansion], the prediction model Σ_j α_j k(x, x_j)
    n_features_in_

    Examples
    --------
    >>> import numpy as np
    >>> from sipkl import GreedyKernelRidge
    >>> X = np.linspace(-3.0, 3.0, 60)[:, None]
    >>> reg = GreedyKernelRidge(random_state=0).fit(X, np.sin(2.0 * X[:, 0]))
    >>> between = X + 0.025                             # points between the training points
    >>> reg.result_.success, reg.score(between, np.sin(2.0 * between[:, 0])) > 0.99
    (True, True)
    """

    @fit_context(prefer_skip_nested_validation=True)
    @unchanged_on_error
    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        self._fit_targets(X, y[:, None])
        return self


@register_estimator
class GreedyKernelRidgeClassifier(ExpansionClassifierMixin, GreedySquareLossEstimator):
    """Argyriou's greedy kernel learning with the square loss on ±1 targets.

    As :class:`GreedyKernelRidge` on the targets +1 (the class) / −1 (the rest), the setting
    of argyriou §4.1; several classes are handled one-vs-rest, one learned kernel per class,
    and predicted by the largest score.

    Parameters
    ----------
    family : KernelFamily or str, default=None (GaussianIso)
        A family object or a name of :data:`sipkl.kernel_learning.names.FAMILIES`.
    alpha : float, default=1e-2
        The regularization parameter μ of the functional (1), the ridge of kernel ridge
        regression (scikit-learn's ``KernelRidge(alpha=μ)``); the paper used 1e-7 on raw
        MNIST pixels.
    oracle : str or oracle object, default="ipopt"
        ``"ipopt"``: the continuous algorithm; ``"grid"``: the finite one (a candidate list);
        any name of :data:`sipkl.kernel_learning.names.ORACLES` or an object with a
        ``price(pricing_round)`` method.
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
        Seeds the random starts; ``None`` is the fixed seed :data:`~sipkl.core.engine.DEFAULT_SEED`
        (a fit gives the same model in every process).
    verbose : int, default=0
    callback : callable or None
    n_jobs : int or None, default=None
        Threads of the fit, with scikit-learn's meaning: ``None`` is 1 unless inside a
        ``joblib.parallel_config(n_jobs=…)`` context, −1 all CPUs. They compute the blocks
        of the pricing searches and of the Gram matrices (one BLAS thread each), and the
        one-vs-rest problems of a multiclass fit in parallel; the
        model is the same to the bit for every ``n_jobs`` (see :mod:`sipkl.utils.threads`).

    Attributes
    ----------
    classes_, n_features_in_
    kernel_ : LearnedKernel (binary) or list of LearnedKernel (one per class)
    result_ : CGResult or list of CGResult
    n_iter_ : int or array of int
    expansions_ : list of KernelExpansion, one per binary problem

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> X, y = make_moons(80, noise=0.2, random_state=0)
    >>> from sipkl import GreedyKernelRidgeClassifier
    >>> clf = GreedyKernelRidgeClassifier(random_state=0).fit(X, y)
    >>> clf.result_.success, clf.score(X, y) > 0.9
    (True, True)
    """

    @fit_context(prefer_skip_nested_validation=True)
    @unchanged_on_error
    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_ = check_classes(y)
        self._fit_targets(X, one_vs_rest(y, self.classes_))
        return self
