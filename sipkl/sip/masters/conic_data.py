"""The master of a program whose every constraint is affine or imposed exactly, as numbers.

Where every semi-infinite constraint is imposed by a counterpart with numeric coefficients
(:class:`~sipkl.sip.robust.AffineRows`: w_k·(C_k x + o_k) + hᵀy_k ≤ 0, Gᵀy_k =
w_k·(D_k x + d_k), Hᵀy_k = 0, y_k ∈ K) and the objective and the finite constraints are
affine in variables with no attribute but ``nonneg``/``nonpos``, the master is the conic
program

    min  (±1/σ_f)(cᵀx + c₀)   s.t.   E x + e = 0,   A x + a ≤ 0,   the counterparts' rows,

whose data are numbers already: c, E, A (and their constants) are read from the cvxpy
expressions by evaluating them at x = 0 and at each unit vector (exact for affine
expressions), the counterparts' from their rows. :func:`~sipkl.solvers.conic.solve_conic_data`
solves it without cvxpy's compilation (most of a small master's time): HiGHS where it is an
LP, Clarabel where a ball or an ellipsoid makes it a second-order cone program. The answer
goes where cvxpy would put it: the variables' values and the dual values of the finite
constraints and of each counterpart's inequality. A master solved so is the same problem
as cvxpy's; the tests compare the two.
"""
from __future__ import annotations

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from cvxpy.constraints import Equality, Inequality

from ...solvers.conic import solve_conic_data

#: the variable attributes the numbers keep (x ≥ 0: 1, x ≤ 0: −1, bounds of the solver);
#: any other sends the master to cvxpy
_SIGNS = {"nonneg": 1.0, "nonpos": -1.0}


class ConicDataMaster:
    """The master of the module docstring over ``variables`` (their entries stacked, each in
    column-major order). Made by :meth:`of`; :meth:`solve` reads the counterparts' weights
    (numbers or cvxpy Parameters) and the objective's scale at each call."""

    def __init__(self, variables, sense, c, c0, finite, signs, counterparts):
        self.variables, self.sense, self.c, self.c0 = variables, sense, c, c0
        self.finite, self.signs, self.counterparts = finite, signs, counterparts
        offsets = np.cumsum([0] + [v.size for v in variables])
        self.n = int(offsets[-1])
        #: each variable's columns among all (by id)
        self._where = {v.id: np.arange(a, b) for v, a, b in zip(variables, offsets[:-1],
                                                                offsets[1:])}

    @classmethod
    def of(cls, objective, constraints, counterparts, variables) -> "ConicDataMaster | None":
        """The master as numbers, or ``None`` where it is not of the module docstring's kind
        (a counterpart without numbers, a finite constraint that is not an affine equality
        or inequality, a variable with another attribute, a parameter without a value, a
        coefficient that is not finite)."""
        if any(c.rows is None for c in counterparts) or not all(
                isinstance(c, (Equality, Inequality)) for c in constraints):
            return None
        exprs = [objective.expr] + [c.expr for c in constraints]
        if not all(e.is_affine() for e in exprs) or any(
                q.value is None for e in exprs for q in e.parameters()):
            return None
        signs = []
        for v in variables:
            kept = [name for name in _SIGNS if v.attributes[name]]
            if any(value for name, value in v.attributes.items()
                   if name not in _SIGNS and value not in (None, False)):
                return None
            signs.append(_SIGNS[kept[0]] if kept else 0.0)
        numbers = _affine_numbers(exprs, variables, signs)
        if numbers is None:
            return None
        (c, c0), rest = numbers[0], numbers[1:]
        finite = [(con, A, a) for con, (A, a) in zip(constraints, rest)]
        return cls(variables, 1.0 if isinstance(objective, cp.Minimize) else -1.0, c.ravel(),
                   float(c0[0]), finite, np.repeat(signs, [v.size for v in variables]),
                   counterparts)

    def solve(self, inverse_objective_scale: float, tight: bool, rough: bool = False):
        """Solve at the counterparts' current weights, the objective divided by σ_f
        (``inverse_objective_scale`` = 1/σ_f): the status, the attempts and the objective's
        value in those units (``None`` unless optimal). Where optimal, the variables hold x
        and the constraints their duals, as after cvxpy's solve. ``rough``: for the scales
        of the next solve alone (its x; an inaccurate answer will do) — by Clarabel at its
        default tolerances even for an LP (HiGHS through SciPy costs more to call than to
        solve a small LP), each counterpart's row and the objective divided by their
        largest coefficient instead of the current scales: the same problem, to round-off,
        with g or f in any units."""
        blocks = {"zero": [], "nonneg": [], "soc": []}
        for con, A, a in self.finite:
            blocks["zero" if isinstance(con, Equality) else "nonneg"].append(
                (con, _entries(A), -a))
        columns, cones, signs = self.n, [], [self.signs]
        for counterpart in self.counterparts:
            cones += self._counterpart_rows(counterpart, columns, blocks, rough)
            form, K = counterpart.rows.form, len(counterpart.rows.C)
            signs.append(np.tile(np.arange(form.rows) < form.nonneg, K).astype(float))
            columns += K * form.rows
        rows, cols, vals, rhs, owners = [], [], [], [], []
        for cone in ("zero", "nonneg", "soc"):
            for owner, (i, j, v), b in blocks[cone]:
                first = sum(map(len, rhs))
                owners.append((owner, first, len(b)))
                rows.append(first + i)
                cols.append(j)
                vals.append(v)
                rhs.append(np.asarray(b, dtype=float))
        b = np.concatenate(rhs)
        A = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          (len(b), columns))
        objective = np.zeros(columns)
        objective[:self.n] = self.sense * self.c * (
            1.0 / _largest(self.c) if rough else inverse_objective_scale)
        solution = solve_conic_data(
            objective, A, b, sum(len(r) for _, _, r in blocks["zero"]),
            sum(len(r) for _, _, r in blocks["nonneg"]), cones, signs=np.concatenate(signs),
            tight=tight and not rough, simplex=not rough)
        if solution.v is None:
            return solution.status, solution.attempts, None
        self._save(solution, owners)
        value = inverse_objective_scale * (float(self.c @ solution.v[:self.n]) + self.c0)
        return solution.status, solution.attempts, value

    def _counterpart_rows(self, counterpart, start: int, blocks: dict, rough: bool) -> list:
        """The counterpart's rows as (row, column, value) entries, appended to ``blocks`` by
        cone, its dual variables y_k in the columns from ``start`` on (k-major), weighted by
        its weights (``rough``: by 1 / its largest coefficient, :meth:`solve`); returns its
        second-order cones' sizes."""
        data, form = counterpart.rows, counterpart.rows.form
        K, p, r = len(data.C), form.G.shape[1], form.rows
        if rough:
            w = 1.0 / np.array([_largest(np.r_[data.C[k], data.o[k], data.D[k * p:(k + 1) * p]
                                               .ravel(), data.d[k * p:(k + 1) * p]])
                                for k in range(K)])
        else:
            w = np.array([float(x.value) if isinstance(x, cp.Parameter) else float(x)
                          for x in data.weights])
        cols = np.concatenate([self._where[v.id] for v in data.variables])

        def y(block):  # ``block`` (a × r) applied to each y_k
            i, j, v = _entries(block)
            k = np.repeat(np.arange(K), len(v))
            return (np.tile(i, K) + k * len(block), start + np.tile(j, K) + k * r,
                    np.tile(v, K))

        def x(M):  # M's columns (the counterpart's variables) among all
            i, j, v = _entries(M)
            return i, cols[j], v

        wp = np.repeat(w, p)
        blocks["zero"].append((None, _joined(x(-wp[:, None] * data.D), y(form.G.T)),
                               wp * data.d))
        if form.H.shape[1]:
            blocks["zero"].append((None, y(form.H.T), np.zeros(K * form.H.shape[1])))
        blocks["nonneg"].append((counterpart,
                                 _joined(x(w[:, None] * data.C), y(form.h[None])), -w * data.o))
        if form.cones:
            i, j, v = y(np.eye(r)[form.nonneg:])
            blocks["soc"].append((None, (i, j, -v), np.zeros(K * (r - form.nonneg))))
        return list(form.cones) * K

    def _save(self, solution, order) -> None:
        """x into the variables, the duals into the constraints that own rows."""
        start = 0
        for v in self.variables:
            v.save_value(solution.v[start:start + v.size].reshape(v.shape, order="F")
                         if v.ndim else solution.v[start])
            start += v.size
        for owner, first, count in order:
            dual = solution.z[first:first + count]
            if isinstance(owner, cp.Constraint):
                owner.save_dual_value(dual.reshape(owner.shape, order="F") if owner.shape
                                      else dual[0])
            elif owner is not None:  # a counterpart
                owner.save_dual(dual)


def _largest(numbers) -> float:
    """The largest |number|, or 1 where all are 0."""
    largest = float(np.max(np.abs(numbers), initial=0.0))
    return largest if largest > 0 else 1.0


def _entries(M) -> tuple:
    """The (row, column, value) triplets of ``M``'s nonzero entries."""
    M = np.asarray(M, dtype=float)
    i, j = np.nonzero(M)
    return i, j, M[i, j]


def _joined(*parts) -> tuple:
    """Triplets of several blocks of the same rows, concatenated."""
    return tuple(np.concatenate(column) for column in zip(*parts))


def _affine_numbers(exprs, variables, signs):
    """For each affine expression, ``(A, a)`` with vec(expr) = A x + a (x the variables'
    entries stacked), from its values at x = 0 and at each (signed) unit vector of the
    variables it has; ``None`` where a number is not finite. The variables' values are
    restored."""
    saved = [v.value for v in variables]
    offsets = np.cumsum([0] + [v.size for v in variables])
    has = [{v.id for v in e.variables()} for e in exprs]

    def values(which):
        return [np.ravel(np.asarray(exprs[i].value, dtype=float), order="F") for i in which]

    try:  # (points inside the variables' signs: no check of their values)
        for v in variables:
            v.save_value(np.zeros(v.shape) if v.ndim else 0.0)
        base = values(range(len(exprs)))
        A = [np.zeros((len(b), offsets[-1])) for b in base]
        for v, start, sign in zip(variables, offsets, signs):
            which = [i for i in range(len(exprs)) if v.id in has[i]]
            direction = -1.0 if sign < 0 else 1.0
            for k in range(v.size if which else 0):
                unit = np.zeros(v.size)
                unit[k] = direction
                v.save_value(unit.reshape(v.shape, order="F") if v.ndim else unit[0])
                for i, column in zip(which, values(which)):
                    A[i][:, start + k] = (column - base[i]) * direction
            v.save_value(np.zeros(v.shape) if v.ndim else 0.0)
    finally:
        for v, value in zip(variables, saved):
            v.save_value(value)
    if not all(np.all(np.isfinite(a)) and np.all(np.isfinite(b)) for a, b in zip(A, base)):
        return None
    return list(zip(A, base))
