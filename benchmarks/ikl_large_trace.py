"""One warm-started Nyström IKL fit with a trace of its master's SVMs on working sets.

The board of ``ikl_large.py`` (n training points, 10 000 test points, seed 0): exact IKL on
the first 3000 points (5 rounds), then ``IKLClassifier(n_landmarks=200, device=…,
max_iter=…, time_limit=…, n_jobs=…, warm_start=True, verbose=1)`` on all n. Each SVM on a
working set prints a line as it ends (its start's support, final set, support vectors,
attempts — one per round, two where the interior-point method ends with active-set steps —
seconds), and each step of it over 0.5 s (libsvm, K(d) on a set, the violators on
all points, the active-set steps, the interior-point method on the features) another, with
the seconds since the start: a run stopped by a time-out still shows where its time went. At the end: the fit's time, status, kernels
and exact-kernel gap, the test accuracy and the peak memory (and the GPU's).

Run:  OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/ikl_large_trace.py N DEVICE \\
          MAX_ITER TIME_LIMIT N_JOBS          (DEVICE: numpy, cpu, cuda, …)
"""
import resource
import sys
import time
import warnings

from ikl_chessboard import board

import sipkl.kernel_learning.masters.hinge as hinge
import sipkl.kernel_learning.masters.working_set as working_set
from sipkl import GaussianARD, IKLClassifier

T0 = time.perf_counter()


def say(*parts):
    print(f"[{time.perf_counter() - T0:7.1f}]", *parts, flush=True)


def traced(name, label, shape_of):
    """Replace ``working_set.name`` by a copy that reports its calls over 0.5 s."""
    inner = getattr(working_set, name)

    def call(*args, **kwargs):
        t = time.perf_counter()
        out = inner(*args, **kwargs)
        if time.perf_counter() - t > 0.5:
            say(f"  {label} {time.perf_counter() - t:.2f}s", shape_of(args))
        return out
    setattr(working_set, name, call)


def traced_working_set(grams, d, y, C, tol, start=None, max_iter=-1):
    t = time.perf_counter()
    svm, index, K_S = solve_on_working_set(grams, d, y, C, tol, start, max_iter)
    begun = "none" if start is None else int((start > 0).sum())
    say(f"SVM start={begun} |S|={len(index)} SV={int((svm.alpha > 0).sum())} "
        f"attempts={len(svm.attempts)} {time.perf_counter() - t:.1f}s")
    return svm, index, K_S


def main(argv):
    n, device, max_iter, limit, jobs = (int(argv[0]), argv[1], int(argv[2]), float(argv[3]),
                                         int(argv[4]))
    device = None if device == "numpy" else device
    warnings.simplefilter("ignore")
    X, y, X_test, y_test = board(n, 10000, 3, 0, n_noise=8)
    say("data", X.shape)
    model = IKLClassifier(family=GaussianARD(), C=10, random_state=0, max_iter=5, n_jobs=jobs)
    model.fit(X[:3000], y[:3000])
    say("warm start", len(model.kernel_.columns), "kernels")
    model.set_params(n_landmarks=200, max_iter=max_iter, warm_start=True, device=device,
                     time_limit=limit, verbose=1)
    t = time.perf_counter()
    model.fit(X, y)
    say(f"fit {time.perf_counter() - t:.1f}s status {model.result_.status.value} it "
        f"{model.n_iter_} kernels {len(model.kernel_.columns)} gap "
        f"{model.exact_kernel_gap_:.3g}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    say(f"accuracy {model.score(X_test, y_test):.4f} peak {peak:.0f} MB")
    if device and device.startswith("cuda"):
        import torch
        say(f"GPU peak {torch.cuda.max_memory_allocated() / 2 ** 20:.0f} MB")


solve_on_working_set = working_set.svm_on_working_set
traced("solve_svm_dual", "libsvm", lambda args: args[1].shape)
traced("_combined_on", "K(d)", lambda args: ())
traced("_violators", "violators", lambda args: ())
traced("svm_on_sets_of", "active sets", lambda args: args[1].shape)
traced("svm_on_features", "interior point", lambda args: tuple(args[0].shape))
hinge.svm_on_working_set = traced_working_set

if __name__ == "__main__":
    main(sys.argv[1:])
