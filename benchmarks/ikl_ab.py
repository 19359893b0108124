"""Two versions of IKL (GaussianARD) on the chessboard, fitted alternately seed by seed.

A change to the search or the master moves the run's path: other columns, another round
where the objective-stall rule ends the fit. Over twelve seeds the rounds then vary by about
10 % whatever the change, and the timings of two runs of the benchmark taken minutes apart
drift by as much on a shared machine. Here each seed's board is fitted by version A and by
version B, in that order for even seeds and in the other for odd ones, each fit in a fresh
process (its CPU and wall-clock times measured inside it, imports excluded), so that slow
drifts of the machine fall on both alike. A version is a checkout (``--a-path``; default:
this one) with keyword arguments for ``IKLClassifier`` and for its ``IpoptOracle`` (JSON
objects).

Run:  .venv/bin/python benchmarks/ikl_ab.py --seeds $(seq 0 23) [--cells 4] [--C 100] \\
          [--b-oracle '{"n_starts": 6}'] [--a-path CHECKOUT] [--b-path CHECKOUT]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys


def fit(spec):
    """One fit in this process: CPU and wall-clock time, rounds, test error, final objective
    and the ``sipkl`` package that ran it."""
    import sipkl
    from ikl_chessboard import board, timed
    from sipkl import GaussianARD, IKLClassifier
    from sipkl.pricing import IpoptOracle

    X, y, X_test, y_test = board(300, 2000, spec["cells"], spec["seed"])
    model, wall, cpu = timed(lambda: IKLClassifier(
        family=GaussianARD(), C=spec["C"], random_state=spec["seed"],
        oracle=IpoptOracle(**spec["oracle"]), **spec["estimator"]).fit(X, y))
    return {"cpu": cpu, "wall": wall, "rounds": model.n_iter_,
            "error": 1 - model.score(X_test, y_test),
            "objective": model.result_.objective, "package": os.path.dirname(sipkl.__file__)}


def run_fit(spec, path):
    """``fit(spec)`` in a fresh process that imports ``sipkl`` from the checkout ``path``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.abspath(path), os.path.dirname(os.path.abspath(__file__))]))
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--fit", json.dumps(spec)],
                         env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"the fit {spec} from {path} failed:\n{out.stderr}")
    return json.loads(out.stdout.splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(12)))
    parser.add_argument("--cells", type=int, default=3)
    parser.add_argument("--C", type=float, default=100.0)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for version in "ab":
        parser.add_argument(f"--{version}-path", default=here)
        parser.add_argument(f"--{version}-oracle", type=json.loads, default={})
        parser.add_argument(f"--{version}-estimator", type=json.loads, default={})
    parser.add_argument("--fit", type=json.loads, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.fit is not None:
        print(json.dumps(fit(args.fit)))
        return None
    results = {"a": [], "b": []}
    print("| seed | version | CPU (s) | wall (s) | rounds | test error | objective |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for i, seed in enumerate(args.seeds):
        for version in ("ab" if i % 2 == 0 else "ba"):
            spec = {"seed": seed, "cells": args.cells, "C": args.C,
                    "oracle": getattr(args, f"{version}_oracle"),
                    "estimator": getattr(args, f"{version}_estimator")}
            r = run_fit(spec, getattr(args, f"{version}_path"))
            results[version].append(r)
            print(f"| {seed} | {version.upper()} | {r['cpu']:.2f} | {r['wall']:.2f} "
                  f"| {r['rounds']} | {r['error']:.3f} | {r['objective']:.6g} |", flush=True)
    for version, rs in results.items():
        print(f"{version.upper()}: CPU {sum(r['cpu'] for r in rs):.1f} s, "
              f"wall {sum(r['wall'] for r in rs):.1f} s, "
              f"{sum(r['rounds'] for r in rs)} rounds, objectives summed "
              f"{sum(r['objective'] for r in rs):.6g}, test error mean "
              f"{statistics.mean(r['error'] for r in rs):.4f} (max "
              f"{max(r['error'] for r in rs):.3f})")
    for clock in ("cpu", "wall"):
        ratio = sum(r[clock] for r in results["b"]) / sum(r[clock] for r in results["a"])
        print(f"{clock} B / A: {ratio:.3f}")
    return results


if __name__ == "__main__":
    main()
