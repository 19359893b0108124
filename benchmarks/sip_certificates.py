"""Certificates without a constant from the user: the default run of every literature
problem, with its certificate and without it.

For each problem of ``sipkl.sip.library.convex.PROBLEMS`` (quoted optimum f*, a closed form
or a KKT-polished fine discretization): **the default run** (``problem.build().solve()``,
nothing set: the exchange method with the dense search, the local reduction, then the
certificate of :mod:`sipkl.sip.phases.certification` — interval arithmetic on g in a branch
and bound over the box, the relaxation at the answer's maximizers — and the bracket of a
point proved feasible): median time of ``--repeats`` runs, status, |f − f*|, how far
``lower_bound`` lies below f*, the proven bound on the violation (relative to the cut) and
the bracket's width, all relative to max(1, |f*|); beside it **the same run without the
certificate** (``solve(certify=False)``, the default before it: ``converged_local``), its
median time, and the ratio of the two times, measured in the same process.

Times are wall clock on this machine with other processes running.

Run:  .venv/bin/python benchmarks/sip_certificates.py [--repeats 3] [--only NAME,NAME]
Writes benchmarks/results/sip_certificates.md (the whole table: without ``--only``).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
import warnings
from pathlib import Path

from sipkl.sip.library.convex import PROBLEMS


def timed(problem, repeats: int, **options):
    """The median time of ``repeats`` runs of ``problem.build().solve(**options)`` and the
    last result."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = problem.build().solve(**options)
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def row(name: str, problem, repeats: int) -> tuple[str, float]:
    """The table's row of one problem and the ratio of its two times."""
    scale = max(1.0, abs(problem.optimum))
    t, r = timed(problem, repeats)
    t0, r0 = timed(problem, repeats, certify=False)
    proven = "—" if r.upper_bound is None else f"{r.upper_bound / r.cut:.2f}"
    width = "—" if r.bracket is None else \
        f"{(r.bracket['upper'] - r.bracket['lower']) / scale:.1e}"
    lower = "—" if r.lower_bound is None else f"{(problem.optimum - r.lower_bound) / scale:+.1e}"
    return (f"| {name} | {problem.p} | {r.status.value} | {t:.2f} | "
            f"{abs(r.objective - problem.optimum) / scale:.1e} | {lower} | {proven} | "
            f"{width} | {r0.status.value}, {t0:.2f} | {t / t0:.1f} |"), t / t0


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default=None, help="comma-separated problem names")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    names = list(PROBLEMS) if args.only is None else args.only.split(",")
    table = [f"Machine: {platform.platform()}, {os.cpu_count()} cores; times: median of "
             f"{args.repeats} runs (s).\n",
             "| problem | p | default: status | time (s) | \\|f − f*\\| | f* − lower_bound | "
             "proven violation / cut | bracket width | without the certificate: status, "
             "time (s) | time ratio |", "|---|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(table), flush=True)
    ratios = []
    for name in names:
        line, ratio = row(name, PROBLEMS[name], args.repeats)
        print(line, flush=True)
        table.append(line)
        ratios.append(ratio)
    table.append(f"\nTime ratio, certified default against the run without the certificate: "
                 f"median {statistics.median(ratios):.1f}, largest {max(ratios):.1f}.")
    print(table[-1])
    if args.only is None:
        (Path(__file__).parent / "results" / "sip_certificates.md").write_text(
            "\n".join(table) + "\n")


if __name__ == "__main__":
    main()
