"""Kernel families (see :class:`~sipkl.kernels.base.KernelFamily`) and the learned kernel."""
from .base import KernelFamily
from .gaussian import GaussianARD, GaussianIso, GaussianSeparate
from .learned import LearnedKernel

__all__ = ["KernelFamily", "GaussianIso", "GaussianSeparate", "GaussianARD", "LearnedKernel"]
