"""``peers``: sipkl next to other kernel-learning software on the same data and kernels.

* finite MKL over the 13 Gaussians of gehler_nowozin §4.4.1: sipkl's ``mkl_single``
  (column generation, hinge loss, C = 1) against MKLpy 0.6's EasyMKL, GRAM and AverageMKL,
  each followed by ``SVC(C=1)`` on its combined kernel (MKLpy is given the 13 Gram matrices;
  computing them is inside its timed fit);
* one Gaussian scale per dimension: sipkl's IKL with ``GaussianARD`` against scikit-learn's
  ``GaussianProcessClassifier`` with an anisotropic RBF (length scales by marginal
  likelihood, 2 optimizer restarts).

Accuracy and fit time per method; the ratio column is time / time of the sipkl method of the
same kind, measured on the same split (run with ``--n-jobs 1`` for undisturbed ratios).
"""
from __future__ import annotations

import importlib.util
import statistics
from typing import ClassVar

import numpy as np
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from .... import datasets
from ..methods import IKL_INVERSE_THETAS, Data, error, fit_and_score, ikl_estimator, timed
from .base import Suite, cached, grid_cells, standardized, summarize, table, unavailable

GAMMAS = 1.0 / IKL_INVERSE_THETAS ** 2
MKLPY = ("mklpy_easymkl", "mklpy_gram", "mklpy_average")
#: method -> the sipkl method its time is compared with
BASELINE = {**{m: "sipkl_mkl" for m in MKLPY}, "gpc_ard": "sipkl_ikl_ard",
            "sipkl_mkl": "sipkl_mkl", "sipkl_ikl_ard": "sipkl_ikl_ard"}
DATASETS = {"heart": (170, 100), "ionosphere": (200, 151), "sonar": (150, 58),
            "banana": (400, 1000), "checkerboard": (300, 1000)}


def mklpy_fit(name: str, data: Data) -> dict:
    """MKLpy ``name`` on the 13 Gram matrices, then SVC(C=1) on its combined kernel."""
    import torch  # noqa: F401  (MKLpy works on torch tensors)
    from MKLpy import algorithms

    cls = {"mklpy_easymkl": algorithms.EasyMKL, "mklpy_gram": algorithms.GRAM,
           "mklpy_average": algorithms.AverageMKL}[name]

    def fit():
        grams = [rbf_kernel(data.X, gamma=g) for g in GAMMAS]
        model = cls(learner=SVC(C=1.0)).fit(grams, data.y)
        return model, np.asarray(model.solution.weights, float)
    (model, weights), seconds = timed(fit)
    K_test = sum(w * rbf_kernel(data.X_test, data.X, gamma=g) for w, g in zip(weights, GAMMAS))
    predicted = np.asarray(model.learner.predict(K_test))
    return {"test_error": float(np.mean(predicted != data.y_test)), "fit_time": seconds,
            "n_kernels": int(np.sum(weights > 1e-6 * weights.max())), "status": "ok"}


def gpc_fit(data: Data, seed: int) -> dict:
    kernel = ConstantKernel(1.0) * RBF(length_scale=np.ones(data.X.shape[1]))
    model, seconds = timed(lambda: GaussianProcessClassifier(
        kernel, n_restarts_optimizer=2, random_state=seed).fit(data.X, data.y))
    return {"test_error": error(model, data.X_test, data.y_test), "fit_time": seconds,
            "n_kernels": 1, "status": "ok"}


def mklpy_missing() -> str | None:
    if importlib.util.find_spec("MKLpy") is None:
        return "MKLpy is not installed (pip install 'sipkl[peers]')"
    return None


class Peers(Suite):
    name = "peers"
    title = "sipkl next to MKLpy and scikit-learn's GaussianProcessClassifier"
    SMALL: ClassVar[dict] = {"datasets": ("heart",), "splits": 1,
             "methods": ("sipkl_mkl", "mklpy_easymkl", "mklpy_average", "sipkl_ikl_ard",
                         "gpc_ard"), "time_limit": 2.0}
    METHODS: ClassVar[tuple] = ("sipkl_mkl",) + MKLPY + ("sipkl_ikl_ard", "gpc_ard")

    def missing(self):
        return [why] if (why := mklpy_missing()) else []

    def cells(self, version, n_splits=None, only=None):
        small = version == "small"
        names = self.SMALL["datasets"] if small else tuple(DATASETS)
        names = [d for d in names if only is None or d in only]
        methods = self.SMALL["methods"] if small else self.METHODS
        return grid_cells(self.name, version, names,
                          n_splits or (self.SMALL["splits"] if small else 5),
                          {m: [{}] for m in methods})

    def run(self, cell):
        n_train, n_test = DATASETS[cell.dataset]
        if cell.dataset == "checkerboard":
            X, y = datasets.make_checkerboard(n_train + n_test, n_cells=3, random_state=cell.split)
        else:
            X, y = cached(cell.dataset)
        parts = datasets.split(X, y, n_train, n_test, seed=cell.split)
        data = standardized(Data(parts[0], parts[2], parts[1], parts[3]))
        limit = self.SMALL["time_limit"] if cell.version == "small" else None
        if cell.method in MKLPY:
            why = mklpy_missing()
            return unavailable(why) if why else mklpy_fit(cell.method, data)
        if cell.method == "gpc_ard":
            return gpc_fit(data, cell.split)
        kind = "mkl_single" if cell.method == "sipkl_mkl" else "ikl_products"
        return fit_and_score(lambda: ikl_estimator(kind, 1.0, limit, cell.split), data)

    def render(self, rows, version):
        summary = summarize(rows)
        by_split = {(r["dataset"], r["split"], r["method"]): r for r in rows}
        names = list(dict.fromkeys(r["dataset"] for r in rows))
        methods = [m for m in self.METHODS if any(r["method"] == m for r in rows)]
        body = []
        for d in names:
            for m in methods:
                s = summary.get((d, m))
                if s is None or not s.errors:
                    status = next((r["status"] for r in rows
                                   if r["dataset"] == d and r["method"] == m), "—")
                    body.append([d, m, status, "", "", ""])
                    continue
                ratios = [by_split[(d, k, m)]["fit_time"]
                          / by_split[(d, k, BASELINE[m])]["fit_time"]
                          for (d_, k, m_) in by_split if d_ == d and m_ == m
                          and by_split[(d, k, m)]["fit_time"] is not None
                          and (d, k, BASELINE[m]) in by_split]
                acc = f"{100 - 100 * s.mean_error:.1f}"
                body.append([d, m, acc, f"{s.mean_time:.2f}",
                             f"{statistics.median(ratios):.2f}×" if ratios else "—",
                             f"{s.mean_kernels:.1f}"])
        n = len({r["split"] for r in rows})
        return (f"### {self.title} ({version})\n\n"
                + table(["data set", "method", "test accuracy %", "fit time (s)",
                         "time / sipkl (median over splits)", "#kernels"], body)
                + f"\n\n{n} split(s); ratios against `sipkl_mkl` for MKLpy and against "
                "`sipkl_ikl_ard` for the GP classifier, each on the same split.")
