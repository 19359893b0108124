"""IKL at large n: Nyström columns against exact IKL on a subsample and random features.

The 3 × 3 chessboard with 2 signal + 8 noise dimensions of ``ikl_boards.py`` (standardized;
``--noise-dims`` other than 8),
n training points and 10 000 test points. Each cell runs in a fresh subprocess and reports
its wall time, peak resident memory (``ru_maxrss``, imports included) and test accuracy:

* ``nystrom``: ``IKLClassifier(family=GaussianARD(), C=C, n_landmarks=q, random_state=seed,
  time_limit=T, n_jobs=k, device=…)`` on all n points, with its status, rounds, kernels,
  the Newton master's SVM solves (and those of its exact searches) and exact-kernel gap,
  once for each of ``--devices`` (``numpy``: the default, ``device=None``; else a PyTorch
  device such as ``cuda``, whose peak memory is reported beside the process's);
  with ``--warm-start m k``, first exact IKL with ``max_iter=k`` on the first m points, then
  ``warm_start=True`` on all n (the time is both fits');
* ``exact``: the same without ``n_landmarks`` and with no time limit on the first
  ``--subsample`` points;
* ``rff``: random Fourier features (scikit-learn's ``RBFSampler``, ``--rff-components``)
  and ``LinearSVC``, γ and C tuned on a 20 % hold-out over the grid of ``ikl_boards.py``
  (9 γ × 6 C), refitted on all n points; with ``--rff-time-limit T``, no grid cell is begun
  after T seconds (the best of those tried is refitted; at large n, for a run near a given
  time);
* ``default``: the one call ``IKLClassifier(family=GaussianARD(), C=C, random_state=seed,
  n_jobs=k)`` on all n points (above 5000 points its two stages,
  :mod:`sipkl.kernel_learning.large_n`), ``time_limit`` only with ``--default-time-limit``;
  the status gives what each stage did and which model was kept;
* ``hgb``: scikit-learn's ``HistGradientBoostingClassifier`` with its defaults;
* ``svc``: ``SVC()`` with its defaults on all n points;
* ``svm_subsample``: the RBF ``SVC`` tuned by 3-fold ``GridSearchCV`` over the grid of
  ``ikl_boards.py`` on ``--svm-subsample`` random points;
* ``gpytorch``: GPyTorch's sparse variational GP classifier with ARD widths
  (``gpytorch_peer.py``: ``--gp-inducing`` points, ``--gp-epochs`` passes of Adam over
  minibatches, stopped at ``--time-limit``; on each of ``--devices``, torch's threads
  ``--n-jobs``, all cores for −1).

Run:  OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/ikl_large.py --n 10000 \\
          [--methods nystrom exact rff] [--landmarks 200] [--time-limit 900] \\
          [--max-iter 50] [--profile 40] [--n-jobs 1] [--devices numpy cuda] \\
          [--warm-start 3000 5] [--gp-inducing 500] [--gp-epochs 50] \\
          [--rff-time-limit T] [--default-time-limit T] [--svm-subsample 5000] \\
          [--noise-dims 8]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from importlib.util import find_spec
from pathlib import Path

METHODS = ("default", "nystrom", "exact", "rff", "gpytorch", "hgb", "svm_subsample", "svc")
#: the methods that run on each of ``--devices``
ON_DEVICES = ("nystrom", "gpytorch")

CELL = """
import json, resource, sys, time
import numpy as np
sys.path.insert(0, {bench!r})
from ikl_chessboard import board, INVERSE_THETAS
X, y, X_test, y_test = board({n}, 10000, 3, {seed}, n_noise={noise_dims})
t0 = time.perf_counter()
extra = {{}}
if {method!r} == "rff":
    from sklearn.kernel_approximation import RBFSampler
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC
    cut = int(0.8 * len(X))
    def model_of(gamma, C):
        return make_pipeline(RBFSampler(gamma=gamma, n_components={components},
                                        random_state={seed}), LinearSVC(C=C, max_iter=2000))
    scores = {{}}
    for g in [1.0 / v ** 2 for v in INVERSE_THETAS]:
        for C in np.logspace(-2, 3, 6):
            if {rff_time_limit} is None or time.perf_counter() - t0 < {rff_time_limit}:
                scores[g, C] = model_of(g, C).fit(X[:cut], y[:cut]).score(X[cut:], y[cut:])
    best = max(scores, key=scores.get)
    model = model_of(*best).fit(X, y)
    extra = {{"status": f"gamma = {{best[0]:.3g}}, C = {{best[1]:g}}, {{len(scores)}} of 54 "
                        "grid cells"}}
elif {method!r} == "hgb":
    from sklearn.ensemble import HistGradientBoostingClassifier
    model = HistGradientBoostingClassifier(random_state={seed}).fit(X, y)
    extra = {{"status": f"{{model.n_iter_}} iterations (defaults)"}}
elif {method!r} == "svc":
    from sklearn.svm import SVC
    model = SVC().fit(X, y)
    extra = {{"status": f"{{model.n_support_.sum()}} support vectors (defaults)"}}
elif {method!r} == "svm_subsample":
    from sklearn.model_selection import GridSearchCV
    from sklearn.svm import SVC
    part = np.random.default_rng({seed}).permutation(len(X))[:{svm_subsample}]
    grid = {{"gamma": [1.0 / v ** 2 for v in INVERSE_THETAS], "C": np.logspace(-2, 3, 6)}}
    model = GridSearchCV(SVC(), grid, cv=3).fit(X[part], y[part])
    extra = {{"status": f"{{len(part)}} points, gamma = {{model.best_params_['gamma']:.3g}}, "
                        f"C = {{model.best_params_['C']:g}}"}}
elif {method!r} == "default":
    import warnings
    from sipkl import GaussianARD, IKLClassifier
    warnings.simplefilter("ignore")
    model = IKLClassifier(family=GaussianARD(), C={C}, random_state={seed},
                          time_limit={default_time_limit}, n_jobs={n_jobs}).fit(X, y)
    extra = {{"status": "; ".join(s["summary"].strip() + (" (kept)" if s["selected"] else "")
                                  for s in (model.stages_ or []))
                        or f"{{model.result_.status.value}}, {{model.n_iter_}} it."}}
elif {method!r} == "gpytorch":
    import os
    from gpytorch_peer import SVGPClassifier
    model = SVGPClassifier(inducing={inducing}, epochs={epochs}, time_limit={time_limit},
                           device={device!r} or "cpu", random_state={seed},
                           threads=os.cpu_count() if {n_jobs} == -1 else {n_jobs}).fit(X, y)
    extra = {{"status": f"{{model.epochs_}} epochs, {inducing} inducing points, lengths "
                        + " ".join(f"{{v:.2g}}" for v in model.lengthscales())}}
    if ({device!r} or "").startswith("cuda"):
        import torch
        extra["status"] += (f", GPU peak {{torch.cuda.max_memory_allocated() / 2 ** 20:.0f}}"
                            " MB")
else:
    import warnings
    from sipkl import GaussianARD, IKLClassifier
    warnings.simplefilter("ignore")
    landmarks = {landmarks} if {method!r} == "nystrom" else None
    data = (X, y) if landmarks else (X[:{subsample}], y[:{subsample}])
    model = IKLClassifier(family=GaussianARD(), C={C}, random_state={seed},
                          n_landmarks=landmarks, max_iter={max_iter},
                          time_limit={time_limit} if landmarks else None, n_jobs={n_jobs},
                          device={device!r} if landmarks else None)
    if landmarks and {warm_start}:
        part, rounds = {warm_start}
        model.set_params(n_landmarks=None, device=None, max_iter=rounds).fit(X[:part], y[:part])
        extra["start"] = (f"from exact IKL on {{part}} points, {{model.n_iter_}} it., "
                          f"{{len(model.kernel_)}} kernels, {{time.perf_counter() - t0:.1f}} s")
        model.set_params(n_landmarks=landmarks, device={device!r}, max_iter={max_iter},
                         warm_start=True)
    from ikl_threads import count_newton_svms
    svms = count_newton_svms()  # of the fit below
    if {profile}:
        import cProfile, pstats
        profiler = cProfile.Profile()
        profiler.runcall(model.fit, *data)
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats({profile})
    else:
        model.fit(*data)
    extra["status"] = (f"{{model.result_.status.value}}, {{model.n_iter_}} it., "
                       f"{{len(model.kernel_)}} kernels, {{svms['all']}} SVMs "
                       f"({{svms['exact_search']}} in exact searches)")
    if landmarks:
        extra["status"] += f", exact-kernel gap {{model.exact_kernel_gap_:.3g}}"
    if landmarks and {device!r} is not None and {device!r}.startswith("cuda"):
        import torch
        extra["status"] += (f", GPU peak {{torch.cuda.max_memory_allocated() / 2 ** 20:.0f}}"
                            " MB")
seconds = time.perf_counter() - t0
print(json.dumps(dict(seconds=seconds, accuracy=model.score(X_test, y_test),
                      peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      **extra)))
"""


def run_cell(method, args, n, device=None):
    code = CELL.format(n_jobs=args.n_jobs, device=device, warm_start=args.warm_start,
                       bench=str(Path(__file__).resolve().parent), n=n, seed=args.seed,
                       method=method, C=args.C, landmarks=args.landmarks,
                       subsample=args.subsample, time_limit=args.time_limit,
                       components=args.rff_components, max_iter=args.max_iter,
                       profile=args.profile, inducing=args.gp_inducing,
                       epochs=args.gp_epochs, rff_time_limit=args.rff_time_limit,
                       svm_subsample=args.svm_subsample,
                       default_time_limit=args.default_time_limit,
                       noise_dims=args.noise_dims)
    t0 = time.perf_counter()
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=args.timeout, check=True)
    except subprocess.TimeoutExpired:
        return {"timeout": args.timeout, "seconds": time.perf_counter() - t0}
    if args.profile:
        print(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[10000])
    parser.add_argument("--C", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--landmarks", type=int, default=200)
    parser.add_argument("--subsample", type=int, default=10000)
    parser.add_argument("--time-limit", type=float, default=900.0)
    parser.add_argument("--rff-components", type=int, default=1000)
    parser.add_argument("--svm-subsample", type=int, default=5000)
    parser.add_argument("--noise-dims", type=int, default=8,
                        help="uniform noise dimensions beside the board's two (0: the "
                             "isotropic kernel is right)")
    parser.add_argument("--default-time-limit", type=float, default=None,
                        help="default: the one call with no time limit")
    parser.add_argument("--rff-time-limit", type=float, default=None)
    parser.add_argument("--max-iter", type=int, default=50)
    parser.add_argument("--profile", type=int, default=0,
                        help="print this many lines of a cProfile of each IKL fit")
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--warm-start", type=int, nargs=2, metavar=("POINTS", "ROUNDS"),
                        help="nystrom: continue from exact IKL on the first POINTS points")
    parser.add_argument("--devices", nargs="+", default=["numpy"],
                        help="where the nystrom and gpytorch cells compute: numpy (for "
                             "gpytorch: torch's CPU), or PyTorch devices")
    parser.add_argument("--gp-inducing", type=int, default=500)
    parser.add_argument("--gp-epochs", type=int, default=50)
    parser.add_argument("--methods", nargs="+", choices=METHODS,
                        default=[m for m in METHODS if m != "gpytorch" or find_spec(m)],
                        help="default: all, gpytorch where it is installed")
    args = parser.parse_args(argv)
    print("| n | method | time (s) | peak memory (MB) | test accuracy | status |")
    print("|---:|---|---:|---:|---:|---|")
    for n in args.n:
        for method, device in [(m, d) for m in args.methods
                               for d in (args.devices if m in ON_DEVICES else ["numpy"])]:
            label = method if device == "numpy" else f"{method} ({device})"
            cell = run_cell(method, args, n, None if device == "numpy" else device)
            if "timeout" in cell:
                print(f"| {n} | {label} | > {cell['timeout']:.0f} | | | timeout |", flush=True)
                continue
            print(f"| {n} | {label} | {cell['seconds']:.1f} | {cell['peak_mb']:.0f} "
                  f"| {cell['accuracy']:.4f} | {cell.get('status', '')} |", flush=True)
            if "start" in cell:
                print(f"|  | (warm start) | | | | {cell['start']} |", flush=True)


if __name__ == "__main__":
    main()
