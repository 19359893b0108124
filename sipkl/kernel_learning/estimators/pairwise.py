"""Pothin and Richard's pairwise greedy alignment, then an SVM:
:class:`PairwiseAlignmentClassifier`, on the master
:class:`~sipkl.kernel_learning.masters.pairwise.PairwiseAlignmentMaster`."""
from __future__ import annotations

import numpy as np
from sklearn.utils.validation import validate_data

from ...utils.sklearn_api import fit_context
from ..families import LearnedKernel
from ..masters.pairwise import PairwiseAlignmentMaster, refine_parameters
from ..names import make_family, make_oracle, register_estimator
from ..space import KernelSpace
from .base import (ENGINE_CONSTRAINTS, POSITIVE, POSITIVE_INT, ColumnGenerationEstimator,
                   ExpansionClassifierMixin, check_classes, one_vs_rest, starting_columns,
                   store_runs, svc_expansions, unchanged_on_error, with_fit_threads)


@register_estimator
class PairwiseAlignmentClassifier(ExpansionClassifierMixin, ColumnGenerationEstimator):
    """Kernel learned by pothin_richard's greedy alignment, then an SVM (two stages).

    Stage 1: Table 1 — starting from the best aligned candidate, merge one kernel at a time
    with the closed form (7), candidates priced by the alignment gradient and re-ranked by
    the exact pairwise alignment (see :mod:`sipkl.kernel_learning.masters.pairwise`). Stage 2:
    ``SVC(kernel="precomputed", C)`` on the learned kernel. Several classes share one kernel
    aligned with the sum of the one-vs-rest targets, and get one SVC each (one-vs-rest).

    Parameters
    ----------
    family : KernelFamily or str, default=None (GaussianIso)
        A family object or a name of :data:`sipkl.kernel_learning.names.FAMILIES`.
    C : float, default=1.0
        The SVM's C.
    oracle : str or oracle object, default="grid"
        The paper enumerates a candidate list (``"grid"``); ``"ipopt"`` searches θ locally;
        any name of :data:`sipkl.kernel_learning.names.ORACLES` or an object with a
        ``price(pricing_round)`` method.
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
        alignment (§4, eq. 12; :func:`~sipkl.kernel_learning.masters.pairwise.refine_parameters`), one pass
        of step 3 with the weights fixed (the paper's outer alternation is not repeated).
    eta, refine_tol : float, default=0.5, 1e-5
        Gradient step and stopping gain of the refinement (the paper's values).
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
    classes_, n_features_in_
    kernel_ : LearnedKernel
    result_ : CGResult (``-result_.objective`` is the training alignment of the greedy)
    n_iter_ : int
    alignment_ : float, training alignment of ``kernel_`` (after refinement if any)
    expansions_ : list of KernelExpansion, the SVC(s) as Σ_i c_i k(x, x_i) + b

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> X, y = make_moons(80, noise=0.2, random_state=0)
    >>> from sipkl import PairwiseAlignmentClassifier
    >>> clf = PairwiseAlignmentClassifier().fit(X, y)
    >>> clf.result_.success, clf.score(X, y) > 0.9
    (True, True)
    """

    _parameter_constraints = {
        **ENGINE_CONSTRAINTS,
        "C": [POSITIVE],
        "centered": ["boolean"],
        "n_price": [POSITIVE_INT],
        "n_start": [POSITIVE_INT],
        "refine": ["boolean"],
        "eta": [POSITIVE],
        "refine_tol": [POSITIVE],
    }

    def __init__(self, family=None, C=1.0, oracle="grid", centered=False, tol=1e-3,
                 max_iter=50, n_price=5, n_start=10, refine=False, eta=0.5, refine_tol=1e-5,
                 time_limit=None, random_state=None, verbose=0, callback=None, n_jobs=None):
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
        self.n_jobs = n_jobs

    @fit_context(prefer_skip_nested_validation=True)
    @unchanged_on_error
    @with_fit_threads
    def fit(self, X, y):
        family, oracle = make_family(self.family), make_oracle(self.oracle)
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_ = check_classes(y)
        master = PairwiseAlignmentMaster(y, self.centered)
        engine = self._engine(master, oracle, self.random_state, obj_tol=self.tol,
                              n_price=self.n_price)
        result = engine.run(KernelSpace(X, family), starting_columns(family, X, self.n_start))
        kernel = LearnedKernel(result.columns, result.weights)
        self.alignment_ = -result.objective
        if self.refine:
            kernel, history = refine_parameters(kernel, X, y, centered=self.centered,
                                                eta=self.eta, tol=self.refine_tol)
            self.alignment_ = history[-1]
        store_runs(self, [result], [kernel])
        self.expansions_ = svc_expansions(kernel, X, one_vs_rest(y, self.classes_), self.C)
        return self
