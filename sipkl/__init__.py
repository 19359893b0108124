"""sipkl: kernel learning by semi-infinite programming (column generation).

A restricted master hands a price matrix W to a pricing oracle, which searches a
continuously parameterized kernel family for the column maximizing <W, K(θ)>.
"""
from .contracts import Column, MasterSolution, OracleResult, PricingRound
from .engine import CGResult, ColumnGeneration
from .kernels import (Dirichlet, GaussianARD, GaussianIso, GaussianSeparate, KernelFamily,
                      KernelUnion, Laplacian, LearnedKernel, Polynomial, Precomputed)
from .price import PriceMatrix

__version__ = "0.1.0"

__all__ = ["CGResult", "ColumnGeneration", "Column", "MasterSolution", "OracleResult",
           "PricingRound", "PriceMatrix", "KernelFamily", "GaussianIso", "GaussianSeparate",
           "GaussianARD", "Dirichlet", "Polynomial", "Laplacian", "Precomputed", "KernelUnion",
           "LearnedKernel"]

from .estimators import IKLClassifier  # noqa: E402  (needs the names above)

__all__ += ["IKLClassifier"]

from .alignment_estimators import FSAMAlignmentClassifier, FSAMAlignmentRegressor  # noqa: E402

__all__ += ["FSAMAlignmentClassifier", "FSAMAlignmentRegressor"]

from .kernels import LinearPerFeature  # noqa: E402
from .greedy_estimators import (GreedyKernelRidge, GreedyKernelRidgeClassifier,  # noqa: E402
                                NonlinearKernelRidge, PairwiseAlignmentClassifier)

__all__ += ["LinearPerFeature", "GreedyKernelRidge", "GreedyKernelRidgeClassifier",
            "PairwiseAlignmentClassifier", "NonlinearKernelRidge"]
