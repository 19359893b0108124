"""Workload W1: finite MKL on breast_cancer, column generation vs the full QCQP.

Data: scikit-learn's breast_cancer, 70/30 stratified split (random_state=42), standardized on
the training part; 20 RBF kernels exp(−γ‖x − x′‖²), γ = logspace(−4, 1, 20); C = 1.

* sipkl: ColumnGeneration + HingeMKLNewton + GridOracle over the 20 kernels, starting from the
  first one (γ = 1e−4). The time covers the whole run, Gram matrices included (the engine
  builds them, and only those of the columns it adds). Median of ``--repeats`` runs; one more,
  instrumented run says where the time goes.
* QCQP: the full MKL dual QCQP over all 20 kernels, solved once by cvxpy through
  ``HingeMKLQCQP(y, C, solvers=(s,)).solve(all 20 grams)``, for each solver of ``--solvers``
  (about a minute each). Its time includes building the 20 Gram matrices.

Run:  .venv/bin/python benchmarks/finite_mkl.py [--quick] [--solvers ECOS,CLARABEL]
"""
from __future__ import annotations

import argparse
import contextlib
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_info, threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

import cvxpy as cp  # noqa: E402

import sipkl.kernel_learning.masters.hinge as hinge  # noqa: E402
from sipkl import Column, ColumnGeneration, GaussianIso  # noqa: E402
from sipkl.kernel_learning.masters import HingeMKLNewton, HingeMKLQCQP  # noqa: E402
from sipkl.pricing import GridOracle  # noqa: E402
from sipkl.kernel_learning.space import KernelSpace  # noqa: E402

GAMMAS = np.logspace(-4, 1, 20)


def iso_param(gamma: float) -> float:
    """GaussianIso's parameter for the RBF kernel exp(−γ‖x − x′‖²): its scale s = γ."""
    return float(gamma)


def grid_index(param: float) -> int:
    hits = np.flatnonzero(np.isclose(param, [iso_param(g) for g in GAMMAS], rtol=1e-9, atol=0))
    if len(hits) != 1:
        raise RuntimeError(f"column parameter {param} is not one of the 20 grid kernels")
    return int(hits[0])


def load():
    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=42)
    scaler = StandardScaler().fit(Xtr)
    return (scaler.transform(Xtr), np.where(ytr == 1, 1.0, -1.0),
            scaler.transform(Xte), np.where(yte == 1, 1.0, -1.0))


def check_parameterization(X):
    """Abort if GaussianIso(iso_param(γ)) is not scikit-learn's RBF kernel with that γ."""
    space, family = KernelSpace(X[:50]), GaussianIso()
    for g in (GAMMAS[0], GAMMAS[10], GAMMAS[-1]):
        K = space.gram(Column.make(family, iso_param(g)))
        if not np.allclose(K, rbf_kernel(X[:50], gamma=g), rtol=1e-10, atol=1e-12):
            sys.exit(f"GaussianIso scale s={iso_param(g)} is not exp(−{g}·‖x − x′‖²): the "
                     "kernel parameterization changed, update iso_param() in this script")


def run_sipkl(X, y, C):
    family = GaussianIso()
    oracle = GridOracle(candidates=[iso_param(g) for g in GAMMAS])
    start = [Column.make(family, iso_param(GAMMAS[0]))]
    return ColumnGeneration(HingeMKLNewton(y, C), oracle, tol=1e-6).run(KernelSpace(X, family), start)


# -- instrumentation (only in the extra, untimed-for-the-table runs) ---------------------
class _Clock:
    def __init__(self):
        self.seconds, self.calls = 0.0, 0

    def wrap(self, fn):
        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t0
                self.calls += 1
        return timed


@contextlib.contextmanager
def patched(obj, name, clock):
    original = getattr(obj, name)
    setattr(obj, name, clock.wrap(original))
    try:
        yield clock
    finally:
        setattr(obj, name, original)


def sipkl_breakdown(X, y, C):
    grams, svm, solve = _Clock(), _Clock(), _Clock()
    with patched(KernelSpace, "gram", grams), patched(hinge, "solve_svm_dual", svm), \
            patched(HingeMKLNewton, "solve", solve):
        t0 = time.perf_counter()
        res = run_sipkl(X, y, C)
        total = time.perf_counter() - t0
    pricing = sum(res.history["pricing_time"])
    rows = [("Gram matrices (geometry + one per column, cached)", grams.seconds, grams.calls),
            ("master: libsvm SVM solves", svm.seconds, svm.calls),
            ("master: Newton step (Hessian, SLSQP), T_m(α)", solve.seconds - svm.seconds,
             solve.calls),
            ("pricing: grid oracle, 20 candidates per round", pricing, res.nit),
            ("engine (bookkeeping)", total - grams.seconds - solve.seconds - pricing, None)]
    return res, total, rows


def solve_qcqp(grams, y, C, solver):
    """HingeMKLQCQP over all grams, recording the cvxpy problem to split the time."""
    captured = {}
    original = hinge.solve_cvxpy

    def capture(problem, *args, **kwargs):
        captured["problem"] = problem
        return original(problem, *args, **kwargs)

    hinge.solve_cvxpy = capture
    try:
        with patched(hinge, "_factor", _Clock()) as factor:
            t0 = time.perf_counter()
            sol = HingeMKLQCQP(y, C, solvers=(solver,)).solve(grams)
            total = time.perf_counter() - t0
    finally:
        hinge.solve_cvxpy = original
    problem: cp.Problem = captured["problem"]
    inside = sum(a.seconds for a in sol.attempts)
    compile_s = problem.compilation_time or float("nan")
    solver_s = problem.solver_stats.solve_time if problem.solver_stats else float("nan")
    rows = [(f"eigen-factors F_m of the Grams ({factor.calls})", factor.seconds),
            ("cvxpy model, duals → weights, bias", total - inside - factor.seconds),
            ("cvxpy compilation (canonicalization)", compile_s),
            ("solver (as reported by it)", solver_s),
            ("cvxpy interface / unpacking", inside - compile_s - solver_s)]
    return sol, problem, total, rows


def accuracy(Xtr, ytr, Xte, yte, gammas, weights, model) -> float:
    """Test accuracy of f(x) = Σ_i α_i y_i K_d(x_i, x) + b, K_d = Σ_m d_m RBF(γ_m)."""
    Kte = sum(w * rbf_kernel(Xte, Xtr, gamma=g) for w, g in zip(weights, gammas) if w > 0)
    f = Kte @ (model["alpha"] * ytr) + model["bias"]
    return float(np.mean(np.where(f >= 0, 1.0, -1.0) == yte))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="skip the direct QCQP solves")
    ap.add_argument("--solvers", default="ECOS,CLARABEL",
                    help="comma-separated cvxpy solvers for the direct QCQP (default: %(default)s)")
    ap.add_argument("--repeats", type=int, default=5, help="sipkl runs timed (median)")
    ap.add_argument("-C", type=float, default=1.0)
    ap.add_argument("--blas-threads", type=int, default=1,
                    help="BLAS threads (default 1: on a small shared machine multi-threaded "
                         "OpenBLAS can stall for seconds under contention; 0 = library default)")
    args = ap.parse_args(argv)
    if args.blas_threads > 0:
        threadpool_limits(args.blas_threads)
    solvers = [s.strip().upper() for s in args.solvers.split(",") if s.strip()]
    unknown = [s for s in solvers if s not in cp.installed_solvers()]
    if unknown:
        ap.error(f"solver(s) not installed: {unknown}; installed: {cp.installed_solvers()}")

    Xtr, ytr, Xte, yte = load()
    C = args.C
    print(f"W1: breast_cancer, n_train={len(ytr)}, n_test={len(yte)}, d={Xtr.shape[1]}, "
          f"20 RBF kernels γ=logspace(-4,1,20), C={C:g}")
    print(f"python {platform.python_version()}, numpy {np.__version__}, cvxpy {cp.__version__}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs, BLAS threads: "
          + ", ".join(f"{i['internal_api']}={i['num_threads']}" for i in threadpool_info()))
    check_parameterization(Xtr)

    # -- sipkl ----------------------------------------------------------------------
    run_sipkl(Xtr, ytr, C)  # warm-up (imports, first-call costs), not timed
    times = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        res = run_sipkl(Xtr, ytr, C)
        times.append(time.perf_counter() - t0)
    t_sipkl = statistics.median(times)
    weights_by_gamma = np.zeros(len(GAMMAS))
    for w, c in zip(res.weights, res.columns):
        weights_by_gamma[grid_index(c.theta[0])] = w
    print(f"\nsipkl: status={res.status}, iterations={res.nit}, master gap={res.gap:.2e}, "
          "final columns (γ: weight) " + ", ".join(
              f"{g:.4g}: {w:.4f}" for g, w in zip(GAMMAS, weights_by_gamma) if w > 0))
    print("  times of the runs: " + ", ".join(f"{t:.3f}" for t in times) + " s")
    _, t_instr, rows = sipkl_breakdown(Xtr, ytr, C)
    print(f"  where the time goes (one instrumented run, {t_instr:.3f} s):")
    for name, sec, calls in rows:
        calls = f"  ({calls} calls)" if calls is not None else ""
        print(f"    {name:<50s} {sec:8.4f} s  {100 * sec / t_instr:5.1f} %{calls}")

    results = [dict(method="sipkl IKL (CG + Newton master + grid oracle)", time=t_sipkl,
                    objective=res.objective,
                    acc=accuracy(Xtr, ytr, Xte, yte, GAMMAS, weights_by_gamma, res.master.model))]

    # -- direct QCQP ----------------------------------------------------------------
    reference = None
    if not args.quick:
        t0 = time.perf_counter()
        grams = [rbf_kernel(Xtr, gamma=g) for g in GAMMAS]
        t_grams = time.perf_counter() - t0
        print(f"\nfull QCQP over all 20 kernels (Gram matrices: {t_grams:.3f} s)")
        for solver in solvers:
            sol, problem, total, rows = solve_qcqp(grams, ytr, C, solver)
            print(f"  {solver}: status={sol.status.value}, "
                  f"cvxpy optimal value={problem.value:.10g}, "
                  f"objective={sol.objective:.10g}, gap={sol.gap:.2e}, "
                  f"{int((sol.weights > 1e-6).sum()) if np.all(np.isfinite(sol.weights)) else 0} "
                  f"kernels with weight > 1e-6, {total + t_grams:.2f} s")
            for name, sec in rows:
                print(f"    {name:<50s} {sec:8.3f} s")
            ok = sol.status.usable and np.isfinite(sol.objective)
            results.append(dict(method=f"full QCQP, cvxpy + {solver}", time=total + t_grams,
                                objective=sol.objective if ok else float("nan"),
                                optimum=problem.value if ok else float("nan"), gap=sol.gap,
                                acc=accuracy(Xtr, ytr, Xte, yte, GAMMAS, sol.weights, sol.model)
                                if ok else float("nan")))
        usable = [r for r in results[1:] if np.isfinite(r["optimum"])]
        if usable:  # the most accurate solve (smallest MKL gap) is the reference optimum
            best = min(usable, key=lambda r: r["gap"])
            reference = best["optimum"]
            print(f"\nreference optimum: {reference:.10g} (cvxpy value, {best['method']})")

    print("\n| method | time (s) | objective | rel. diff to QCQP optimum | time / sipkl "
          "| test acc. |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in results:
        diff = ("n/a" if reference is None
                else f"{abs(r['objective'] - reference) / abs(reference):.1e}")
        print(f"| {r['method']} | {r['time']:.3f} | {r['objective']:.6f} | {diff} | "
              f"{r['time'] / t_sipkl:.1f}× | {r['acc']:.4f} |")
    print(f"\nsipkl time: median of {args.repeats} runs; QCQP time: one run, including the "
          "20 Gram matrices. Objective: J(d) = SVM dual value at the learned weights d.")


if __name__ == "__main__":
    main()
