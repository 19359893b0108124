"""sipkl: kernel learning by semi-infinite programming (column generation).

A restricted master hands a price matrix W to a pricing oracle, which searches a
continuously parameterized kernel family for the column maximizing <W, K(θ)>.
"""
from .engine import CGResult, ColumnGeneration, MasterSolution, OracleResult, PricingRound
from .kernels import GaussianARD, GaussianIso, GaussianSeparate, KernelFamily, LearnedKernel
from .price import PriceMatrix
from .workspace import Column

__version__ = "0.1.0"

__all__ = ["CGResult", "ColumnGeneration", "Column", "MasterSolution", "OracleResult",
           "PricingRound", "PriceMatrix", "KernelFamily", "GaussianIso", "GaussianSeparate",
           "GaussianARD", "LearnedKernel"]
