"""The column space of a semi-infinite program: a column is an index point t of one
semi-infinite constraint, the master reads the points, and the pricing problem of constraint
j at the master's solution x_k is its violation relative to its natural scale,

    t ↦ g_j(x_k, t) / s_j   over T_j,

maximized by the oracles (a violation: a positive value). The scale s_j is stated by the
master (:class:`~sipkl.sip.masters.discretized.DiscretizedMaster`): the largest sum of the magnitudes of
g_j's terms at its index points, so that the engine's cut ``tol·1 + atol`` is relative to the
size of the numbers that g_j compares.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...core.contracts import Column, PricingProblemBase
from ..constraints.semi_infinite import IndexConstraint


@dataclass
class ConstraintPrice:
    """What pricing constraint j needs of a master solution: the numeric x_k at which g_j is
    priced (the master's solution: for a cvxpy constraint, the values of its ``x`` in the same
    structure; for a NumPy one, the array x) and its scale s_j. Pricing reads x_k here, never
    from the constraint."""

    x: object
    scale: float


class IndexPointPricing(PricingProblemBase):
    """``t ↦ g(x_k, t) / s`` over the index set of one constraint: the
    :class:`~sipkl.core.contracts.PricingProblem` of a semi-infinite program.

    ``lipschitz`` is the Lipschitz constant (Euclidean norm in t) of this scaled function,
    ``L / s``, when the user stated the constant L of t ↦ g(x_k, t) (``None`` otherwise).
    Evaluations are counted in ``n_evals``; ``dtype`` is accepted and ignored (always double
    precision). ``value_scale`` = 1 is the magnitude of the numbers that the scaled g
    compares (its terms sum to at most about s in magnitude), for the local solvers' scaling:
    its value, a violation, is near 0 where it matters.
    """

    regularizer = None
    value_scale = 1.0

    def __init__(self, constraint: IndexConstraint, price: ConstraintPrice,
                 lipschitz: Optional[float] = None):
        self.constraint, self.x, self.scale = constraint, price.x, price.scale
        self.family = constraint.T
        self.lower, self.upper = self.family.param_bounds()
        self.lipschitz = None if lipschitz is None else lipschitz / price.scale
        self.n_evals = 0

    def values(self, points) -> np.ndarray:
        points = np.asarray(points, dtype=float).reshape(-1, len(self.lower))
        self.n_evals += len(points)
        return self.constraint.values(self.x, points) / self.scale

    def upper_bounds(self, lower, upper) -> np.ndarray:
        """Proven upper bounds of the scaled g on the boxes ``[lower_k, upper_k]`` (rows):
        interval arithmetic on g
        (:meth:`~sipkl.sip.constraints.semi_infinite.IndexConstraint.upper_bounds`), divided
        by s and rounded up."""
        bounds = self.constraint.upper_bounds(self.x, lower, upper)
        self.n_evals += 2 * len(lower)
        return np.nextafter(bounds / self.scale, np.inf)

    def values_and_grads(self, points, grad: bool = True, dtype=np.float64):
        points = np.asarray(points, dtype=float).reshape(-1, len(self.lower))
        self.n_evals += len(points)
        raw = self.constraint.values(self.x, points)
        if not grad:
            return raw / self.scale, None
        if self.constraint.grad_t is None:
            self.n_evals += 2 * points.size
        grads = self.constraint.gradients(self.x, points, raw)
        return raw / self.scale, grads / self.scale

    def hessian_batch(self, dtype=np.float64):
        """``H(points, coords) -> (m, q, q)``, the Hessians of the scaled g on the coordinates
        ``coords`` (by differences of the stated t-gradient, see
        :meth:`~sipkl.sip.constraints.semi_infinite.IndexConstraint.hessians`; ``dtype`` ignored), or
        ``None`` when the constraint states no t-gradient: the IPOPT oracle then refines by
        projected Newton steps instead of projected gradient ones."""
        if self.constraint.grad_t is None:
            return None
        return self._hessians

    def _hessians(self, points, coords) -> np.ndarray:
        points = np.asarray(points, dtype=float).reshape(-1, len(self.lower))
        self.n_evals += 2 * len(points) * len(coords)
        return self.constraint.hessians(self.x, points, np.asarray(coords)) / self.scale

    def value_and_grad(self, point) -> tuple[float, np.ndarray]:
        values, grads = self.values_and_grads(np.asarray(point, float)[None, :])
        return float(values[0]), grads[0]

    def column(self, point) -> Column:
        return Column.make(self.family, point)


class IndexPointSpace:
    """The :class:`~sipkl.core.contracts.ColumnSpace` of a semi-infinite program: one family per
    semi-infinite constraint (its index set), the master reads the columns themselves, and
    the master's ``price`` is one :class:`ConstraintPrice` per constraint. Nothing is cached
    per column (``forget`` has nothing to drop).

    ``lipschitz`` holds, per constraint, ``None``, a number L, or a callable ``L(x)`` of the
    numeric x_k at which the constraint is priced (its price's ``x``): a Lipschitz constant
    of t ↦ g(x, t) in the Euclidean norm, which the user states and
    :class:`~sipkl.sip.LipschitzOracle` turns into a proven bound.
    """

    X = None

    def __init__(self, constraints: list[IndexConstraint], lipschitz=None):
        self.constraints = list(constraints)
        self.families = [c.T for c in self.constraints]
        self.lipschitz = [None] * len(self.constraints) if lipschitz is None else list(lipschitz)

    def master_inputs(self, columns) -> list[Column]:
        return list(columns)

    def pricing_problems(self, price: list[ConstraintPrice],
                         regularizer=None) -> list[IndexPointPricing]:
        if regularizer is not None:
            raise ValueError("regularizer: a semi-infinite program has no pricing regularizer")
        return [IndexPointPricing(c, p, _constant(L, c, p.x))
                for c, p, L in zip(self.constraints, price, self.lipschitz)]

    def forget(self, columns) -> None:
        pass

    def column_to_json(self, column: Column) -> dict:
        """An index point as checkpoints write it: its constraint's name and t."""
        j = next(j for j, T in enumerate(self.families) if T is column.family)
        return {"constraint": self.constraints[j].name, "t": list(map(float, column.theta))}

    def column_from_json(self, data: dict) -> Column:
        """Inverse of :meth:`column_to_json` (the constraint found by its name); a
        ``ValueError`` for a t that is not a finite point of its index set's dimension."""
        for constraint in self.constraints:
            if constraint.name == data["constraint"]:
                t = np.asarray(data["t"], dtype=float)
                if t.shape != (constraint.T.dim,) or not np.all(np.isfinite(t)):
                    raise ValueError(f"an index point of {constraint.name!r} must be "
                                     f"{constraint.T.dim} finite numbers, got {data['t']!r}")
                return Column.make(constraint.T, t)
        raise ValueError(f"the checkpoint's constraint {data['constraint']!r} is not one of "
                         f"{[c.name for c in self.constraints]}")


def _constant(lipschitz, constraint: IndexConstraint, x) -> Optional[float]:
    """The stated Lipschitz constant at ``x`` (a number, or ``lipschitz(x)``), checked."""
    if lipschitz is None:
        return None
    value = lipschitz(x) if callable(lipschitz) else lipschitz
    value = float(np.asarray(value, dtype=float))
    if not (np.isfinite(value) and value >= 0):
        raise ValueError(f"lipschitz: the constant of constraint {constraint.name!r} must be a "
                         f"finite number ≥ 0, got {value}")
    return value
