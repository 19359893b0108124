"""Generalized semi-infinite programs: the index set depends on x.

    min f(x)  s.t.  g_j(x, t) ≤ 0   for every t ∈ T_j(x) = {t ∈ R^p : v_j(x, t) ≤ 0}.

Each constraint asks that the lower level

    φ_j(x) = max { g_j(x, t) : v_j(x, t) ≤ 0 }                                    (LL_j)

be at most 0. Where the lower level is convex — g_j(x, ·) concave, each v_ji(x, ·) convex,
with a Slater point — a t is its maximizer exactly when multipliers μ ≥ 0 satisfy its KKT
conditions, so the program is the single-level program in (x, t_j, μ_j)

    min f(x)  s.t.  g_j(x, t_j) ≤ 0,   ∇_t g_j(x, t_j) = Σ_i μ_ji ∇_t v_ji(x, t_j),
                    v_j(x, t_j) ≤ 0,   μ_j ≥ 0,   μ_ji · v_ji(x, t_j) = 0

(Stein & Still 2003, "Solving semi-infinite optimization problems with interior point
techniques", SIAM J. Control Optim. 42:769–788; Stein 2003, *Bi-Level Strategies in
Semi-Infinite Programming*, Kluwer, ch. 4). Its complementarity constraints violate every
constraint qualification, so it is solved through Scholtes' relaxation (Scholtes 2001,
"Convergence properties of a regularization scheme for mathematical programs with
complementarity constraints", SIAM J. Optim. 11:918–936): −μ_ji v_ji ≤ τ for
τ = ``TAUS`` in turn, each solve (IPOPT, then SLSQP where IPOPT does not settle it:
:func:`~sipkl.solvers.nlp.minimize_nlp`) started from the last; the first from a KKT point
of every lower level at x₀. Rows and variables are in scale-free units: t_j in the frame of
its box (the bounding box the constraint states, t = c + h∘u), g_j divided by its magnitude
s_j at the start (the largest |g_j(x₀, t)| over the points of a sample of the box in
T_j(x₀)), each v_ji by its own, μ likewise, so that τ is a fraction of those magnitudes; x
in the units of its start, x/max|x₀ᵢ|, and f divided by |f(x₀)|.

The answer is then checked on the lower levels themselves: at the returned x each (LL_j) is
maximized from the best points of a sample of its box inside T_j(x) and from the KKT point
t_j (:func:`~sipkl.solvers.nlp.minimize_nlp` with v_j ≤ 0), and its largest value, relative
to s_j, is ``max_violation``. The status claims what this proves: ``converged_local`` — a
local solution of the reformulation, whose lower levels the check found feasible within
``tol`` (the convexity of the lower levels, which makes the KKT points their maximizers, is
the user's statement; the check is a local search, no proof) —, else the reason.
"""
from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from scipy.optimize import OptimizeResult, nnls

from ..core.run_status import RunStatus
from ..solvers import Status
from ..solvers.nlp import minimize_nlp
from .constraints.semi_infinite import FD_STEP, checked_callable, checked_name
from .sets.box import Box

#: Scholtes' relaxation parameters τ, in turn (fractions of the rows' magnitudes)
TAUS = (1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12)
#: IPOPT's iterations per relaxation before SLSQP takes it over (IPOPT's limited-memory
#: Hessian either settles a relaxation in tens of iterations or wanders: 3000 iterations,
#: 21 s, on design_cent_3's first, which SLSQP then solved in 0.15 s)
RELAXATION_ITERATIONS = 300
#: the sample of each box at the check of the lower levels (its best points start searches)
CHECK_SAMPLE = 4096
CHECK_STARTS = 8


def central_difference(fun, z, step) -> np.ndarray:
    """The Jacobian of the vector function ``fun`` at ``z`` by central differences with the
    steps ``step`` (one per entry of z): (rows of fun) × len(z)."""
    columns = []
    for k in range(len(z)):
        e = np.zeros_like(z)
        e[k] = step[k]
        columns.append((np.atleast_1d(fun(z + e)) - np.atleast_1d(fun(z - e))) / (2 * step[k]))
    return np.column_stack(columns)


class LowerLevelConstraint:
    """``g(x, t) ≤ 0`` for every t of T(x) = {t : v(x, t) ≤ 0}, T(x) inside ``box`` for
    every x the run visits (the module doc).

    Parameters
    ----------
    g : callable
        ``g(x, t)``, a number, at one t of shape (p,) and numeric x; concave in t.
    v : callable
        ``v(x, t)``, the m values v_i(x, t) (a number where m = 1); each convex in t.
    box : :class:`~sipkl.sip.Box`
        A box that holds T(x): the frame of t and the sample of the final check.
    grad_t, jac_t : callable, optional
        ∇_t g(x, t) (p values) and the Jacobian of v in t (m × p). ``None``: central
        differences with steps ``FD_STEP`` times the box's widths.
    name : str, optional
    """

    def __init__(self, g: Callable, v: Callable, box: Box, grad_t: Callable = None,
                 jac_t: Callable = None, name: str = None):
        self.g = checked_callable(g, "g", "g(x, t)", optional=False)
        self.v = checked_callable(v, "v", "v(x, t)", optional=False)
        if not isinstance(box, Box):
            raise TypeError(f"box must be a sipkl.sip.Box holding T(x), got "
                            f"{type(box).__name__}")
        self.box = box
        self.grad_t = checked_callable(grad_t, "grad_t", "grad_t(x, t)")
        self.jac_t = checked_callable(jac_t, "jac_t", "jac_t(x, t)")
        self.name = checked_name(name)
        self.centre, self.half = 0.5 * (box.lower + box.upper), 0.5 * (box.upper - box.lower)

    def values(self, x, t) -> np.ndarray:
        return np.atleast_1d(np.asarray(self.v(x, t), dtype=float))

    def slopes(self, x, t) -> tuple[np.ndarray, np.ndarray]:
        """(∇_t g, ∂v/∂t) at (x, t): stated, or central differences."""
        step = FD_STEP * (self.box.upper - self.box.lower)
        grad = np.asarray(self.grad_t(x, t), dtype=float) if self.grad_t is not None else \
            central_difference(lambda s: self.g(x, s), t, step)[0]
        jac = np.atleast_2d(np.asarray(self.jac_t(x, t), dtype=float)) \
            if self.jac_t is not None else central_difference(lambda s: self.values(x, s),
                                                              t, step)
        return grad, jac

    def sample(self, x, size: int) -> tuple[np.ndarray, np.ndarray]:
        """The points of a spread sample of the box that lie in T(x), and g there."""
        points = self.box.initial_points(size)
        inside = np.array([np.all(self.values(x, t) <= 0) for t in points])
        points = points[inside]
        return points, np.array([float(self.g(x, t)) for t in points])


class _Reformulation:
    """The relaxed single-level program of the module doc, in z = (x, u_1, μ̃_1, …), u_j the
    lower level's point in its box's frame and μ̃_j its scaled multipliers; rows: the
    inequalities (g_j/s_j, v_j/w_j, −μ̃ v_j/w_j − τ) of every constraint, then the
    stationarity rows h∘(∇_t g_j/s_j − Σ μ̃_ji ∇_t v_ji/w_ji) (``minimize_nlp``'s program)."""

    def __init__(self, program, scales, tau: float):
        self.program, self.tau = program, tau
        self.scales = scales            # per constraint: (s_j, w_j)
        self.n = program.n
        self.sizes = [(c.box.dim, len(w)) for c, (_, w) in zip(program.constraints, scales)]
        self.n_equality = sum(p for p, _ in self.sizes)
        self.objective_scale = program.objective_scale

    def split(self, z):
        x, at, parts = z[:self.n] * self.program.x_scale, self.n, []
        for p, m in self.sizes:
            parts.append((z[at:at + p], z[at + p:at + p + m]))
            at += p + m
        return x, parts

    def objective(self, z):
        return float(self.program.f(z[:self.n] * self.program.x_scale)) / self.objective_scale

    def gradient(self, z):
        gradient = np.zeros(len(z))
        gradient[:self.n] = self.program.gradient(z[:self.n] * self.program.x_scale) \
            * self.program.x_scale / self.objective_scale
        return gradient

    def constraints(self, z):
        x, parts = self.split(z)
        inequalities, equalities = [], []
        for c, (s, w), (u, mu) in zip(self.program.constraints, self.scales, parts):
            t = c.centre + c.half * u
            v = c.values(x, t) / w
            grad, jac = c.slopes(x, t)
            inequalities += [float(c.g(x, t)) / s, *v, *(-mu * v - self.tau)]
            equalities += list(c.half * (grad / s - (mu / w) @ jac))
        return np.array(inequalities + equalities)

    def jacobian(self, z):
        step = FD_STEP * np.maximum(1.0, np.abs(z))
        return central_difference(self.constraints, z, step)


class GeneralizedSemiInfiniteProgram:
    """min f(x) s.t. g_j(x, t) ≤ 0 for every t ∈ T_j(x), written in NumPy, solved through the
    lower levels' optimality conditions (module doc).

    Parameters
    ----------
    f : callable
        ``f(x)``, the objective to minimize (a number).
    constraints : LowerLevelConstraint or a list of them
    n : int
        The number of variables x.
    gradient : callable, optional
        ∇f(x); ``None``: central differences.
    """

    def __init__(self, f: Callable, constraints, n: int, gradient: Callable = None):
        self.f = checked_callable(f, "f", "f(x)", optional=False)
        constraints = [constraints] if isinstance(constraints, LowerLevelConstraint) \
            else list(constraints)
        if not constraints or not all(isinstance(c, LowerLevelConstraint) for c in constraints):
            raise TypeError("constraints must be a LowerLevelConstraint or a non-empty list "
                            "of them")
        if not (isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 1):
            raise ValueError(f"n must be an integer ≥ 1, got {n!r}")
        self.constraints, self.n = constraints, int(n)
        self._gradient = checked_callable(gradient, "gradient", "gradient(x)")
        self.objective_scale, self.x_scale = 1.0, 1.0

    def gradient(self, x) -> np.ndarray:
        if self._gradient is not None:
            return np.asarray(self._gradient(x), dtype=float)
        return central_difference(lambda y: np.array([self.f(y)]), x,
                                  FD_STEP * np.maximum(1.0, np.abs(x)))[0]

    def _start(self, x0) -> tuple[np.ndarray, list]:
        """z₀ and the scales. s_j, w_j: the largest |g_j|, |v_ji| over the points of a sample
        of the box in T_j(x₀) (over the whole sample where none is; 1 where 0). Each lower
        level starts at its maximizer at x₀ (searched from the sample's best points inside
        T_j(x₀), else from the box's centre) with the multipliers μ̃ ≥ 0 that fit its
        stationarity best (non-negative least squares on its active rows): a KKT point of
        every lower level, which the first relaxation then moves with x."""
        parts, scales = [x0], []
        for c in self.constraints:
            points = c.box.initial_points(256)
            g = np.array([float(c.g(x0, t)) for t in points])
            v = np.array([c.values(x0, t) for t in points])
            inside = np.all(v <= 0, axis=1)
            near = inside if inside.any() else np.ones(len(points), dtype=bool)
            s, w = np.max(np.abs(g[near])), np.max(np.abs(v[near]), axis=0)
            s, w = float(s) if s > 0 else 1.0, np.where(w > 0, w, 1.0)
            scales.append((s, w))
            starts = points[inside][np.argsort(-g[inside])[:CHECK_STARTS]] if inside.any() \
                else [c.centre]
            found = [f for f in (_maximize_lower_level(c, x0, t) for t in starts)
                     if f is not None]
            t0 = max(found, key=lambda f: f[1])[0] if found else starts[0]
            grad, jac = c.slopes(x0, t0)
            active = np.abs(c.values(x0, t0) / w) <= 1e-6
            mu = np.zeros(len(w))
            if active.any():
                mu[active] = nnls((jac[active] / w[active, None]).T * c.half[:, None],
                                  grad * c.half / s)[0]
            parts += [(t0 - c.centre) / c.half, mu]
        self.objective_scale = abs(float(self.f(x0))) or 1.0
        self.x_scale = float(np.max(np.abs(x0))) or 1.0
        parts[0] = x0 / self.x_scale
        return np.concatenate(parts), scales

    def solve(self, x0, *, tol: float = 1e-6, time_limit: float = None) -> OptimizeResult:
        """Solve from ``x0`` by Scholtes' relaxations (``TAUS``), then check the lower levels
        at the answer (module doc). Returns an ``OptimizeResult`` with ``x``, ``fun``,
        ``status`` (a :class:`~sipkl.core.run_status.RunStatus`), ``success``, ``message``,
        ``points`` (each lower level's maximizer at x), ``max_violation`` (the largest
        g_j there, relative to s_j), ``nit`` (relaxations solved) and ``attempts``."""
        x0 = np.asarray(x0, dtype=float)
        if x0.shape != (self.n,) or not np.all(np.isfinite(x0)):
            raise ValueError(f"x0 must be {self.n} finite numbers, got {x0!r}")
        if not (np.isfinite(tol) and tol > 0):
            raise ValueError(f"tol must be a finite number > 0, got {tol!r}")
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        z, scales = self._start(x0)
        lower = np.full(len(z), -np.inf)
        offsets = np.cumsum([self.n] + [c.box.dim + len(w) for c, (_, w) in
                                        zip(self.constraints, scales)])
        for c, (_, w), at in zip(self.constraints, scales, offsets):
            lower[at + c.box.dim:at + c.box.dim + len(w)] = 0.0   # μ̃ ≥ 0
        upper = np.full(len(z), np.inf)
        attempts, nit = [], 0
        for tau in TAUS:
            if deadline is not None and time.perf_counter() >= deadline:
                break
            answer, tried = minimize_nlp(_Reformulation(self, scales, tau), z, lower, upper,
                                         tol=1e-10, max_iter=RELAXATION_ITERATIONS,
                                         deadline=deadline)
            attempts += tried
            if answer is None or answer.attempt.status is not Status.OPTIMAL:
                break
            z, nit = answer.x, nit + 1
        x = z[:self.n] * self.x_scale
        points, violation = self._check(x, z, scales)
        feasible = violation <= tol
        if feasible and nit == len(TAUS):
            status = RunStatus.CONVERGED_LOCAL
        elif deadline is not None and time.perf_counter() >= deadline:
            status = RunStatus.TIME_LIMIT
        else:  # the check found a violation, or a relaxation's solve failed
            status = RunStatus.NO_NEW_COLUMN if not feasible else RunStatus.MASTER_FAILED
        message = (f"{nit} of {len(TAUS)} relaxations of the lower levels' optimality "
                   f"conditions solved (τ down to {TAUS[max(nit, 1) - 1]:g}); the lower levels "
                   f"maximized at x: largest g_j {violation:.3g} of its scale (tol {tol:g})")
        message += ("; a local solution (the lower levels' convexity is the user's statement)"
                    if status is RunStatus.CONVERGED_LOCAL else
                    "; the lower levels are violated at x" if not feasible else "")
        return OptimizeResult(x=x, fun=float(self.f(x)), status=status,
                              success=status is RunStatus.CONVERGED_LOCAL, message=message,
                              points=points, max_violation=violation, nit=nit,
                              attempts=attempts)

    def _check(self, x, z, scales) -> tuple[list, float]:
        """Each lower level maximized at x (module doc): its maximizer and the largest
        g_j/s_j over all of them."""
        points, worst = [], -np.inf
        _, parts = _Reformulation(self, scales, 0.0).split(z)
        for c, (s, _), (u, _) in zip(self.constraints, scales, parts):
            sample, g = c.sample(x, CHECK_SAMPLE)
            starts = list(sample[np.argsort(-g)[:CHECK_STARTS]]) + [c.centre + c.half * u]
            best_t, best = None, -np.inf
            for t0 in starts:
                found = _maximize_lower_level(c, x, t0)
                if found is not None and found[1] > best:
                    best_t, best = found
            points.append(best_t)
            worst = max(worst, best / s)
        return points, float(worst)


class _LowerLevel:
    """max g(x, t) s.t. v(x, t) ≤ 0 at a fixed x, as ``minimize_nlp``'s program in u."""

    n_equality = 0

    def __init__(self, constraint: LowerLevelConstraint, x):
        self.c, self.x = constraint, x

    def t(self, u):
        return self.c.centre + self.c.half * u

    def objective(self, u):
        return -float(self.c.g(self.x, self.t(u)))

    def gradient(self, u):
        return -self.c.slopes(self.x, self.t(u))[0] * self.c.half

    def constraints(self, u):
        return self.c.values(self.x, self.t(u))

    def jacobian(self, u):
        return self.c.slopes(self.x, self.t(u))[1] * self.c.half


def _maximize_lower_level(c: LowerLevelConstraint, x, t0) -> tuple | None:
    """(t, g(x, t)) at a local maximizer of the lower level from ``t0`` (inside T(x)), or
    ``None`` where the search ends outside it."""
    u0 = (np.asarray(t0, dtype=float) - c.centre) / c.half
    answer, _ = minimize_nlp(_LowerLevel(c, x), u0, np.full(len(u0), -np.inf),
                             np.full(len(u0), np.inf), tol=1e-12)
    if answer is None:
        return None
    t = c.centre + c.half * answer.x
    if np.any(c.values(x, t) > 1e-9 * np.maximum(1.0, np.abs(c.values(x, t0)))):
        return None
    return t, float(c.g(x, t))

