"""Infinite Kernel Learning with the hinge loss (gehler_nowozin): :class:`IKLClassifier`."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from numbers import Real
from typing import Optional

import numpy as np
from sklearn.utils.validation import validate_data

from ...core.contracts import RunStatus, proves_bound
from ...core.engine import CGResult, default_seed
from ...utils.sklearn_api import Interval, StrOptions, fit_context
from ..expansion import KernelExpansion, LandmarkExpansion
from ..families import LearnedKernel
from ..names import MASTERS, make_family, make_oracle, register_estimator
from ..nystrom import NystromSpace, check_nystrom_family, exact_kernel_gap
from ..space import KernelSpace
from ...compute.torch_backend import auto_device
from ...core.progress import report
from ..large_n import (SUBSAMPLE_ROUNDS, SUBSAMPLE_TIME_SHARE, HeldOutRounds,
                       one_stage_landmarks, two_stages)
from .base import (ENGINE_CONSTRAINTS, POSITIVE, POSITIVE_INT, ColumnGenerationEstimator,
                   ExpansionClassifierMixin, check_classes, initial_column, one_vs_rest,
                   predict_classes, resolve_obj_tol, store_runs, unchanged_on_error)


@register_estimator
class IKLClassifier(ExpansionClassifierMixin, ColumnGenerationEstimator):
    """Infinite Kernel Learning with hinge loss (gehler_nowozin, Algorithm 1).

    Learns ``k = Σ_θ d_θ k_θ`` over a continuously parameterized ``family`` by column
    generation: the restricted master is the MKL SVM (eq. 1/3), the pricing subproblem
    maximizes ``T(θ; α) = ½ Σ_ij α_i α_j y_i y_j k_θ(x_i, x_j)`` (eq. 7). Multiclass problems
    are solved one-vs-rest (as in the paper's Table 2), one learned kernel per class.

    Parameters
    ----------
    family : KernelFamily or str, default=None (GaussianIso)
        A family object, or a name of :data:`sipkl.kernel_learning.names.FAMILIES`.
    C : float, default=1.0
    oracle : str or oracle object, default="ipopt"
        A name of :data:`sipkl.kernel_learning.names.ORACLES` or an object with a
        ``price(pricing_round)`` method. ``"dc"`` (Gaussian families with ≤ 3 scales)
        proves its bound; chain it after a cheap oracle with
        ``OracleChain([MultiStartOracle(), DCGaussianOracle()])``.
    master : {"newton", "qcqp", "lp_norm"}, default="newton"
        ``"newton"``: SimpleMKL objective minimized by projected Newton over libsvm;
        ``"qcqp"``: the dual QCQP in cvxpy (reference, slow); ``"lp_norm"``: ℓ2-norm MKL
        (:class:`~sipkl.kernel_learning.masters.lp_norm.HingeMKLLpNorm`, weights on the ℓ2 sphere instead of
        the simplex — every kernel of the family gets a weight, so use it over a finite
        list, e.g. ``oracle=GridOracle(candidates=...)``).
    tol : float, default=1e-4
        Relative pricing tolerance: converged when no θ has ``T(θ; α) > λ(1 + tol)``.
    obj_tol : float in [0, 1) or "auto", default="auto"
        Stop when the objective decreases by less than this fraction over an iteration
        (paper: 0.01 %); 0 turns the rule off. ``"auto"``: 0 when the oracle proves its
        bound (``"dc"``; ``"grid"`` on a finite family; a chain ending with one of these),
        so that a run with a certifying oracle stops on the pricing test and can end
        ``certified_optimal``; 1e-4 (:data:`~sipkl.kernel_learning.estimators.base.OBJ_TOL`) with a local
        oracle, whose pricing test proves nothing anyway.
    max_iter : int, default=50
    n_price : int, default=5
        Columns added per iteration at most.
    time_limit : float or None
        Seconds per binary problem; the best solution so far is kept. The master's SVM
        solves and the oracle's search read it too: a fit overruns it by the step in
        progress (the Concepts page, "Time limits and Ctrl-C", measures it). Ctrl-C ends
        every binary problem likewise, each with what it learned (status ``interrupted``).
    random_state : int or None
        Seeds the random starts; ``None`` is the fixed seed :data:`~sipkl.core.engine.DEFAULT_SEED`
        (a fit gives the same model in every process).
    verbose : int, default=0
    callback : callable or None
        ``callback(intermediate_result)``; raise ``StopIteration`` to stop early.
    n_jobs : int or None, default=None
        Threads of the fit, with scikit-learn's meaning: ``None`` is 1 unless inside a
        ``joblib.parallel_config(n_jobs=…)`` context, −1 all CPUs. They compute the pricing
        searches' blocks of pairs and the Gram matrices' blocks (one BLAS thread each), and
        the one-vs-rest problems of a multiclass fit in parallel; the model is the same to
        the bit for every ``n_jobs`` (see :mod:`sipkl.utils.threads`).
    n_landmarks : int, "auto" or None, default="auto"
        ``None``: exact columns. An integer q: every column is replaced by its Nyström
        approximation on q landmarks drawn from the training points (with ``random_state``,
        once per fit; all points where there are fewer), for large n: memory n·q per column,
        prices in O(q·n_sv) per θ (:mod:`sipkl.kernel_learning.nystrom`). The run, its status and gaps are
        those of IKL over the approximated family; prediction is the SVM of the approximated
        kernel, q kernel values per point and column
        (:class:`~sipkl.kernel_learning.expansion.LandmarkExpansion`). Needs a Gaussian family, the
        ``"newton"`` master and an oracle that does not bound exact prices (not ``"dc"``).
        ``"auto"``: exact columns up to
        :data:`~sipkl.kernel_learning.large_n.EXACT_MAX_N` points (5000), Nyström columns
        on :func:`~sipkl.kernel_learning.large_n.auto_landmarks` landmarks (400, fewer where
        memory asks) above, exact columns at any n where Nyström columns do not serve the
        family, master or oracle. Above 5000 points, with ``"auto"`` or a number and no
        ``warm_start``, the fit goes in two stages (:mod:`sipkl.kernel_learning.large_n`):
        exact IKL on a 3000-point subsample for 5 rounds at most, then Nyström columns on
        all points from its columns while its rounds improve the accuracy on a tenth of the
        points (2000 at most) held out of both, and of the two stages' models (stage 2's
        best round's) the one more accurate on them; ``stages_`` says what each did.
    device : str or None, default=None
        ``None``: NumPy on the CPU. With ``n_landmarks``, a PyTorch device (``"cuda"``,
        ``"cuda:1"``; PyTorch is not a dependency of sipkl: it must be installed) on which
        the Nyström columns' features, their products, K(d) on the master's working sets and
        the prices are computed (:mod:`sipkl.compute.torch_backend`); libsvm, the master's steps and
        the oracle's search stay on the CPU. The run agrees with the CPU's to round-off, not
        to the bit, so it may take another path where a round's choice rests on the last bits.
        ``"auto"``: ``"cuda"`` where PyTorch is installed and sees a CUDA device
        (:func:`~sipkl.compute.torch_backend.auto_device`), else the CPU; over exact columns
        (the first stage of a two-stage fit, or ``n_landmarks=None``) it is the CPU.
    warm_start : bool, default=False
        When True and the estimator is fitted, each binary problem's run starts from the
        columns of the previous fit's learned kernel (``kernel_``), its first master from
        their learned weights, instead of the family's default point; the classes and the
        family's members must be those of that fit (else a ``ValueError``, and the estimator
        stays the fitted one it was). The continuation for large n: fit on a subsample, set
        ``warm_start=True``, fit on all points (the first SVMs on all points then have the
        learned kernel's support, not the default kernel's, where most points can be support
        vectors at C); above 5000 points ``fit`` makes it itself (``n_landmarks``), and a
        continued fit there is one stage on Nyström columns.

    Attributes
    ----------
    classes_, n_features_in_
    kernel_ : LearnedKernel (binary) or list of LearnedKernel (one per class, multiclass)
    result_ : CGResult or list of CGResult
    n_iter_ : int (binary) or array of int
    expansions_ : list of KernelExpansion (LandmarkExpansion with ``n_landmarks``), the
        prediction model (see :mod:`sipkl.persistence` for saving it without pickle)
    stages_ : list of dict or None
        The stages of a two-stage fit (above 5000 points, see ``n_landmarks``), ``None``
        for a fit of one stage. Each: ``stage``, ``points`` (the indices of its training
        points in X), ``n_landmarks``, ``status``,
        ``rounds`` and ``columns`` (one per binary problem), ``seconds`` (the longest binary
        problem's), ``held_out_accuracy``, ``selected`` (the stage whose model is kept) and
        ``summary`` (the line ``verbose`` prints).
    held_out_ : array of int or None
        The indices of the points held out of both stages of a two-stage fit (the points
        on which the kept model was chosen), else ``None``.
    exact_kernel_gap_ : float (binary) or array, only with Nyström columns (of the
        all-points stage in a two-stage fit)
        The MKL duality gap of the answer under the exact kernels of its columns, relative,
        on the support vectors (:func:`~sipkl.kernel_learning.nystrom.exact_kernel_gap`): 0 where the
        learned weights are optimal for the exact columns at the learned α.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from sipkl import GaussianIso, IKLClassifier
    >>> X, y = make_moons(100, noise=0.2, random_state=0)
    >>> clf = IKLClassifier(family=GaussianIso(), C=10.0, oracle="dc", random_state=0)
    >>> clf.fit(X, y).result_.status.value   # the DC oracle proved the pricing
    'certified_optimal'
    >>> len(clf.kernel_.columns), clf.score(X, y) > 0.9
    (3, True)
    """

    _parameter_constraints = {
        **ENGINE_CONSTRAINTS,
        "C": [POSITIVE],
        "master": [StrOptions({"newton", "qcqp", "lp_norm"})],
        "obj_tol": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="left")],
        "n_price": [POSITIVE_INT],
        "n_landmarks": [POSITIVE_INT, StrOptions({"auto"}), None],
        "device": [str, None],
        "warm_start": ["boolean"],
    }

    def __init__(self, family=None, C=1.0, oracle="ipopt", master="newton", tol=1e-4,
                 obj_tol="auto", max_iter=50, n_price=5, time_limit=None, random_state=None,
                 verbose=0, callback=None, n_jobs=None, n_landmarks="auto", device=None,
                 warm_start=False):
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
        self.n_jobs = n_jobs
        self.n_landmarks = n_landmarks
        self.device = device
        self.warm_start = warm_start

    @fit_context(prefer_skip_nested_validation=True)
    @unchanged_on_error
    def fit(self, X, y):
        family, oracle = make_family(self.family), make_oracle(self.oracle)
        previous = ((self.classes_, [e.kernel for e in self.expansions_])
                    if self.warm_start and hasattr(self, "expansions_") else None)
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_ = check_classes(y)
        targets = one_vs_rest(y, self.classes_)
        # one seed per binary problem, one for the landmarks and one for the stages' points
        # (the problems' seeds are those of spawn(n_targets): a fit without landmarks is
        # unchanged, and so is the landmarks' seed)
        *seeds, landmark_seed, stage_seed = np.random.SeedSequence(
            default_seed(self.random_state)).spawn(targets.shape[1] + 2)
        stage = _Stage(self, family, oracle, seeds, landmark_seed,
                       resolve_obj_tol(self.obj_tol, oracle, family, X.shape[1]))
        # "auto": exact columns where Nyström columns do not serve the family, master or
        # oracle (a polynomial family, oracle="dc"), as without landmarks
        n_landmarks = (None if self.n_landmarks == "auto" and stage.nystrom_refusal(X)
                       else self.n_landmarks)
        stages = (None if previous is not None or n_landmarks is None
                  else two_stages(y, n_landmarks, stage_seed))
        if stages is None:  # at most EXACT_MAX_N points, or continuing a fit
            n_landmarks = one_stage_landmarks(len(y), n_landmarks)
            if n_landmarks is None and self.device not in (None, "auto"):
                raise ValueError(f"device={self.device!r} computes Nyström columns: it needs "
                                 "n_landmarks (or more than 5000 points with 'auto')")
            self._store(stage(X, targets, previous, n_landmarks, self.max_iter,
                              self.time_limit))
            self.stages_ = self.held_out_ = None
            return self
        return self._fit_two_stages(stage, stages, X, y, targets)

    def _fit_two_stages(self, stage, stages, X, y, targets):
        """The two stages of :mod:`sipkl.kernel_learning.large_n` and the better model on
        the held-out points; ``stages_`` says what each did."""
        sub, train, held = stages.subsample, stages.train, stages.held_out
        rounds = min(SUBSAMPLE_ROUNDS, self.max_iter)
        report(self.verbose, f"stage 1 of 2: exact IKL on {len(sub)} of {len(y)} points, at "
                             f"most {rounds} rounds ({len(held)} points held out)")
        share = None if self.time_limit is None else SUBSAMPLE_TIME_SHARE * self.time_limit
        first = stage(X[sub], targets[sub], None, None, rounds, share)
        records = [self._stage_record("exact on a subsample", sub, None, first, X[held],
                                      y[held])]
        report(self.verbose, records[0]["summary"])
        left = None if self.time_limit is None else self.time_limit - records[0]["seconds"]
        fitted = [first]
        stopped = {RunStatus.INTERRUPTED, RunStatus.CALLBACK}  # by the user: no stage 2
        if (left is None or left > 0) and not any(f.result.status in stopped for f in first):
            kernels = [f.model.kernel for f in first]
            report(self.verbose, f"stage 2 of 2: Nyström columns on {stages.n_landmarks} "
                                 f"landmarks, {len(train)} points, from the "
                                 f"{sum(len(k.columns) for k in kernels)} columns of stage 1")
            second = stage(X[train], targets[train], (self.classes_, kernels),
                           stages.n_landmarks, self.max_iter, left, (X[held], targets[held]))
            fitted.append(second)
            records.append(self._stage_record("Nyström on all points", train,
                                              stages.n_landmarks, second, X[held], y[held]))
            report(self.verbose, records[1]["summary"])
        # the later stage, trained on more points, where it is at least as accurate
        best = max(range(len(records)), key=lambda k: (records[k]["held_out_accuracy"], k))
        records[best]["selected"] = True
        report(self.verbose, f"kept the model of stage {best + 1}")
        self._store(fitted[best])
        self._set_gap(fitted[-1])  # the all-points stage's, whichever model is kept
        self.stages_, self.held_out_ = records, held
        return self

    def _stage_record(self, name: str, points, n_landmarks, fitted, X_held, y_held):
        """What one stage did: its points (indices), landmarks, statuses, rounds, columns,
        seconds and accuracy on the held-out points (``stages_``)."""
        results = [f.result for f in fitted]
        accuracy = float(np.mean(predict_classes(
            self.classes_, [f.model for f in fitted], X_held) == y_held))
        record = dict(stage=name, points=points, n_landmarks=n_landmarks,
                      status=[r.status.value for r in results], rounds=[r.nit for r in results],
                      columns=[len(r.columns) for r in results],
                      seconds=max(r.history["time"][-1] for r in results),
                      held_out_accuracy=accuracy, best_round=[f.best_round for f in fitted],
                      selected=False)
        gaps = [f.gap for f in fitted if f.gap is not None]
        record["summary"] = (f"  {name} ({len(points)} points): "
                             f"{', '.join(sorted(set(record['status'])))}, "
                             f"{max(record['rounds'])} rounds, {max(record['columns'])} "
                             f"columns, {record['seconds']:.1f} s, held-out accuracy "
                             f"{accuracy:.4f}" + (f", exact-kernel gap {max(gaps):.3g}"
                                                  if gaps else ""))
        return record

    def _store(self, fitted) -> None:
        """The attributes of the fitted binary problems ``fitted`` (:class:`_Fitted`)."""
        self.expansions_ = [f.model for f in fitted]
        store_runs(self, [f.result for f in fitted],
                   [e.kernel for e in self.expansions_])
        self._set_gap(fitted)

    def _set_gap(self, fitted) -> None:
        """``exact_kernel_gap_`` of the fitted binary problems ``fitted``: one number or an
        array; removed (an earlier fit's) where their columns are exact."""
        gaps = [f.gap for f in fitted]
        if gaps[0] is None:
            vars(self).pop("exact_kernel_gap_", None)  # of an earlier fit
        else:
            self.exact_kernel_gap_ = gaps[0] if len(gaps) == 1 else np.array(gaps)

    def _start_columns(self, family, X, n_targets: int, previous) -> list:
        """The initial columns of each binary problem and their weights: the family's
        default point (no weights), or with ``previous`` = (classes, learned kernels) of a
        fit to continue (``warm_start``) each problem's learned columns and weights; a
        ``ValueError`` where the classes or the family's members are not those of that
        fit."""
        if previous is None:
            return [([initial_column(family, X)], None)] * n_targets
        classes, kernels = previous
        if not np.array_equal(classes, self.classes_):
            raise ValueError(f"warm_start: the classes {self.classes_.tolist()} are not those "
                             f"of the previous fit, {np.asarray(classes).tolist()}")
        members = family.members(X.shape[1])
        for kernel in kernels:
            for column in kernel.columns:
                if (column.family not in members
                        or len(column.theta) != column.family.n_params(X.shape[1])):
                    raise ValueError(f"warm_start: the previous fit's column {column} is not "
                                     f"of the family {family!r} on {X.shape[1]} features")
        return [(list(kernel.columns), np.asarray(kernel.weights)) for kernel in kernels]


@dataclass(frozen=True)
class _Fitted:
    """One binary problem of a stage: the model kept (an expansion), the run's result, the
    exact-kernel gap of the model (Nyström columns) or None, and the round of the model
    where held-out points chose it, else None."""

    model: "KernelExpansion | LandmarkExpansion"
    result: CGResult
    gap: Optional[float]
    best_round: Optional[int]


class _Stage:
    """One stage of a fit: the binary problems of ``targets`` on the points ``X`` run from
    ``previous`` (the classes and learned kernels of a fit to continue, or None), over
    exact columns or Nyström columns on ``n_landmarks`` landmarks drawn from ``X``, with
    ``max_iter`` and ``time_limit``; returns one :class:`_Fitted` per problem."""

    def __init__(self, estimator, family, oracle, seeds, landmark_seed, obj_tol):
        self.estimator, self.family, self.oracle = estimator, family, oracle
        self.seeds, self.landmark_seed, self.obj_tol = seeds, landmark_seed, obj_tol
        self.device = auto_device() if estimator.device == "auto" else estimator.device

    def nystrom_refusal(self, X):
        """Why Nyström columns do not serve this fit's family, master or oracle, or None."""
        try:
            check_nystrom_family(self.family, X.shape[1])
        except ValueError as error:
            return str(error)
        if self.estimator.master != "newton":
            return (f"n_landmarks: Nyström columns are solved by the 'newton' master, got "
                    f"master={self.estimator.master!r}")
        if proves_bound(self.oracle, self.family, X.shape[1]):
            return (f"n_landmarks: the oracle {self.oracle!r} bounds exact prices, not those "
                    "of Nyström columns; use 'ipopt' or 'grid'")
        return None

    def landmarks(self, X, n_landmarks):
        """The sorted indices of ``n_landmarks`` points of X drawn with the landmarks' seed
        (all points where there are fewer), or ``None`` for exact columns."""
        if n_landmarks is None:
            return None
        refusal = self.nystrom_refusal(X)
        if refusal is not None:
            raise ValueError(refusal)
        if n_landmarks >= len(X):
            return np.arange(len(X))
        rng = np.random.default_rng(self.landmark_seed)
        return np.sort(rng.choice(len(X), n_landmarks, replace=False))

    def __call__(self, X, targets, previous, n_landmarks, max_iter, time_limit,
                 held_out=None) -> list:
        """``held_out``: the points and ±1 targets ``(X_held, targets_held)`` on which each
        round's model is scored (:class:`~sipkl.kernel_learning.large_n.HeldOutRounds`: the
        best round's model is kept, and rounds without gain end the run), or None."""
        estimator = self.estimator
        starts = estimator._start_columns(self.family, X, targets.shape[1], previous)
        landmarks = self.landmarks(X, n_landmarks)
        held = [None] * targets.shape[1] if held_out is None else held_out[1].T

        def fit_target(task):  # one binary problem
            target, seed, (start, weights), held_target = task
            if landmarks is None:
                space = KernelSpace(X, self.family)
                model_of = functools.partial(_exact_expansion, X)
            else:
                space = NystromSpace(X, self.family, landmarks, self.device)
                model_of = functools.partial(_landmark_expansion, space, X[landmarks])
            watch = (None if held_target is None
                     else HeldOutRounds(model_of, held_out[0], held_target, estimator.callback,
                                        estimator.verbose))
            engine = estimator._engine(MASTERS[estimator.master](target, estimator.C),
                                       self.oracle, seed, obj_tol=self.obj_tol,
                                       n_price=estimator.n_price, max_iter=max_iter,
                                       time_limit=time_limit,
                                       callback=estimator.callback if watch is None else watch)
            result = engine.run(space, start, weights=weights)
            if watch is None:
                kept, model = result, model_of(result)
            else:
                watch.consider(result)  # the run's end: a master solved after the last round
                kept, model = watch.best_result, watch.model
            gap = None
            if landmarks is not None:
                sv = np.flatnonzero(kept.master.model.alpha > 0)
                w = kept.master.model.alpha * kept.master.model.y
                gap = exact_kernel_gap(kept.columns, kept.weights, X[sv], w[sv])[0]
            return _Fitted(model, result, gap, None if watch is None else watch.best_round)

        return estimator._per_target(fit_target, zip(targets.T, self.seeds, starts, held))


def _exact_expansion(X, result) -> KernelExpansion:
    """The model of a run's ``result`` over exact columns on the points X: its SVM's
    support vectors."""
    model = result.master.model
    sv = np.flatnonzero(model.alpha > 0)
    kernel = LearnedKernel(result.columns, result.weights)
    return KernelExpansion(kernel, X[sv], (model.alpha * model.y)[sv], model.bias)


def _landmark_expansion(space, X_landmarks, result) -> LandmarkExpansion:
    """The model of a run's ``result`` over the Nyström columns of ``space``: q kernel
    values per point and column (:meth:`NystromSpace.landmark_coefficients`)."""
    model = result.master.model
    w = model.alpha * model.y
    coef = np.column_stack([space.landmark_coefficients(c, d, w)
                            for c, d in zip(result.columns, result.weights)])
    return LandmarkExpansion(LearnedKernel(result.columns, result.weights), X_landmarks, coef,
                             model.bias)
