"""Cortes, Mohri and Rostamizadeh's non-linear (polynomial) combinations of kernels:
:class:`NonlinearKernelRidge` (NKRR), on the master
:class:`~sipkl.kernel_learning.masters.nonlinear.NonlinearKRRMaster`."""
from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils.validation import validate_data

from ...utils.sklearn_api import Interval, StrOptions, fit_context
from ..expansion import KernelExpansion
from ..families import LearnedKernel, LinearPerFeature
from ..masters.nonlinear import NORMS, NonlinearKRRMaster
from ..names import make_family, make_oracle, register_estimator
from ..space import KernelSpace
from .base import (ENGINE_CONSTRAINTS, NON_NEGATIVE, POSITIVE, POSITIVE_INT,
                   ColumnGenerationEstimator, ExpansionRegressorMixin, starting_columns,
                   store_runs, unchanged_on_error, with_fit_threads)


@register_estimator
class NonlinearKernelRidge(ExpansionRegressorMixin, ColumnGenerationEstimator):
    """Kernel ridge regression with a learned polynomial combination of kernels (NKRR).

    cortes_mohri_rostamizadeh Algorithm 1: K_µ = (Σ_k µ_k K_k)^{∘d}, µ minimizing
    F(µ) = yᵀ(K_µ + λI)⁻¹y over {µ ≥ 0, ‖µ − µ₀‖ ≤ Λ} by projected gradient; with a
    continuous ``family`` new base kernels enter by column generation (see
    :mod:`sipkl.kernel_learning.masters.nonlinear`). The targets are centred (§4.1: "both labels and features
    were centered"; centre and scale the features yourself, e.g. in a Pipeline);
    f(x) = ȳ + Σ_j α_j K_µ(x_j, x), α = (K_µ + λI)⁻¹(y − ȳ).

    Parameters
    ----------
    family : KernelFamily or str, default=None (:class:`~sipkl.kernel_learning.families.LinearPerFeature`,
        one linear kernel per feature, §4.1)
        A family object or a name of :data:`sipkl.kernel_learning.names.FAMILIES`.
    degree : int in 1 … 4, default=2
    alpha : float, default=1.0
        λ of (5)–(10), the ridge.
    radius : float, default=1.0
        Λ of (7)–(8).
    norm : {"l1", "l2"}, default="l2"
    mu0 : float, default=1.0
        µ₀ for every initial kernel ("µ₀ = 1 corresponding to the weights of the baseline
        kernel"); kernels added by column generation have µ₀ = 0.
    oracle : str or oracle object, default="grid"
        A name of :data:`sipkl.kernel_learning.names.ORACLES` or an object with a
        ``price(pricing_round)`` method.
    tol : float, default=1e-4
        Relative pricing tolerance of the engine; the master also stops once its
        first-order gap is at most ``tol·|F|`` (see
        :class:`~sipkl.kernel_learning.masters.nonlinear.NonlinearKRRMaster`).
    step_tol : float, default=1e-6
        ε of Algorithm 1, on the full projected-gradient step ‖µ′ − µ‖ (η = 1).
    max_iter : int, default=50
    n_price : int, default=5
    n_start : int, default=10
        Initial kernels per continuous member (all of a finite one): the base kernels.
    time_limit : float or None
    random_state : int or None
        Seeds the random starts; ``None`` is the fixed seed :data:`~sipkl.core.engine.DEFAULT_SEED`
        (a fit gives the same model in every process).
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
    kernel_ : LearnedKernel of degree d (base kernels with weight µ₀ + δ)
    result_ : CGResult (``result_.weights`` are δ = µ − µ₀ of ``result_.columns``)
    n_iter_ : int
    expansions_ : [KernelExpansion], f(x) = Σ_j α_j k(x, x_j) + ȳ
    n_features_in_ : int

    Examples
    --------
    A product of two features is a degree-2 combination of the linear per-feature kernels:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> y = X[:, 0] * X[:, 1] + 0.05 * rng.normal(size=80)    # a product of two features
    >>> X_test = rng.normal(size=(200, 3))
    >>> from sipkl import NonlinearKernelRidge
    >>> reg = NonlinearKernelRidge(degree=2, alpha=0.1).fit(X, y)
    >>> reg.result_.status.value        # F is not convex at degree 2: a KKT point
    'stationary_point'
    >>> reg.score(X_test, X_test[:, 0] * X_test[:, 1]) > 0.95
    True
    """

    _parameter_constraints = {
        **ENGINE_CONSTRAINTS,
        "degree": [Interval(Integral, 1, 4, closed="both")],
        "alpha": [POSITIVE],
        "radius": [POSITIVE],
        "norm": [StrOptions(set(NORMS))],
        "mu0": [NON_NEGATIVE],
        "step_tol": [POSITIVE],
        "n_price": [POSITIVE_INT],
        "n_start": [POSITIVE_INT],
    }

    def __init__(self, family=None, degree=2, alpha=1.0, radius=1.0, norm="l2", mu0=1.0,
                 oracle="grid", tol=1e-4, step_tol=1e-6, max_iter=50, n_price=5, n_start=10,
                 time_limit=None, random_state=None, verbose=0, callback=None, n_jobs=None):
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
        self.n_jobs = n_jobs

    @fit_context(prefer_skip_nested_validation=True)
    @unchanged_on_error
    @with_fit_threads
    def fit(self, X, y):
        family = LinearPerFeature() if self.family is None else make_family(self.family)
        oracle = make_oracle(self.oracle)
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        y_mean = float(y.mean())
        base = starting_columns(family, X, self.n_start)
        offset = LearnedKernel(base, np.full(len(base), float(self.mu0)))
        master = NonlinearKRRMaster(y - y_mean, self.alpha, self.radius, self.degree,
                                    self.norm, offset(X) if self.mu0 > 0 else None,
                                    tol=self.step_tol, gap_tol=self.tol)
        result = self._engine(master, oracle, self.random_state, n_price=self.n_price).run(
            KernelSpace(X, family), base)
        kernel = LearnedKernel(offset.columns + result.columns,
                               np.concatenate([offset.weights, result.weights]), self.degree)
        store_runs(self, [result], [kernel])
        self.expansions_ = [KernelExpansion(kernel, X, result.master.model.alpha, y_mean)]
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # (Σ µ_k x_k x′_k)^d with d ≥ 2 has no term of degree < d: it cannot fit a linear
        # target, which is what scikit-learn's score check asks of a regressor.
        tags.regressor_tags.poor_score = self.degree != 1
        return tags
