"""scikit-learn estimators built on the column-generation engine."""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .engine import ColumnGeneration
from .expansion import KernelExpansion
from .kernels import GaussianARD, GaussianIso, GaussianSeparate, KernelFamily, LearnedKernel
from .masters import HingeMKLNewton, HingeMKLQCQP
from .oracles import make_oracle, proves_bound
from .contracts import Column

FAMILIES = {"gaussian_iso": GaussianIso, "gaussian_separate": GaussianSeparate,
            "gaussian_ard": GaussianARD}
MASTERS = {"newton": HingeMKLNewton, "qcqp": HingeMKLQCQP}


def make_family(family) -> KernelFamily:
    """A family object from ``None`` (GaussianIso), a name of :data:`FAMILIES`, or a family."""
    if family is None:
        return GaussianIso()
    if isinstance(family, str):
        if family not in FAMILIES:
            raise ValueError(f"family must be one of {sorted(FAMILIES)} or a KernelFamily, "
                             f"got {family!r}")
        return FAMILIES[family]()
    if not isinstance(family, KernelFamily):
        raise TypeError(f"family must be a KernelFamily or a name, got {type(family).__name__}")
    return family


def check_positive(value, name, allow_none=False, integer=False):
    if value is None and allow_none:
        return
    kind = numbers.Integral if integer else numbers.Real
    if (isinstance(value, bool) or not isinstance(value, kind) or not np.isfinite(value)
            or value <= 0):
        raise ValueError(f"{name} must be a positive {'integer' if integer else 'number'}, "
                         f"got {value!r}")


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


#: the objective-stall tolerance ``obj_tol="auto"`` means with an oracle that proves nothing
OBJ_TOL = 1e-4


def resolve_obj_tol(obj_tol, oracle, family: KernelFamily, n_features: int) -> float:
    """``obj_tol`` as a number: ``"auto"`` is 0 for an oracle that proves its bound over
    ``family`` (the run stops on the pricing test, certified) and :data:`OBJ_TOL` otherwise."""
    if obj_tol != "auto":
        return float(obj_tol)
    return 0.0 if proves_bound(oracle, family, n_features) else OBJ_TOL


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
                          "iterate so far", ConvergenceWarning, stacklevel=3)
    single = len(results) == 1
    estimator.kernel_ = kernels[0] if single else kernels
    estimator.result_ = results[0] if single else results
    estimator.n_iter_ = results[0].nit if single else np.array([r.nit for r in results])


def initial_column(family: KernelFamily, X) -> Column:
    """The first column: the family's first default point (any θ works, Algorithm 1 line 1)."""
    member = family.members(X.shape[1])[0]
    theta = member.grid(X, 1, 0)[0] if member.finite else member.starting_points(X, 1, 0)[0]
    return Column.make(member, theta)


class ExpansionClassifierMixin(ClassifierMixin):
    """Prediction of classifiers whose fitted model is a list ``expansions_`` of
    :class:`~sipkl.expansion.KernelExpansion` (one, or one per class for one-vs-rest)."""

    def decision_function(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        scores = np.column_stack([expansion(X) for expansion in self.expansions_])
        return scores[:, 0] if len(self.expansions_) == 1 else scores

    def predict(self, X):
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]


class IKLClassifier(ExpansionClassifierMixin, BaseEstimator):
    """Infinite Kernel Learning with hinge loss (gehler_nowozin, Algorithm 1).

    Learns ``k = Σ_θ d_θ k_θ`` over a continuously parameterized ``family`` by column
    generation: the restricted master is the MKL SVM (eq. 1/3), the pricing subproblem
    maximizes ``T(θ; α) = ½ Σ_ij α_i α_j y_i y_j k_θ(x_i, x_j)`` (eq. 7). Multiclass problems
    are solved one-vs-rest (as in the paper's Table 2), one learned kernel per class.

    Parameters
    ----------
    family : KernelFamily or str, default=None (GaussianIso)
    C : float, default=1.0
    oracle : {"ipopt", "grid", "dc"} or oracle object, default="ipopt"
        ``"dc"`` (Gaussian families with ≤ 3 scales) proves its bound; chain it after a
        cheap oracle with ``OracleChain([IpoptOracle(), DCGaussianOracle()])``.
    master : {"newton", "qcqp"}, default="newton"
        ``"newton"``: SimpleMKL objective minimized by projected Newton over libsvm;
        ``"qcqp"``: the dual QCQP in cvxpy (reference, slow).
    tol : float, default=1e-4
        Relative pricing tolerance: converged when no θ has ``T(θ; α) > λ(1 + tol)``.
    obj_tol : float or "auto", default="auto"
        Stop when the objective decreases by less than this fraction over an iteration
        (paper: 0.01 %); 0 turns the rule off. ``"auto"``: 0 when the oracle proves its
        bound (``"dc"``; ``"grid"`` on a finite family; a chain ending with one of these),
        so that a run with a certifying oracle stops on the pricing test and can end
        ``certified_optimal``; 1e-4 (:data:`OBJ_TOL`) with a local oracle, whose pricing
        test proves nothing anyway.
    max_iter : int, default=50
    n_price : int, default=5
        Columns added per iteration at most.
    time_limit : float or None
        Seconds per binary problem; the best solution so far is kept.
    random_state : int or None
    verbose : int, default=0
    callback : callable or None
        ``callback(intermediate_result)``; raise ``StopIteration`` to stop early.

    Attributes
    ----------
    classes_, n_features_in_
    kernel_ : LearnedKernel (binary) or list of LearnedKernel (one per class, multiclass)
    result_ : CGResult or list of CGResult
    n_iter_ : int (binary) or array of int
    expansions_ : list of KernelExpansion, the prediction model (see :mod:`sipkl.persistence`
        for saving it without pickle)
    """

    def __init__(self, family=None, C=1.0, oracle="ipopt", master="newton", tol=1e-4,
                 obj_tol="auto", max_iter=50, n_price=5, time_limit=None, random_state=None,
                 verbose=0, callback=None):
        self.family = family
        self.C = C
        self.oracle = oracle
        self.master = master
        self.tol = tol
        self.obj_tol = obj_tol
        self.max_iter = max_iter
        self.n_price = n_price
        self.time_limit = time_limit
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def _check_params(self):
        check_positive(self.C, "C")
        check_positive(self.tol, "tol")
        check_positive(self.max_iter, "max_iter", integer=True)
        check_positive(self.n_price, "n_price", integer=True)
        check_positive(self.time_limit, "time_limit", allow_none=True)
        if not (self.obj_tol == "auto" if isinstance(self.obj_tol, str) else
                (isinstance(self.obj_tol, numbers.Real) and 0 <= self.obj_tol < 1)):
            raise ValueError(f"obj_tol must be 'auto' or in [0, 1), got {self.obj_tol!r}")
        if self.master not in MASTERS:
            raise ValueError(f"master must be one of {sorted(MASTERS)}, got {self.master!r}")
        if self.callback is not None and not callable(self.callback):
            raise TypeError("callback must be callable")
        return make_family(self.family), make_oracle(self.oracle)

    def fit(self, X, y):
        family, oracle = self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_ = check_classes(y)
        targets = ([self.classes_[1]] if len(self.classes_) == 2 else self.classes_)
        seeds = np.random.SeedSequence(self.random_state).spawn(len(targets))
        start = initial_column(family, X)
        obj_tol = resolve_obj_tol(self.obj_tol, oracle, family, X.shape[1])
        self.expansions_, results = [], []
        for target, seed in zip(targets, seeds):
            y_pm = np.where(y == target, 1.0, -1.0)
            engine = ColumnGeneration(
                MASTERS[self.master](y_pm, self.C), oracle, tol=self.tol, obj_tol=obj_tol,
                max_iter=self.max_iter, time_limit=self.time_limit, n_price=self.n_price,
                callback=self.callback, verbose=self.verbose, random_state=seed)
            result = engine.run(family, X, [start])
            model = result.master.model
            sv = np.flatnonzero(model["alpha"] > 0)
            self.expansions_.append(KernelExpansion(
                LearnedKernel(result.columns, result.weights), X[sv],
                (model["alpha"] * model["y"])[sv], model["bias"]))
            results.append(result)
        store_runs(self, results, [e.kernel for e in self.expansions_])
        return self

