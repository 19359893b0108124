"""Growth in n: IKL (GaussianIso, GaussianARD) against the SVM grid search, time and memory.

The 3 × 3 chessboard with 2 signal + 8 noise dimensions (signal dimensions at random
positions, standardized), n training points. Each cell runs in a fresh subprocess, one
after the other, and reports its wall time and peak resident memory (``ru_maxrss`` of that
process, the interpreter and imports included) and its CPU time (user + system, of the fit
alone: on a machine shared with other work, the CPU time of a single-threaded cell moves
far less than its wall time); the ratios IKL / SVC+GS are taken between cells of the same n
in the same run. The grid search is the one of W2 (13 widths × 6 C,
5-fold). An IKL cell's status column gives its rounds, kernels and the master's final
objective J (the SVM dual value for the learned K(d)). A cell that runs past ``--timeout``
seconds is reported as such.

Run:  .venv/bin/python benchmarks/ikl_growth.py [--n 300 1000 3000] [--C 1]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

METHODS = ("svm", "iso", "ard")

CELL = """
import json, resource, sys, time
sys.path.insert(0, {bench!r})
from ikl_chessboard import board, grid_search
from sipkl import GaussianARD, GaussianIso, IKLClassifier
X, y, X_test, y_test = board({n}, 2000, 3, {seed}, n_noise=8)
cpu0, t0 = sum(resource.getrusage(resource.RUSAGE_SELF)[:2]), time.perf_counter()
if {method!r} == "svm":
    model = grid_search(X, y)
    extra = {{}}
else:
    family = GaussianIso() if {method!r} == "iso" else GaussianARD()
    model = IKLClassifier(family=family, C={C}, random_state={seed}).fit(X, y)
    extra = {{"status": model.result_.status, "iterations": int(model.n_iter_),
              "kernels": len(model.kernel_), "objective": float(model.result_.objective)}}
seconds = time.perf_counter() - t0
cpu_seconds = sum(resource.getrusage(resource.RUSAGE_SELF)[:2]) - cpu0
print(json.dumps(dict(seconds=seconds, cpu_seconds=cpu_seconds, error=1 - model.score(X_test, y_test),
                      peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      **extra)))
"""


def run_cell(method, n, C, seed, timeout):
    from pathlib import Path
    code = CELL.format(bench=str(Path(__file__).resolve().parent), n=n, seed=seed,
                       method=method, C=C)
    t0 = time.perf_counter()
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return {"timeout": timeout, "seconds": time.perf_counter() - t0}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[300, 1000, 3000])
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    args = parser.parse_args(argv)
    print("| n | method | time (s) | ratio to SVC+GS | CPU (s) | CPU ratio | peak memory (MB) "
          "| test error | status |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---|")
    rows = []
    for n in args.n:
        svm_seconds = svm_cpu = None
        for method in args.methods:
            cell = run_cell(method, n, args.C, args.seed, args.timeout)
            rows.append(dict(n=n, method=method, **cell))
            if "timeout" in cell:
                print(f"| {n} | {method} | > {cell['timeout']:.0f} | | | | | | timeout |",
                      flush=True)
                continue
            if method == "svm":
                svm_seconds, svm_cpu = cell["seconds"], cell["cpu_seconds"]
            ratio = f"{cell['seconds'] / svm_seconds:.2f}" if svm_seconds else ""
            cpu_ratio = f"{cell['cpu_seconds'] / svm_cpu:.2f}" if svm_cpu else ""
            status = cell.get("status", "")
            if status:
                status += (f", {cell['iterations']} it., {cell['kernels']} kernels, "
                           f"J = {cell['objective']:.6g}")
            print(f"| {n} | {method} | {cell['seconds']:.1f} | {ratio} | "
                  f"{cell['cpu_seconds']:.1f} | {cpu_ratio} | {cell['peak_mb']:.0f} "
                  f"| {cell['error']:.3f} | {status} |", flush=True)
    return rows


if __name__ == "__main__":
    main()
