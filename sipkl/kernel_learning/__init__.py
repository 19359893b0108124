"""Kernel learning, the flagship instance of the engine: a column is a kernel k_θ of a
continuously parameterized family, priced by <W, K(θ)>.

Bottom to top: the families (:mod:`~sipkl.kernel_learning.families`), the price matrix W
(:mod:`~sipkl.kernel_learning.price_matrix`), the column spaces of exact and Nyström columns
(:mod:`~sipkl.kernel_learning.space`, :mod:`~sipkl.kernel_learning.nystrom`), the masters of
the five papers (:mod:`~sipkl.kernel_learning.masters`), the DC branch and bound for
Gaussian families (:mod:`~sipkl.kernel_learning.dc_oracle`), the tables of names
(:mod:`~sipkl.kernel_learning.names`), the learned predictors
(:mod:`~sipkl.kernel_learning.expansion`) and the scikit-learn estimators
(:mod:`~sipkl.kernel_learning.estimators`).
"""
from .estimators import (AlignmentKernelClassifier, AlignmentKernelRegressor, GreedyKernelRidge,
                         GreedyKernelRidgeClassifier, IKLClassifier, NonlinearKernelRidge,
                         PairwiseAlignmentClassifier)
from .families import (Dirichlet, GaussianARD, GaussianIso, GaussianSeparate, KernelFamily,
                       KernelUnion, Laplacian, LearnedKernel, LinearPerFeature, Polynomial,
                       Precomputed)
from .names import make_family, make_oracle
from .price_matrix import PriceMatrix
from .space import KernelSpace

__all__ = ["AlignmentKernelClassifier", "AlignmentKernelRegressor", "Dirichlet", "GaussianARD",
           "GaussianIso", "GaussianSeparate", "GreedyKernelRidge", "GreedyKernelRidgeClassifier",
           "IKLClassifier", "KernelFamily", "KernelSpace", "KernelUnion", "Laplacian",
           "LearnedKernel", "LinearPerFeature", "NonlinearKernelRidge",
           "PairwiseAlignmentClassifier", "Polynomial", "Precomputed", "PriceMatrix",
           "make_family", "make_oracle"]
