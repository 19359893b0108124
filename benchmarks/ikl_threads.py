"""IKL with threads (``n_jobs``): one fit at 1, 2, … threads, its time split, the same model.

``IKLClassifier(family=GaussianARD(), C=10, random_state=0, n_jobs=k)`` on the 3 × 3
chessboard with 2 signal + 8 noise dimensions (the board of ``ikl_growth.py``: the signal
dimensions at random positions, standardized on the training set), n training points. Each
fit runs in a fresh process (imports excluded from its times) and reports its wall-clock and
CPU times and their split:

* pricing — the oracle's rounds (the engine's ``pricing_time``): the batched searches, whose
  blocks of pairs the threads compute;
* Gram — the columns' Gram matrices (``KernelSpace._gram``, timed by wrapping it), inside the
  master's time;
* master — the rest of the master's time: the SVMs (libsvm, active-set solves, one thread)
  and the sweeps K(d) = Σ d_m K_m and K_m w (threaded);
* other — the rest of the fit (validation, the engine's bookkeeping, the final model).

The benchmark asserts that every ``n_jobs`` gives the same model: the same objective, rounds,
columns (θ to the bit) and weights. ``--grid`` times, in the same run, the baseline a user
tries first: ``GridSearchCV(SVC(), 9 γ × 6 C, cv=5, n_jobs=k)`` on the same data (processes:
scikit-learn's loky backend), for every k of ``--threads``. ``--ab CHECKOUT`` times the fit at
``--ab-n-jobs`` threads (1 by default) alternately from this checkout and from CHECKOUT (e.g.
a ``git worktree`` of HEAD, whose estimators may have no ``n_jobs``), ``--repeats`` times
each: that the threads cost nothing at ``n_jobs=1``, or what a change gains at 16.
``--profile LINES`` profiles the fits of ``--threads`` (cProfile, LINES lines by cumulative
and by own time; Python 3.12 counts the worker threads' calls too, 3.11 only the calling
thread's, where the master runs).

Without cvxpy (and cyipopt) installed: the fit path here needs neither. ``import sipkl``
imports cvxpy (the QCQP and alignment masters, the SIP module), so where it is missing the
fit's process puts an inert stand-in in its place (any use raises ImportError); the Newton
master calls cvxpy only for its QCQP fallback (at most 1000 samples, after stalled steps),
and the table says if a fit did. Without cyipopt the polish of stage (3) is SciPy's L-BFGS-B
(the oracle's own fallback): ``--polish lbfgsb`` uses it everywhere, for timings comparable
between machines with and without cyipopt.

Run:  .venv/bin/python benchmarks/ikl_threads.py [--n 1000 3000] [--threads 1 2 4 8 16] \\
          [--grid] [--repeats 1] [--ab CHECKOUT [--ab-n-jobs 1]] [--polish ipopt|lbfgsb] \\
          [--profile LINES]
"""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _stand_in_for_missing(names=("cvxpy",)) -> list[str]:
    """Where a module of ``names`` cannot be imported, an inert package in its place: any
    attribute is a class whose instances cannot be made (ImportError), so that modules that
    import it load and only a real use fails. Returns the names stood in for."""
    import importlib.abc
    import importlib.util
    import types

    missing = []
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if not missing:
        return []

    def refuse(*args, **kwargs):
        raise ImportError(f"{missing} not installed (an inert stand-in of ikl_threads.py)")

    class StandIn(types.ModuleType):
        def __getattr__(self, attr):
            if attr.startswith("__"):
                raise AttributeError(attr)
            value = type(attr, (Exception,), {"__init__": refuse, "__call__": refuse})
            setattr(self, attr, value)
            return value

    class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, fullname, path, target=None):
            if any(fullname == n or fullname.startswith(n + ".") for n in missing):
                return importlib.util.spec_from_loader(fullname, self, is_package=True)
            return None

        def create_module(self, spec):
            module = StandIn(spec.name)
            module.__path__ = []
            return module

        def exec_module(self, module):
            pass

    sys.meta_path.insert(0, Finder())
    for name in missing:
        sys.modules.pop(name, None)
    return missing


def board(n: int, n_test: int, seed: int, noise: str = "uniform"):
    """The chessboard of ``ikl_growth.py``: 3 × 3 cells, 2 signal + 8 noise dimensions
    (uniform, or ``"gaussian"``)."""
    _stand_in_for_missing()  # the board is sipkl's: import sipkl without cvxpy
    sys.path.insert(0, HERE)
    from ikl_chessboard import board as chessboard
    return chessboard(n, n_test, 3, seed, n_noise=8, noise=noise)


def count_newton_svms() -> dict:
    """Count, from now on in this process, the Newton hinge master's SVM solves (``"all"``)
    and those of its exact searches along a Frank–Wolfe edge (``"exact_search"``)."""
    from sipkl.kernel_learning.masters import hinge
    svms = {"all": 0, "exact_search": 0}
    solve_svm, exact_search = hinge.combined_svm, hinge.HingeMKLNewton._exact_search

    def counted_svm(*a, **k):
        svms["all"] += 1
        return solve_svm(*a, **k)

    def counted_search(self, *a, **k):
        before = svms["all"]
        try:
            return exact_search(self, *a, **k)
        finally:
            svms["exact_search"] += svms["all"] - before
    hinge.combined_svm, hinge.HingeMKLNewton._exact_search = counted_svm, counted_search
    return svms


def fit(spec) -> dict:
    """One IKL fit in this process: times, split, model fingerprint. The environment
    variable ``IKL_THREADS_HIDE`` (names, comma-separated) hides installed modules, to try
    the path of a machine without them (e.g. ``cvxpy,cyipopt``)."""
    for name in filter(None, os.environ.get("IKL_THREADS_HIDE", "").split(",")):
        sys.modules[name] = None  # import raises ImportError
    stood_in = _stand_in_for_missing()
    import inspect

    import numpy as np

    import sipkl
    from sipkl import GaussianARD, IKLClassifier
    from sipkl.pricing import MultiStartOracle
    from sipkl.kernel_learning.masters.hinge import HingeMKLQCQP
    from sipkl.solvers import ipopt
    from sipkl.kernel_learning.space import KernelSpace

    X, y, X_test, y_test = board(spec["n"], spec["n_test"], spec["seed"],
                                 spec.get("noise", "uniform"))
    gram_seconds = [0.0]
    original = KernelSpace._gram

    def timed_gram(self, column):
        t0 = time.perf_counter()
        try:
            return original(self, column)
        finally:
            gram_seconds[0] += time.perf_counter() - t0
    KernelSpace._gram = timed_gram
    qcqp_calls = [0]
    qcqp_solve = HingeMKLQCQP.solve

    def counted_qcqp(self, *a, **k):
        qcqp_calls[0] += 1
        return qcqp_solve(self, *a, **k)
    HingeMKLQCQP.solve = counted_qcqp
    svms = count_newton_svms()
    params = dict(family=GaussianARD(), C=spec["C"], random_state=spec["seed"])
    if spec["polish"] != "ipopt":
        params["oracle"] = MultiStartOracle(method=spec["polish"])
    if "n_jobs" in inspect.signature(IKLClassifier).parameters:
        params["n_jobs"] = spec["n_jobs"]
    elif spec["n_jobs"] != 1:
        raise SystemExit(f"{os.path.dirname(sipkl.__file__)}: IKLClassifier has no n_jobs")
    model = IKLClassifier(**params)
    profiler = cProfile.Profile() if spec.get("profile") else None
    with sipkl.config_context(**spec.get("budgets", {})):
        cpu0, t0 = time.process_time(), time.perf_counter()
        if profiler:
            profiler.enable()
        model.fit(X, y)
        if profiler:
            profiler.disable()
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    profile = ""
    if profiler:
        text = io.StringIO()
        for order in ("cumulative", "tottime"):
            pstats.Stats(profiler, stream=text).sort_stats(order).print_stats(spec["profile"])
        profile = text.getvalue()
    result = model.result_
    pricing = float(np.sum(result.history["pricing_time"]))
    master = float(np.sum(result.history["master_time"]))
    return {
        "n": spec["n"], "n_jobs": spec["n_jobs"], "wall": wall, "cpu": cpu,
        "pricing": pricing, "gram": gram_seconds[0], "master": master - gram_seconds[0],
        "other": wall - pricing - master, "rounds": int(model.n_iter_),
        "objective": float(result.objective), "status": str(result.status),
        "columns": [[float(v) for v in c.theta] for c in model.kernel_.columns],
        "weights": [float(w) for w in model.kernel_.weights],
        "error": float(1 - model.score(X_test, y_test)),
        "qcqp": qcqp_calls[0], "svms": svms, "profile": profile,
        "stand_ins": stood_in, "cyipopt": ipopt.available,
        "package": os.path.dirname(sipkl.__file__), "python": sys.version.split()[0],
    }


def grid(spec) -> dict:
    """``GridSearchCV(SVC(), 9 γ × 6 C, cv=5, n_jobs)`` on the same data, in this process."""
    import numpy as np
    from sklearn.model_selection import GridSearchCV
    from sklearn.svm import SVC

    X, y, X_test, y_test = board(spec["n"], spec["n_test"], spec["seed"],
                                 spec.get("noise", "uniform"))
    # γ log-spaced around 1 / (dimensions · variance), the data being standardized
    gammas = np.logspace(-3, 1, 9)
    search = GridSearchCV(SVC(), {"gamma": gammas, "C": np.logspace(-2, 3, 6)}, cv=5,
                          n_jobs=spec["n_jobs"])
    cpu0, t0 = time.process_time(), time.perf_counter()
    search.fit(X, y)
    return {"n": spec["n"], "n_jobs": spec["n_jobs"], "wall": time.perf_counter() - t0,
            "cpu_parent": time.process_time() - cpu0,
            "error": float(1 - search.score(X_test, y_test)), "best": {
                k: float(v) for k, v in search.best_params_.items()}}


def calls(spec) -> str:
    """The compute layer's calls of a fit at n = 1000 alone (700 support points, 10
    dimensions: the sizes of the chessboard's rounds), per number of threads: a markdown
    table of milliseconds per call (best of 5) and the speed-up over one thread."""
    _stand_in_for_missing()
    import numpy as np

    import sipkl
    from sipkl.compute.exponential import (PairExponential, gaussian_gram,
                                           pair_squared_differences, upper_triangle)
    from sipkl.compute.lazy_gram import combined_gram
    from sipkl.utils.threads import one_blas_thread, thread_pool

    rng = np.random.default_rng(0)
    X, _, _, _ = board(1000, 10, 0)
    S = X[:700]
    W = rng.normal(size=(700, 700))
    W += W.T
    pricer = PairExponential(pair_squared_differences(S), 2.0 * upper_triangle(W), np.trace(W))
    thetas = rng.uniform(0.0, 0.3, (200, X.shape[1]))
    grams = [gaussian_gram(X * np.sqrt(t), X * np.sqrt(t)) for t in thetas[:20]]
    d = rng.dirichlet(np.ones(20))
    w = rng.normal(size=1000)
    cases = {
        "screening: 200 values (float32)": lambda: pricer(thetas, False, np.float32),
        "ascent: 12 values, gradients, curvatures (float32)":
            lambda: pricer(thetas[:12], True, np.float32, curvature=True),
        "ascent: 4 values, gradients, curvatures (float32)":
            lambda: pricer(thetas[:4], True, np.float32, curvature=True),
        "Newton: 5 values and gradients (float64)": lambda: pricer(thetas[:5], True),
        "Newton: 5 Hessians on 9 coordinates (float32)":
            lambda: pricer.hessians(thetas[:5], np.arange(9), np.float32),
        "polish: 1 value and gradient (float64)": lambda: pricer(thetas[:1], True),
        "squared differences of 244 650 pairs": lambda: pair_squared_differences(S),
        "Gram matrix, n = 1000": lambda: gaussian_gram(X * 0.3, X * 0.3),
        "K(d) of 20 Gram matrices, n = 1000": lambda: combined_gram(grams, d),
        "K_m w of 20 Gram matrices, n = 1000":
            lambda: sipkl.compute.gram_storage.DenseGrams(grams).products(w),
    }
    times = {}
    with sipkl.config_context(**spec.get("budgets", {})), one_blas_thread():
        for k in spec["threads"]:
            with thread_pool(k):
                for name, call in cases.items():
                    call()
                    best = np.inf
                    for _ in range(5):
                        t0 = time.perf_counter()
                        call()
                        best = min(best, time.perf_counter() - t0)
                    times[name, k] = best
    lines = ["| call | " + " | ".join(f"{k} thread{'s' * (k > 1)} (ms)"
                                      for k in spec["threads"]) + " |",
             "|---|" + "---:|" * len(spec["threads"])]
    first = spec["threads"][0]
    for name in cases:
        lines.append(f"| {name} | " + " | ".join(
            f"{1e3 * times[name, k]:.2f}" + ("" if k == first else
                                             f" ({times[name, first] / times[name, k]:.1f}×)")
            for k in spec["threads"]) + " |")
    return "\n".join(lines)


def _contention_cases():
    """The hot calls of :func:`contention`, each a function of its worker's buffers: a
    pricer's products over 245 000 pairs for 12 starts in blocks of 2¹⁸ entries (single
    precision), both ways, and the master's sweeps over eight 1000 × 1000 Gram matrices."""
    import numpy as np
    from scipy.linalg.blas import daxpy

    rng = np.random.default_rng(0)
    P, S, p = 245_000, 12, 10
    B = 2 ** 18 // S
    rows = rng.random((P, 2 * p)).astype(np.float32)
    deltas_t = np.ascontiguousarray(rows[:, :p].T)
    thetas = -rng.random((S, p)).astype(np.float32)
    grams = [rng.random((1000, 1000)) for _ in range(8)]
    w = rng.random(1000)
    starts = range(0, B * (P // B), B)

    def sweep(buffers):
        out = buffers["K(d)"]
        for s in range(0, out.size, 2 ** 16):
            for K in grams:
                daxpy(K.reshape(-1)[s:s + 2 ** 16], out[s:s + 2 ** 16], a=0.3)
    return {
        "pricer: reduction over the pairs, np.matmul": lambda b: [
            np.matmul(b["E"], rows[k:k + B]) for k in starts],
        "pricer: reduction over the pairs, np.dot": lambda b: [
            np.dot(b["E"], rows[k:k + B]) for k in starts],
        "pricer: exponents, np.matmul": lambda b: [
            np.matmul(thetas, deltas_t[:, k:k + B], out=b["E"]) for k in starts],
        "pricer: exponents, np.dot": lambda b: [
            np.dot(thetas, deltas_t[:, k:k + B], out=b["E"]) for k in starts],
        "pricer: exponentials": lambda b: [np.exp(b["A"], out=b["E"]) for _ in starts],
        "master: K_m w, np.dot": lambda b: [np.dot(K, w) for K in grams],
        "master: K(d), BLAS axpy in blocks of 2^16": sweep,
    }, lambda: {"E": np.zeros((S, B), np.float32), "A": np.full((S, B), -0.5, np.float32),
                "K(d)": np.zeros(10 ** 6)}


def _contention_worker(name, repeats, barrier, queue):
    from threadpoolctl import threadpool_limits
    threadpool_limits(1)
    cases, buffers = _contention_cases()
    call, own = cases[name], buffers()
    call(own)  # warm
    barrier.wait()
    t0 = time.perf_counter()
    for _ in range(repeats):
        call(own)
    queue.put(time.perf_counter() - t0)


def contention(threads, repeats: int = 20) -> str:
    """Throughput of k independent workers, each repeating one hot call on its own buffers
    (no work shared, nothing waited for but the GIL and the machine): k threads of this
    process against k forked processes, as k × (one worker's time) / (their time); k is
    ideal. A call that keeps the GIL gains nothing in threads and all in processes."""
    import multiprocessing
    import threading

    from threadpoolctl import threadpool_limits
    threadpool_limits(1)
    cases, buffers = _contention_cases()
    counts = [k for k in threads if k > 1]
    lines = ["| call | 1 worker (ms) | " + " | ".join(f"{k} threads | {k} processes"
                                                    for k in counts) + " |",
             "|---|---:|" + "---:|---:|" * len(counts)]
    for name, call in cases.items():
        own = buffers()
        call(own)
        t0 = time.perf_counter()
        for _ in range(repeats):
            call(own)
        one = time.perf_counter() - t0
        cells = []
        for k in counts:
            mine = [buffers() for _ in range(k)]
            workers = [threading.Thread(target=lambda b=b: [call(b) for _ in range(repeats)])
                       for b in mine]
            t0 = time.perf_counter()
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            in_threads = time.perf_counter() - t0
            context = multiprocessing.get_context("fork")
            barrier, queue = context.Barrier(k), context.Queue()
            processes = [context.Process(target=_contention_worker,
                                         args=(name, repeats, barrier, queue))
                         for _ in range(k)]
            for process in processes:
                process.start()
            in_processes = max(queue.get() for _ in processes)
            for process in processes:
                process.join()
            cells += [f"{k * one / in_threads:.1f}×", f"{k * one / in_processes:.1f}×"]
        lines.append(f"| {name} | {1e3 * one / repeats:.2f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(kind: str, spec: dict, path: str = ROOT) -> dict:
    """``kind`` (fit or grid) of ``spec`` in a fresh process importing sipkl from ``path``
    (put before the ``PYTHONPATH`` of this process, which may hold the other packages)."""
    paths = [os.path.abspath(path), HERE] + [p for p in os.environ.get("PYTHONPATH", "")
                                             .split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    out = subprocess.run([sys.executable, os.path.abspath(__file__), f"--{kind}",
                          json.dumps(spec)], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{kind} {spec} from {path} failed:\n{out.stderr[-4000:]}")
    return json.loads(out.stdout.splitlines()[-1])


def same_model(a: dict, b: dict) -> bool:
    return all(a[k] == b[k] for k in ("objective", "rounds", "columns", "weights"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1000])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--grid", action="store_true", help="time the SVC grid search too")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--C", type=float, default=10.0)
    parser.add_argument("--n-test", type=int, default=2000)
    parser.add_argument("--polish", choices=["ipopt", "lbfgsb"], default="ipopt")
    parser.add_argument("--budgets", type=json.loads, default={},
                        help="budgets of sipkl.utils.config for the fits, a JSON object")
    parser.add_argument("--contention", action="store_true",
                        help="first the throughput of independent workers on the hot calls, "
                             "threads against processes, at each --threads")
    parser.add_argument("--pricer", action="store_true",
                        help="time the compute layer's calls alone at each --threads first")
    parser.add_argument("--ab", metavar="CHECKOUT",
                        help="also time the fit from CHECKOUT, alternating with this one")
    parser.add_argument("--ab-n-jobs", type=int, default=1, help="n_jobs of the --ab fits")
    parser.add_argument("--profile", type=int, default=0, metavar="LINES",
                        help="profile each fit: LINES lines by cumulative and by own time")
    parser.add_argument("--fit", type=json.loads, help=argparse.SUPPRESS)
    parser.add_argument("--grid-search", type=json.loads, help=argparse.SUPPRESS)
    parser.add_argument("--calls", type=json.loads, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.fit is not None:
        print(json.dumps(fit(args.fit)))
        return None
    if args.grid_search is not None:
        print(json.dumps(grid(args.grid_search)))
        return None
    if args.calls is not None:
        print(json.dumps({"table": calls(args.calls)}))
        return None

    import platform
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs (usable: {usable}), "
          f"load average {os.getloadavg()[0]:.2f} at the start")
    if args.contention:
        import numpy
        print(f"NumPy {numpy.__version__}")
        print(contention(args.threads))
    if args.pricer:
        print(run("calls", {"threads": args.threads, "budgets": args.budgets})["table"])
    rows, grids = [], []
    for n in args.n:
        base = {"n": n, "n_test": args.n_test, "seed": args.seed, "C": args.C,
                "polish": args.polish, "budgets": args.budgets, "profile": args.profile}
        fits = {}
        for repeat in range(args.repeats):
            for k in args.threads:
                r = run("fit", {**base, "n_jobs": k})
                fits.setdefault(k, []).append(r)
                print(f"  n={n} n_jobs={k} (repeat {repeat}): wall {r['wall']:.2f} s, "
                      f"CPU {r['cpu']:.2f} s, pricing {r['pricing']:.2f} s, Gram "
                      f"{r['gram']:.2f} s, master {r['master']:.2f} s, objective "
                      f"{r['objective']!r}", flush=True)
                print(r["profile"], end="", flush=True)
        first = fits[args.threads[0]][0]
        for k, runs in fits.items():
            for r in runs:
                assert same_model(first, r), f"n_jobs={k} gave another model than " \
                    f"n_jobs={args.threads[0]}: {r['objective']!r} vs {first['objective']!r}"
        for k, runs in fits.items():
            rows.append((n, k, runs))
        if args.grid:
            for k in args.threads:
                grids.append(run("grid-search", {**base, "n_jobs": k}))
                print(f"  n={n} grid search n_jobs={k}: wall {grids[-1]['wall']:.2f} s",
                      flush=True)
        if args.ab:
            ab = {"this": [], "other": []}
            for repeat in range(max(args.repeats, 1)):
                order = ("this", "other") if repeat % 2 == 0 else ("other", "this")
                for which in order:
                    r = run("fit", {**base, "n_jobs": args.ab_n_jobs},
                            ROOT if which == "this" else args.ab)
                    ab[which].append(r)
                    print(f"  A/B n={n} {which} (repeat {repeat}): wall {r['wall']:.2f} s, "
                          f"CPU {r['cpu']:.2f} s, objective {r['objective']!r}", flush=True)
            print(f"\nn = {n}, n_jobs = {args.ab_n_jobs}, this checkout against {args.ab} "
                  f"({len(ab['this'])} fits each, alternating):\n")
            print("| checkout | wall median (s) | wall min (s) | CPU median (s) | CPU min (s) "
                  "| rounds | objective |")
            print("|---|---:|---:|---:|---:|---:|---:|")
            for which, runs in ab.items():
                print(f"| {which} | {statistics.median(r['wall'] for r in runs):.2f} "
                      f"| {min(r['wall'] for r in runs):.2f} "
                      f"| {statistics.median(r['cpu'] for r in runs):.2f} "
                      f"| {min(r['cpu'] for r in runs):.2f} | {runs[0]['rounds']} "
                      f"| {runs[0]['objective']:.10g} |")
            print(f"same model: {same_model(ab['this'][0], ab['other'][0])}")

    print("\n| n | n_jobs | wall (s) | speed-up | CPU (s) | pricing (s) | Gram (s) "
          "| master (s) | other (s) | rounds | test error |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, k, runs in rows:
        best = min(runs, key=lambda r: r["wall"])
        one = min((r for m, j, rs in rows if m == n and j == min(args.threads) for r in rs),
                  key=lambda r: r["wall"])
        print(f"| {n} | {k} | {best['wall']:.2f} | {one['wall'] / best['wall']:.2f} "
              f"| {best['cpu']:.2f} | {best['pricing']:.2f} | {best['gram']:.2f} "
              f"| {best['master']:.2f} | {best['other']:.2f} | {best['rounds']} "
              f"| {best['error']:.4f} |")
    if grids:
        print("\n| n | n_jobs | SVC grid search 9 γ × 6 C, cv=5 (s) | IKL (s) | IKL / grid "
              "| grid test error |")
        print("|---:|---:|---:|---:|---:|---:|")
        for g in grids:
            ikl = min(r["wall"] for m, j, rs in rows if m == g["n"] and j == g["n_jobs"]
                      for r in rs)
            print(f"| {g['n']} | {g['n_jobs']} | {g['wall']:.2f} | {ikl:.2f} "
                  f"| {ikl / g['wall']:.2f} | {g['error']:.4f} |")
    sample = rows[0][2][0]
    print(f"\nevery n_jobs gave the same model (objective, rounds, columns, weights: asserted); "
          f"status {sample['status']}; stand-ins for missing modules: "
          f"{sample['stand_ins'] or 'none'}; cyipopt: {sample['cyipopt']}; "
          f"QCQP fallbacks (cvxpy): {sum(r['qcqp'] for _, _, rs in rows for r in rs)}; "
          f"load average {os.getloadavg()[0]:.2f} at the end")
    return rows, grids


if __name__ == "__main__":
    main()
