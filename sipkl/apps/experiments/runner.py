"""The sweep runner: cells run through joblib, results appended to a CSV as they finish.

A *cell* is one (suite, version, dataset, split, method, hyper-parameters) combination; its
key is those six fields. :func:`run_sweep` skips cells whose key is already in the CSV, so a
crashed or interrupted sweep resumes where it stopped. Cells run with joblib's ``loky``
backend (local processes) or on ``dask.distributed`` (a ``LocalCluster`` started here, or the
scheduler at a given address).
"""
from __future__ import annotations

import contextlib
import csv
import json
import math
import os
from pathlib import Path

from joblib import Parallel, delayed, parallel_config

from .cells import FIELDS, KEY, Cell, row_key
from .suites import SUITES


def _clean(value):
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else value


def read_rows(path) -> list[dict]:
    """The rows of a results CSV, numbers parsed (missing values are ``None``)."""
    path = Path(path)
    if not path.exists():
        return []
    rows = []
    with path.open(newline="") as handle:
        for row in csv.DictReader(handle):
            for name in ("val_error", "test_error", "fit_time", "n_kernels"):
                row[name] = float(row[name]) if row[name] not in ("", None) else None
            row["split"] = int(row["split"])
            row["extra"] = json.loads(row["extra"]) if row["extra"] else {}
            rows.append(row)
    return rows


class ResultStore:
    """Append-only CSV of finished cells (one line written and flushed per cell)."""

    def __init__(self, path):
        self.path = Path(path)

    def done(self) -> set[tuple[str, ...]]:
        return {row_key(r) for r in read_rows(self.path)}

    def append(self, row: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.exists() or self.path.stat().st_size == 0
        with self.path.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=FIELDS)
            if new:
                writer.writeheader()
            out = {k: _clean(row.get(k)) for k in FIELDS}
            out["extra"] = json.dumps(row.get("extra") or {}, sort_keys=True)
            writer.writerow(out)
            handle.flush()
            os.fsync(handle.fileno())


def execute(cell: Cell) -> dict:
    """Run one cell (in a worker): the suite's ``run`` plus the key fields. A method that
    raises is recorded with status ``error: …`` (and no figures) so that the sweep goes on;
    delete its line from the CSV to run it again."""
    try:
        result = SUITES[cell.suite].run(cell)
    except Exception as exc:  # noqa: BLE001 - recorded in the results, not hidden
        result = {"test_error": None, "status": f"error: {exc!r}"[:300]}
    return {**dict(zip(KEY, cell.key)), **result}


@contextlib.contextmanager
def backend_context(backend: str, n_jobs: int, scheduler: str | None):
    """joblib configuration for ``loky`` or ``dask`` (a LocalCluster of ``n_jobs`` single-
    threaded workers unless ``scheduler`` gives an address)."""
    if backend == "loky":
        if scheduler:
            raise ValueError("--scheduler needs --backend dask")
        with parallel_config(backend="loky", n_jobs=n_jobs):
            yield
        return
    if backend != "dask":
        raise ValueError(f"backend must be 'loky' or 'dask', got {backend!r}")
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:
        raise ImportError("the dask backend needs dask and distributed: "
                          "pip install 'sipkl[bench]'") from exc
    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        cluster = LocalCluster(n_workers=max(1, n_jobs), threads_per_worker=1,
                               processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        with parallel_config(backend="dask", n_jobs=-1 if scheduler else max(1, n_jobs)):
            yield
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _progress(iterable, total: int, enabled: bool, desc: str):
    if not enabled:
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, total=total, desc=desc, unit="cell")


def run_sweep(cells, out, backend: str = "loky", n_jobs: int = 1, scheduler=None,
              progress: bool = True) -> tuple[list[dict], int]:
    """Run the cells not yet in the CSV ``out``; append each row as it finishes.

    Returns the rows of all ``cells`` (earlier runs' included, in the order of ``cells``)
    and the number of cells computed now.
    """
    store = ResultStore(out)
    done = store.done()
    todo = [c for c in dict.fromkeys(cells) if c.key not in done]
    if todo:
        with backend_context(backend, n_jobs, scheduler):
            results = Parallel(return_as="generator_unordered")(
                delayed(execute)(cell) for cell in todo)
            desc = todo[0].suite
            for row in _progress(results, len(todo), progress, desc):
                store.append(row)
    by_key = {row_key(r): r for r in read_rows(out)}
    return [by_key[c.key] for c in cells if c.key in by_key], len(todo)
