"""sipkl: kernel learning by semi-infinite programming (column generation).

A restricted master hands a price matrix W to a pricing oracle, which searches a
continuously parameterized kernel family for the column maximizing <W, K(θ)>.
"""
from .config import config_context, get_config, set_config
from .contracts import Column, MasterSolution, OracleResult, PricingRound
from .engine import CGResult, ColumnGeneration
from .estimators import (AlignmentKernelClassifier, AlignmentKernelRegressor, GreedyKernelRidge,
                         GreedyKernelRidgeClassifier, IKLClassifier, NonlinearKernelRidge,
                         PairwiseAlignmentClassifier)
from .kernels import (Dirichlet, GaussianARD, GaussianIso, GaussianSeparate, KernelFamily,
                      KernelUnion, Laplacian, LearnedKernel, LinearPerFeature, Polynomial,
                      Precomputed)
from .price import PriceMatrix
from .registry import make_family, make_oracle

__version__ = "0.1.0"

__all__ = ["CGResult", "ColumnGeneration", "Column", "MasterSolution", "OracleResult",
           "PricingRound", "PriceMatrix", "KernelFamily", "GaussianIso", "GaussianSeparate",
           "GaussianARD", "Dirichlet", "Polynomial", "Laplacian", "Precomputed", "KernelUnion",
           "LinearPerFeature", "LearnedKernel", "IKLClassifier", "AlignmentKernelClassifier",
           "AlignmentKernelRegressor", "GreedyKernelRidge", "GreedyKernelRidgeClassifier",
           "PairwiseAlignmentClassifier", "NonlinearKernelRidge", "make_family", "make_oracle",
           "config_context", "get_config", "set_config"]
