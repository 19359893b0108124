"""The natural scales of a semi-infinite program's numbers, as both restricted masters take
them (:class:`~sipkl.sip.masters.discretized.DiscretizedMaster`, cvxpy, and
:class:`~sipkl.sip.NonlinearMaster`, NumPy): each constraint's scale s_j and the objective's
σ_f are sums of the magnitudes of their terms at the master's solution, so that the engine's
cut ``tol·1 + atol`` and the solvers' tolerances mean the same in any units.

Three rules are shared: a magnitude of 0 (or not finite) is no scale, and 1 serves
(:func:`positive_scale`); σ_f is kept where the objective's magnitude collapses, an optimal
value of 0 reached up to round-off (:func:`next_objective_scale`); and a constraint is taken
in the objective's units where those are smaller (:func:`objective_units`: the local
reductions, the nonlinear master).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

#: an objective magnitude below this fraction of the current objective scale has collapsed (an
#: optimal value of 0, reached up to round-off, e.g. |z| = 1e-16): the scale is kept, since
#: dividing by it would make the next master's objective meaningless
SCALE_COLLAPSE = 1e-6


def positive_scale(scale: float) -> float:
    """``scale``, or 1 where it is 0 or not finite (no magnitude to be relative to)."""
    return scale if np.isfinite(scale) and scale > 0 else 1.0


def next_objective_scale(current: Optional[float], magnitude: float) -> float:
    """σ_f of the next solve: ``magnitude`` (the objective's at this solution), unless it has
    collapsed below ``SCALE_COLLAPSE`` times the ``current`` σ_f (then ``current``, kept);
    ``magnitude`` where there is no current σ_f (``None``: a run's first)."""
    if current is None or magnitude >= SCALE_COLLAPSE * current:
        return magnitude
    return current


def implied_objective_scale(gradient: np.ndarray, jacobian: np.ndarray) -> Optional[float]:
    """The objective's magnitude that the constraints imply where f's own has none yet (a
    start at which f ≈ 0): max over the variables x_k on which some row depends of

        |∂f/∂x_k| / max_r |∂c_r/∂x_k|,

    the change of f when x_k moves by as much as moves a row (scaled to order one) by its
    own magnitude; ``None`` where no row depends on any variable. Units of x cancel in each
    ratio; multiplying f multiplies it."""
    reach = np.abs(jacobian).max(axis=0, initial=0.0)
    depends = reach > 0
    if not depends.any():
        return None
    return float(np.max(np.abs(gradient[depends]) / reach[depends]))


def objective_units(scales, totals, objective_scale) -> np.ndarray:
    """u_j = min(s_j, σ_f/M_j), M_j > 0 the total multiplier of constraint j (else s_j): a
    violation v of g_j moves f by about M_j·v, so a violation below tol·u_j is one below
    tol·s_j that also moves f by less than tol·σ_f."""
    return np.array([min(s, objective_scale / m) if m > 0 else s
                     for s, m in zip(scales, totals)])
