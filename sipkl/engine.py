"""The column-generation engine: one loop for every master and every oracle.

    repeat
        master:  solve the restricted master over the current columns
                 -> weights, price matrix W, threshold λ, objective, gap
        oracle:  θ* = argmax_θ <W, K(θ)>  (up to ``n_price`` distinct candidates)
        stop?    (one rule, :meth:`ColumnGeneration.stop_reason`)
        add the candidates with <W, K(θ)> > λ + tol·|λ| + atol
    until stop

The engine knows neither which master nor which oracle it runs: a master is any object with
``solve(grams, warm_start) -> MasterSolution`` and an oracle any object with
``price(round) -> OracleResult`` (see :class:`Master` and :class:`Oracle`).
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, Optional, Protocol, Sequence

import numpy as np
from scipy.optimize import OptimizeResult

from solvers import Attempt, Status

from .kernels.base import KernelFamily
from .persistence import (check_document, columns_from_list, columns_to_list, document,
                          read_json, write_json_atomic)
from .price import PriceMatrix
from .progress import IterationLog
from .workspace import Column, PricingProblem, Workspace


@dataclass
class MasterSolution:
    """What a restricted master hands back after each solve.

    ``weights`` are the kernel weights of the columns (in order), ``price`` the price matrix W,
    ``threshold`` λ (a column is worth adding iff its price exceeds it), ``objective`` the
    master's objective (minimized), ``gap`` its own optimality gap (absolute), ``model`` what
    prediction needs (e.g. α and b), ``column_prices`` the price of each current column.
    """

    weights: np.ndarray
    objective: float
    price: PriceMatrix
    threshold: float
    gap: float
    status: Status
    model: dict = field(default_factory=dict)
    column_prices: Optional[np.ndarray] = None
    attempts: list = field(default_factory=list)


@dataclass
class PricingRound:
    """The input of an oracle: one pricing problem per concrete family, and context.

    ``cut`` is the price above which the engine adds a column, ``λ + tol·|λ| + atol``
    (``None``: the threshold λ).
    """

    problems: list[PricingProblem]
    X: np.ndarray
    columns: list[Column]
    threshold: float
    n_price: int
    rng: np.random.Generator
    cut: Optional[float] = None


@dataclass
class OracleResult:
    """Best candidates (best first), their prices, and how they were found.

    ``upper_bound`` is a proven bound on max_θ <W, K(θ)> when the oracle is global over the
    whole family (``None`` otherwise).
    """

    columns: list[Column]
    scores: np.ndarray
    n_evals: int
    status: Status = Status.OPTIMAL
    upper_bound: Optional[float] = None
    attempts: list = field(default_factory=list)


class Master(Protocol):
    def solve(self, grams: Sequence[np.ndarray],
              warm_start: Optional[np.ndarray]) -> MasterSolution: ...


class Oracle(Protocol):
    def price(self, round: PricingRound) -> OracleResult: ...


class CGResult(OptimizeResult):
    """Result of a column-generation run (a :class:`scipy.optimize.OptimizeResult`).

    Attributes: ``status`` (why it stopped), ``message``, ``success``, ``objective``,
    ``threshold`` (λ), ``best_price``, ``upper_bound`` (proven bound on the best price, when
    the oracle is global), ``gap`` (master gap), ``columns``, ``weights``,
    ``master`` (last :class:`MasterSolution`), ``nit``, ``history`` (dict of per-iteration
    lists: objective, threshold, best_price, gap, n_columns, master_time, pricing_time,
    time), ``attempts`` (every solver fallback, tagged with its iteration).
    """


#: a master solution reported optimal whose own gap exceeds this (relative) is inaccurate
GAP_RTOL = 1e-3

#: weights at most this fraction of the largest one count as zero (pruning)
PRUNE_RTOL = 1e-6

#: statuses meaning "the run reached its stop rule", as opposed to a limit or a failure
CONVERGED = ("certified_optimal", "converged_local", "objective_stalled")


class ColumnGeneration:
    """Column generation on a semi-infinite program.

    Parameters
    ----------
    master : Master
    oracle : Oracle
    tol, atol : float
        Pricing tolerances: stop when no column prices above ``λ + tol·|λ| + atol``. The run
        is ``"certified_optimal"`` when the oracle proved it (an ``upper_bound`` at most that
        cut), ``"converged_local"`` when the oracle only found no violator.
    obj_tol, obj_atol : float
        Stop when the objective decreased by less than ``obj_tol·|objective| + obj_atol`` in
        one iteration (gehler_nowozin §4.1: relative 0.01 %, ``obj_tol=1e-4``; afkanpour
        Algorithm 1: absolute θ, ``obj_atol=θ``); both ``0`` disables the rule.
    max_iter, time_limit : stop after that many master solves / seconds.
    n_price : int
        Columns added per iteration at most (multiple pricing).
    prune : bool
        Drop columns whose weight is zero after each master solve: at most ``PRUNE_RTOL``
        (1e-6) times the largest weight, the accuracy of interior-point duals.
    callback : callable, optional
        ``callback(intermediate_result)`` after each iteration; raise ``StopIteration`` to stop.
    verbose : int
        0: silent; 1: prints one line per iteration; ≥ 2: a tqdm progress bar. Every
        iteration is also logged at ``DEBUG`` on the ``"sipkl.engine"`` logger (see
        :mod:`sipkl.progress`).
    random_state : int, Generator or None
        Seeds the oracle's random starts.
    regularizer : callable, optional
        ``r(θ) -> (value, gradient)`` subtracted from every price (afkanpour eq. 4).
    checkpoint : path, optional
        After each iteration the engine state (columns, weights, history, random state) is
        written there atomically; ``run(..., resume=path)`` continues from it.
    """

    def __init__(self, master: Master, oracle: Oracle, *, tol: float = 1e-4, atol: float = 0.0,
                 obj_tol: float = 0.0, obj_atol: float = 0.0, max_iter: int = 100,
                 time_limit: Optional[float] = None,
                 n_price: int = 5, prune: bool = True, callback: Optional[Callable] = None,
                 verbose: int = 0, random_state=None, regularizer: Optional[Callable] = None,
                 checkpoint=None):
        if not callable(getattr(master, "solve", None)):
            raise TypeError(f"master must have a solve(grams, warm_start) method, got {master!r}")
        if not callable(getattr(oracle, "price", None)):
            raise TypeError(f"oracle must have a price(round) method, got {oracle!r}")
        self.master, self.oracle, self.regularizer = master, oracle, regularizer
        self.tol, self.atol, self.max_iter = tol, atol, max_iter
        self.obj_tol, self.obj_atol = obj_tol, obj_atol
        self.time_limit, self.n_price, self.prune = time_limit, n_price, prune
        self.callback, self.verbose, self.random_state = callback, verbose, random_state
        self.checkpoint = checkpoint

    # -- the one stop rule -----------------------------------------------------------
    def cut(self, sol: MasterSolution) -> float:
        """Prices above this value are violations: ``λ + tol·|λ| + atol``."""
        return sol.threshold + self.tol * abs(sol.threshold) + self.atol

    def stop_reason(self, it: int, elapsed: float, sol: MasterSolution, pricing: OracleResult,
                    previous_objective: Optional[float], n_new: int) -> Optional[str]:
        best_price = float(pricing.scores[0]) if len(pricing.scores) else -np.inf
        if best_price <= self.cut(sol):
            bound = pricing.upper_bound
            return "certified_optimal" if bound is not None and bound <= self.cut(sol) \
                else "converged_local"
        if (previous_objective is not None and (self.obj_tol > 0 or self.obj_atol > 0)
                and previous_objective - sol.objective
                < self.obj_tol * abs(sol.objective) + self.obj_atol):
            return "objective_stalled"
        if n_new == 0:
            return "no_new_column"
        if it + 1 >= self.max_iter:
            return "iteration_limit"
        if self.time_limit is not None and elapsed >= self.time_limit:
            return "time_limit"
        return None

    # -- the loop --------------------------------------------------------------------
    def run(self, family: KernelFamily, X: np.ndarray, columns: Sequence[Column],
            resume=None) -> CGResult:
        """Run from the initial ``columns`` on training points ``X`` for ``family``, or from
        the checkpoint file ``resume`` (then ``columns`` is ignored)."""
        start = time.perf_counter()
        rng = np.random.default_rng(self.random_state)
        space = Workspace(X)
        members = family.members(X.shape[1])
        history = {k: [] for k in ("objective", "threshold", "best_price", "gap", "n_columns",
                                   "master_time", "pricing_time", "time")}
        attempts: list[tuple[int, Attempt]] = []
        weights = None
        previous_objective = None
        first = 0
        if resume is not None:
            state = load_checkpoint(resume)
            columns, weights, history = state["columns"], state["weights"], state["history"]
            previous_objective, first = state["previous_objective"], state["iteration"]
            rng.bit_generator.state = state["rng_state"]
            start -= history["time"][-1] if history["time"] else 0.0
        columns = list(dict.fromkeys(columns))
        if not columns:
            raise ValueError("columns: at least one initial column is needed")
        best = None  # (columns, MasterSolution) of the last successful master solve
        status, message, pricing = "iteration_limit", "", None
        it = first - 1
        progress = IterationLog(self.verbose, self.max_iter, first)
        try:
            for it in range(first, self.max_iter):
                t0 = time.perf_counter()
                try:
                    sol = self.master.solve([space.gram(c) for c in columns], weights)
                except (TypeError, ValueError):  # bad input or configuration: say so
                    raise
                except Exception as exc:  # solver trouble: stop with the best iterate
                    if best is None:
                        raise
                    status, message = "master_failed", f"master raised {exc!r} at iteration {it}"
                    attempts.append((it, Attempt(type(self.master).__name__,
                                                 Status.SOLVER_ERROR, repr(exc))))
                    break
                t_master = time.perf_counter() - t0
                attempts += [(it, a) for a in sol.attempts if a.status is not Status.OPTIMAL]
                if not (sol.status.usable and np.isfinite(sol.objective)
                        and np.all(np.isfinite(sol.weights))):
                    status = "master_failed"
                    message = f"master returned status {sol.status.value} at iteration {it}"
                    break
                stale = sol.gap > GAP_RTOL * max(1.0, abs(sol.objective))
                if sol.status is Status.OPTIMAL and stale:
                    # re-check outside the solver: an "optimal" with a large gap is stale or wrong
                    sol.status = Status.OPTIMAL_INACCURATE
                    attempts.append((it, Attempt(type(self.master).__name__, sol.status,
                                                 f"reported optimal with gap {sol.gap:.3g}")))
                if sol.status is Status.OPTIMAL_INACCURATE:
                    warnings.warn(f"master solution inaccurate at iteration {it} "
                                  f"(gap {sol.gap:.3g})", RuntimeWarning)
                columns, sol = self._pruned(columns, sol)
                space.forget(columns)
                weights, best = sol.weights, (list(columns), sol)

                t0 = time.perf_counter()
                problems = [space.pricing_problem(f, sol.price, self.regularizer) for f in members]
                round_ = PricingRound(problems, X, list(columns), sol.threshold, self.n_price, rng,
                                      self.cut(sol))
                try:
                    pricing = self.oracle.price(round_)
                except (TypeError, ValueError):
                    raise
                except Exception as exc:
                    status, message = "oracle_failed", f"oracle raised {exc!r} at iteration {it}"
                    attempts.append((it, Attempt(type(self.oracle).__name__,
                                                 Status.SOLVER_ERROR, repr(exc))))
                    break
                t_pricing = time.perf_counter() - t0
                attempts += [(it, a) for a in pricing.attempts if a.status is not Status.OPTIMAL]
                best_price = float(pricing.scores[0]) if len(pricing.scores) else -np.inf
                new = [c for c, s in zip(pricing.columns, pricing.scores)
                       if s > self.cut(sol) and c not in columns][: self.n_price]

                for key, value in (("objective", sol.objective), ("threshold", sol.threshold),
                                   ("best_price", best_price), ("gap", sol.gap),
                                   ("n_columns", len(columns)), ("master_time", t_master),
                                   ("pricing_time", t_pricing),
                                   ("time", time.perf_counter() - start)):
                    history[key].append(value)
                progress.update(it, history["time"][-1], sol.objective, sol.threshold,
                                best_price, len(columns), len(new))
                if self.callback is not None:
                    try:
                        self.callback(self._result(best, history, attempts, it, "running", "",
                                                   pricing))
                    except StopIteration:
                        status, message = "callback", "callback raised StopIteration"
                        break
                status = self.stop_reason(it, time.perf_counter() - start, sol, pricing,
                                          previous_objective, len(new))
                if status is not None:
                    message = _MESSAGES[status]
                    break
                previous_objective = sol.objective
                columns = columns + new
                weights = np.concatenate([weights, np.zeros(len(new))])
                if self.checkpoint is not None:
                    save_checkpoint(self.checkpoint, it + 1, columns, weights, history,
                                    previous_objective, rng)
        except KeyboardInterrupt:
            status, message = "interrupted", "interrupted by the user (KeyboardInterrupt)"
        finally:
            progress.close()
        if best is None:
            raise RuntimeError(f"column generation failed before any master solution: {message}")
        return self._result(best, history, attempts, it, status, message, pricing)

    def _pruned(self, columns, sol: MasterSolution):
        if not self.prune or len(columns) == 1:
            return columns, sol
        keep = sol.weights > PRUNE_RTOL * sol.weights.max()
        if keep.all():
            return columns, sol
        sol.weights = sol.weights[keep]
        if sol.column_prices is not None:
            sol.column_prices = sol.column_prices[keep]
        return [c for c, k in zip(columns, keep) if k], sol

    @staticmethod
    def _result(best, history, attempts, it, status, message, pricing) -> CGResult:
        columns, sol = best
        return CGResult(status=status, message=message, success=status in CONVERGED,
                        objective=sol.objective, threshold=sol.threshold,
                        best_price=history["best_price"][-1] if history["best_price"] else None,
                        upper_bound=None if pricing is None else pricing.upper_bound,
                        gap=sol.gap, columns=list(columns), weights=np.array(sol.weights),
                        master=sol, pricing=pricing, nit=it + 1,
                        history={k: list(v) for k, v in history.items()},
                        attempts=list(attempts))


def save_checkpoint(path, iteration, columns, weights, history, previous_objective, rng):
    """Write the state needed to continue a run at ``iteration`` (atomically)."""
    write_json_atomic(path, document(
        "sipkl.checkpoint", iteration=iteration, columns=columns_to_list(columns),
        weights=[float(w) for w in weights], history=history,
        previous_objective=previous_objective, rng_state=rng.bit_generator.state))


def load_checkpoint(path) -> dict:
    """Read a checkpoint written by :func:`save_checkpoint` (validated)."""
    data = check_document(read_json(path), "sipkl.checkpoint")
    try:
        state = {"iteration": int(data["iteration"]), "columns": columns_from_list(data["columns"]),
                 "weights": np.asarray(data["weights"], dtype=float),
                 "history": {k: list(v) for k, v in data["history"].items()},
                 "previous_objective": data["previous_objective"],
                 "rng_state": data["rng_state"]}
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"checkpoint {path} is incomplete or damaged: {exc!r}") from None
    if len(state["weights"]) != len(state["columns"]) or not np.all(np.isfinite(state["weights"])):
        raise ValueError(f"checkpoint {path}: weights do not match the columns")
    return state


_MESSAGES = {
    "certified_optimal": "the oracle proved that no column prices above λ + tol·|λ| + atol",
    "converged_local": "the oracle found no column pricing above λ + tol·|λ| + atol "
                       "(a local search: no proof that none exists)",
    "objective_stalled": "relative objective decrease below obj_tol",
    "no_new_column": "every violating candidate is already a column (master inaccuracy?)",
    "iteration_limit": "max_iter reached",
    "time_limit": "time_limit reached",
}
