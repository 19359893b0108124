"""Worst-case objectives: ``cp.Minimize(max_over(f, x, T))``, min_x max_{t ∈ T} f(x, t).

:func:`max_over` returns the epigraph variable τ of f over T, a :class:`WorstCase` (a cvxpy
``Variable``) that carries the semi-infinite constraint

    f(x, t) − τ ≤ 0   for every t ∈ T;

:class:`~sipkl.sip.SemiInfiniteProgram` finds the worst cases in its objective and imposes
their constraints beside its own. The epigraph is exact,

    min_x φ(x, max_t f(x, t)) = min_{x, τ} φ(x, τ)  s.t.  τ ≥ f(x, t) for every t ∈ T,

where the objective φ improves as τ falls: nondecreasing in τ for ``Minimize``,
nonincreasing for ``Maximize``. :func:`worst_case_constraints` checks this by the DCP rules
(Grant, Boyd & Ye 2006): with τ replaced by a convex expression of unknown sign (s² + r, s
and r new variables) the objective stays DCP only where every atom on τ's path is
monotone the right way for its argument — so ``Minimize(max_over(…) + ‖x‖)`` and
``Minimize(cp.maximum(max_over(…), 0))`` pass, ``Minimize(-max_over(…))`` and
``Minimize(cp.abs(max_over(…)))`` are refused, as is τ in a finite constraint (which would
bound the worst case, not the objective).
"""
from __future__ import annotations

from typing import Callable

import cvxpy as cp

from ..sets.base import IndexSet
from .semi_infinite import SemiInfiniteConstraint


class WorstCase(cp.Variable):
    """The epigraph variable τ ≥ max_{t ∈ T} f(x, t) of :func:`max_over`; ``constraint``
    is its semi-infinite constraint f(x, t) − τ ≤ 0."""

    def __init__(self, f: Callable, x, T: IndexSet, grad_t: Callable = None,
                 vectorized: bool | None = None, name: str = None):
        super().__init__(name=name or "max_over")
        if not callable(f):
            raise TypeError(f"max_over: f must be a callable f(x, t), got {f!r}")
        # g = f − τ: its t-gradient is f's (τ does not depend on t)
        self.constraint = SemiInfiniteConstraint(lambda x_, t: f(x_, t) - self, x, T,
                                                 grad_t=grad_t, vectorized=vectorized,
                                                 name=name)


def max_over(f: Callable, x, T: IndexSet, grad_t: Callable = None,
             vectorized: bool | None = None, name: str = None) -> WorstCase:
    """max_{t ∈ T} f(x, t) as a cvxpy expression for an objective: the epigraph variable τ
    (a :class:`WorstCase`) of f over the index set T, f convex in x for each t. ``f``, ``x``,
    ``T``, ``grad_t``, ``vectorized`` and ``name`` as ``g`` and the rest of
    :class:`~sipkl.sip.SemiInfiniteConstraint` take them (f(x, t) a scalar, or one value per
    row of t with ``vectorized=True``). Use it in the objective of a
    :class:`~sipkl.sip.SemiInfiniteProgram` where the objective improves as it falls (see
    the module doc); its answer is ``τ.value``, the worst case at the solution."""
    return WorstCase(f, x, T, grad_t, vectorized, name)


def _replaced(expression: cp.Expression, old: cp.Variable, new: cp.Expression):
    """``expression`` with the variable ``old`` replaced by ``new`` (a copy of its tree)."""
    if expression is old:
        return new
    if not expression.args:
        return expression
    return expression.copy([_replaced(arg, old, new) for arg in expression.args])


def worst_case_constraints(objective, constraints=()) -> list[SemiInfiniteConstraint]:
    """The semi-infinite constraints of the :class:`WorstCase` variables of ``objective``
    (a ``cp.Minimize`` or ``cp.Maximize``), in the order cvxpy lists its variables; a
    ``ValueError`` where the objective does not improve as one of them falls (the module
    doc's DCP test) or a finite constraint of ``constraints`` holds one."""
    found = [v for v in objective.variables() if isinstance(v, WorstCase)]
    for tau in found:
        convex = cp.square(cp.Variable()) + cp.Variable()  # convex, of unknown sign
        probe = type(objective)(_replaced(objective.args[0], tau, convex))
        if not probe.is_dcp():
            monotone = ("non-decreasing" if isinstance(objective, cp.Minimize)
                        else "non-increasing")
            raise ValueError(f"objective: {objective} is not {monotone} in {tau.name()} = "
                             "max_over(…) by the DCP rules, so its epigraph is not the "
                             "worst case")
        if any(v is tau for c in constraints for v in c.variables()):
            raise ValueError(f"constraints: a finite constraint holds {tau.name()} = "
                             "max_over(…), which only the objective may hold")
    return [tau.constraint for tau in found]
