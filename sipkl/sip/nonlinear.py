"""Smooth semi-infinite programs that are not convex, written once in NumPy, solved on the
same engine with a local NLP master (IPOPT through cyipopt; SciPy where it cannot load):

    min f(x)  s.t.  c_k(x) ≤ 0 (or = 0),  lower ≤ x ≤ upper,  g_j(x, t) ≤ 0 for all t ∈ T_j.

The column space, the pricing problems and the oracles are those of
:class:`~sipkl.sip.SemiInfiniteProgram` (:class:`~sipkl.sip.space.IndexPointSpace`): a
:class:`NonlinearConstraint` is a :class:`~sipkl.sip.SemiInfiniteConstraint` whose ``g`` is a
NumPy function of a NumPy ``x``, so t ↦ g_j(x_k, t)/s_j is priced by the same code. Only the
master differs: :class:`NonlinearMaster` imposes each constraint at the current index points
and solves the finite, smooth, possibly non-convex program locally, from the previous
round's x, with the multipliers of the index points as the columns' weights.

A local solver proves a local statement only: the master declares ``convex = False``, so the
engine ends ``converged_local`` (or ``stationary_point`` with a proven pricing bound) and
never ``certified_optimal``; the master's value bounds nothing (``lower_bound`` is ``None``);
a master that finds no feasible point has found none locally (``master_failed`` with the
solver's message, never ``infeasible``).

x-derivatives that the user does not state (``grad_f``, ``jac_g``, a finite constraint's
``jac``) are taken by the **complex step**, ``Im f(x + i h e_k) / h`` (Squire & Trapp 1998),
wherever f accepts a complex x and agrees at the start with central differences; else by
**central differences** with the step ε^(1/3)·max(|x_k|, typical size). The choice was
measured (``tests/test_sip_nonlinear.py::
test_complex_step_is_exact_where_central_differences_are_not``): on the constraints of TFI1,
Watson 6 and the fseminf example (1025 index points) and Watson 6's objective, at their
solutions, the complex step matches the closed-form derivatives to 2·10⁻¹⁶–4·10⁻¹⁵ relative,
central differences to 2·10⁻¹¹–2·10⁻⁸ (worst where terms cancel: Watson 6's objective near
its minimum, fseminf's oscillating K); one Jacobian took 12–340 µs by the complex step and
14–450 µs by central differences (n complex evaluations against 2n real ones); and the
complex step needs no step size, hence no unit of x. Whole runs of TFI1, Watson 2 and 6 and
fseminf end at the same points in the same rounds either way. Central differences serve any
real NumPy code (``abs``, ``float`` casts), which the complex step would differentiate wrongly
or not at all: hence the check at the start (:func:`measured_differences`), whose outcome
each result reports (``result.differences``).
"""
from __future__ import annotations

import copy
import numbers
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import Bounds, minimize, nnls
from scipy.optimize import NonlinearConstraint as _ScipyConstraint

from ..contracts import Column, MasterBase, MasterSolution
from ..engine import ColumnGeneration
from ..run_status import RunStatus
from ..solvers import Attempt, Status
from .constraint import FD_STEP, SemiInfiniteConstraint
from .drop_rule import DropAfterIncrease
from .index_sets import IndexSet
from .master import SCALE_COLLAPSE, _positive
from .program import SemiInfiniteProgram, SIPResult, _owned
from .space import ConstraintPrice, IndexPointSpace

try:  # pragma: no cover - exercised through IPOPT_IMPORT_ERROR
    from cyipopt import Problem as _IpoptProblem
    IPOPT_IMPORT_ERROR = None
except Exception as exc:  # ImportError, or a broken shared library
    _IpoptProblem = None
    IPOPT_IMPORT_ERROR = f"{type(exc).__name__}: {exc}"

#: the NLP back-ends of the master, tried in order until one answers optimal
METHODS = ("ipopt", "slsqp")

#: the back-ends one may name: also SciPy's ``"trust-constr"`` (slow with many index points:
#: minutes for a thousand, where SLSQP takes a second)
ALL_METHODS = ("ipopt", "slsqp", "trust-constr")

#: a multiplier is 0 where its row's relative value g_j(x_k, t)/s_j lies below −INACTIVE_RTOL
#: (an interior-point method leaves multipliers of about its barrier parameter, 10⁻¹²,
#: on inactive rows: they are reported, and pruned, as the zeros they are)
INACTIVE_RTOL = 1e-6

#: the complex step h, relative to max(|x_k|, the variable's typical size): any h small
#: enough works (no cancellation), this one leaves h² f‴ far below round-off
COMPLEX_STEP = 1e-20

#: the complex step is used where it agrees with central differences at the start to this
#: fraction of the derivatives' magnitude (central differences are good to about 10⁻¹⁰)
AGREEMENT_RTOL = 1e-6

# IPOPT's return codes (cyipopt's ``status``) that leave a usable point; every other one
# (local infeasibility, diverging iterates, restoration failure, …) is a solver error here
_IPOPT_STATUS = {0: Status.OPTIMAL, 1: Status.OPTIMAL_INACCURATE, -1: Status.ITERATION_LIMIT,
                 -4: Status.ITERATION_LIMIT, -5: Status.ITERATION_LIMIT}


# -- x-derivatives ---------------------------------------------------------------------
def complex_step(fun: Callable, x: np.ndarray, typical: np.ndarray) -> np.ndarray:
    """The derivatives of ``fun`` (an array of any shape S) in x by the complex step,
    S × n: column k is ``Im fun(x + i h_k e_k) / h_k`` with h_k = ``COMPLEX_STEP`` times
    max(|x_k|, ``typical[k]``); exact to round-off for a function analytic in x."""
    step = COMPLEX_STEP * np.maximum(np.abs(x), typical)
    columns = []
    for k in range(len(x)):
        z = x.astype(complex)
        z[k] += 1j * step[k]
        value = np.asarray(fun(z))
        if not np.iscomplexobj(value):
            raise TypeError("the complex step needs a function analytic in x: it returned "
                            "real numbers for a complex x")
        columns.append(value.imag / step[k])
    return np.stack(columns, axis=-1)


def central_differences(fun: Callable, x: np.ndarray, typical: np.ndarray) -> np.ndarray:
    """The derivatives of ``fun`` in x by central differences, S × n, with the steps
    h_k = ε^(1/3)·max(|x_k|, ``typical[k]``) (round-off and truncation balanced: about
    10⁻¹⁰ relative)."""
    step = FD_STEP * np.maximum(np.abs(x), typical)
    columns = []
    for k in range(len(x)):
        up, down = x.copy(), x.copy()
        up[k] += step[k]
        down[k] -= step[k]
        columns.append((np.asarray(fun(up), dtype=float) - np.asarray(fun(down), dtype=float))
                       / (up[k] - down[k]))
    return np.stack(columns, axis=-1)


def measured_differences(fun: Callable, x: np.ndarray, typical: np.ndarray) -> str:
    """``"complex-step"`` where ``fun`` takes a complex x and its complex-step derivatives at
    ``x`` agree with central differences (to ``AGREEMENT_RTOL`` of each column's magnitude:
    the largest derivative, or the largest value over max(|x_k|, ``typical[k]``)), else
    ``"central"`` (code that is not analytic in x: ``abs``, ``float`` casts, …)."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            exact = complex_step(fun, x, typical)
    except Exception:  # any failure of the user's code on a complex x: not analytic here
        return "central"
    value = np.abs(np.asarray(fun(x), dtype=float))
    approximate = central_differences(fun, x, typical)
    axes = tuple(range(approximate.ndim - 1))
    size = np.abs(approximate).max(axis=axes, initial=0.0) + value.max(initial=0.0) / np.maximum(
        np.abs(x), typical)
    agree = np.all(np.abs(exact - approximate) <= AGREEMENT_RTOL * size)
    return "complex-step" if agree and np.all(np.isfinite(exact)) else "central"


def _derivative(fun, x, method: str, typical) -> np.ndarray:
    if method == "complex-step":
        return complex_step(fun, x, typical)
    return central_differences(fun, x, typical)


def _callable(value, name: str, optional: bool = True):
    if value is None and optional:
        return None
    if not callable(value):
        raise TypeError(f"{name} must be a callable{' or None' if optional else ''}, got "
                        f"{type(value).__name__}")
    return value


# -- the constraints -------------------------------------------------------------------
class FiniteConstraint:
    """Finitely many smooth constraints ``fun(x) ≤ 0`` (``equality=True``: ``= 0``).

    Parameters
    ----------
    fun : callable
        ``fun(x) -> q values`` (or one number) at a NumPy ``x``.
    jac : callable, optional
        ``jac(x) -> (q, n)``; ``None``: complex step or central differences (see
        :mod:`sipkl.sip.nonlinear`).
    equality : bool
    name : str, optional
        Names it in messages (``"c0"``, ``"c1"``, … by position otherwise).
    """

    def __init__(self, fun: Callable, jac: Callable = None, equality: bool = False,
                 name: str = None):
        self.fun, self.jac = _callable(fun, "fun", optional=False), _callable(jac, "jac")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a string, got {name!r}")
        self.equality, self.name, self.differences = bool(equality), name, None

    def values(self, x, check: bool = True) -> np.ndarray:
        """fun(x) as a 1-D array, checked (``check``: finite, else an error naming it)."""
        with np.errstate(all="ignore"):
            values = np.atleast_1d(np.asarray(self.fun(x), dtype=float))
        if values.ndim != 1 or (check and not np.all(np.isfinite(values))):
            raise ValueError(f"finite constraint {self.name!r}: fun(x) must return finite "
                             f"numbers (one or a 1-D array), got {values.tolist()}")
        return values

    def jacobian(self, x, typical, check: bool = True) -> np.ndarray:
        """The (q, n) Jacobian at x: ``jac``, else the complex step or central differences;
        checked (``check``: finite)."""
        q = len(self.values(x, check))
        if self.jac is not None:
            jac = np.asarray(self.jac(x), dtype=float)
            jac = jac.reshape(1, -1) if jac.ndim == 1 and q == 1 else jac
            name = "jac"
        else:
            if self.differences is None:
                self.differences = measured_differences(self._raw, x, typical)
            jac = _derivative(self._raw, x, self.differences, typical).reshape(q, len(x))
            name = "its x-derivative"
        if jac.shape != (q, len(x)):
            raise ValueError(f"finite constraint {self.name!r}: jac must return a ({q}, "
                             f"{len(x)}) array, got shape {jac.shape}")
        if check and not np.all(np.isfinite(jac)):
            raise ValueError(f"finite constraint {self.name!r}: {name} is not finite at x = "
                             f"{np.asarray(x).tolist()}")
        return jac

    def _raw(self, x):
        return np.atleast_1d(np.asarray(self.fun(x)))


class NonlinearConstraint(SemiInfiniteConstraint):
    """``g(x, t) ≤ 0`` for every ``t`` in ``T``, with ``g`` a smooth NumPy function of a
    NumPy ``x`` (of length n): the semi-infinite constraint of
    :class:`NonlinearSemiInfiniteProgram`, priced as every
    :class:`~sipkl.sip.SemiInfiniteConstraint` (``values``, ``gradients`` in t,
    ``hessians``), with the x-derivatives that its master needs.

    Parameters
    ----------
    g : callable
        ``g(x, t)``: with ``vectorized=True`` (default), t an (m, p) array of index points
        and m values returned; else t one point (p values) and one value returned.
    T : an index set of :mod:`sipkl.sip.index_sets` (:class:`~sipkl.sip.Box`,
        :class:`~sipkl.sip.FiniteSet`, …)
    jac_g : callable, optional
        ``jac_g(x, t)``: the x-gradients of g, (m, n) for m points (n values for one point
        when not vectorized). ``None``: the complex step where g is analytic in x, else
        central differences (see :mod:`sipkl.sip.nonlinear`).
    grad_t : callable, optional
        ``grad_t(x, t)``: the t-gradients, for pricing, as for
        :class:`~sipkl.sip.SemiInfiniteConstraint` (``None``: central differences in t).
    vectorized : bool
    name : str, optional
    """

    def __init__(self, g: Callable, T: IndexSet, jac_g: Callable = None,
                 grad_t: Callable = None, vectorized: bool = True, name: str = None):
        _callable(g, "g", optional=False)
        _callable(jac_g, "jac_g")
        _callable(grad_t, "grad_t")
        if not isinstance(T, IndexSet):
            raise TypeError(f"T must be an index set (sipkl.sip.Box, FiniteSet, …), got "
                            f"{type(T).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a string, got {name!r}")
        self.g, self.jac_g, self.grad_t, self.vectorized = g, jac_g, grad_t, bool(vectorized)
        self.T, self.name, self.x = T, name, None  # x: the master's, a NumPy array
        self.differences = None  # "complex-step" or "central", measured at the first use

    def expressions(self, points):
        raise TypeError(f"semi-infinite constraint {self.name!r}: a NonlinearConstraint is "
                        "written in NumPy and has no cvxpy expressions (solve it with "
                        "sipkl.sip.NonlinearSemiInfiniteProgram)")

    def jacobian(self, x, points: np.ndarray, typical: np.ndarray,
                 check: bool = True) -> np.ndarray:
        """The x-gradients of g at the rows of ``points`` (m × n): ``jac_g``, else the
        complex step or central differences (steps relative to max(|x_k|, ``typical[k]``)),
        checked: shape, and (``check``) finite, an error naming the constraint and t."""
        x = np.asarray(x, dtype=float)
        m, n = len(points), len(x)
        if self.jac_g is not None:
            if self.vectorized:
                jac = np.asarray(self.jac_g(x, points), dtype=float)
            else:
                jac = np.array([np.ravel(np.asarray(self.jac_g(x, t), dtype=float))
                                for t in points]).reshape(m, -1)
            if jac.shape != (m, n):
                raise ValueError(f"semi-infinite constraint {self.name!r}: jac_g must return "
                                 f"an ({m}, {n}) array for {m} points, got shape {jac.shape}")
            what = "jac_g(x, t)"
        else:
            def fun(z):
                return self._raw(z, points)
            if self.differences is None:
                self.differences = measured_differences(fun, x, typical)
            jac = _derivative(fun, x, self.differences, typical).reshape(m, n)
            what = f"the x-gradient of g ({self.differences})"
        bad = ~np.all(np.isfinite(jac), axis=1)
        if check and bad.any():
            raise ValueError(f"semi-infinite constraint {self.name!r}: {what} is not finite at "
                             f"t = {points[bad][0].tolist()} (x = {x.tolist()})")
        return jac

    def _raw(self, x, points) -> np.ndarray:
        """g at the rows of ``points`` without conversion (complex for a complex x)."""
        if self.vectorized:
            return np.asarray(self.g(x, points)).reshape(len(points))
        return np.array([np.asarray(self.g(x, t)).reshape(()) for t in points])


# -- the NLP back-ends -----------------------------------------------------------------
class _ScaledProgram:
    """The restricted master as the back-ends see it: f/σ_f, and the rows g_j(x, t)/s_j at
    the index points and c_k(x)/σ_k (inequalities first, then equalities), each evaluated
    once per x (the back-ends ask for values and derivatives at the same x several times).
    Values that are not finite at a trial point go to the back-end, which steps back; the
    accepted points are checked (:meth:`NonlinearMaster.scales`)."""

    def __init__(self, master: NonlinearMaster, points, objective_scale, scales,
                 finite_scales):
        self.master, self.points = master, points
        self.objective_scale, self.scales, self.finite_scales = (objective_scale, scales,
                                                                 finite_scales)
        inequality = [c for c in master.finite if not c.equality]
        equality = [c for c in master.finite if c.equality]
        order = {id(c): k for k, c in enumerate(master.finite)}
        self.blocks = ([("g", j) for j in range(len(points))]
                       + [("c", order[id(c)]) for c in inequality + equality])
        self.n_equality = sum(len(c.values(master.x0)) for c in equality)
        self._key, self._value, self._jacobian = None, None, None

    def objective(self, x):
        return float(self.master.f(x)) / self.objective_scale

    def gradient(self, x):
        return self.master.objective_gradient(x) / self.objective_scale

    def constraints(self, x):
        return self._evaluate(x)[0]

    def jacobian(self, x):
        return self._evaluate(x)[1]

    def _evaluate(self, x):
        key = np.asarray(x, dtype=float).tobytes()
        if key != self._key:
            values, jacobians = [], []
            x = np.asarray(x, dtype=float)
            for kind, k in self.blocks:
                if kind == "g":
                    sic, points = self.master.semi_infinite[k], self.points[k]
                    if not len(points):
                        continue
                    with np.errstate(all="ignore"):  # a trial point may overflow: the
                        values.append(sic._raw(x, points).real / self.scales[k])  # back-end
                        jacobians.append(sic.jacobian(  # steps back (accepted points are
                            x, points, self.master.typical, check=False)  # checked later)
                            / self.scales[k])
                else:
                    c = self.master.finite[k]
                    with np.errstate(all="ignore"):
                        values.append(c.values(x, check=False) / self.finite_scales[k])
                        jacobians.append(c.jacobian(x, self.master.typical, check=False)
                                         / self.finite_scales[k])
            n = len(x)
            self._value = np.concatenate(values) if values else np.zeros(0)
            self._jacobian = np.vstack(jacobians) if jacobians else np.zeros((0, n))
            self._key = key
        return self._value, self._jacobian


@dataclass
class _Answer:
    """One back-end's answer: x, the multipliers of the rows (≥ 0 for inequalities), and its
    status, as an attempt."""

    x: np.ndarray
    multipliers: np.ndarray
    attempt: Attempt


def _solve_ipopt(program: _ScaledProgram, x0, lower, upper, tol, max_iter, deadline):
    start = time.perf_counter()
    if _IpoptProblem is None:
        return _Answer(x0, None, Attempt("ipopt", Status.SOLVER_ERROR,
                                         f"cyipopt unavailable ({IPOPT_IMPORT_ERROR})"))
    m = len(program.constraints(x0))
    upper_rows = np.zeros(m)
    lower_rows = np.full(m, -np.inf)
    lower_rows[m - program.n_equality:] = 0.0
    problem = _IpoptProblem(n=len(x0), m=m, problem_obj=program, lb=lower, ub=upper,
                            cl=lower_rows, cu=upper_rows)
    options = {"hessian_approximation": "limited-memory", "print_level": 0, "sb": "yes",
               "tol": tol, "constr_viol_tol": tol, "max_iter": max_iter,
               "nlp_scaling_method": "none"}
    if deadline is not None:
        options["max_wall_time"] = max(deadline - time.perf_counter(), 1e-3)
    for key, value in options.items():
        problem.add_option(key, value)
    x, info = problem.solve(np.asarray(x0, dtype=float))
    code = int(info["status"])
    status = _IPOPT_STATUS.get(code, Status.SOLVER_ERROR)
    message = info["status_msg"]
    message = message.decode() if isinstance(message, bytes) else str(message)
    attempt = Attempt("ipopt", status, f"{message} (IPOPT status {code})",
                      time.perf_counter() - start)
    multipliers = np.asarray(info["mult_g"], dtype=float)
    return _Answer(np.asarray(x, dtype=float), multipliers, attempt)


def _solve_scipy(method: str, program: _ScaledProgram, x0, lower, upper, tol, max_iter):
    start = time.perf_counter()
    m = len(program.constraints(x0))
    n_inequality = m - program.n_equality
    bounds = Bounds(lower, upper) if np.any(np.isfinite(lower) | np.isfinite(upper)) else None
    x0 = np.clip(x0, lower, upper)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # SciPy's remarks on its own approximations
        if method == "slsqp":
            constraints = []
            if n_inequality:
                constraints.append({"type": "ineq",
                                    "fun": lambda x: -program.constraints(x)[:n_inequality],
                                    "jac": lambda x: -program.jacobian(x)[:n_inequality]})
            if program.n_equality:
                constraints.append({"type": "eq",
                                    "fun": lambda x: program.constraints(x)[n_inequality:],
                                    "jac": lambda x: program.jacobian(x)[n_inequality:]})
            res = minimize(program.objective, x0, jac=program.gradient, method="SLSQP",
                           bounds=bounds, constraints=constraints,
                           options={"maxiter": max_iter, "ftol": tol})
            stated = res.get("multipliers")
            if stated is not None and len(stated) == m:  # SciPy ≥ 1.15: equalities first
                stated = np.concatenate([stated[program.n_equality:],
                                         stated[:program.n_equality]])
            limit = res.status == 9
        else:
            constraints = [] if not m else [_ScipyConstraint(
                program.constraints, np.where(np.arange(m) < n_inequality, -np.inf, 0.0),
                np.zeros(m), jac=program.jacobian)]
            res = minimize(program.objective, x0, jac=program.gradient, method="trust-constr",
                           bounds=bounds, constraints=constraints,
                           options={"maxiter": max_iter, "gtol": tol, "xtol": tol * tol})
            stated = np.asarray(res.v[0], dtype=float) if m else np.zeros(0)
            limit = res.status == 0
    x = np.clip(np.asarray(res.x, dtype=float), lower, upper)
    status = Status.OPTIMAL if res.success else (Status.ITERATION_LIMIT if limit
                                                  else Status.SOLVER_ERROR)
    if stated is None or len(stated) != m:
        stated = _kkt_multipliers(program, x, n_inequality)
    attempt = Attempt(method, status, str(res.message), time.perf_counter() - start)
    return _Answer(x, np.asarray(stated, dtype=float), attempt)


def _kkt_multipliers(program: _ScaledProgram, x, n_inequality: int) -> np.ndarray:
    """Multipliers λ of the rows at x from the stationarity ∇f + Jᵀλ = 0 by least squares
    (λ ≥ 0 on the inequalities near activity, 0 on the others; free on the equalities):
    for a back-end that states none."""
    values, jac = program.constraints(x), program.jacobian(x)
    active = np.arange(len(values)) >= n_inequality
    active |= values >= -INACTIVE_RTOL
    rows = np.flatnonzero(active)
    multipliers = np.zeros(len(values))
    if not len(rows):
        return multipliers
    A, b = jac[rows].T, -program.gradient(x)
    eq = rows >= n_inequality  # free equality multipliers: split into two non-negative parts
    solution, _ = nnls(np.hstack([A, -A[:, eq]]), b)
    multipliers[rows] = solution[:len(rows)]
    multipliers[rows[eq]] -= solution[len(rows):]
    return multipliers


# -- the master ------------------------------------------------------------------------
@dataclass
class NonlinearModel:
    """What a solve of :class:`NonlinearMaster` leaves: ``x``, the price (one
    :class:`~sipkl.sip.space.ConstraintPrice` per semi-infinite constraint), σ_f (the
    objective's scale of the next solve, for the drop rule), and the multipliers of the
    finite constraints (one array per :class:`FiniteConstraint`, user's units)."""

    x: np.ndarray
    price: list
    objective_scale: float = 1.0
    finite_multipliers: list = field(default_factory=list)


class NonlinearMaster(MasterBase):
    """The restricted master of a smooth, possibly non-convex semi-infinite program: f, the
    finite constraints, the bounds, and each g_j at its current index points, solved by a
    local NLP method from the previous solve's x (from ``x0`` at a run's first solve).

    The solution hands the engine what :class:`~sipkl.sip.master.DiscretizedMaster` hands
    it, by the same rules: ``weights`` the multipliers of the index points (in the columns'
    order, user's units, clipped at 0), ``threshold`` 0 and ``cut_scale`` 1 (the prices are
    relative violations), ``price`` one :class:`~sipkl.sip.space.ConstraintPrice` per
    constraint with the scale

        s_j = max over t ∈ T_j^(k) ∪ {t_0} of  Σ_terms |term of g_j(x_k, t)|,

    where, g being a NumPy function, its terms are those of its linearization at x_k,
    g = [g − ∇ₓg·x_k] + Σ_i ∂g/∂x_i·x_k,i (for g affine in x, a(t)·x + b(t), the terms
    b(t) and a_i(t)·x_i of the cvxpy rule). Multiplying g_j by c multiplies s_j by |c|;
    rescaling T_j or f leaves the run unchanged (the scales do not depend on the units of x
    either; the back-ends' iterations do). The back-ends see f/σ_f and
    g_j/s_j (σ_f the same magnitude of f, kept where it collapses below ``SCALE_COLLAPSE``
    times the previous one; c_k/σ_k, σ_k the largest magnitude of c_k's rows), taken at the
    solve's start x over the current points, and the multipliers are handed back in the
    user's units (multiplier · σ_f / s_j; 0 where the point is inactive, below
    ``−INACTIVE_RTOL``; L = f + Σ λ g + Σ μ c, so μ ≥ 0 for an inequality, of either sign
    for an equality). ``column_prices`` are g_j(x_k, t)/s_j. Each solve starts from the last
    solve's x (kept by the master, and by checkpoints): the engine's ``warm_start``, the
    last weights, is not used.

    ``convex`` is ``False``: a stopped run is at best ``converged_local`` (or
    ``stationary_point``), never ``certified_optimal``. ``status`` is the back-end's
    (``optimal``: a local KKT point to ``tol``), ``gap`` 0 (the back-end's own test
    decides). The back-ends are tried in ``methods``' order until one answers optimal (each
    try an attempt; the first usable answer is kept when none does): ``"ipopt"`` (cyipopt,
    limited-memory Hessian; recorded as failed where cyipopt cannot load), then ``"slsqp"``
    (SciPy; ``"trust-constr"`` on request, see ``ALL_METHODS``). A solve that none
    completes is a failed solution whose status and attempts carry the back-ends' messages
    (IPOPT's "Infeasible_Problem_Detected" means a point of local infeasibility: no proof
    that the program is infeasible).
    """

    empty_start = True

    def __init__(self, f: Callable, semi_infinite: Sequence[NonlinearConstraint],
                 x0: np.ndarray, grad_f: Callable = None, lower=None, upper=None,
                 finite: Sequence[FiniteConstraint] = (), methods: Sequence[str] = METHODS,
                 tol: float = 1e-10, max_iter: int = 3000):
        self.f, self.grad_f = f, grad_f
        self.semi_infinite, self.finite = list(semi_infinite), list(finite)
        self.x0 = np.asarray(x0, dtype=float)
        n = len(self.x0)
        self.lower = np.full(n, -np.inf) if lower is None else np.asarray(lower, dtype=float)
        self.upper = np.full(n, np.inf) if upper is None else np.asarray(upper, dtype=float)
        self.methods, self.tol, self.max_iter = tuple(methods), tol, max_iter
        width = self.upper - self.lower
        #: the size of each variable where x_k = 0 (central differences' step, the complex
        #: step's): |x0_k|, else the bounds' width, else 1
        self.typical = np.where(self.x0 != 0, np.abs(self.x0),
                                np.where(np.isfinite(width) & (width > 0), width, 1.0))
        self.differences = None  # the objective's: "complex-step" or "central"
        self._owner = {c.T: j for j, c in enumerate(self.semi_infinite)}
        self._references = [c.T.initial_points(1) for c in self.semi_infinite]
        self.reset()

    def reset(self) -> None:
        """Start a new run: from ``x0``, with no scale kept."""
        self._x, self._objective_scale, self.failure = self.x0.copy(), None, None

    def get_state(self) -> dict:
        """The start of the next solve and σ_f (:class:`~sipkl.contracts.Stateful`)."""
        return {"x": self._x.tolist(), "objective_scale": self._objective_scale}

    def set_state(self, state: dict) -> None:
        self._x, self._objective_scale = np.array(state["x"]), state["objective_scale"]

    def groups(self, columns: Sequence[Column]) -> list[np.ndarray]:
        """The positions, in ``columns``, of each constraint's index points."""
        owners = np.array([self._owner[c.family] for c in columns], dtype=int)
        return [np.flatnonzero(owners == j) for j in range(len(self.semi_infinite))]

    # -- values and scales -------------------------------------------------------------
    def objective_gradient(self, x) -> np.ndarray:
        """∇f at x: ``grad_f``, else the complex step or central differences."""
        if self.grad_f is not None:
            return np.asarray(self.grad_f(x), dtype=float).reshape(len(x))
        def fun(z):
            return np.asarray(self.f(z)).reshape(())
        if self.differences is None:
            self.differences = measured_differences(fun, np.asarray(x, float), self.typical)
        return _derivative(fun, np.asarray(x, dtype=float), self.differences, self.typical)

    def objective_scale(self, x) -> float:
        """Σ |terms| of f's linearization at x (see the class docstring), or 1 where 0."""
        return _positive(float(_magnitudes(np.atleast_1d(float(self.f(x))),
                                           self.objective_gradient(x)[None], x)[0]))

    def scales(self, x, points) -> np.ndarray:
        """s_j at x over the rows of ``points[j]`` and t_0 (see the class docstring)."""
        scales = []
        for sic, own, reference in zip(self.semi_infinite, points, self._references):
            where = np.vstack([own, reference])
            values = sic.values(x, where)
            scales.append(_positive(float(np.max(_magnitudes(
                values, sic.jacobian(x, where, self.typical), x)))))
        return np.array(scales)

    def finite_scales(self, x) -> np.ndarray:
        return np.array([_positive(float(np.max(_magnitudes(c.values(x),
                                                            c.jacobian(x, self.typical), x))))
                         for c in self.finite])

    # -- the solve ---------------------------------------------------------------------
    def solve(self, columns: Sequence[Column], warm_start=None) -> MasterSolution:
        groups = self.groups(columns)
        points = [np.array([columns[k].theta for k in g]).reshape(-1, sic.T.dim)
                  for sic, g in zip(self.semi_infinite, groups)]
        start = self._x
        scale = self.objective_scale(start)
        if self._objective_scale is None or scale >= SCALE_COLLAPSE * self._objective_scale:
            self._objective_scale = scale
        program = _ScaledProgram(self, points, self._objective_scale, self.scales(start, points),
                                 self.finite_scales(start))
        answer, attempts = None, []
        for method in self.methods:
            if (self.deadline is not None and time.perf_counter() >= self.deadline
                    and answer is not None):
                break
            if method == "ipopt":
                found = _solve_ipopt(program, start, self.lower, self.upper, self.tol,
                                     self.max_iter, self.deadline)
            else:
                found = _solve_scipy(method, program, start, self.lower, self.upper, self.tol,
                                     self.max_iter)
            attempts.append(found.attempt)
            if found.attempt.status.usable and answer is None:
                answer = found
            if found.attempt.status is Status.OPTIMAL:
                answer = found
                break
        if answer is None:
            self.failure = MasterSolution.failed(len(columns), attempts[-1].status, attempts)
            return self.failure
        return self._solution(answer, program, groups, points, attempts)

    def _solution(self, answer: _Answer, program: _ScaledProgram, groups, points,
                  attempts) -> MasterSolution:
        x = answer.x
        inequality = np.arange(len(answer.multipliers)) < (len(answer.multipliers)
                                                           - program.n_equality)
        inactive = inequality & (program.constraints(x) < -INACTIVE_RTOL)
        multipliers = np.where(inequality, np.clip(answer.multipliers, 0.0, None),
                               answer.multipliers)
        multipliers[inactive] = 0.0
        weights = np.zeros(sum(len(g) for g in groups))
        row = 0
        for group, scale in zip(groups, program.scales):
            weights[group] = multipliers[row:row + len(group)] * self._objective_scale / scale
            row += len(group)
        finite = []
        for kind, k in program.blocks[len(points):]:
            q = len(self.finite[k].values(x))
            finite.append((k, multipliers[row:row + q] * self._objective_scale
                           / program.finite_scales[k]))
            row += q
        price_scales = self.scales(x, points)
        price = [ConstraintPrice(x.copy(), s) for s in price_scales]
        relative = np.zeros(len(weights))
        for sic, group, own, s in zip(self.semi_infinite, groups, points, price_scales):
            if len(group):
                relative[group] = sic.values(x, own) / s
        self._x = x.copy()
        model = NonlinearModel(x.copy(), price, self._objective_scale,
                               [m for _, m in sorted(finite, key=lambda km: km[0])])
        return MasterSolution(weights=weights, objective=float(self.f(x)), price=price,
                              threshold=0.0, gap=0.0, status=answer.attempt.status,
                              attempts=attempts, model=model, column_prices=relative,
                              convex=False, cut_scale=1.0)


def _magnitudes(values: np.ndarray, jacobian: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Σ |terms| of each row's linearization at x: |g − J x| + Σ_i |J_i x_i|."""
    return np.abs(values - jacobian @ x) + np.abs(jacobian) @ np.abs(x)


# -- the program -----------------------------------------------------------------------
class NonlinearSemiInfiniteProgram(SemiInfiniteProgram):
    """``min f(x)`` subject to smooth semi-infinite constraints ``g_j(x, t) ≤ 0`` for all
    ``t ∈ T_j``, finite constraints and bounds, all written in NumPy, not necessarily convex:
    the same exchange method as :class:`~sipkl.sip.SemiInfiniteProgram` (its oracles, its
    column space, its engine), with the local NLP master :class:`NonlinearMaster`.

    Parameters
    ----------
    f : callable
        ``f(x) -> float`` for a NumPy x of length n.
    constraints : NonlinearConstraint or list of them
        Each with its own index set (unnamed ones are called ``"g0"``, ``"g1"``, …).
    x0 : array (n,)
        The start of the first master (inside ``bounds``).
    grad_f : callable, optional
        ``grad_f(x) -> (n,)``; ``None``: the complex step or central differences (see
        :mod:`sipkl.sip.nonlinear`).
    bounds : sequence of (lower, upper) pairs or scipy.optimize.Bounds, optional
        One pair per variable, ``None`` or ±inf for no bound.
    finite : FiniteConstraint, callable, or list of them
        Finite constraints (a callable ``c(x)`` is ``FiniteConstraint(c)``: c(x) ≤ 0).

    Examples
    --------
    Watson's problem 2 (Mitsos's test set): min x₁²/3 + x₂² + x₁/2 s.t.
    (1 − x₁²t²)² − x₁t² − x₂² + x₂ ≤ 0 on [0, 1], not convex in x; the optimum
    (3 − √5)/2 − 3/16 is at x = (−3/4, (1 − √5)/2), the active point t = 0:

    >>> import numpy as np
    >>> from sipkl.sip import Box, NonlinearConstraint, NonlinearSemiInfiniteProgram
    >>> g = lambda x, t: (1 - x[0]**2 * t[:, 0]**2)**2 - x[0] * t[:, 0]**2 - x[1]**2 + x[1]
    >>> program = NonlinearSemiInfiniteProgram(
    ...     lambda x: x[0]**2 / 3 + x[1]**2 + x[0] / 2,
    ...     NonlinearConstraint(g, Box([0.0], [1.0])), x0=[-1.0, -1.0])
    >>> result = program.solve()
    >>> result.status.value, bool(abs(result.objective - ((3 - 5**0.5) / 2 - 3 / 16)) < 1e-8)
    ('converged_local', True)
    """

    def __init__(self, f: Callable, constraints, x0, *, grad_f: Callable = None, bounds=None,
                 finite=()):
        _callable(f, "f", optional=False)
        _callable(grad_f, "grad_f")
        sics = [constraints] if isinstance(constraints, SemiInfiniteConstraint) \
            else list(constraints)
        if not sics or not all(isinstance(c, NonlinearConstraint) for c in sics):
            raise TypeError("constraints must be a NonlinearConstraint or a non-empty list of "
                            "them")
        self.semi_infinite = [_owned(c, f"g{j}" if c.name is None else c.name)
                              for j, c in enumerate(sics)]
        names = [c.name for c in self.semi_infinite]
        if len(set(names)) < len(names):
            raise ValueError(f"constraints: names must be distinct, got {names}")
        x0 = _start(x0)
        lower, upper = _bounds(bounds, len(x0))
        if np.any(x0 < lower) or np.any(x0 > upper):
            outside = np.flatnonzero((x0 < lower) | (x0 > upper))[0]
            raise ValueError(f"x0 must lie within the bounds: x0[{outside}] = {x0[outside]} is "
                             f"outside [{lower[outside]}, {upper[outside]}]")
        finite = [finite] if isinstance(finite, FiniteConstraint) or callable(finite) \
            else list(finite)
        finite = [copy.copy(c) if isinstance(c, FiniteConstraint) else FiniteConstraint(c)
                  for c in finite]
        for k, c in enumerate(finite):
            c.name = f"c{k}" if c.name is None else c.name
        names = [c.name for c in finite]
        if len(set(names)) < len(names):
            raise ValueError(f"finite: names must be distinct, got {names}")
        self.objective, self.constraints = f, finite
        self.master = NonlinearMaster(f, self.semi_infinite, x0, grad_f, lower, upper, finite)
        self._check_start()

    def _check_start(self) -> None:
        """f, g, the finite constraints and their derivatives at x0 (g at the first index
        points): finite numbers of the right shapes, else an error naming the argument."""
        master, x0 = self.master, self.master.x0
        value = np.asarray(master.f(x0), dtype=float)
        if value.size != 1 or not np.isfinite(value).all():
            raise ValueError(f"f must return one finite number, got {value.tolist()} at x0")
        gradient = np.asarray(master.grad_f(x0), dtype=float) if master.grad_f is not None \
            else master.objective_gradient(x0)
        if gradient.shape != x0.shape or not np.all(np.isfinite(gradient)):
            raise ValueError(f"grad_f must return {len(x0)} finite numbers, got "
                             f"{gradient.tolist()} at x0")
        n = len(x0)
        for c in self.semi_infinite:
            points = np.vstack([c.T.initial_points(n + 1), c.T.initial_points(1)])
            c.values(x0, points)
            c.jacobian(x0, points, master.typical)
        for c in master.finite:
            c.jacobian(x0, master.typical)

    def _n_variables(self) -> int:
        return len(self.master.x0)

    def solve(self, oracle=None, *, tol: float = 1e-6, atol: float = 0.0, max_iter: int = 100,
              time_limit: float = None, lipschitz=None, initial_points=None, n_price=None,
              prune="increase", random_state=None, verbose: int = 0, callback=None,
              methods: Sequence[str] = METHODS, checkpoint=None, resume=None) -> SIPResult:
        """Solve by the exchange method on :class:`~sipkl.engine.ColumnGeneration` with the
        local NLP master.

        The options are those of :meth:`SemiInfiniteProgram.solve
        <sipkl.sip.SemiInfiniteProgram.solve>` (``oracle``: default ``"dense"`` on index
        sets of dimension ≤ 2, ``tol``, ``atol``, ``max_iter``, ``time_limit``,
        ``lipschitz``, ``initial_points``, ``n_price``, ``prune``, ``random_state``,
        ``verbose``, ``callback``, ``checkpoint``, ``resume``), less those of the convex
        master (no local reduction, no bracket, no unboundedness test: the first master over
        ``initial_points`` must have a solution), and ``methods``, the NLP back-ends tried in
        order (see :class:`NonlinearMaster`).

        Returns
        -------
        SIPResult
            As for :meth:`SemiInfiniteProgram.solve <sipkl.sip.SemiInfiniteProgram.solve>`,
            with ``x`` the array of the variables, ``finite_multipliers`` (one array per
            finite constraint), ``differences`` (how each derivative was taken:
            ``"stated"``, ``"complex-step"`` or ``"central"``), ``lower_bound`` ``None``
            (a local master's value bounds nothing), and status ``converged_local`` (or
            ``stationary_point`` with a proven pricing bound) at best.
        """
        if not (isinstance(tol, numbers.Real) and np.isfinite(tol) and tol >= 0):
            raise ValueError(f"tol must be a finite number ≥ 0, got {tol!r}")
        unknown = [m for m in methods if m not in ALL_METHODS] \
            if not isinstance(methods, str) else [methods]
        if unknown or not methods:
            raise ValueError(f"methods must be a non-empty sequence of {list(ALL_METHODS)}, "
                             f"got {methods!r}")
        constants = self._per_constraint(lipschitz, "lipschitz")
        if n_price is None:
            n_price = self._n_variables()
        elif not (isinstance(n_price, numbers.Integral) and n_price >= 1):
            raise ValueError(f"n_price must be an integer ≥ 1 or None, got {n_price!r}")
        if prune == "increase":
            prune = DropAfterIncrease(1)
        elif not isinstance(prune, bool):
            raise ValueError(f"prune must be 'increase', True or False, got {prune!r}")
        space = IndexPointSpace(self.semi_infinite, constants)
        oracle = self._oracle(oracle, constants)
        columns = self._initial_columns(initial_points)
        self.master.methods = tuple(methods)
        self.master.reset()
        engine = ColumnGeneration(
            self.master, oracle, tol=tol, atol=atol, max_iter=max_iter, time_limit=time_limit,
            n_price=n_price, prune=prune,
            callback=None if callback is None else (lambda cg: callback(self._result(cg))),
            verbose=verbose, random_state=random_state, checkpoint=checkpoint)
        try:
            return self._result(engine.run_space(space, columns, resume))
        except RuntimeError:  # the engine's "failed before any master solution"
            if self.master.failure is None:
                raise
            return self._failed(self.master.failure)

    def solve_discretized(self, n_points: int = 101, methods: Sequence[str] = METHODS
                          ) -> SIPResult:
        """Solve the master once over the fixed grid :meth:`discretize` (see
        :meth:`SemiInfiniteProgram.solve_discretized
        <sipkl.sip.SemiInfiniteProgram.solve_discretized>`), locally, from ``x0``."""
        self.master.methods = tuple(methods)
        try:
            return super().solve_discretized(n_points, ())
        except RuntimeError:
            if self.master.failure is None:
                raise
            return self._failed(self.master.failure)

    def _differences(self) -> dict:
        """How each x-derivative was taken, by name."""
        master = self.master
        found = {"f": "stated" if master.grad_f is not None else master.differences}
        found.update({c.name: "stated" if c.jac_g is not None else c.differences
                      for c in self.semi_infinite})
        found.update({c.name: "stated" if c.jac is not None else c.differences
                      for c in master.finite})
        return found

    def _result(self, cg, check_points=None) -> SIPResult:
        """The :class:`SIPResult` of an engine result."""
        sol, model = cg.master, cg.master.model
        groups = self.master.groups(cg.columns)
        points = [np.array([cg.columns[k].theta for k in g]).reshape(-1, c.T.dim)
                  for c, g in zip(self.semi_infinite, groups)]
        if check_points is None:
            candidates = [] if cg.pricing is None else cg.pricing.columns
            check_points = [np.vstack([p] + [np.array([k.theta]) for k in candidates
                                             if k.family is c.T]).reshape(-1, c.T.dim)
                            for c, p in zip(self.semi_infinite, points)]
        violation = max((float(c.values(model.x, t).max()) for c, t in
                         zip(self.semi_infinite, check_points) if len(t)), default=-np.inf)
        message = cg.message + ("; the masters are solved by a local NLP method: at best a "
                                "local solution, and no bound on the optimum")
        if cg.status is RunStatus.MASTER_FAILED:  # the back-ends' tries of the failed solve
            tried = [a for it, a in cg.attempts if it == cg.attempts[-1][0]
                     and a.solver in ALL_METHODS]
            message += "; the failed master's tries: " + "; ".join(
                f"{a.solver}: {a.status.value} ({a.message})" for a in tried)
        return SIPResult(
            x=model.x.copy(), objective=sol.objective, status=cg.status,
            success=cg.status.success, message=message, points=points,
            multipliers=[np.asarray(cg.weights)[g] for g in groups], max_violation=violation,
            upper_bound=cg.upper_bound, violation_proved=cg.upper_bound is not None,
            lower_bound=None, reduction=None, bracket=None,
            scales=[p.scale for p in model.price], finite_multipliers=model.finite_multipliers,
            differences=self._differences(), nit=cg.nit, history=cg.history,
            attempts=cg.attempts, gap=cg.gap)

    def _failed(self, failure: MasterSolution) -> SIPResult:
        """The result of a run whose first master solve failed in every back-end."""
        tried = "; ".join(f"{a.solver}: {a.status.value} ({a.message})"
                          for a in failure.attempts)
        return SIPResult(
            x=None, objective=np.nan, status=RunStatus.MASTER_FAILED, success=False,
            message=("the first restricted master failed in every NLP back-end (a local "
                     f"method: no proof that the program is infeasible): {tried}"),
            points=[], multipliers=[], max_violation=np.nan, upper_bound=None,
            violation_proved=False, lower_bound=None, reduction=None, bracket=None, scales=[],
            finite_multipliers=[], differences=self._differences(), nit=1, history={},
            attempts=[(0, a) for a in failure.attempts], gap=np.nan)


def _start(x0) -> np.ndarray:
    try:
        x0 = np.asarray(x0, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"x0 must be an array of numbers, got {x0!r}") from None
    if x0.ndim != 1 or x0.size == 0:
        raise ValueError(f"x0 must be a non-empty 1-D array (n,), got shape {x0.shape}")
    if not np.all(np.isfinite(x0)):
        raise ValueError(f"x0 must be finite, got {x0.tolist()}")
    return x0


def _bounds(bounds, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) of ``bounds``: None, a scipy Bounds, or n pairs (None: no bound)."""
    if bounds is None:
        return np.full(n, -np.inf), np.full(n, np.inf)
    if isinstance(bounds, Bounds):
        lower, upper = (np.broadcast_to(np.asarray(b, dtype=float), (n,)).copy()
                        for b in (bounds.lb, bounds.ub))
    else:
        pairs = list(bounds)
        if len(pairs) != n or not all(isinstance(p, (tuple, list)) and len(p) == 2
                                      for p in pairs):
            raise ValueError(f"bounds must be {n} (lower, upper) pairs, one per variable of "
                             f"x0, got {bounds!r}")
        lower = np.array([-np.inf if lo is None else lo for lo, _ in pairs], dtype=float)
        upper = np.array([np.inf if hi is None else hi for _, hi in pairs], dtype=float)
    if np.any(np.isnan(lower)) or np.any(np.isnan(upper)) or np.any(lower > upper) \
            or np.any(lower == np.inf) or np.any(upper == -np.inf):
        raise ValueError(f"bounds are inconsistent: need lower ≤ upper, not NaN, got lower "
                         f"{lower.tolist()} and upper {upper.tolist()}")
    return lower, upper
