"""The optional PyTorch back-end of the Nyström column space (``IKLClassifier(device=…)``).

Where PyTorch is installed, a Nyström run (:mod:`sipkl.kernel_learning.nystrom`) can hold its features on a
torch device — a GPU, ``"cuda"`` — and compute there what costs O(n·q) or more per column:

* the features Φ_s = K_s(X, L) C_s⁻ᵀ (A_s = K_s(L, L) + εI = C_s C_sᵀ);
* the products K̂_m w = Φ_m (Φ_mᵀ w);
* the hinge masters' SVMs on working sets, by the interior-point method on the stacked
  features Z_S = [√d_m Φ_m[S]] (:mod:`sipkl.solvers.svm_features`, on a GPU at any size of
  the set; :meth:`TorchFeatureGram.stacked`), and K(d) on a set, Σ_m d_m Φ_m[S] Φ_m[S′]ᵀ,
  where it is needed (on torch's CPU, or where that method fails and libsvm takes the set:
  summed on the device, one transfer of |S|·|S′| numbers);
* the prices P(s) and their gradients, by the code the CPU runs
  (:class:`~sipkl.kernel_learning.nystrom.NystromPricingProblem` on torch tensors).

The active-set steps that end each interior-point solve, libsvm, the master's Newton steps
and the oracle's search stay in NumPy on the CPU. Double precision throughout. The results
agree with the CPU path's to round-off, not to the bit (a GPU sums in other orders): the fit
may take another path where a round's choice of column rests on the last bits, as between
machines.
"""
from __future__ import annotations

import numpy as np

from .features import JITTER, FeatureGram, stacked_gaussian


def auto_device():
    """``"cuda"`` where PyTorch is installed and sees a CUDA device, else ``None`` (NumPy on
    the CPU): what an estimator's ``device="auto"`` computes on."""
    try:
        import torch
    except ImportError:
        return None
    return "cuda" if torch.cuda.is_available() else None


def torch_arrays(device):
    """The :class:`TorchArrays` of the torch device named by ``device`` (a string as
    ``torch.device`` takes it: ``"cuda"``, ``"cuda:1"``, ``"cpu"``); a ``ValueError`` naming
    ``device`` where PyTorch is not installed, the name is not a device, or the device is not
    there."""
    try:
        import torch
    except ImportError as error:
        raise ValueError(f"device={device!r} needs PyTorch, which is not installed "
                         f"({error})") from None
    try:
        named = torch.device(device)
        torch.zeros(1, device=named)
    except (RuntimeError, AssertionError) as error:
        raise ValueError(f"device={device!r} is not a torch device of this machine: "
                         f"{error}") from None
    return TorchArrays(torch, named)


class TorchArrays:
    """Arrays on one torch device: ``xp`` (the module whose functions the shared code calls:
    ``torch``, as :class:`sipkl.compute.arrays.NumpyArrays` has ``numpy``), :meth:`asarray` to the
    device in double precision, :meth:`numpy` back to the CPU."""

    def __init__(self, torch, device):
        self.xp, self.device = torch, device

    def asarray(self, x):
        return self.xp.as_tensor(np.asarray(x, dtype=float), device=self.device)

    @staticmethod
    def numpy(x) -> np.ndarray:
        return x.cpu().numpy()

    def features(self, Z: np.ndarray, Z_L: np.ndarray) -> "TorchFeatureGram":
        """The features Φ = K(Z, Z_L) C⁻ᵀ of the scaled points ``Z`` and landmarks ``Z_L``
        (C C ᵀ = K(Z_L, Z_L) + εI), on the device, as a :class:`TorchFeatureGram`."""
        torch = self.xp
        Z, Z_L = self.asarray(Z), self.asarray(Z_L)
        A = stacked_gaussian(Z_L[None], Z_L[None], torch)[0]
        A.diagonal().add_(JITTER)
        C = torch.linalg.cholesky(A)
        B = stacked_gaussian(Z_L[None], Z[None], torch)[0]          # K(L, X), q × n
        return TorchFeatureGram(torch.linalg.solve_triangular(C, B, upper=False).T, self)


class TorchFeatureGram(FeatureGram):
    """A :class:`~sipkl.compute.features.FeatureGram` whose features Φ are a tensor on a torch device
    (``arrays``, a :class:`TorchArrays`): blocks and products are computed there and handed
    to the CPU as NumPy arrays; :meth:`combined` sums K(d) on the device."""

    def __init__(self, features, arrays: TorchArrays):
        super().__init__(features)
        self.arrays = arrays

    @property
    def device(self):
        return self.arrays.device

    def block(self, rows: slice, Y) -> np.ndarray:
        return self.arrays.numpy(self.X[rows] @ Y.T)

    def _on(self, X) -> "TorchFeatureGram":
        return TorchFeatureGram(X, self.arrays)

    def restricted(self, index, columns=None) -> "TorchFeatureGram":
        index = self.arrays.xp.as_tensor(np.asarray(index), device=self.device)
        if columns is not None:
            columns = self.arrays.xp.as_tensor(np.asarray(columns), device=self.device)
        return super().restricted(index, columns)

    def feature_product(self, support, w_S) -> np.ndarray:
        return self.arrays.numpy(self._feature_product(support, w_S))

    def _feature_product(self, support, w_S):
        return self.arrays.asarray(w_S) @ self.X[self.arrays.xp.as_tensor(support,
                                                                           device=self.device)]

    def _product(self, support, w_S) -> np.ndarray:
        return self.arrays.numpy(self.X @ self._feature_product(support, w_S))

    @property
    def on_accelerator(self) -> bool:
        return self.device.type != "cpu"

    @staticmethod
    def stacked(terms, index):
        first = terms[0][0]
        rows = first.arrays.xp.as_tensor(np.asarray(index), device=first.device)
        return first.arrays.xp.cat([float(np.sqrt(weight)) * K.X[rows] for K, weight in terms],
                                   dim=1)

    @staticmethod
    def combined(terms) -> np.ndarray:
        """Σ w Φ_X Φ_Yᵀ over the ``(K, w)`` of ``terms`` (:class:`TorchFeatureGram` of one
        shape, on one device), summed on the device in their order; where every term is
        square on one set of points (``K.Y is K.X``) the lower triangle is mirrored, so that
        the sum is symmetric to the bit as the CPU's is. A NumPy array."""
        first = terms[0][0]
        out = first.arrays.xp.zeros(first.shape, dtype=first.X.dtype, device=first.device)
        for K, weight in terms:
            out.addmm_(K.X, K.Y.T, alpha=float(weight))
        if all(K.Y is K.X for K, _ in terms):
            out = out.tril() + out.tril(-1).T
        return first.arrays.numpy(out)

    def __repr__(self):
        return f"TorchFeatureGram(n={self.shape[0]}, rank≤{self.X.shape[1]}, {self.device})"
