"""The column-generation engine: one loop for every master and every oracle.

    repeat
        master:  solve the restricted master over the current columns
                 -> weights, price matrix W, threshold λ, objective, gap
        oracle:  θ* = argmax_θ <W, K(θ)>  (up to ``n_price`` distinct candidates)
        stop?    (one rule, :meth:`ColumnGeneration.stop_reason`; a :class:`RunStatus`)
        add the candidates with <W, K(θ)> > λ + tol·|λ| + atol
    until stop

The engine knows neither which master nor which oracle it runs: a master is any object with
``solve(inputs, warm_start) -> MasterSolution`` and an oracle any object with
``price(pricing_round) -> OracleResult``; a column space says what a column is (a kernel k_θ
with its Gram matrix, or an index point t of a semi-infinite constraint) and builds the master's
inputs and the pricing problems (the contracts: :mod:`sipkl.core.contracts`).
"""
from __future__ import annotations

import numbers
import threading
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import numpy as np
from scipy.optimize import OptimizeResult

from .checkpoint import fingerprint, load_checkpoint, restore, save_checkpoint
from .contracts import (SOLVER_FAILURES, Attempt, Column, ColumnSpace, Master, MasterSolution,
                        Oracle, OracleResult, PricingRound, RunStatus, StartsEmpty, Stateful,
                        Status, TimeLimited)
from .progress import IterationLog


class CGResult(OptimizeResult):
    """Result of a column-generation run (a :class:`scipy.optimize.OptimizeResult`).

    Attributes: ``status`` (why it stopped, a :class:`~sipkl.core.run_status.RunStatus`),
    ``message`` (what the status rests on, or what is missing), ``success``, ``objective``,
    ``threshold`` (λ), ``best_price`` (of the last round; where the objective stalled, the
    price of a violator the oracle was asked for, not necessarily the best, see
    :attr:`~sipkl.core.contracts.PricingRound.any_violator`), ``upper_bound`` (proven bound on the
    best price, when the oracle is global), ``gap`` (master gap), ``columns``, ``weights``,
    ``master`` (last :class:`MasterSolution`), ``nit``, ``history`` (dict of per-iteration
    lists: objective, threshold, best_price, gap, n_columns, master_time, pricing_time,
    time), ``attempts`` (every solver fallback, tagged with its iteration), ``random_state``
    (the seed of the oracle's random starts: :data:`DEFAULT_SEED` where none was given).
    """


#: the seed of a run whose ``random_state`` is ``None``: default runs are deterministic
DEFAULT_SEED = 0


def default_seed(random_state):
    """``random_state``, or :data:`DEFAULT_SEED` where it is ``None``."""
    return DEFAULT_SEED if random_state is None else random_state


#: a master solution is optimal only if its own gap is at most this fraction of its scale,
#: max(|objective|, |λ|) (see :meth:`ColumnGeneration.gap_tolerance`)
GAP_RTOL = 1e-3

#: weights at most this fraction of the largest one count as zero (pruning)
PRUNE_RTOL = 1e-6


class ColumnGeneration:
    """Column generation on a semi-infinite program.

    Parameters
    ----------
    master : Master
    oracle : Oracle
    tol, atol : float
        Pricing tolerances: stop when no column prices above ``λ + tol·|λ| + atol``. The run
        is ``"certified_optimal"`` when the oracle proved it (an ``upper_bound`` at most that
        cut) and the master is optimal, ``"converged_local"`` when the oracle only found no
        violator; see :meth:`stop_reason` and :class:`~sipkl.core.run_status.RunStatus`.
    obj_tol, obj_atol : float
        Stop when the objective decreased by less than ``obj_tol·|objective| + obj_atol`` in
        one iteration (gehler_nowozin §4.1: relative 0.01 %, ``obj_tol=1e-4``; afkanpour
        Algorithm 1: absolute θ, ``obj_atol=θ``); both ``0`` disables the rule.
    max_iter, time_limit : stop after that many master solves / seconds.
        The time is checked after each master solve (past it, the run stops without pricing
        that solve's prices) and after each pricing; a master with a ``deadline``
        (:class:`~sipkl.core.contracts.TimeLimited`) and an oracle that reads the round's
        ``deadline`` (:class:`~sipkl.core.contracts.PricingRound`) stop inside their work too.
    n_price : int
        Columns added per iteration at most (multiple pricing).
    prune : bool or callable
        Drop columns whose weight is zero after each master solve: at most ``PRUNE_RTOL``
        (1e-6) times the largest weight, the accuracy of interior-point duals. A callable
        ``prune(solution) -> bool``, called after every master solve, decides per solve
        whether to drop them (a drop rule, e.g. the exchange method's
        :class:`~sipkl.sip.masters.drop_rule.DropAfterIncrease`).
    callback : callable, optional
        ``callback(intermediate_result)`` after each iteration; raise ``StopIteration`` to stop
        (status ``callback``; the exception's message, where it has one, is the result's).
    verbose : int
        0: silent; 1: prints one line per iteration; ≥ 2: a tqdm progress bar. Every
        iteration is also logged at ``DEBUG`` on the ``"sipkl.core.engine"`` logger (see
        :mod:`sipkl.core.progress`).
    random_state : int, Generator or None
        Seeds the oracle's random starts; ``None`` is :data:`DEFAULT_SEED` (a default run
        gives the same bits in every process, as a call of SciPy or cvxpy does).
    regularizer : callable, optional
        ``r(θ) -> (value, gradient)`` subtracted from every price (afkanpour eq. 4); with a
        method ``hessian(θ) -> (p, p)`` the pricing problems keep their second derivatives
        (the Newton steps of :class:`~sipkl.pricing.MultiStartOracle`), as
        :class:`~sipkl.kernel_learning.masters.alignment.Shrinkage` does.
    checkpoint : path, optional
        After each iteration the engine state (columns, weights, history, random state, and
        the state of a master, oracle or drop rule that is :class:`~sipkl.core.contracts.Stateful`)
        is written there atomically (:mod:`sipkl.core.checkpoint`); ``run(..., resume=path)``
        continues from it as the uninterrupted run would (a ``ValueError`` for a damaged file
        or one of another program, :func:`~sipkl.core.checkpoint.fingerprint`).
    interrupt : threading.Event, optional
        Shared by runs that stop together (the one-vs-rest problems of one fit): a run that
        catches Ctrl-C (``KeyboardInterrupt``) sets it, and a run that sees it set stops
        before its next master solve or pricing, once it has a master solution, with status
        ``interrupted`` as if interrupted itself.

    Examples
    --------
    IKL by hand: the Newton master, the certified DC oracle, one starting column.

    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from sipkl import Column, ColumnGeneration, GaussianIso
    >>> from sipkl.kernel_learning.masters import HingeMKLNewton
    >>> from sipkl.kernel_learning.dc_oracle import DCGaussianOracle
    >>> from sipkl.kernel_learning.space import KernelSpace
    >>> X, y = make_moons(100, noise=0.2, random_state=0)
    >>> y = np.where(y == 1, 1.0, -1.0)
    >>> engine = ColumnGeneration(HingeMKLNewton(y, C=10.0), DCGaussianOracle())
    >>> result = engine.run(KernelSpace(X, GaussianIso()), [Column.make(GaussianIso(), 1.0)])
    >>> result.status.value, result.success
    ('certified_optimal', True)
    """

    def __init__(self, master: Master, oracle: Oracle, *, tol: float = 1e-4, atol: float = 0.0,
                 obj_tol: float = 0.0, obj_atol: float = 0.0, max_iter: int = 100,
                 time_limit: Optional[float] = None,
                 n_price: int = 5, prune=True, callback: Optional[Callable] = None,
                 verbose: int = 0, random_state=None, regularizer: Optional[Callable] = None,
                 checkpoint=None, interrupt: Optional[threading.Event] = None):
        if not isinstance(master, Master):
            raise TypeError(f"master must have a solve(grams, warm_start) method, got {master!r}")
        if not isinstance(oracle, Oracle):
            raise TypeError(f"oracle must have a price(pricing_round) method, got {oracle!r}")
        for name, value in (("max_iter", max_iter), ("n_price", n_price)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                raise ValueError(f"{name} must be an integer ≥ 1, got {value!r}")
        self.master, self.oracle, self.regularizer = master, oracle, regularizer
        self.tol, self.atol, self.max_iter = tol, atol, max_iter
        self.obj_tol, self.obj_atol = obj_tol, obj_atol
        self.time_limit, self.n_price, self.prune = time_limit, n_price, prune
        self.callback, self.verbose, self.random_state = callback, verbose, random_state
        self.checkpoint, self.interrupt = checkpoint, interrupt

    # -- the one stop rule -----------------------------------------------------------
    def cut(self, sol: MasterSolution) -> float:
        """Prices above this value are violations: ``λ + tol·|λ| + atol``, with the master's
        ``cut_scale`` in place of |λ| when it states one (a threshold of 0, as for a
        semi-infinite program's g(x, t) ≤ 0, has no magnitude to be relative to)."""
        scale = abs(sol.threshold) if sol.cut_scale is None else sol.cut_scale
        return sol.threshold + self.tol * scale + self.atol

    @staticmethod
    def gap_tolerance(sol: MasterSolution) -> float:
        """The largest gap of an optimal master: ``GAP_RTOL·max(|objective|, |λ|)``.

        Relative to the master's own magnitudes, so the same at any scale of the data: the
        objective and the threshold λ (the price of the current combination) are the two
        numbers every master reports; the larger keeps a meaningful floor when the objective
        passes near zero.
        """
        return GAP_RTOL * max(abs(sol.objective), abs(sol.threshold))

    def master_optimal(self, sol: MasterSolution) -> bool:
        """The master reported ``OPTIMAL`` and its own gap is within :meth:`gap_tolerance`."""
        return sol.status is Status.OPTIMAL and sol.gap <= self.gap_tolerance(sol)

    def stop_reason(self, it: int, elapsed: float, sol: MasterSolution, pricing: OracleResult,
                    previous_objective: Optional[float],
                    n_new: int) -> Optional[tuple[RunStatus, str]]:
        """``(status, message)`` when the run stops after this round, else ``None``.

        * no column above the cut (and the oracle's bound, if any, at most the cut), or the
          objective stalled: a success only with an optimal master (:meth:`master_optimal`) —
          ``certified_optimal`` when the bound proves the pricing (``stationary_point`` for a
          non-convex master), ``converged_local`` when a local oracle found no violator,
          ``objective_stalled``; otherwise ``master_inaccurate``, saying what is missing;
        * no new column while the bound, or the best price, lies above the cut:
          ``no_new_column`` (never a success: a violation may remain);
        * ``iteration_limit``, ``time_limit`` (also for a master stopped by its deadline,
          status ``iteration_limit``, see :class:`~sipkl.core.contracts.Master`, and first of
          all for a pricing stopped by it, status ``iteration_limit``, of which nothing is
          claimed).
        """
        cut = self.cut(sol)
        best_price = float(pricing.scores[0]) if len(pricing.scores) else -np.inf
        bound = pricing.upper_bound
        proven = bound is not None and bound <= cut
        priced_out = best_price <= cut and (bound is None or proven)
        stalled = self._stalled(sol, previous_objective)
        out_of_time = self.time_limit is not None and elapsed >= self.time_limit
        if out_of_time and pricing.status is Status.ITERATION_LIMIT:
            return RunStatus.TIME_LIMIT, (f"{_MESSAGES[RunStatus.TIME_LIMIT]} during the "
                                          "pricing, which stopped its search there")
        if priced_out or stalled:
            if not self.master_optimal(sol):
                if out_of_time and sol.status is Status.ITERATION_LIMIT:  # its deadline
                    return RunStatus.TIME_LIMIT, (
                        f"{_MESSAGES[RunStatus.TIME_LIMIT]} (the master is not optimal: "
                        f"status {sol.status.value}, gap {sol.gap:.3g})")
                why = (("the oracle proved" if proven else "the oracle found") + " no column "
                       f"above the cut {cut:.6g}" if priced_out else stalled)
                return RunStatus.MASTER_INACCURATE, (
                    f"{why}, but the master is not optimal (status {sol.status.value}, gap "
                    f"{sol.gap:.3g}, tolerance {self.gap_tolerance(sol):.3g}): no certificate")
            if not priced_out:
                return RunStatus.OBJECTIVE_STALLED, stalled
            if proven:
                status = RunStatus.CERTIFIED_OPTIMAL if sol.convex else RunStatus.STATIONARY_POINT
            else:
                status = RunStatus.CONVERGED_LOCAL
            return status, _MESSAGES[status]
        if n_new == 0:
            if best_price > cut:
                return RunStatus.NO_NEW_COLUMN, (
                    f"every candidate priced above the cut {cut:.6g} is already a column "
                    f"(best price {best_price:.6g}): the master's prices disagree with the "
                    "oracle's")
            return RunStatus.NO_NEW_COLUMN, (
                f"no new column above the cut {cut:.6g}, but the oracle's bound {bound:.6g} "
                f"lies above it (oracle status {pricing.status.value}): a violating column "
                "may exist")
        if it + 1 >= self.max_iter:
            return RunStatus.ITERATION_LIMIT, _MESSAGES[RunStatus.ITERATION_LIMIT]
        if out_of_time:
            return RunStatus.TIME_LIMIT, _MESSAGES[RunStatus.TIME_LIMIT]
        return None

    def _stalled(self, sol: MasterSolution, previous_objective: Optional[float]):
        """The message of the objective rule when it fires (naming the rule), else ``None``."""
        if previous_objective is None or (self.obj_tol <= 0 and self.obj_atol <= 0):
            return None
        decrease = previous_objective - sol.objective
        relative, absolute = self.obj_tol * abs(sol.objective), self.obj_atol
        if decrease >= relative + absolute:
            return None
        rule = ("obj_tol·|objective| + obj_atol" if self.obj_tol > 0 and self.obj_atol > 0
                else "the relative rule obj_tol·|objective|" if self.obj_tol > 0
                else "the absolute rule obj_atol")
        return (f"objective decreased by {decrease:.3g} in one iteration, less than {rule} = "
                f"{relative + absolute:.3g}")

    # -- the loop --------------------------------------------------------------------
    def run(self, space: ColumnSpace, columns: Sequence[Column], resume=None,
            weights=None) -> CGResult:
        """Run column generation over the :class:`~sipkl.core.contracts.ColumnSpace` ``space``
        from the initial ``columns``, or from the checkpoint file ``resume`` (then ``columns``
        and ``weights`` are ignored). ``weights``: the columns' weights where the master's
        first solve starts (its ``warm_start``, e.g. those of a fit being continued), or None.

        Kernel learning runs on a :class:`~sipkl.kernel_learning.space.KernelSpace` (the
        Gram matrices of a family on the points X) or a
        :class:`~sipkl.kernel_learning.nystrom.NystromSpace`; a semi-infinite program on an
        :class:`~sipkl.sip.pricing.space.IndexPointSpace`. ``columns`` may be empty for a
        master whose class sets ``empty_start = True``: it solves the restricted problem over
        no column (FSAM's K₀ = εI, alignf), and the first round prices the first column.

        Each iteration solves the master (:meth:`_solve_master`), prices (:meth:`_price`) and
        records the round, adding its new columns (:meth:`_record_round`), until a stop rule
        fires.
        """
        if not isinstance(space, ColumnSpace):
            raise TypeError(f"ColumnGeneration.run(space, columns, ...): space must be a "
                            f"ColumnSpace, got {type(space).__name__} (kernel learning: "
                            "run(KernelSpace(X, family), columns) with KernelSpace from "
                            "sipkl.kernel_learning.space)")
        run = self._start(space, columns, resume, weights)
        progress = IterationLog(self.verbose, self.max_iter, run.first)
        try:
            for run.it in range(run.first, self.max_iter):
                if self._halted(run):
                    break
                sol = self._solve_master(run, space)
                if sol is None or sol.price is None or self._halted(run, sol):
                    break
                pricing = self._price(run, space, sol)
                if pricing is None or self._record_round(run, space, sol, pricing, progress):
                    break
        except KeyboardInterrupt:
            if self.interrupt is not None:
                self.interrupt.set()  # the runs that share it stop too
            run.stop(RunStatus.INTERRUPTED, _MESSAGES[RunStatus.INTERRUPTED])
        finally:
            progress.close()
        if run.best is None:
            raise RuntimeError(f"column generation failed before any master solution: "
                               f"{run.message}")
        return self._result(run, run.status, run.message)

    def run_space(self, space: ColumnSpace, columns: Sequence[Column], resume=None,
                  weights=None) -> CGResult:
        """Deprecated alias of :meth:`run`, removed in the next release."""
        warnings.warn("ColumnGeneration.run_space is deprecated: call run(space, columns)",
                      DeprecationWarning, stacklevel=2)
        return self.run(space, columns, resume, weights)

    def _start(self, space: ColumnSpace, columns, resume, weights=None) -> "_Run":
        """The state of a new run, or of the run saved in the checkpoint ``resume``; a
        ``ValueError`` for ``weights`` that are not one non-negative finite number per
        column."""
        run = _Run(columns=[] if resume is not None else list(columns),
                   seed=default_seed(self.random_state), start=time.perf_counter())
        if weights is not None and resume is None:
            run.weights = np.asarray(weights, dtype=float)
            if (run.weights.shape != (len(run.columns),) or not np.all(np.isfinite(run.weights))
                    or np.any(run.weights < 0)):
                raise ValueError(f"weights: one non-negative finite weight per column "
                                 f"({len(run.columns)}), got {weights!r}")
            if len(set(run.columns)) < len(run.columns):
                raise ValueError("weights: the columns must be distinct where weights are "
                                 "given")
        if resume is not None:
            state = load_checkpoint(resume, space.column_from_json,
                                    fingerprint(space, self.master), _HISTORY)
            run.columns, run.weights, run.history = (state["columns"], state["weights"],
                                                     state["history"])
            run.previous_objective, run.first = state["previous_objective"], state["iteration"]
            run.start -= run.history["time"][-1] if run.history["time"] else 0.0
            restore(resume, state, run.rng, self._stateful())
        run.columns = list(dict.fromkeys(run.columns))
        run.it = run.first - 1
        if not run.columns and not (isinstance(self.master, StartsEmpty)
                                    and self.master.empty_start):
            raise ValueError("columns: at least one initial column is needed (the master "
                             "does not declare empty_start = True)")
        return run

    def _guarded(self, run: "_Run", failed: RunStatus, party, call, usable):
        """``call()`` to the master or the oracle (``party``), or ``None`` when it failed.

        The two failure paths stop the run with ``failed`` (``master_failed`` or
        ``oracle_failed``), each recorded as an attempt: a solver failure it raised
        (:data:`~sipkl.core.contracts.SOLVER_FAILURES`; before any usable master solution it
        propagates, there is no iterate to return), and a result that is not ``usable``. A
        first master solve that proves its problem infeasible or unbounded is kept as the
        result (a definite answer). Any other exception propagates.
        """
        role, name = failed.value.split("_")[0], type(party).__name__
        try:
            result = call()
        except SOLVER_FAILURES as exc:
            if run.best is None and failed is RunStatus.MASTER_FAILED:
                raise
            run.stop(failed, f"{role} raised {exc!r} at iteration {run.it}")
            run.attempts.append((run.it, Attempt(name, Status.SOLVER_ERROR, repr(exc))))
            return None
        run.attempts += [(run.it, a) for a in result.attempts if a.status is not Status.OPTIMAL]
        if usable(result):
            return result
        run.stop(failed, f"{role} returned status {result.status.value} at iteration {run.it}")
        run.attempts.append((run.it, Attempt(name, result.status, run.message)))
        if run.best is None and result.status in (Status.INFEASIBLE, Status.UNBOUNDED):
            run.best = (list(run.columns), result)
        return None

    def _deadline(self, run: "_Run") -> Optional[float]:
        """The ``time.perf_counter()`` instant at which the time limit ends, or ``None``."""
        return None if self.time_limit is None else run.start + self.time_limit

    def _halted(self, run: "_Run", sol: Optional[MasterSolution] = None) -> bool:
        """Stop before the next step (``True``) once the run has a master solution over some
        column to return (a master over none, an empty start, is priced first): where
        ``interrupt`` is set (``interrupted``), or after the master solve ``sol`` where the
        time limit has passed (``time_limit``; the round is recorded without a pricing,
        best price NaN)."""
        if run.best is None or not run.best[0]:
            return False
        if self.interrupt is not None and self.interrupt.is_set():
            run.stop(RunStatus.INTERRUPTED, _MESSAGES[RunStatus.INTERRUPTED])
            return True
        elapsed = time.perf_counter() - run.start
        if sol is None or self.time_limit is None or elapsed < self.time_limit:
            return False
        _record(run.history, sol, np.nan, len(run.columns), run.master_time, 0.0, elapsed)
        run.stop(RunStatus.TIME_LIMIT, f"{_MESSAGES[RunStatus.TIME_LIMIT]} after a master "
                                       f"solve (status {sol.status.value}), before its pricing")
        return True

    def _solve_master(self, run: "_Run", space: ColumnSpace) -> Optional[MasterSolution]:
        """Solve the restricted master over the current columns and prune them; ``None``
        when it failed. A master that prices nothing ends the run (``fixed_columns``)."""
        t0 = time.perf_counter()
        if isinstance(self.master, TimeLimited):
            self.master.deadline = self._deadline(run)
        sol = self._guarded(run, RunStatus.MASTER_FAILED, self.master,
                            lambda: self.master.solve(space.master_inputs(run.columns),
                                                      run.weights),
                            lambda s: s.status.usable and np.isfinite(s.objective)
                            and np.all(np.isfinite(s.weights)))
        run.master_time = time.perf_counter() - t0
        if sol is None:
            return None
        if sol.status is Status.OPTIMAL and sol.gap > self.gap_tolerance(sol):
            # re-check outside the solver: an "optimal" with a large gap is stale or wrong
            sol.status = Status.OPTIMAL_INACCURATE
            run.attempts.append((run.it, Attempt(type(self.master).__name__, sol.status,
                                                 f"reported optimal with gap {sol.gap:.3g}")))
        if sol.status is Status.OPTIMAL_INACCURATE:
            warnings.warn(f"master solution inaccurate at iteration {run.it} "
                          f"(gap {sol.gap:.3g})", RuntimeWarning)
        run.columns, sol = self._pruned(run.columns, sol)
        space.forget(run.columns)
        # the last pricing priced another solution: none of this one's until it is priced
        run.weights, run.best, run.pricing = sol.weights, (list(run.columns), sol), None
        if sol.price is None:  # the master prices nothing: its combination is final
            _record(run.history, sol, np.nan, len(run.columns), run.master_time, 0.0,
                    time.perf_counter() - run.start)
            optimal = self.master_optimal(sol)
            run.stop(RunStatus.FIXED_COLUMNS if optimal else RunStatus.MASTER_INACCURATE,
                     _MESSAGES[RunStatus.FIXED_COLUMNS] + (
                         "" if optimal else f"; the master is not optimal (status "
                         f"{sol.status.value}, gap {sol.gap:.3g})"))
        return sol

    def _price(self, run: "_Run", space: ColumnSpace,
               sol: MasterSolution) -> Optional[OracleResult]:
        """The oracle's answer to the round of ``sol``'s prices; ``None`` when it failed.
        Where the objective stalled (the run stops after this round), the oracle is asked
        only for a violator (:attr:`~sipkl.core.contracts.PricingRound.any_violator`)."""
        t0 = time.perf_counter()
        stalled = self._stalled(sol, run.previous_objective) is not None
        pricing_round = PricingRound(space.pricing_problems(sol.price, self.regularizer),
                                     space.X, list(run.columns), sol.threshold, self.n_price,
                                     run.rng, self.cut(sol), any_violator=stalled,
                                     deadline=self._deadline(run))
        run.pricing = self._guarded(run, RunStatus.ORACLE_FAILED, self.oracle,
                                    lambda: self.oracle.price(pricing_round),
                                    lambda p: p.status.usable)
        run.pricing_time = time.perf_counter() - t0
        return run.pricing

    def _stateful(self) -> dict:
        """The parties of the run whose state a checkpoint keeps, by role."""
        parties = {"master": self.master, "oracle": self.oracle, "prune": self.prune}
        return {role: p for role, p in parties.items() if isinstance(p, Stateful)}

    def _record_round(self, run: "_Run", space: ColumnSpace, sol: MasterSolution,
                      pricing: OracleResult, progress: IterationLog) -> bool:
        """Record the round, then stop (``True``) or add its new columns (``False``)."""
        best_price = float(pricing.scores[0]) if len(pricing.scores) else -np.inf
        new = [c for c, s in zip(pricing.columns, pricing.scores)
               if s > self.cut(sol) and c not in run.columns][: self.n_price]
        _record(run.history, sol, best_price, len(run.columns), run.master_time,
                run.pricing_time, time.perf_counter() - run.start)
        progress.update(run.it, run.history["time"][-1], sol.objective, sol.threshold,
                        best_price, len(run.columns), len(new))
        if self.callback is not None:
            try:
                self.callback(self._result(run, RunStatus.RUNNING, ""))
            except StopIteration as stop:
                run.stop(RunStatus.CALLBACK, str(stop) or _MESSAGES[RunStatus.CALLBACK])
                return True
        stop = self.stop_reason(run.it, time.perf_counter() - run.start, sol, pricing,
                                run.previous_objective, len(new))
        if stop is not None:
            run.stop(*stop)
            return True
        run.previous_objective = sol.objective
        run.columns = run.columns + new
        run.weights = np.concatenate([run.weights, np.zeros(len(new))])
        if self.checkpoint is not None:
            save_checkpoint(self.checkpoint, space, run.it + 1, run.columns, run.weights,
                            run.history, run.previous_objective, run.rng,
                            {role: p.get_state() for role, p in self._stateful().items()},
                            fingerprint(space, self.master))
        return False

    def _pruned(self, columns, sol: MasterSolution):
        drop = self.prune(sol) if callable(self.prune) else self.prune
        if not drop or len(columns) <= 1:
            return columns, sol
        keep = sol.weights > PRUNE_RTOL * sol.weights.max()
        if keep.all():
            return columns, sol
        sol.weights = sol.weights[keep]
        if sol.column_prices is not None:
            sol.column_prices = sol.column_prices[keep]
        return [c for c, k in zip(columns, keep) if k], sol

    @staticmethod
    def _result(run: "_Run", status: RunStatus, message: str) -> CGResult:
        columns, sol = run.best
        history = run.history
        return CGResult(status=status, message=message, success=status.success,
                        objective=sol.objective, threshold=sol.threshold,
                        best_price=history["best_price"][-1] if history["best_price"] else None,
                        upper_bound=None if run.pricing is None else run.pricing.upper_bound,
                        gap=sol.gap, columns=list(columns), weights=np.array(sol.weights),
                        master=sol, pricing=run.pricing, nit=run.it + 1,
                        history={k: list(v) for k, v in history.items()},
                        attempts=list(run.attempts), random_state=run.seed)


@dataclass
class _Run:
    """The state of one run between its steps: the current columns and weights, the history,
    the attempts, the last usable master solution ``best`` (its columns and solution), the
    last pricing, the step times of the iteration ``it``, and why the run stops."""

    columns: list
    seed: object  # an int, a SeedSequence or a Generator: the random starts' source
    start: float
    weights: Optional[np.ndarray] = None
    history: dict = field(default_factory=lambda: {k: [] for k in _HISTORY})
    attempts: list = field(default_factory=list)
    previous_objective: Optional[float] = None
    first: int = 0
    it: int = -1
    best: Optional[tuple] = None
    pricing: Optional[OracleResult] = None
    master_time: float = 0.0
    pricing_time: float = 0.0
    status: RunStatus = RunStatus.ITERATION_LIMIT
    message: str = ""
    rng: np.random.Generator = field(init=False)

    def __post_init__(self):
        self.rng = np.random.default_rng(self.seed)

    def stop(self, status: RunStatus, message: str) -> None:
        self.status, self.message = status, message


#: the per-iteration lists of a run's history
_HISTORY = ("objective", "threshold", "best_price", "gap", "n_columns", "master_time",
            "pricing_time", "time")


def _record(history, sol: MasterSolution, best_price, n_columns, master_time, pricing_time,
            elapsed) -> None:
    """Append one iteration to the run's ``history``."""
    for key, value in zip(_HISTORY, (sol.objective, sol.threshold, best_price, sol.gap,
                                      n_columns, master_time, pricing_time, elapsed)):
        history[key].append(value)


#: messages of the statuses whose reason needs no numbers (the others are built in place)
_MESSAGES = {
    RunStatus.CERTIFIED_OPTIMAL: "the oracle proved that no column prices above λ + tol·|λ| "
                                 "+ atol, and the master is optimal",
    RunStatus.STATIONARY_POINT: "the oracle proved that no column prices above λ + tol·|λ| + "
                                "atol, and the master is at a stationary point of its "
                                "non-convex problem (no proof of global optimality)",
    RunStatus.CONVERGED_LOCAL: "the oracle found no column pricing above λ + tol·|λ| + atol "
                               "(a local search: no proof that none exists)",
    RunStatus.FIXED_COLUMNS: "the master prices no column (its price matrix is None): the "
                             "result is its combination of the given columns, and no column "
                             "generation ran",
    RunStatus.ITERATION_LIMIT: "max_iter reached",
    RunStatus.TIME_LIMIT: "time_limit reached",
    RunStatus.CALLBACK: "callback raised StopIteration",
    RunStatus.INTERRUPTED: "interrupted by the user (KeyboardInterrupt)",
}
