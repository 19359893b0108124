"""Restricted master problems. Each has ``solve(grams, warm_start) -> MasterSolution``."""
from .hinge import HingeMKLNewton, HingeMKLQCQP

__all__ = ["HingeMKLNewton", "HingeMKLQCQP"]
