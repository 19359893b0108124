"""Restricted master problems. Each has ``solve(grams, warm_start) -> MasterSolution``."""
from .alignment import AlignfMaster, FSAMMaster, UniformMaster
from .greedy import GreedySquareLossMaster
from .hinge import HingeMKLNewton, HingeMKLQCQP
from .lp_norm import HingeMKLLpNorm
from .nonlinear import NonlinearKRRMaster
from .pairwise import PairwiseAlignmentMaster

__all__ = ["HingeMKLNewton", "HingeMKLQCQP", "HingeMKLLpNorm", "AlignfMaster", "FSAMMaster",
           "UniformMaster", "GreedySquareLossMaster", "PairwiseAlignmentMaster",
           "NonlinearKRRMaster"]
