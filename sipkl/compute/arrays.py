"""Where the Nyström numerics compute: NumPy on the CPU (:class:`NumpyArrays`), or a torch
device (:mod:`sipkl.compute.torch_backend`, which imports torch only when a device is asked
for: torch is optional).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular

from ..utils.config import budget
from ..utils.threads import one_blas_thread
from .exponential import gaussian_gram, row_blocks
from .features import FeatureGram, landmark_factor
from .torch_backend import torch_arrays


class NumpyArrays:
    """Arrays in NumPy on the CPU: the default of :class:`NystromSpace`. ``xp`` is the module
    whose functions the shared code calls, :meth:`asarray` and :meth:`numpy` the transfers
    (none here); :class:`sipkl.compute.torch_backend.TorchArrays` is the same on a torch device."""

    xp = np

    @staticmethod
    def asarray(x) -> np.ndarray:
        return np.asarray(x, dtype=float)

    @staticmethod
    def numpy(x) -> np.ndarray:
        return x

    @staticmethod
    def features(Z: np.ndarray, Z_L: np.ndarray) -> FeatureGram:
        """The features Φ = K(Z, Z_L) C⁻ᵀ of the scaled points ``Z`` and landmarks ``Z_L``
        (:func:`landmark_factor`), formed in blocks of rows, as a :class:`FeatureGram`."""
        with one_blas_thread():
            C = landmark_factor(Z_L)
            out = np.empty((len(Z), len(Z_L)))
            for rows in row_blocks(len(Z), len(Z_L), budget("lazy_block_elements")):
                out[rows] = solve_triangular(C, gaussian_gram(Z[rows], Z_L).T, lower=True).T
        return FeatureGram(out)


def array_backend(device):
    """Where a :class:`NystromSpace` computes: :class:`NumpyArrays` for ``device=None``, else
    the torch device ``device`` names (:func:`sipkl.compute.torch_backend.torch_arrays`)."""
    if device is None:
        return NumpyArrays()
    return torch_arrays(device)
