"""afkanpour's experiments: Table 2 (MNIST and UCI Letter pairs, median rank and time per
task) and the 50-dimensional relevance problem (Fig. 2).

Table 2's data: 8 MNIST digit-pair tasks drawn from the full MNIST (``datasets.load("mnist")``,
the training and test files as one pool) with the paper's train/validation/test sizes
500/1000/2000, and 12 UCI Letter pairs at 300/200/1000.

Methods (afkanpour Table 1): CA-1D and CA-nD (FSAM over GaussianIso / GaussianARD),
CR (argyriou's greedy square loss, :class:`~sipkl.GreedyKernelRidgeClassifier`), DA (alignf
over the finite list), D1 and D2 (ℓ1- and ℓ2-norm MKL, hinge loss, over the finite list) and
DU (uniform weights over the finite list). Two-stage methods choose the SVM's C on the
validation set from 10^{−5, −4.5, …, 5}; CR's μ, D1's and D2's C and CA-nD's shrinkage λ are
chosen by validation error across the cells of their grids.
"""
from __future__ import annotations

import statistics
from typing import ClassVar

import numpy as np
from scipy.stats import rankdata

from .... import datasets
from ....kernel_learning.families import GaussianARD, GaussianIso
from ....pricing import GridOracle
from ..methods import Data, alignment, greedy, mkl_hinge, sigma_scales, validated
from .base import Suite, cached, grid_cells, summarize, table, three_way, unavailable

#: argyriou's eight MNIST tasks, followed by afkanpour
MNIST_TASKS = {"odd-even": ((1, 3, 5, 7, 9), (0, 2, 4, 6, 8)), "3v8": (3, 8), "4v7": (4, 7),
               "1v7": (1, 7), "2v3": (2, 3), "0v6": (0, 6), "2v9": (2, 9), "0v9": (0, 9)}
#: afkanpour does not list its 12 Letter pairs; these are pairs of similar capitals
LETTER_TASKS = {f"{a}v{b}": (a, b) for a, b in
                ("BE", "CG", "DO", "EF", "HN", "IJ", "KX", "MN", "OQ", "PR", "UV", "VY")}
#: paper's finite lists: 20 σ equidistant in an interval (kernel exp(−‖x − x′‖²/σ²))
SIGMAS = {"mnist": np.linspace(500.0, 50000.0, 20), "letter": np.linspace(1.0, 200.0, 20)}
#: (train, validation, test) sizes, the paper's: MNIST 500/1000/2000, Letter 300/200/1000
SIZES = {"mnist": (500, 1000, 2000), "letter": (300, 200, 1000)}
PAPER_RANK = {"mnist": {"CA-1D": "1", "CA-nD": "N/A", "CR": "2", "DA": "4.5", "D1": "4.5",
                        "D2": "5", "DU": "4"},
              "letter": {"CA-1D": "1", "CA-nD": "4.5", "CR": "2", "DA": "3.5", "D1": "7",
                         "D2": "6", "DU": "5"}}
PAPER_TIME = {"mnist": {"CA-1D": "12 ± 1", "CA-nD": "N/A", "CR": "377 ± 56", "DA": "31 ± 1",
                        "D1": "57 ± 6", "D2": "58 ± 3", "DU": "10 ± 1"},
              "letter": {"CA-1D": "9 ± 1", "CA-nD": "1986 ± 247", "CR": "590 ± 21",
                         "DA": "11 ± 1", "D1": "21 ± 1", "D2": "22 ± 1", "DU": "5 ± 1"}}
METHODS = ("CA-1D", "CA-nD", "CR", "DA", "D1", "D2", "DU")
GRIDS = {"CA-1D": [{}], "CA-nD": [{"shrinkage": v} for v in (0.0, 1e-3, 1e-1, 10.0)],
         "CR": [{"alpha": v} for v in (1e-7, 1e-4, 1e-1)], "DA": [{}],
         "D1": [{"C": v} for v in (0.1, 1.0, 10.0, 100.0)],
         "D2": [{"C": v} for v in (0.1, 1.0, 10.0, 100.0)], "DU": [{}]}


def run_method(method: str, params: dict, data: Data, candidates, seed: int) -> dict:
    """One of afkanpour's methods on one split (``candidates``: the finite list)."""
    finite = GridOracle(candidates=candidates)
    if method == "CA-1D":
        return alignment(data, GaussianIso(), "fsam", seed=seed)
    if method == "CA-nD":
        return alignment(data, GaussianARD(), "fsam", shrinkage=params["shrinkage"], seed=seed)
    if method == "DA":
        return alignment(data, GaussianIso(), "alignf", oracle=finite, seed=seed)
    if method == "DU":
        return alignment(data, GaussianIso(), "uniform", oracle=finite, seed=seed)
    if method == "CR":
        return validated(data, lambda: greedy(GaussianIso(), params["alpha"], seed=seed))
    if method in ("D1", "D2"):
        master = "newton" if method == "D1" else "lp_norm"
        return validated(data, lambda: mkl_hinge(candidates, params["C"], seed, master))
    raise ValueError(f"unknown method {method!r}")


def collection(task: str) -> str:
    return task.split(":")[0]


def task_data(task: str, split: int, sizes) -> Data:
    """The seeded train/validation/test parts of ``task`` ("mnist:3v8", "letter:OvQ", …),
    of ``sizes`` (train, validation, test)."""
    source, pair_name = task.split(":")
    X, y = cached(source)  # the data sets "mnist" and "letter"
    spec = (MNIST_TASKS if source == "mnist" else LETTER_TASKS)[pair_name]
    Xp, yp = datasets.pair(X, y, *spec)
    return three_way(Xp, yp, *sizes, split)


def source_missing(source: str) -> str | None:
    """Why the data of ``source`` ("mnist" or "letter") cannot be loaded here, or None."""
    try:
        cached(source)
    except datasets.MissingPackage as exc:
        return str(exc)
    return None


class AfkanpourTable2(Suite):
    name = "afkanpour_table2"
    title = "afkanpour Table 2: median rank and time per task (s)"
    SMALL: ClassVar[dict] = {"tasks": ("mnist:3v8", "letter:OvQ"), "sizes": (60, 60, 150),
             "grids": {"CA-1D": [{}], "CR": [{"alpha": 1e-4}], "DA": [{}],
                       "D1": [{"C": 1.0}], "D2": [{"C": 1.0}], "DU": [{}]}}

    def missing(self):
        return [f"{s}: {why}" for s in ("mnist", "letter") if (why := source_missing(s))]

    def cells(self, version, n_splits=None, only=None):
        if version == "small":
            tasks, grids, splits = self.SMALL["tasks"], self.SMALL["grids"], 1
        else:
            tasks = ([f"mnist:{t}" for t in MNIST_TASKS] + [f"letter:{t}" for t in LETTER_TASKS])
            grids, splits = GRIDS, 10
        tasks = [t for t in tasks if only is None or t in only or collection(t) in only]
        # CA-nD on MNIST too, where the paper has none (N/A)
        return grid_cells(self.name, version, tasks, n_splits or splits, grids)

    def run(self, cell):
        source = collection(cell.dataset)
        if (why := source_missing(source)) is not None:
            return unavailable(why)
        sizes = self.SMALL["sizes"] if cell.version == "small" else SIZES[source]
        data = task_data(cell.dataset, cell.split, sizes)
        return run_method(cell.method, cell.param_dict, data, sigma_scales(SIGMAS[source]),
                          cell.split)

    def render(self, rows, version):
        summary = summarize(rows)
        parts = [f"### {self.title} ({version})"]
        for source in ("mnist", "letter"):
            tasks = sorted({d for d, _ in summary if collection(d) == source})
            if not tasks:
                why = source_missing(source)
                parts.append(f"{source}: not run" + (f" ({why})" if why else ""))
                continue
            ranks, times = {m: [] for m in METHODS}, {m: [] for m in METHODS}
            for task in tasks:
                present = [m for m in METHODS if (task, m) in summary
                           and summary[(task, m)].errors]
                for m, r in zip(present, rankdata([summary[(task, m)].mean_error
                                                   for m in present])):
                    ranks[m].append(r)
                    times[m].append(summary[(task, m)].mean_grid_time)
            rows_ = []
            for m in METHODS:
                if not ranks[m]:
                    ours_rank = ours_time = "—"
                else:
                    ours_rank = f"{statistics.median(ranks[m]):g}"
                    t = times[m]
                    se = statistics.stdev(t) / np.sqrt(len(t)) if len(t) > 1 else 0.0
                    ours_time = f"{statistics.fmean(t):.2f} ± {se:.2f}"
                rows_.append([m, f"{ours_rank} ({PAPER_RANK[source][m]})",
                              f"{ours_time} ({PAPER_TIME[source][m]})"])
            errors = [[t] + [summary[(t, m)].error() if (t, m) in summary else "—"
                             for m in METHODS] for t in tasks]
            n = len({r["split"] for r in rows if collection(r["dataset"]) == source})
            sizes = "/".join(map(str, SIZES[source] if version == "full"
                                 else self.SMALL["sizes"]))
            heading = (f"**{source}** ({len(tasks)} tasks, {n} split(s) each; sizes "
                       f"train/val/test {sizes})")
            heading += (". Time per task: every setting of the method's grid (C, μ or λ "
                        "chosen on the validation set), mean ± standard error over tasks")
            parts += [heading,
                      table(["method", "median rank (paper)", "time per task, s (paper)"], rows_),
                      "test error (%) per task:", table(["task", *METHODS], errors)]
        return "\n\n".join(parts)


GAMMAS = (0, 1, 2, 5, 10, 20, 40)
SIGMAS_50D = np.geomspace(1e-3, 1e3, 50)  # σ = m g^{0…49}, m = 10⁻³, g ≈ 1.33


class Afkanpour50d(Suite):
    name = "afkanpour_50d"
    title = "afkanpour Fig. 2: 50-d relevance problem, test error (%) against γ"
    SMALL: ClassVar[dict] = {"gammas": (10,), "sizes": (50, 100, 100), "splits": 1,
             "grids": {"CA-1D": [{}], "CA-nD": [{"shrinkage": 1e-1}], "DU": [{}]}}

    def cells(self, version, n_splits=None, only=None):
        small = version == "small"
        gammas = self.SMALL["gammas"] if small else GAMMAS
        names = [f"gamma={g}" for g in gammas if only is None or f"gamma={g}" in only]
        grids = self.SMALL["grids"] if small else GRIDS
        return grid_cells(self.name, version, names,
                          n_splits or (self.SMALL["splits"] if small else 10), grids)

    def run(self, cell):
        gamma = float(cell.dataset.split("=")[1])
        small = cell.version == "small"
        n_train, n_val, n_test = self.SMALL["sizes"] if small else (50, 1000, 1000)
        X, y = datasets.make_relevance(n_train + n_val + n_test, gamma,
                                       random_state=[cell.split, int(gamma)])
        data = Data(X[:n_train], y[:n_train], X[-n_test:], y[-n_test:],
                    X[n_train:n_train + n_val], y[n_train:n_train + n_val])
        return run_method(cell.method, cell.param_dict, data, sigma_scales(SIGMAS_50D),
                          cell.split)

    def render(self, rows, version):
        summary = summarize(rows)
        methods = [m for m in METHODS if any(k[1] == m for k in summary)]
        names = sorted({d for d, _ in summary}, key=lambda d: float(d.split("=")[1]))
        body = [[d] + [summary[(d, m)].error() if (d, m) in summary else "—" for m in methods]
                for d in names]
        times = [[summary[(d, m)].mean_grid_time for d in names if (d, m) in summary]
                 for m in methods]
        body.append(["time (s)"] + [f"{statistics.fmean(t):.2f}" for t in times])
        n = len({r["split"] for r in rows})
        return (f"### {self.title} ({version})\n\n" + table(["γ"] + methods, body)
                + f"\n\n{n} repetition(s) (paper: 10); time: the whole grid of a method per "
                "repetition. The paper gives these figures only as "
                "a plot (Fig. 2): 1-D methods' error grows with γ, CA-nD's does not (it "
                "decreases), CA-nD needs the shrinkage of eq. (4) to avoid overfitting.")
