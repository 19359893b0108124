"""Semi-infinite programs from the literature: the default run, the tuned one and fixed grids.

For each problem of ``sipkl.sip.library.convex.PROBLEMS`` (quoted optimal value f*, a closed form or
a KKT-polished fine discretization, see its ``optimum_source``):

* **the default run**, what a user meets: ``problem.build().solve()`` with nothing set (the
  first master bounded by grown grids where the n + 1 first index points leave it unbounded,
  pricing by a dense sample refined by Newton steps on index sets of dimension ≤ 2, then the
  local reduction phase; ``random_state`` unset). ``--repeats`` runs, timed (median); the runs'
  answers are compared (the table says where they differ). Its objective f, the relative
  difference |f − f*|/|f*|, status, exchange iterations + reduction rounds, and two measures
  of the violation of the returned x, both relative to the constraint scale s = max(scales):
  the largest g(x, t) on an **independent** dense grid written here (2·10⁵ points in 1-D,
  1001² in 2-D, the problem's ``constraints[k].g`` in NumPy) and ``result.max_violation``,
  what the run reports (and whether it is proved);
* **the tuned run** of the former table: ``problem.solve(tol=1e-8, random_state=0)`` (IPOPT
  multi-start pricing from the problem's tensor-grid start, no reduction phase; ``--oracle
  lipschitz``: the certified Lipschitz oracle with the problems' stated constants, which takes
  minutes on the 2-D problems): its relative difference;
* **fixed grids**: ``solve_discretized`` on 2^j + 1 points per axis, j = 2, 3, …, until the
  discretized optimum is as accurate as the default run (its relative difference, or the
  reference's own precision ``problem.rtol`` where the run is closer than that), or a grid
  solve takes longer than ``--grid-time`` seconds, or the next grid would have more than
  ``--max-points`` points (then: not reached, the best accuracy seen and the last grid tried,
  whose time makes the ratio a "≥"). Each grid solve runs in a forked child process, stopped
  after ``--grid-kill`` seconds (a conic solve of a large grid can take minutes: then the
  grid is not reached and the limit is its time). The same ladder gives the first grid
  within 10⁻⁶. A grid reaching its target is timed again (median of ``--repeats``).

Then, on the problems whose first master over the default n + 1 index points is unbounded,
the alternative start: a trust region, the program with the finite constraints |x_i| ≤ R
(R = ``--radii``) from those n + 1 points (``Box.initial_points(n + 1)`` given as
``initial_points``, so that the grown-grid start does not run), against the default grown
grid: iterations, time, difference, the master solves not reported ``optimal`` (``attempts``:
``optimal_inaccurate`` or a fallback), max |x_i| after the first master, whether the box is
active (max |x_i| ≥ R(1 − 10⁻⁶)) at the end and in how many exchange iterations (from an
extra, untimed run with a callback).

Times are wall clock on this machine with other processes running.

Run:  .venv/bin/python benchmarks/sip_literature.py [--repeats 3] [--oracle ipopt]
                         [--grid-time 5] [--grid-kill 30] [--max-points 262145]
                         [--radii 10,1e3,1e6]
                         [--only NAME,NAME]
                         [--csv benchmarks/results/sip_literature.csv]
"""
from __future__ import annotations

import argparse
import csv
import multiprocessing
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a source checkout

import cvxpy as cp

from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram
from sipkl.sip.library.convex import PROBLEMS

#: the grid column's second target (the default tolerance)
TARGET = 1e-6

#: points of the independent check per axis: 2·10⁵ in 1-D, 1001² in 2-D
CHECK_POINTS = {1: 200_001, 2: 1001}

#: a box |x_i| ≤ R is active where max |x_i| ≥ R·(1 − ACTIVE_RTOL)
ACTIVE_RTOL = 1e-6


def timed(fn, repeats):
    """(the results of ``repeats`` calls, the median wall time)."""
    times, outs = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        outs.append(fn())
        times.append(time.perf_counter() - t0)
    return outs, statistics.median(times)


def relative_error(value, optimum):
    return abs(value - optimum) / abs(optimum)


def kind(problem):
    """The kind of the quoted optimum: "closed form" or "numerical" (``optimum_source``)."""
    return "closed form" if problem.optimum_source.startswith("closed form") else "numerical"


def sif_lines(problem):
    """The CUTEst SIF file's solution lines quoted in ``optimum_source`` (a list of floats)."""
    text = problem.optimum_source.replace("−", "-")
    match = re.search(r"solution lines? (-?[\d.]+)((?: \([^)]*\))? and (-?[\d.]+))?", text)
    if not match:
        return []
    return [float(v.rstrip(".")) for v in (match.group(1), match.group(3)) if v]


def check_grid(problem):
    """Per constraint, the independent dense grid of its box (``CHECK_POINTS``)."""
    grids = []
    for c in problem.constraints:
        axes = [np.linspace(lo, hi, CHECK_POINTS[problem.p]) for lo, hi in zip(c.lower, c.upper)]
        mesh = np.meshgrid(*axes, indexing="ij")
        grids.append(np.stack([m.ravel() for m in mesh], axis=1))
    return grids


def independent_violation(problem, x, grids):
    """max_k max_t g_k(x, t) over the independent grids (raw units)."""
    return max(float(np.max(c.g(x, t))) for c, t in zip(problem.constraints, grids))


def same_answer(results):
    """Whether every run returned the same objective and x, bit for bit; else the largest
    relative spread of the objective."""
    objectives = [r.objective for r in results]
    xs = [np.asarray(r.x["x"]) for r in results]
    if all(o == objectives[0] for o in objectives) and all(np.array_equal(x, xs[0]) for x in xs):
        return True, 0.0
    return False, (max(objectives) - min(objectives)) / abs(np.mean(objectives))


def grid_solve(problem, per_axis, limit):
    """(relative difference, seconds) of ``solve_discretized`` on ``per_axis`` points per
    axis, run in a forked child process killed after ``limit`` seconds (then ``None``): a
    solve can take minutes where the conic solver struggles."""
    receive, send = multiprocessing.Pipe(duplex=False)

    def child():
        t0 = time.perf_counter()
        result = problem.build().solve_discretized(n_points=per_axis)
        send.send((relative_error(result.objective, problem.optimum),
                   time.perf_counter() - t0))

    process = multiprocessing.get_context("fork").Process(target=child, daemon=True)
    process.start()
    out = receive.recv() if receive.poll(limit) else None
    if out is None:
        process.kill()
    process.join()
    return out


def grid_ladder(problem, targets, grid_time, kill_time, max_points, repeats):
    """Solve the fixed grids of 2^j + 1 points per axis, j = 2, 3, …, until each target
    accuracy is reached or a solve takes longer than ``grid_time`` (a solve is stopped after
    ``kill_time``) or the next grid exceeds ``max_points``. ``targets``: accuracies by label;
    per label: dict(per_axis, size, seconds, reached, error, best, best_size, killed)."""
    found, ladder = {}, []
    j, killed = 2, False
    while True:
        per_axis = 2**j + 1
        out = grid_solve(problem, per_axis, kill_time)
        if out is None:  # stopped: a lower bound on its time
            killed = True
            seconds = kill_time
            break
        error, seconds = out
        ladder.append((per_axis, error, seconds))
        for label, target in targets.items():
            if label not in found and error <= target:
                if repeats > 1:  # time it again: the median of `repeats` runs
                    again = [grid_solve(problem, per_axis, kill_time) for _ in range(repeats - 1)]
                    seconds = statistics.median([seconds] + [kill_time if a is None else a[1]
                                                             for a in again])
                found[label] = {"per_axis": per_axis, "size": per_axis**problem.p,
                                "seconds": seconds, "reached": True, "error": error,
                                "killed": False}
        if (len(found) == len(targets) or seconds > grid_time
                or (2 * per_axis - 1) ** problem.p > max_points):
            break
        j += 1
    best = min(ladder, key=lambda entry: entry[1])
    out = {}
    for label in targets:
        out[label] = found.get(label) or {
            "per_axis": per_axis, "size": per_axis**problem.p, "seconds": seconds,
            "reached": False, "error": None if killed else error, "killed": killed}
        out[label].update(best=best[1], best_size=best[0] ** problem.p)
    return out


def grid_cell(problem, entry):
    size = f"{entry['size']:,}" if problem.p == 1 else f"{entry['per_axis']}² = {entry['size']:,}"
    if entry["reached"]:
        return size
    best = (f"{entry['best_size']:,}" if problem.p == 1
            else f"{round(entry['best_size'] ** 0.5)}²")
    tried = f"{size} stopped after {entry['seconds']:g} s" if entry["killed"] else f"{size} tried"
    return f"not reached (best {entry['best']:.1e} at {best}; {tried})"


def program(problem, radius=None):
    """The problem's program built here from its fields, with |x_i| ≤ radius where given."""
    x = cp.Variable(problem.n, name="x")
    sics = [SemiInfiniteConstraint(c.g, x, Box(c.lower, c.upper), grad_t=c.grad_t,
                                   vectorized=True, name=c.name) for c in problem.constraints]
    finite = [] if radius is None else [cp.abs(x) <= radius]
    return SemiInfiniteProgram(problem.objective(x), sics, finite), x


def first_points(problem, per_axis=None):
    """Per constraint: the default n + 1 first index points, or a tensor grid."""
    boxes = [Box(c.lower, c.upper) for c in problem.constraints]
    if per_axis is None:
        return [b.initial_points(problem.n + 1) for b in boxes]
    return [b.tensor_grid(per_axis) for b in boxes]


def first_master_unbounded(problem, per_axis=None):
    prog, _ = program(problem)
    result = prog.solve(initial_points=first_points(problem, per_axis), max_iter=1)
    return result.status.value == "unbounded"


def grown_start(problem):
    """The grid of 4^j + 1 points per axis that the default start chooses (its rule,
    replayed: the first over which the first master is bounded)."""
    j = 1
    while first_master_unbounded(problem, 4**j + 1):
        j += 1
    return 4**j + 1


def trust_region(problem, radii, repeats):
    """Rows of the trust-region table for one problem: the default run, then one per R."""
    rows = []
    results, seconds = timed(lambda: problem.build().solve(), repeats)
    result = results[-1]
    per_axis = grown_start(problem)
    start = (f"grown grid, {per_axis} points" if problem.p == 1
             else f"grown grid, {per_axis}²")
    rows.append({"problem": problem.name, "start": start, "nit": result.nit,
                 "reduction": _rounds(result), "seconds": seconds,
                 "error": relative_error(result.objective, problem.optimum),
                 "status": result.status.value, "inexact_solves": len(result.attempts),
                 "first_max_abs_x": float("nan"), "active_end": "", "active_iterations": "",
                 "max_abs_x": float(np.max(np.abs(result.x["x"])))})
    for radius in radii:
        def run(radius=radius, callback=None):
            prog, _ = program(problem, radius)
            return prog.solve(initial_points=first_points(problem), callback=callback)

        results, seconds = timed(run, repeats)
        result = results[-1]
        sizes = []  # one run more, untimed: max |x_i| after each exchange iteration
        run(callback=lambda r, sizes=sizes: sizes.append(float(np.max(np.abs(r.x["x"])))))
        active = [size >= radius * (1 - ACTIVE_RTOL) for size in sizes]
        max_abs = float(np.max(np.abs(result.x["x"])))
        bound = f"{radius:g}".replace("e+0", "e").replace("e+", "e")
        rows.append({"problem": problem.name, "start": f"n + 1 points, ‖x‖∞ ≤ {bound}",
                     "nit": result.nit, "reduction": _rounds(result), "seconds": seconds,
                     "error": relative_error(result.objective, problem.optimum),
                     "status": result.status.value, "inexact_solves": len(result.attempts),
                     "first_max_abs_x": sizes[0] if sizes else float("nan"),
                     "active_end": "yes" if max_abs >= radius * (1 - ACTIVE_RTOL) else "no",
                     "active_iterations": f"{sum(active)} of {len(active)}",
                     "max_abs_x": max_abs})
    return rows


def _rounds(result):
    return 0 if result.reduction is None else result.reduction["nit"]


def machine():
    import cvxpy
    import scipy
    try:
        load = "load average " + ", ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        load = "load average unknown"
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True, check=False).stdout.strip()
        dirty = subprocess.run(["git", "status", "--short", "sipkl"], cwd=ROOT,
                               capture_output=True, text=True, check=False).stdout.split("\n")
        dirty = [line.strip() for line in dirty if line.strip()]
    except OSError:
        head, dirty = "unknown", []
    return (f"machine: {platform.machine()}, {os.cpu_count()} cores, {load}; "
            f"Python {platform.python_version()}, NumPy {np.__version__}, "
            f"SciPy {scipy.__version__}, cvxpy {cvxpy.__version__}; "
            f"code: {head}" + (f" with uncommitted changes to {', '.join(dirty)}" if dirty else ""))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per solve (median)")
    ap.add_argument("--oracle", default="ipopt", choices=["ipopt", "lipschitz"],
                    help="the tuned run's oracle: IPOPT multi-start (the former table's) or "
                    "the certified Lipschitz branch and bound with the problems' constants")
    ap.add_argument("--tuned-tol", type=float, default=1e-8,
                    help="the tuned run's tolerance (the former table's)")
    ap.add_argument("--grid-time", type=float, default=5.0,
                    help="stop refining the grid once one solve takes longer (seconds)")
    ap.add_argument("--grid-kill", type=float, default=30.0,
                    help="stop a grid solve after this long (seconds; it is then not reached)")
    ap.add_argument("--max-points", type=int, default=2**18 + 1,
                    help="the largest grid tried (points in all)")
    ap.add_argument("--radii", default="10,1e3,1e6", help="trust-region radii R")
    ap.add_argument("--only", default=None, help="comma-separated problem names")
    ap.add_argument("--csv", default=None, help="write the raw rows to this CSV file "
                    "(and the trust-region rows beside it, suffix -trust_region)")
    args = ap.parse_args(argv)
    names = args.only.split(",") if args.only else list(PROBLEMS)
    unknown = sorted(set(names) - set(PROBLEMS))
    if unknown:
        ap.error(f"unknown problems {unknown}; choose from {sorted(PROBLEMS)}")
    radii = [float(r) for r in args.radii.split(",")] if args.radii else []

    # inaccurate masters and IPOPT's notes: in the runs' attempts
    warnings.simplefilter("ignore", RuntimeWarning)
    warnings.simplefilter("ignore", UserWarning)
    started = time.perf_counter()
    print(machine())
    print(f"repeats {args.repeats}, tuned: oracle {args.oracle}, tol {args.tuned_tol:g}; "
          f"grid time {args.grid_time:g} s (a solve stopped after {args.grid_kill:g} s), "
          f"max points {args.max_points:,}\n")
    header = ("| problem | n | p | quoted f* | kind | SIF solution line | ours (defaults) "
              "| rel. diff. | status | iterations + reduction | time (s) "
              "| violation on 2·10⁵ / 1001² grid, ÷ s | reported max_violation ÷ s (proved) "
              f"| tuned ({args.oracle}, tol {args.tuned_tol:g}) rel. diff. "
              "| grid reaching ours | grid time (s) "
              "| grid / ours | grid reaching 10⁻⁶ | its time / ours |")
    print(header)
    print("|---" * header.count(" | ") + "|---|")
    rows, differing = [], []
    for name in names:
        problem = PROBLEMS[name]
        results, seconds = timed(lambda problem=problem: problem.build().solve(), args.repeats)
        result = results[0]
        agree, spread = same_answer(results)
        if not agree:
            differing.append(f"{name} (objectives spread {spread:.1e})")
        error = relative_error(result.objective, problem.optimum)
        scale = max(result.scales)
        x = np.asarray(result.x["x"], dtype=float)
        independent = independent_violation(problem, x, check_grid(problem)) / scale
        reported = result.max_violation / scale
        tuned, tuned_seconds = timed(
            lambda problem=problem: problem.solve(args.oracle, tol=args.tuned_tol,
                                                  random_state=0),
            args.repeats)
        tuned_error = relative_error(tuned[0].objective, problem.optimum)
        own = max(error, problem.rtol)
        grids = grid_ladder(problem, {"ours": own, "target": TARGET}, args.grid_time,
                            args.grid_kill, args.max_points, args.repeats)
        equal, to_target = grids["ours"], grids["target"]
        lines = sif_lines(problem)
        sif = ", ".join(f"{v:.11g} ({relative_error(v, problem.optimum):.1e})" for v in lines)
        row = {
            "problem": name, "n": problem.n, "p": problem.p, "optimum": problem.optimum,
            "kind": kind(problem), "sif": sif, "objective": result.objective, "error": error,
            "status": result.status.value, "message": result.message, "nit": result.nit,
            "reduction": _rounds(result),
            "reduction_converged": None if result.reduction is None
            else result.reduction["converged"],
            "seconds": seconds, "runs_agree": agree, "spread": spread, "scale": scale,
            "independent_violation": independent, "reported_violation": reported,
            "proved": result.violation_proved, "lower_bound": result.lower_bound,
            "inexact_solves": len(result.attempts), "tuned_objective": tuned[0].objective,
            "tuned_error": tuned_error, "tuned_status": tuned[0].status.value,
            "tuned_nit": tuned[0].nit, "tuned_seconds": tuned_seconds, "grid_target": own,
            "grid_reached": equal["reached"], "grid_size": equal["size"],
            "grid_seconds": equal["seconds"], "grid_killed": equal["killed"],
            "grid_best": equal["best"],
            "grid_best_size": equal["best_size"], "grid6_reached": to_target["reached"],
            "grid6_size": to_target["size"], "grid6_seconds": to_target["seconds"]}
        rows.append(row)
        ge = "" if equal["reached"] else "≥ "
        g6 = "" if to_target["reached"] else "≥ "
        print(f"| {name} | {problem.n} | {problem.p} | {problem.optimum:.15g} | {row['kind']} "
              f"| {sif or '—'} | {result.objective:.15g} | {error:.1e} | {row['status']} "
              f"| {result.nit} + {row['reduction']} | {seconds:.2f} | {independent:.1e} "
              f"| {reported:.1e} ({'yes' if result.violation_proved else 'no'}) "
              f"| {tuned_error:.1e} | {grid_cell(problem, equal)} | {equal['seconds']:.2f} "
              f"| {ge}{equal['seconds'] / seconds:.1f} | {grid_cell(problem, to_target)} "
              f"| {g6}{to_target['seconds'] / seconds:.1f} |", flush=True)
    print("\nruns of the default that differ: " + (", ".join(differing) if differing else
          f"none (all {args.repeats} runs of each problem returned the same objective and x, "
          "bit for bit)"))
    print(f"within 1e-6: {sum(r['error'] <= 1e-6 for r in rows)} of {len(rows)}; "
          f"within 1e-8: {sum(r['error'] <= 1e-8 for r in rows)} of {len(rows)}; "
          f"tuned within 1e-6: {sum(r['tuned_error'] <= 1e-6 for r in rows)}, "
          f"within 1e-8: {sum(r['tuned_error'] <= 1e-8 for r in rows)}")
    for r in rows:
        if r["error"] > 1e-6 or not r["status"].startswith(("converged", "certified")):
            print(f"  {r['problem']}: {r['error']:.1e}, {r['status']}: {r['message']}")

    trust_rows = []
    if radii:
        unbounded = [name for name in names if first_master_unbounded(PROBLEMS[name])]
        print(f"\nfirst master over the n + 1 default points unbounded: "
              f"{', '.join(unbounded) or 'none'}\n")
        print("| problem | start | iterations + reduction | time (s) | rel. diff. | status "
              "| solves not optimal | first master: ‖x‖∞ | box active at the end "
              "| iterations with the box active | final ‖x‖∞ |")
        print("|---" * 11 + "|")
        for name in unbounded:
            for row in trust_region(PROBLEMS[name], radii, args.repeats):
                trust_rows.append(row)
                first = ("—" if np.isnan(row["first_max_abs_x"])
                         else f"{row['first_max_abs_x']:.4g}")
                print(f"| {row['problem']} | {row['start']} | {row['nit']} + {row['reduction']} "
                      f"| {row['seconds']:.2f} | {row['error']:.1e} | {row['status']} "
                      f"| {row['inexact_solves']} "
                      f"| {first} "
                      f"| {row['active_end'] or '—'} | {row['active_iterations'] or '—'} "
                      f"| {row['max_abs_x']:.4g} |", flush=True)

    print(f"\nmedian of {args.repeats}; total {time.perf_counter() - started:.0f} s; "
          + machine())
    if args.csv:
        for path, table in ((Path(args.csv), rows),
                            (Path(args.csv).with_name(Path(args.csv).stem + "-trust_region.csv"),
                             trust_rows)):
            if not table:
                continue
            with open(path, "w", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=list(table[0]))
                writer.writeheader()
                writer.writerows(table)


if __name__ == "__main__":
    main()
