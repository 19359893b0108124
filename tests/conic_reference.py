"""Reference solves that prove themselves: :func:`certified_solve`.

A reference value in a test must not rest on one solver's word (its status on one release).
:func:`certified_solve` tries the installed conic solvers in turn, each with explicit tight
tolerances (:data:`SOLVER_OPTIONS`), and keeps the first answer whose KKT certificate,
computed here from the returned primal and dual values, holds to ``rtol``. For the problem

    minimize f(x)  s.t.  c_i(x) ≤ 0 (``lhs <= rhs``: c = lhs − rhs),  h_j(x) = 0,

with cvxpy's multipliers λ_i ≥ 0, ν_j (a ``Maximize(f)`` problem is ``minimize −f``; a variable
declared ``nonneg=True`` has no returned multiplier, and gets the best one, μ = max(r, 0) of
the stationarity residual r in its entries), the
residuals are, each relative to the magnitude of its own terms (so that the same answer
passes in any units):

* primal: max(c_i, 0) and |h_j|, over the block's magnitude |c(x)| + |J_c|ᵀ|x|;
* dual: max(−λ_i, 0), over the largest multiplier;
* stationarity: ∇f + Σ J_iᵀλ_i + Σ J_jᵀν_j, over the largest of its terms (the gradients of
  the summands of f, which do not cancel as ∇f may, and the J_iᵀλ_i);
* gap: the Lagrangian gap f − L(x, λ, ν) = −(Σ λ_iᵀc_i + Σ ν_jᵀh_j), over the magnitude of f
  (|f_k(x)| + |∇f_k|ᵀ|x| summed over its summands f_k) and of the products λ_i·|c_i|.

For a convex problem, zero residuals are the KKT conditions, hence optimality of x and of the
multipliers; small ones bound how far the value is from the optimum. The gradients are cvxpy's
(``Expression.grad``), so every atom must be differentiable at the answer: write an ℓ1 ball over
nonnegative variables as a sum.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import cvxpy as cp
import numpy as np

#: the conic solvers tried, in order, and their tolerances (tighter than each default)
SOLVER_OPTIONS = {
    "CLARABEL": dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10, max_iter=400),
    "ECOS": dict(abstol=1e-10, reltol=1e-10, feastol=1e-10, max_iters=400),
    "SCS": dict(eps_abs=1e-10, eps_rel=1e-10, max_iters=200_000),
}

#: the residual every certificate must reach, relative to the problem's own scale. Not smaller:
#: the smooth residuals of a conic interior-point answer are about √μ at a complementarity μ
#: (the directions of a second-order cone pair are only that aligned), 1e-6 to 1e-4 for the
#: references of these tests at μ ≈ 1e-10, where SCS's projections reach 1e-9
RTOL = 1e-6

_TINY = np.finfo(float).tiny


@dataclass
class Certificate:
    """The residuals of one answer (relative, see the module doc) and who gave it."""

    solver: str
    status: str
    primal: float
    dual: float
    stationarity: float
    gap: float

    @property
    def worst(self) -> float:
        return max(self.primal, self.dual, self.stationarity, self.gap)


def certified_solve(problem: cp.Problem, rtol: float = RTOL) -> Certificate:
    """Solve ``problem`` and prove the answer; fail the test if no installed solver's can be.

    The problem keeps the first certified answer (its variables' and constraints' values).
    """
    installed, tried = set(cp.installed_solvers()), []
    for name, options in SOLVER_OPTIONS.items():
        if name not in installed:
            tried.append(f"{name}: not installed")
            continue
        try:
            with warnings.catch_warnings():  # "may be inaccurate": the certificate decides
                warnings.simplefilter("ignore", UserWarning)
                problem.solve(solver=name, warm_start=False, **options)
        except cp.error.SolverError as exc:
            tried.append(f"{name}: {exc}")
            continue
        if any(v.value is None for v in problem.variables()):
            tried.append(f"{name}: {problem.status}, no solution")
            continue
        certificate = kkt_certificate(problem, name)
        if certificate.worst <= rtol:
            return certificate
        tried.append(f"{name}: {certificate}")
    raise AssertionError("no solver's answer is certified to "
                         f"{rtol:g}:\n  " + "\n  ".join(tried))


def kkt_certificate(problem: cp.Problem, solver: str = "") -> Certificate:
    """The relative KKT residuals of the values now held by ``problem`` (module doc)."""
    variables = problem.variables()
    if any(v.attributes.get(a) for v in variables for a in ("nonpos", "pos", "neg")):
        raise ValueError("write sign attributes of variables other than nonneg as constraints")
    x = {v.id: _flat(v.value) for v in variables}
    sign = 1.0 if isinstance(problem.objective, cp.Minimize) else -1.0
    f = problem.objective.expr
    grad_f = _jacobian(f, variables, sign)
    stationarity = [{v: J[:, 0] for v, J in grad_f.items()}]
    primal, gap, dual, gap_scale, largest_term = 0.0, 0.0, 0.0, 0.0, 0.0
    for term in _terms(f):  # ∇f may vanish at the answer, the gradients of its terms do not
        grad = _jacobian(term, variables, 1.0)
        gap_scale += _magnitude(term, grad, x).max()
        largest_term = max([largest_term] + [np.abs(J).max() for J in grad.values()])
    if any(c.dual_value is None for c in problem.constraints):
        return Certificate(solver, str(problem.status), *[np.inf] * 4)
    largest_multiplier = max([np.abs(_flat(c.dual_value)).max() for c in problem.constraints]
                             + [_TINY])
    for constraint in problem.constraints:
        if not isinstance(constraint, (cp.constraints.Inequality, cp.constraints.Equality)):
            raise TypeError(f"no certificate for {type(constraint).__name__} constraints")
        expr, multiplier = constraint.expr, _flat(constraint.dual_value)
        jacobian = _jacobian(expr, variables, 1.0)
        value = _flat(expr.value)
        magnitude = _magnitude(expr, jacobian, x).max() + _TINY
        if isinstance(constraint, cp.constraints.Inequality):
            primal = max(primal, np.maximum(value, 0.0).max() / magnitude)
            dual = max(dual, np.maximum(-multiplier, 0.0).max() / largest_multiplier)
        else:
            primal = max(primal, np.abs(value).max() / magnitude)
        stationarity.append({v: J @ multiplier for v, J in jacobian.items()})
        gap += float(multiplier @ value)
        gap_scale += float(np.abs(multiplier) @ np.abs(value))
    residual = {v.id: sum((term[v.id] for term in stationarity if v.id in term),
                          np.zeros(v.size)) for v in variables}
    for v in variables:
        if v.attributes.get("nonneg"):  # x ≥ 0 has no returned multiplier: the best one, μ = r⁺
            mu = np.maximum(residual[v.id], 0.0)
            residual[v.id] = residual[v.id] - mu
            stationarity.append({v.id: -mu})
            gap -= float(mu @ x[v.id])
            gap_scale += float(mu @ np.abs(x[v.id]))
            primal = max(primal, np.maximum(-x[v.id], 0.0).max()
                         / (np.abs(x[v.id]).max() + _TINY))
    residual = np.concatenate(list(residual.values()))
    largest_term = max([largest_term] + [np.abs(g).max() for term in stationarity[1:]
                                         for g in term.values()])
    return Certificate(solver, str(problem.status), float(primal), float(dual),
                       float(np.abs(residual).max() / (largest_term + _TINY)),
                       abs(gap) / (gap_scale + _TINY))


def _flat(value) -> np.ndarray:
    return np.ravel(np.asarray(value, dtype=float), order="F")


def _jacobian(expr, variables, sign: float) -> dict:
    """{variable id: ∂expr/∂variable as an array (variable size × expression size)}, times
    sign (keyed by id: a cvxpy variable's ``==`` is a constraint)."""
    grads = expr.grad
    jacobian = {}
    for v in variables:
        g = grads.get(v)
        if g is None:
            if any(v.id == u.id for u in expr.variables()):
                raise AssertionError(f"{expr} is not differentiable at the answer in {v}")
            continue
        g = g.toarray() if hasattr(g, "toarray") else np.asarray(g, dtype=float)
        jacobian[v.id] = sign * g.reshape(v.size, -1)
    return jacobian


def _terms(expr) -> list:
    """The summands of ``expr`` (a sum, a difference or a negation, flattened)."""
    if isinstance(expr, cp.atoms.affine.add_expr.AddExpression):
        return [t for arg in expr.args for t in _terms(arg)]
    if isinstance(expr, cp.atoms.affine.unary_operators.NegExpression):
        return _terms(expr.args[0])
    return [expr]


def _magnitude(expr, jacobian: dict, x: dict) -> np.ndarray:
    """|expr(x)| + |J|ᵀ|x| per entry: the size of the terms that the value sums."""
    total = np.abs(_flat(expr.value))
    for v, J in jacobian.items():
        total = total + np.abs(J).T @ np.abs(x[v])
    return np.atleast_1d(total)
