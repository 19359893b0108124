"""sipkl: semi-infinite programming by column generation, with kernel learning as its flagship.

A restricted master over finitely many columns hands its prices to a pricing oracle, which
searches an infinite set for the most violated column: the index points t of a semi-infinite
constraint (:mod:`sipkl.sip`), or the kernels of a continuously parameterized family, priced
by <W, K(θ)> (:mod:`sipkl.kernel_learning`). The engine and its contracts are
:mod:`sipkl.core`.

The kernel-learning names (the estimators, the families, :class:`PriceMatrix`, ...) are
read from :mod:`sipkl.kernel_learning` when first asked for, so that ``import sipkl.sip``
loads no kernel-learning module.
"""
from .core import CGResult, Column, ColumnGeneration, MasterSolution, OracleResult, PricingRound
from .utils import deprecation
from .utils.config import config_context, get_config, set_config

__version__ = "0.1.0"

deprecation.install()

#: the names this package reads from sipkl.kernel_learning on first use (PEP 562)
KERNEL_LEARNING_NAMES = (
    "AlignmentKernelClassifier", "AlignmentKernelRegressor", "Dirichlet", "GaussianARD",
    "GaussianIso", "GaussianSeparate", "GreedyKernelRidge", "GreedyKernelRidgeClassifier",
    "IKLClassifier", "KernelFamily", "KernelUnion", "Laplacian", "LearnedKernel",
    "LinearPerFeature", "NonlinearKernelRidge", "PairwiseAlignmentClassifier", "Polynomial",
    "Precomputed", "PriceMatrix", "make_family", "make_oracle")

__all__ = ["CGResult", "Column", "ColumnGeneration", "MasterSolution", "OracleResult",
           "PricingRound", "config_context", "get_config", "set_config",
           *KERNEL_LEARNING_NAMES]


def __getattr__(name):
    if name in KERNEL_LEARNING_NAMES:
        from . import kernel_learning
        return getattr(kernel_learning, name)
    raise AttributeError(f"module 'sipkl' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(KERNEL_LEARNING_NAMES))
