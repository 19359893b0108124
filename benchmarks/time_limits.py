"""Time limits and Ctrl-C: how far past ``time_limit`` a run returns, how soon after SIGINT.

Each cell runs in a fresh process and prints one row:

* ``nystrom``: ``IKLClassifier(family=GaussianARD(), C=10, n_landmarks=q, random_state=0,
  time_limit=T)`` on n points of the 3 × 3 chessboard with 8 uniform noise dimensions
  (standardized; two classes, one binary problem): the fit's wall time, its overshoot
  (wall time − T), the status, rounds, and the master's and the pricing's seconds in the
  last round;
* ``sip``: the one-sided L1 approximation of tan by 5 coefficients on [0, 1] (``tol=1e-3``:
  the exchange method converges in one round), g sleeping ``--delay`` seconds per call,
  ``solve(time_limit=T)``: wall time, overshoot, the end of the message (what the local
  reduction did);
* ``interrupt``: a 3-class IKL fit (``make_classification``, 400 points, 6 features; no
  objective rule, ``tol=1e-8``: it runs for tens of seconds) at ``n_jobs`` 1 and 2, sent
  SIGINT ``--after`` seconds in: the seconds from the signal to the return of ``fit`` (or to
  the ``KeyboardInterrupt`` it raises) and the statuses.

``--checkout DIR`` runs the cells on the sipkl of another tree (e.g. an older commit
unpacked with ``git archive COMMIT sipkl solvers | tar -x -C DIR``): the before and after.

Run:  OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/time_limits.py \\
          [--cases nystrom sip interrupt] [--n 3000 10000] [--landmarks 200] \\
          [--time-limits 5 30] [--sip-time-limits 1 2] [--delay 0.02] [--after 2] \\
          [--checkout DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

NYSTROM = """
import json, time, warnings
from sklearn.preprocessing import StandardScaler
from sipkl import GaussianARD, IKLClassifier
from sipkl.datasets import make_checkerboard
X, y = make_checkerboard({n}, 8, 3, random_state=0)
X = StandardScaler().fit_transform(X)
clf = IKLClassifier(family=GaussianARD(), C=10.0, n_landmarks={q}, random_state=0,
                    time_limit={T})
start = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    clf.fit(X, y)
seconds = time.perf_counter() - start
h = clf.result_.history
print(json.dumps(dict(seconds=seconds, status=str(clf.result_.status), rounds=clf.n_iter_,
                      master=h["master_time"][-1], pricing=h["pricing_time"][-1])))
"""

SIP = """
import json, time
import cvxpy as cp, numpy as np
from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram
c = cp.Variable(5)
def g(c, t):
    time.sleep({delay})
    return np.tan(t[:, 0]) - np.vander(t[:, 0], 5, increasing=True) @ c
program = SemiInfiniteProgram(cp.Minimize((1.0 / np.arange(1, 6)) @ c),
                              [SemiInfiniteConstraint(g, c, Box([0.0], [1.0]), vectorized=True)])
start = time.perf_counter()
res = program.solve(tol=1e-3, time_limit={T})
seconds = time.perf_counter() - start
print(json.dumps(dict(seconds=seconds, status=str(res.status),
                      reduction=res.message.split("; ")[-1])))
"""

INTERRUPT = """
import json, os, signal, threading, time, warnings
from sklearn.datasets import make_classification
from sipkl import GaussianARD, IKLClassifier
X, y = make_classification(400, n_features=6, n_informative=4, n_redundant=0, n_classes=3,
                           n_clusters_per_class=2, random_state=0)
clf = IKLClassifier(family=GaussianARD(), C=10.0, obj_tol=0.0, tol=1e-8, max_iter=1000,
                    random_state=0, n_jobs={n_jobs})
sent = []
def ctrl_c():
    sent.append(time.perf_counter())
    os.kill(os.getpid(), signal.SIGINT)
threading.Timer({after}, ctrl_c).start()
try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    outcome = [str(r.status) for r in clf.result_]
except KeyboardInterrupt:
    outcome = "KeyboardInterrupt, no model"
print(json.dumps(dict(seconds=time.perf_counter() - sent[0], outcome=outcome)))
"""


def run_cell(code: str, checkout) -> dict:
    """The cell's row, run in a fresh process on the sipkl of ``checkout`` (default: this
    tree)."""
    env = dict(os.environ)
    if checkout:
        env["PYTHONPATH"] = os.pathsep.join([str(checkout), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=checkout or ROOT, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=["nystrom", "sip", "interrupt"],
                        choices=["nystrom", "sip", "interrupt"])
    parser.add_argument("--n", type=int, nargs="+", default=[3000, 10000])
    parser.add_argument("--landmarks", type=int, nargs="+", default=[200])
    parser.add_argument("--time-limits", type=float, nargs="+", default=[5.0, 30.0])
    parser.add_argument("--sip-time-limits", type=float, nargs="+", default=[1.0, 2.0])
    parser.add_argument("--delay", type=float, default=0.02)
    parser.add_argument("--after", type=float, default=2.0)
    parser.add_argument("--checkout", type=Path, default=None)
    args = parser.parse_args(argv)
    if "nystrom" in args.cases:
        print("| n | q | time_limit (s) | fit (s) | overshoot (s) | status, rounds | last "
              "master (s) | last pricing (s) |\n|---:|---:|---:|---:|---:|---|---:|---:|")
        for n in args.n:
            for q in args.landmarks:
                for T in args.time_limits:
                    r = run_cell(NYSTROM.format(n=n, q=q, T=T), args.checkout)
                    print(f"| {n} | {q} | {T:g} | {r['seconds']:.1f} | "
                          f"{r['seconds'] - T:.1f} | {r['status']}, {r['rounds']} | "
                          f"{r['master']:.1f} | {r['pricing']:.1f} |", flush=True)
    if "sip" in args.cases:
        print("\n| time_limit (s) | solve (s) | overshoot (s) | status | the message's end "
              "|\n|---:|---:|---:|---|---|")
        for T in args.sip_time_limits:
            r = run_cell(SIP.format(delay=args.delay, T=T), args.checkout)
            print(f"| {T:g} | {r['seconds']:.2f} | {r['seconds'] - T:.2f} | {r['status']} | "
                  f"{r['reduction']} |", flush=True)
    if "interrupt" in args.cases:
        print("\n| n_jobs | signal to return (s) | statuses |\n|---:|---:|---|")
        for n_jobs in (1, 2):
            r = run_cell(INTERRUPT.format(n_jobs=n_jobs, after=args.after), args.checkout)
            print(f"| {n_jobs} | {r['seconds']:.2f} | {r['outcome']} |", flush=True)


if __name__ == "__main__":
    main()
