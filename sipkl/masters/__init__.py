"""Restricted master problems. Each has ``solve(grams, warm_start) -> MasterSolution``."""
from .hinge import HingeMKLNewton, HingeMKLQCQP

__all__ = ["HingeMKLNewton", "HingeMKLQCQP"]

from .alignment import AlignfMaster, FSAMMaster, UniformMaster  # noqa: E402

__all__ += ["AlignfMaster", "FSAMMaster", "UniformMaster"]

from .greedy import GreedySquareLossMaster  # noqa: E402
from .nonlinear import NonlinearKRRMaster  # noqa: E402
from .pairwise import PairwiseAlignmentMaster  # noqa: E402

__all__ += ["GreedySquareLossMaster", "PairwiseAlignmentMaster", "NonlinearKRRMaster"]
