"""Kernel families (see :class:`~sipkl.kernel_learning.families.base.KernelFamily`) and the learned kernel."""
from .base import KernelFamily
from .gaussian import GaussianARD, GaussianIso, GaussianSeparate
from .learned import LearnedKernel
from .linear import LinearPerFeature
from .others import Dirichlet, KernelUnion, Laplacian, Polynomial, Precomputed

__all__ = ["KernelFamily", "GaussianIso", "GaussianSeparate", "GaussianARD", "Dirichlet",
           "Polynomial", "Laplacian", "Precomputed", "KernelUnion", "LinearPerFeature",
           "LearnedKernel"]
