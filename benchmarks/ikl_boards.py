"""IKL against the grid-searched SVM on the boards of the speed target, at one n_jobs.

For every n, noise kind (the 8 noise dimensions uniform, as in the paper, or standard normal),
C and seed: one ``IKLClassifier(family=GaussianARD(), C=C, random_state=seed, n_jobs=k)``
fit and one ``GridSearchCV(SVC(), 9 γ × 6 C, cv=5, n_jobs=k)`` on the same standardized
3 × 3 chessboard (2 signal + 8 noise dimensions, ``ikl_threads.board``), each in a fresh
process, one after the other (imports excluded from the times); the ratio IKL / grid search
of their wall times, and both test errors on 2000 points. The machine and its load are
printed with the table: the ratios are only comparable within one run. ``--ab CHECKOUT``
(e.g. a ``git worktree`` of an earlier commit) also fits IKL from CHECKOUT right after each
fit, and prints its time, rounds, the ratio of the two, whether the two fits learned the same
model (to the bit) and the SVMs of the Newton master's exact searches in each.

Run:  .venv/bin/python benchmarks/ikl_boards.py [--n 1000] [--C 1 10 100] \\
          [--noise uniform gaussian] [--seeds 0 1] [--n-jobs 1] [--ab CHECKOUT]
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics

from ikl_threads import run, same_model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1000])
    parser.add_argument("--C", type=float, nargs="+", default=[1.0, 10.0, 100.0])
    parser.add_argument("--noise", nargs="+", default=["uniform", "gaussian"],
                        choices=["uniform", "gaussian"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--n-test", type=int, default=2000)
    parser.add_argument("--ab", metavar="CHECKOUT", help="also fit IKL from CHECKOUT")
    args = parser.parse_args(argv)
    ab_head = (" IKL at CHECKOUT (s) | its rounds | IKL / CHECKOUT | same model "
               "| SVMs in exact searches: IKL / CHECKOUT |" if args.ab else "")
    print(f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
          f"load average {os.getloadavg()[0]:.2f} at the start; n_jobs = {args.n_jobs}")
    print("\n| n | noise | C | seed | IKL (s) | grid search (s) | IKL / grid | IKL error "
          "| SVM error | IKL rounds | IKL status |" + ab_head)
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
          + "---:|---:|---:|---|---:|" * bool(args.ab))
    ratios = {}
    for n in args.n:
        for noise in args.noise:
            grids = {}
            for C in args.C:
                for seed in args.seeds:
                    spec = {"n": n, "n_test": args.n_test, "seed": seed, "C": C,
                            "noise": noise, "polish": "ipopt", "budgets": {},
                            "n_jobs": args.n_jobs}
                    fit = run("fit", spec)
                    if seed not in grids:  # the grid search does not depend on C
                        grids[seed] = run("grid-search", spec)
                    grid = grids[seed]
                    ratio = fit["wall"] / grid["wall"]
                    ratios.setdefault((n, noise), []).append(ratio)
                    ab_cells = ""
                    if args.ab:
                        other = run("fit", spec, args.ab)
                        ab_cells = (f" {other['wall']:.2f} | {other['rounds']} "
                                    f"| {fit['wall'] / other['wall']:.2f} "
                                    f"| {'yes' if same_model(fit, other) else 'no'} "
                                    f"| {fit['svms']['exact_search']} / "
                                    f"{other['svms']['exact_search']} |")
                    print(f"| {n} | {noise} | {C:g} | {seed} | {fit['wall']:.2f} "
                          f"| {grid['wall']:.2f} | {ratio:.2f} | {fit['error']:.4f} "
                          f"| {grid['error']:.4f} | {fit['rounds']} | {fit['status']} |"
                          + ab_cells, flush=True)
    print("\n| n | noise | IKL / grid: median | worst |")
    print("|---:|---|---:|---:|")
    for (n, noise), values in ratios.items():
        print(f"| {n} | {noise} | {statistics.median(values):.2f} | {max(values):.2f} |")
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
