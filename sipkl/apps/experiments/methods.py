"""The methods compared by the suites, and how a fitted method is scored.

Every method here is one function ``(data, **params) -> dict`` returning at least
``test_error`` (fraction), ``fit_time`` (seconds, everything a user would wait for: kernel
learning, model selection on the validation set and the final fit), ``n_kernels`` and
``status``; ``val_error`` when the method has a validation set to choose ``params`` with.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.svm import SVC

from ...kernel_learning.estimators import (AlignmentKernelClassifier, GreedyKernelRidgeClassifier,
                                           IKLClassifier)
from ...kernel_learning.families import GaussianARD, GaussianIso, GaussianSeparate, KernelUnion
from ...pricing import GridOracle

#: gehler_nowozin §4.4.1: θ⁻¹ for k = exp(−θ²‖x − x′‖²), so the scale is s = θ² = 1/v²
IKL_INVERSE_THETAS = np.array([1, 2, 3, 5, 10, 20, 30, 40, 50, 75, 100, 125, 150], float)
IKL_C_GRID = 10.0 ** np.arange(-2, 4)
#: afkanpour footnote 6: the second-stage SVM's C, chosen on the validation set
SVC_C_GRID = 10.0 ** np.arange(-5.0, 5.5, 0.5)


@dataclass
class Data:
    """Training, validation (optional) and test parts of one split, labels ±1."""

    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    X_val: np.ndarray | None = None
    y_val: np.ndarray | None = None


def sigma_scales(sigmas) -> np.ndarray:
    """Scales s = 1/σ² of Gaussians exp(−‖x − x′‖²/σ²), as a candidate list (n × 1)."""
    return (1.0 / np.asarray(sigmas, float) ** 2)[:, None]


def error(model, X, y) -> float:
    return float(np.mean(model.predict(X) != y))


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def status_of(model) -> str:
    """Why the column generation stopped (several binary problems: the distinct reasons)."""
    result = getattr(model, "result_", None)
    results = result if isinstance(result, list) else [result]
    return "+".join(sorted({str(r.status) for r in results if r is not None})) or "ok"


def n_kernels(model) -> int:
    kernel = getattr(model, "kernel_", None)
    return len(kernel) if kernel is not None and hasattr(kernel, "__len__") else 1


def cv_error(make, X, y, folds: int, seed: int) -> float:
    """Mean k-fold cross-validation error of ``make()`` on the training set."""
    splitter = StratifiedKFold(folds, shuffle=True, random_state=seed)
    return float(1.0 - np.mean(cross_val_score(make(), X, y, cv=splitter)))


def fit_and_score(make, data: Data, cv_folds: int = 0, seed: int = 0) -> dict:
    """Fit ``make()`` on the training part and score it on the test part; with ``cv_folds``
    also its k-fold CV error on the training part (``val_error``), for choosing params."""
    val = cv_error(make, data.X, data.y, cv_folds, seed) if cv_folds else None
    model, seconds = timed(lambda: make().fit(data.X, data.y))
    return {"test_error": error(model, data.X_test, data.y_test), "val_error": val,
            "fit_time": seconds, "n_kernels": n_kernels(model), "status": status_of(model)}


# -- gehler_nowozin Table 1 ----------------------------------------------------------------
def svm_grid_search(data: Data, folds: int = 5) -> dict:
    """RBF SVM tuned by ``folds``-fold GridSearchCV on the paper's grid (θ⁻¹ × C)."""
    grid = {"gamma": list(1.0 / IKL_INVERSE_THETAS ** 2), "C": list(IKL_C_GRID)}
    model, seconds = timed(lambda: GridSearchCV(SVC(), grid, cv=folds).fit(data.X, data.y))
    return {"test_error": error(model, data.X_test, data.y_test), "fit_time": seconds,
            "n_kernels": 1, "status": "ok", "extra": {"best": model.best_params_}}


def ikl_estimator(kind: str, C: float, time_limit=None, random_state=0) -> IKLClassifier:
    """IKL/MKL of gehler_nowozin Table 1: ``mkl_single``, ``ikl_single``, ``mkl_separate``,
    ``ikl_separate``, ``ikl_products`` (MKL: the paper's 13 scales as a finite list)."""
    finite = GridOracle(candidates=(1.0 / IKL_INVERSE_THETAS ** 2)[:, None])
    separate = KernelUnion([GaussianIso(), GaussianSeparate()])
    family, oracle = {"mkl_single": (GaussianIso(), finite),
                      "ikl_single": (GaussianIso(), "ipopt"),
                      "mkl_separate": (separate, finite),
                      "ikl_separate": (separate, "ipopt"),
                      "ikl_products": (GaussianARD(), "ipopt")}[kind]
    return IKLClassifier(family=family, oracle=oracle, C=C, time_limit=time_limit,
                         random_state=random_state)


# -- afkanpour Table 2 and the 50-d problem ------------------------------------------------
def second_stage(kernel, data: Data) -> tuple[float, float, float]:
    """SVC on a learned kernel, C chosen on the validation set from :data:`SVC_C_GRID`:
    (test error, validation error, chosen C). libsvm is capped at 10⁶ iterations (a capped
    fit is one more candidate for the validation set to reject)."""
    K, K_val, K_test = kernel(data.X), kernel(data.X_val, data.X), kernel(data.X_test, data.X)
    best = (np.inf, None, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for C in SVC_C_GRID:
            svm = SVC(C=C, kernel="precomputed", max_iter=10 ** 6).fit(K, data.y)
            val = float(np.mean(svm.predict(K_val) != data.y_val))
            if val < best[0]:
                best = (val, C, svm)
    val, C, svm = best
    return float(np.mean(svm.predict(K_test) != data.y_test)), val, float(C)


def alignment(data: Data, family, master: str, oracle="ipopt", shrinkage: float = 0.0,
              seed: int = 0) -> dict:
    """Two-stage alignment methods (CA-1D, CA-nD: ``master="fsam"``; DA: ``"alignf"``;
    DU: ``"uniform"``): stage 1 once, then the SVC of :func:`second_stage`. T = 50 and
    θ = 10⁻³ as in afkanpour §3."""
    def run():
        model = AlignmentKernelClassifier(family=family, oracle=oracle, master=master,
                                        shrinkage=shrinkage, max_iter=50, tol=1e-3,
                                        random_state=seed).fit(data.X, data.y)
        return model, second_stage(model.kernel_, data)
    (model, (test, val, C)), seconds = timed(run)
    return {"test_error": test, "val_error": val, "fit_time": seconds,
            "n_kernels": len(model.kernel_), "status": status_of(model), "extra": {"C": C}}


def validated(data: Data, make) -> dict:
    """One-stage method ``make()`` fitted on the training part; its validation error is
    returned for the sweep to choose the hyper-parameters in ``make``."""
    model, seconds = timed(lambda: make().fit(data.X, data.y))
    return {"test_error": error(model, data.X_test, data.y_test),
            "val_error": error(model, data.X_val, data.y_val), "fit_time": seconds,
            "n_kernels": n_kernels(model), "status": status_of(model)}


def greedy(family, alpha: float, oracle="ipopt", seed: int = 0) -> GreedyKernelRidgeClassifier:
    """CR: argyriou's greedy square-loss method (ε = 10⁻³, T = 100 as in argyriou §4.1)."""
    return GreedyKernelRidgeClassifier(family=family, alpha=alpha, oracle=oracle, tol=1e-3,
                                       max_iter=100, random_state=seed)


def mkl_hinge(candidates, C: float, seed: int = 0, master: str = "newton") -> IKLClassifier:
    """D1 (``master="newton"``, ℓ1-norm) or D2 (``master="lp_norm"``, ℓ2-norm) MKL with hinge
    loss over a finite list of Gaussian scales."""
    return IKLClassifier(family=GaussianIso(), oracle=GridOracle(candidates=candidates), C=C,
                         master=master, random_state=seed)
