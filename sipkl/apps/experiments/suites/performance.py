"""``performance``: the workloads W1–W4 and their targets.

* W1 — finite MKL on breast_cancer to the QCQP optimum (``benchmarks/finite_mkl.py``): median
  time of sipkl's column generation; the full version also solves the QCQP (cvxpy + ECOS)
  for the reference optimum and its time. Target ≤ 0.5 s.
* W2 — IKL with GaussianARD on the 300 × 20 chessboard against an RBF SVC tuned by
  GridSearchCV (:func:`sipkl.apps.demo.run`): test error ≤ 0.10 and wall time ≤ 1× the SVC's.
* W3 — value and gradient of ``<W, K(θ)>`` for GaussianARD, n = 1000, D = 20, against the
  floor (``benchmarks/price_gradient.py``). Target ≤ 1× the floor.
* W4 — CA-1D (FSAM + SVC with C on the validation set) per MNIST-pair task of the full
  MNIST (a Letter pair when its files are missing), the afkanpour Table 2 setting at
  300/200/500 points. Target ≤ 2 s.

The ``benchmarks/`` scripts are read from the source checkout this package is installed
from; cells report them unavailable otherwise. Run with ``--n-jobs 1``: the workloads time
themselves, and ratios are taken within one cell.
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import statistics
from pathlib import Path

from ...demo import run as demo_run
from ..methods import sigma_scales, timed
from .afkanpour import SIGMAS, run_method, source_missing, task_data
from .base import Suite, grid_cells, table, unavailable

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
TARGETS = {"W1": "≤ 0.5 s", "W2": "error ≤ 0.10, time ≤ 1× SVC+GridSearchCV",
           "W3": "≤ 1× floor", "W4": "≤ 2 s per task"}
SMALL = {"W1": {"repeats": 1}, "W2": {"n_train": 60, "n_test": 300},
         "W3": {"n": 300, "repeats": 3}, "W4": {"repeats": 1}}
FULL = {"W1": {"repeats": 5}, "W2": {"n_train": 300, "n_test": 2000},
        "W3": {"n": 1000, "repeats": 20}, "W4": {"repeats": 3}}


def benchmark_script(name: str):
    """The module ``benchmarks/<name>.py`` of the source checkout, or ``None``."""
    path = BENCHMARKS / f"{name}.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"sipkl_benchmark_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def w1(repeats: int, reference: bool) -> dict:
    script = benchmark_script("finite_mkl")
    if script is None:
        return unavailable("benchmarks/finite_mkl.py (source checkout) not found")
    X, y, _, _ = script.load()
    script.run_sipkl(X, y, 1.0)  # warm-up
    times = []
    for _ in range(repeats):
        result, seconds = timed(lambda: script.run_sipkl(X, y, 1.0))
        times.append(seconds)
    extra = {"objective": result.objective, "iterations": result.nit,
             "status": result.status}
    if reference:
        grams = [script.rbf_kernel(X, gamma=g) for g in script.GAMMAS]
        _, problem, qcqp_time, _ = script.solve_qcqp(grams, y, 1.0, "ECOS")
        extra.update(qcqp_time=qcqp_time, qcqp_optimum=problem.value,
                     rel_diff=abs(result.objective - problem.value) / abs(problem.value))
    return {"fit_time": statistics.median(times), "status": "ok", "extra": extra}


def w2(n_train: int, n_test: int, seed: int) -> dict:
    with contextlib.redirect_stdout(io.StringIO()):
        out = demo_run(n_train, n_test, 1.0, seed, verbose=0)
    return {"test_error": 1.0 - out["ikl_accuracy"], "fit_time": out["ikl_time"],
            "n_kernels": len(out["result"].columns), "status": out["result"].status,
            "extra": {"svm_time": out["svm_time"], "svm_error": 1.0 - out["svm_accuracy"],
                      "ratio": out["ikl_time"] / out["svm_time"]}}


def w3(n: int, repeats: int) -> dict:
    script = benchmark_script("price_gradient")
    if script is None:
        return unavailable("benchmarks/price_gradient.py (source checkout) not found")
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        ratio = script.main(["--n", str(n), "--repeats", str(repeats)])
    return {"status": "ok", "extra": {"ratio": ratio, "table": printed.getvalue()}}


def w4(repeats: int, small: bool) -> dict:
    source = "mnist" if source_missing("mnist") is None else "letter"
    task = f"{source}:3v8" if source == "mnist" else "letter:OvQ"
    sizes = (60, 60, 150) if small else (300, 200, 500)
    results = [run_method("CA-1D", {}, task_data(task, k, sizes),
                          sigma_scales(SIGMAS[source]), k) for k in range(repeats)]
    return {"test_error": statistics.fmean(r["test_error"] for r in results),
            "fit_time": statistics.median(r["fit_time"] for r in results),
            "n_kernels": statistics.fmean(r["n_kernels"] for r in results), "status": "ok",
            "extra": {"task": task, "sizes": sizes,
                      "times": [r["fit_time"] for r in results]}}


class Performance(Suite):
    name = "performance"
    title = "performance workloads W1–W4"

    def cells(self, version, n_splits=None, only=None):
        names = [w for w in TARGETS if only is None or w in only]
        return grid_cells(self.name, version, names, 1, {"sipkl": [{}]})

    def run(self, cell):
        small = cell.version == "small"
        p = (SMALL if small else FULL)[cell.dataset]
        if cell.dataset == "W1":
            return w1(p["repeats"], reference=not small)
        if cell.dataset == "W2":
            return w2(p["n_train"], p["n_test"], seed=0)
        if cell.dataset == "W3":
            return w3(p["n"], p["repeats"])
        return w4(p["repeats"], small)

    def render(self, rows, version):
        body = []
        for r in rows:
            e, w = r["extra"], r["dataset"]
            if r["status"].startswith("unavailable"):
                body.append([w, TARGETS[w], r["status"], ""])
                continue
            if w == "W1":
                figure = f"{r['fit_time']:.3f} s (median)"
                if "qcqp_time" in e:
                    figure += (f"; QCQP (ECOS) {e['qcqp_time']:.1f} s, ratio "
                               f"{e['qcqp_time'] / r['fit_time']:.0f}×, objective rel. diff "
                               f"{e['rel_diff']:.1e}")
                met = r["fit_time"] <= 0.5
            elif w == "W2":
                figure = (f"IKL {r['fit_time']:.2f} s, error {r['test_error']:.3f}; SVC+GS "
                          f"{e['svm_time']:.2f} s, error {e['svm_error']:.3f}; ratio "
                          f"{e['ratio']:.2f}×")
                met = r["test_error"] <= 0.10 and e["ratio"] <= 1.0
            elif w == "W3":
                figure = f"{e['ratio']:.2f}× floor"
                met = e["ratio"] <= 1.0
            else:
                figure = (f"{r['fit_time']:.2f} s per task (median of {len(e['times'])}; "
                          f"{e['task']}, train/val/test {'/'.join(map(str, e['sizes']))}), "
                          f"test error {r['test_error']:.3f}")
                met = r["fit_time"] <= 2.0
            body.append([w, TARGETS[w], figure, "met" if met else "missed"])
        note = "" if version == "full" else ("\n\nSmall version: reduced sizes, the targets "
                                             "apply to the full version.")
        return (f"### {self.title} ({version})\n\n"
                + table(["workload", "target", "ours", "target met"], body) + note)

