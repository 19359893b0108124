"""sipkl: semi-infinite programming by column generation, with kernel learning as its flagship.

A restricted master over finitely many columns hands its prices to a pricing oracle, which
searches an infinite set for the most violated column: the index points t of a semi-infinite
constraint (:mod:`sipkl.sip`), or the kernels of a continuously parameterized family, priced
by <W, K(θ)> (the estimators).
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
