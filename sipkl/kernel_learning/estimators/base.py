"""What the estimators share: parameter constraints, the first columns of a run, the engine's
set-up, one-vs-rest targets, and prediction by kernel expansions.

Parameters are validated as scikit-learn's own estimators validate theirs: each class lists
``_parameter_constraints`` (:mod:`sklearn.utils._param_validation`), and ``fit``, decorated
with ``sklearn.base._fit_context``, checks them first. A bad value raises scikit-learn's
``InvalidParameterError``, a ``ValueError`` and a ``TypeError`` at once, whose message names
the parameter and what it accepts (for names: every valid one). Every ``fit`` is also
decorated with :func:`unchanged_on_error`: a fit that raises leaves a fitted estimator as it
was, still predicting on its own data.

``n_jobs`` has scikit-learn's meaning (:func:`sipkl.utils.threads.effective_n_jobs`): ``None`` is 1
unless a ``joblib.parallel_config(n_jobs=…)`` context says otherwise, −1 all CPUs. The jobs
are threads, not processes (NumPy releases the GIL in its exponentials and in BLAS): a fit
opens one pool of worker threads (:func:`sipkl.utils.threads.thread_pool`) that the compute layer
— the pricers' blocks of pairs, the blocks of Gram matrices, the master's sweeps — reads from
its thread, with no argument passed through the engine; the binary problems of one-vs-rest
run in parallel threads (:func:`sipkl.utils.threads.map_tasks`). The results are the same to the
bit for every ``n_jobs`` (same columns, weights, objective): see :mod:`sipkl.utils.threads`.
"""
from __future__ import annotations

import functools
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ...core.contracts import Column
from ...core.contracts import proves_bound
from ...core.engine import ColumnGeneration
from ...utils.sklearn_api import HasMethods, Interval, StrOptions
from ...utils.threads import effective_n_jobs, map_tasks, shared_interrupt, thread_pool
from ..expansion import KernelExpansion
from ..families import KernelFamily, LearnedKernel
from ..names import FAMILIES, ORACLES

#: a positive finite number
POSITIVE = Interval(Real, 0, np.inf, closed="neither")
#: a non-negative finite number
NON_NEGATIVE = Interval(Real, 0, np.inf, closed="left")
#: a positive integer
POSITIVE_INT = Interval(Integral, 1, None, closed="left")
#: ``n_jobs`` as scikit-learn takes it: ``None``, or an integer other than 0
N_JOBS = [Interval(Integral, None, -1, closed="right"), Interval(Integral, 1, None, closed="left"),
          None]

#: constraints of the parameters every column-generation estimator has
ENGINE_CONSTRAINTS = {
    "family": [None, StrOptions(set(FAMILIES)), KernelFamily],
    "oracle": [StrOptions(set(ORACLES)), HasMethods(["price"])],
    "tol": [POSITIVE],
    "max_iter": [POSITIVE_INT],
    "time_limit": [POSITIVE, None],
    "random_state": [Interval(Integral, 0, None, closed="left"), None],
    "verbose": ["verbose"],
    "callback": [callable, None],
    "n_jobs": N_JOBS,
}

#: the objective-stall tolerance ``obj_tol="auto"`` means with an oracle that proves nothing
OBJ_TOL = 1e-4


def resolve_obj_tol(obj_tol, oracle, family: KernelFamily, n_features: int) -> float:
    """``obj_tol`` as a number: ``"auto"`` is 0 for an oracle that proves its bound over
    ``family`` (the run stops on the pricing test, certified) and :data:`OBJ_TOL` otherwise."""
    if obj_tol != "auto":
        return float(obj_tol)
    return 0.0 if proves_bound(oracle, family, n_features) else OBJ_TOL


def check_classes(y) -> np.ndarray:
    """The sorted classes of classification targets ``y``, with clear errors for targets
    that are not class labels, labels of mixed types, or a single class."""
    if np.asarray(y).dtype == object:
        kinds = {type(v).__name__ for v in np.asarray(y).ravel()}
        if len({"str" if k.startswith("str") else "number" for k in kinds}) > 1:
            raise ValueError(f"y mixes labels of different types ({', '.join(sorted(kinds))})")
    check_classification_targets(y)
    classes = np.unique(y)
    if len(classes) < 2:
        raise ValueError(f"y has 1 class ({classes[0]!r}); at least 2 classes are needed")
    return classes


def one_vs_rest(y, classes) -> np.ndarray:
    """The ±1 targets of the binary problems, one column each: +1 where ``y`` is the class,
    −1 elsewhere; one column (the second class) for two classes, one per class for more."""
    targets = classes[1:] if len(classes) == 2 else classes
    return np.where(np.asarray(y)[:, None] == targets[None, :], 1.0, -1.0)


def initial_column(family: KernelFamily, X) -> Column:
    """The first column: the family's first default point (any θ works, gehler_nowozin
    Algorithm 1 line 1)."""
    member = family.members(X.shape[1])[0]
    theta = member.grid(X, 1, 0)[0] if member.finite else member.starting_points(X, 1, 0)[0]
    return Column.make(member, theta)


def starting_columns(family: KernelFamily, X, n: int) -> list[Column]:
    """Every member's default candidate list: all of a finite member, ``n`` points of the
    default grid of a continuous one (argyriou §4.1 starts from ten such kernels)."""
    return list(dict.fromkeys(Column.make(member, theta)
                              for member in family.members(X.shape[1])
                              for theta in member.grid(X, n, 0)))


def store_runs(estimator, results, kernels) -> None:
    """Set ``kernel_``, ``result_`` and ``n_iter_``: plain values for one run, lists (and an
    array of iteration counts) for one run per one-vs-rest target.

    Warns with scikit-learn's ``ConvergenceWarning`` (as ``SVC`` does) for each run that
    ended without success: a limit, a failure, or a master that was not optimal.
    """
    for k, result in enumerate(results):
        if not result.success:
            which = "" if len(results) == 1 else f" (target {k})"
            warnings.warn(f"{type(estimator).__name__}: column generation{which} ended with "
                          f"status {result.status}: {result.message}; the model is the best "
                          "iterate so far", ConvergenceWarning, stacklevel=4)
    single = len(results) == 1
    estimator.kernel_ = kernels[0] if single else kernels
    estimator.result_ = results[0] if single else results
    estimator.n_iter_ = results[0].nit if single else np.array([r.nit for r in results])


def svc_expansions(kernel: LearnedKernel, X, targets, C: float) -> list[KernelExpansion]:
    """Stage 2 of the two-stage methods: one ``SVC(kernel="precomputed", C=C)`` on the Gram
    matrix ``kernel(X)`` per column of the ±1 ``targets``, each as a kernel expansion."""
    K = kernel(X)
    return [KernelExpansion.from_svc(kernel, X, SVC(C=C, kernel="precomputed").fit(K, target))
            for target in targets.T]


def unchanged_on_error(fit):
    """``fit`` all or nothing: a fit that raises (data rejected, a ``warm_start`` that does
    not continue the previous fit, an interruption) leaves the estimator's attributes, the
    fitted ones included, as they were before it. A fit assigns its attributes and changes
    no value in place, so the attributes as they were are kept by restoring the previous
    bindings."""
    @functools.wraps(fit)
    def fit_or_unchanged(self, *args, **kwargs):
        before = dict(vars(self))
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            vars(self).clear()
            vars(self).update(before)
            raise
    return fit_or_unchanged


def with_fit_threads(fit):
    """``fit`` (of an estimator that runs one engine) inside the estimator's
    :meth:`ColumnGenerationEstimator._fit_threads`."""
    @functools.wraps(fit)
    def fit_in_threads(self, *args, **kwargs):
        with self._fit_threads():
            return fit(self, *args, **kwargs)
    return fit_in_threads


class ColumnGenerationEstimator(BaseEstimator):
    """Base of the estimators: the engine with the estimator's stopping parameters, and the
    threads of a fit (``n_jobs``)."""

    def _n_threads(self) -> int:
        """``n_jobs`` resolved as scikit-learn resolves it (at least 1)."""
        return effective_n_jobs(self.n_jobs)

    def _fit_threads(self):
        """The worker threads of one fit: a :func:`~sipkl.utils.threads.thread_pool` of
        ``n_jobs`` threads (made on entry, shut down on exit), which the compute layer of
        this thread uses with no argument passed through the layers."""
        return thread_pool(self._n_threads())

    def _per_target(self, fit_one, tasks) -> list:
        """``[fit_one(task) for task in tasks]``, the binary problems of one-vs-rest: with
        ``n_jobs`` > 1 and several of them, in parallel threads, each with its share of the
        ``n_jobs`` for its own blocks (:func:`~sipkl.utils.threads.map_tasks`); each problem is its
        own run (its own seed, master and workspace), so the results are those of the serial
        loop. The libsvm solves of the hinge masters and the IPOPT polishes of the oracle run
        one at a time across threads (:mod:`sipkl.kernel_learning.masters.common`,
        :mod:`sipkl.pricing.multistart`); a ``callback`` is then called from those threads.
        Ctrl-C ends every problem before its next master solve or pricing (one master solve
        for a problem not yet begun), each with what it learned, status ``interrupted``."""
        return map_tasks(fit_one, tasks, self._n_threads())

    def _engine(self, master, oracle, seed, **options) -> ColumnGeneration:
        """A :class:`~sipkl.core.engine.ColumnGeneration` run of ``master`` and ``oracle`` with
        this estimator's ``tol``, ``max_iter``, ``time_limit``, ``callback`` and ``verbose``
        and the random seed ``seed``; ``options`` add engine arguments or override these.
        Inside :meth:`_per_target` the runs share the ``interrupt`` of its tasks
        (:func:`~sipkl.utils.threads.shared_interrupt`): Ctrl-C ends every binary problem."""
        settings = dict(tol=self.tol, max_iter=self.max_iter, time_limit=self.time_limit,
                        callback=self.callback, verbose=self.verbose, random_state=seed,
                        interrupt=shared_interrupt())
        return ColumnGeneration(master, oracle, **{**settings, **options})


def expansion_scores(expansions, X) -> np.ndarray:
    """The scores of the kernel ``expansions`` at X, one column each."""
    return np.column_stack([expansion(X) for expansion in expansions])


def predict_classes(classes, expansions, X) -> np.ndarray:
    """The classes that the kernel ``expansions`` predict at X: one expansion, the second
    class where its score is positive; one per class (one-vs-rest), the highest score's."""
    scores = expansion_scores(expansions, X)
    if scores.shape[1] == 1:
        return classes[(scores[:, 0] > 0).astype(int)]
    return classes[np.argmax(scores, axis=1)]


class ExpansionClassifierMixin(ClassifierMixin):
    """Prediction of classifiers whose fitted model is a list ``expansions_`` of
    :class:`~sipkl.kernel_learning.expansion.KernelExpansion` (one, or one per class for one-vs-rest)."""

    def decision_function(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        scores = expansion_scores(self.expansions_, X)
        return scores[:, 0] if len(self.expansions_) == 1 else scores

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return predict_classes(self.classes_, self.expansions_, X)


class ExpansionRegressorMixin(RegressorMixin):
    """Prediction of regressors whose fitted model is one kernel expansion ``expansions_[0]``."""

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.expansions_[0](X)
