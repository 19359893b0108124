"""When the exchange method may drop inactive index points without cycling.

The restricted master of ``min f(x) s.t. g(x, t) ≤ 0 ∀ t ∈ T`` over the index points T_k is a
relaxation of the semi-infinite program, so its optimal value v_k (minimized) is at most the
program's v*. Keeping every point (Kelley's cutting planes) makes v_k non-decreasing and
converges; dropping the points whose multiplier is zero keeps v_k optimal over the kept
points, but the next master may lose a point the solution needs again, and the run can cycle:
drop a point, add it back, drop it (e.g. from one index point per side of |e^t − x₀ − x₁t| ≤ z,
or Powell's disc, where one point carries the whole multiplier).

Exchange methods with a convergence proof drop points only when the master's value has
strictly increased since the last drop (Eaves & Zangwill 1971, "Generalized cutting plane
algorithms", SIAM J. Control 9:529–542; Hettich & Kortanek 1993, "Semi-infinite
programming: theory, methods, and applications", SIAM Review 35:380–429, §7, exchange
methods): each drop then follows an increase of more than δ, and the values are bounded by
v*, so there are finitely many drops, after which the run is Kelley's method.
"""
from __future__ import annotations

import numbers

import numpy as np

from ...core.contracts import MasterSolution

#: a drop needs the master's value to have increased by more than this fraction of the
#: objective's scale since the last drop (the δ of the convergence argument, scale-free)
DROP_RTOL = 1e-6


class DropAfterIncrease:
    """The engine's drop rule of the exchange method: ``rule(solution) -> bool`` after each
    master solve, ``True`` when the points whose multiplier is zero may be dropped now.

    It answers ``True`` at the first solve, then when the master's value has increased by
    more than ``rtol·σ_f`` since the last ``True``:

        sense · (v_k − v_last) > rtol · σ_f,

    with ``sense`` = 1 for a minimization (−1 for a maximization, whose value decreases as
    points are added) and σ_f the objective's scale that the master states
    (``solution.model.objective_scale``, Σ |terms| of f at its solution, see
    :class:`~sipkl.sip.masters.discretized.DiscretizedMaster`): the same rule when f is multiplied by
    any constant. Otherwise every point is kept for this round (Kelley's cutting planes).

    One rule object serves one run (it remembers the value of its last drop, which a
    checkpoint keeps).
    """

    def __init__(self, sense: int = 1, rtol: float = DROP_RTOL):
        if sense not in (1, -1):
            raise ValueError(f"sense must be 1 (minimize) or -1 (maximize), got {sense!r}")
        if not (isinstance(rtol, numbers.Real) and np.isfinite(rtol) and rtol > 0):
            raise ValueError(f"rtol must be a finite number > 0, got {rtol!r}")
        self.sense, self.rtol = sense, rtol
        self.last = None  # the master's value at the last drop

    def get_state(self) -> dict:
        """The value of the last drop (:class:`~sipkl.core.contracts.Stateful`)."""
        return {"last": self.last}

    def set_state(self, state: dict) -> None:
        """Restore :meth:`get_state`: a ``ValueError`` for a last value that is neither a
        finite number nor ``None``."""
        last = state["last"]
        if last is not None and not (isinstance(last, numbers.Real) and np.isfinite(last)):
            raise ValueError(f"the last drop's value must be a finite number or None, got "
                             f"{last!r}")
        self.last = last

    def __call__(self, solution: MasterSolution) -> bool:
        value = self.sense * solution.objective
        scale = solution.model.objective_scale
        if self.last is not None and value - self.last <= self.rtol * scale:
            return False
        self.last = value
        return True
