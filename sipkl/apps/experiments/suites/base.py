"""What every suite shares: the suite interface, data caching, and summaries of rows."""
from __future__ import annotations

import functools
import statistics
from dataclasses import dataclass

import numpy as np
from sklearn.preprocessing import StandardScaler

from .... import datasets
from ..cells import Cell
from ..methods import Data


class Suite:
    """A benchmark suite: the cells of its small and full versions, how to run one cell, and
    how to render rows as Markdown. ``n_splits`` and ``only`` (data set names) restrict a
    version (a partial run, labelled so by the renderer)."""

    name = ""
    title = ""

    def cells(self, version: str, n_splits: int | None = None, only=None) -> list[Cell]:
        raise NotImplementedError

    def run(self, cell: Cell) -> dict:
        raise NotImplementedError

    def render(self, rows: list[dict], version: str) -> str:
        raise NotImplementedError

    def missing(self) -> list[str]:
        """Why parts of the suite cannot run offline here (empty when everything can)."""
        return []


@functools.lru_cache(maxsize=8)
def cached(name: str):
    """``datasets.load(name)``, once per worker process."""
    return datasets.load(name)


def standardized(data: Data) -> Data:
    """Zero mean, unit variance, fitted on the training part."""
    scaler = StandardScaler().fit(data.X)
    parts = [None if a is None else scaler.transform(a) for a in (data.X_test, data.X_val)]
    return Data(scaler.transform(data.X), data.y, parts[0], data.y_test, parts[1], data.y_val)


def three_way(X, y, n_train: int, n_val: int, n_test: int, seed: int) -> Data:
    """Seeded stratified train/validation/test parts (the test part drawn first)."""
    X_rest, X_test, y_rest, y_test = datasets.split(X, y, len(y) - n_test, n_test, seed)
    X_tr, X_val, y_tr, y_val = datasets.split(X_rest, y_rest, n_train, n_val, seed)
    return Data(X_tr, y_tr, X_test, y_test, X_val, y_val)


def grid_cells(suite, version, datasets_, splits, methods) -> list[Cell]:
    """Cells of ``datasets × splits × methods × grid``; ``methods`` maps a method name to a
    list of parameter dicts. Splits vary slowest, so a partial sweep covers every data set
    and method."""
    return [Cell.make(suite, version, d, s, m, **p)
            for s in range(splits) for d in datasets_ for m, grid in methods.items()
            for p in grid]


@dataclass
class Summary:
    """Rows of one (data set, method) at the chosen hyper-parameters."""

    params: str
    errors: list
    kernels: list
    times: list
    statuses: list
    grid_times: list  # per split: fit times summed over every setting of the grid

    @property
    def n(self) -> int:
        return len(self.errors)

    def error(self, digits: int = 1) -> str:
        if not self.errors:
            return "—"
        mean = 100 * statistics.fmean(self.errors)
        if len(self.errors) == 1:
            return f"{mean:.{digits}f}"
        return f"{mean:.{digits}f} ± {100 * statistics.stdev(self.errors):.{digits}f}"

    @property
    def mean_error(self) -> float:
        return statistics.fmean(self.errors) if self.errors else float("nan")

    @property
    def mean_kernels(self) -> float:
        return statistics.fmean(self.kernels) if self.kernels else float("nan")

    @property
    def mean_time(self) -> float:
        return statistics.fmean(self.times) if self.times else float("nan")

    @property
    def mean_grid_time(self) -> float:
        """Mean over splits of the time of the whole grid: what choosing the
        hyper-parameters on the validation set costs a user."""
        return statistics.fmean(self.grid_times) if self.grid_times else float("nan")


def summarize(rows) -> dict[tuple[str, str], Summary]:
    """Per (data set, method): the hyper-parameters with the smallest mean validation error
    (over the splits that have one; the only ones when there is a single setting), and the
    rows of every split at those parameters. A (data set, method) with several settings and
    no validation error (its validation cells raised or have not run) has no summary."""
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["dataset"], r["method"]), {}).setdefault(r["params"], []).append(r)
    out = {}
    for key, by_params in groups.items():
        scores = {}
        for params, group in by_params.items():
            vals = [r["val_error"] for r in group if r["val_error"] is not None]
            scores[params] = statistics.fmean(vals) if vals else np.inf
        if len(scores) > 1 and min(scores.values()) == np.inf:
            continue  # several settings and no validation error to choose by: no figure
        params = min(scores, key=scores.get)  # the first of equal scores, as listed
        chosen = by_params[params]
        ok = [r for r in chosen if r["test_error"] is not None]
        per_split: dict = {}
        for r in (r for group in by_params.values() for r in group):
            if r["fit_time"] is not None:
                per_split[r["split"]] = per_split.get(r["split"], 0.0) + r["fit_time"]
        out[key] = Summary(params, [r["test_error"] for r in ok],
                           [r["n_kernels"] for r in ok if r["n_kernels"] is not None],
                           [r["fit_time"] for r in ok if r["fit_time"] is not None],
                           sorted({r["status"] for r in chosen}), list(per_split.values()))
    return out


def unavailable(reason: str) -> dict:
    """The row of a cell that cannot run here (no figures, the reason as status)."""
    return {"test_error": None, "status": f"unavailable: {reason}"}


def table(header, rows) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
