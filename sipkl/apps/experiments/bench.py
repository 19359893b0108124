"""``sipkl bench SUITE``: arguments and the run (the CLI module adds the sub-command)."""
from __future__ import annotations

import argparse
import os
import platform
from pathlib import Path

from .runner import run_sweep
from .suites import SUITES


def add_bench_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the ``bench`` arguments: ``suite`` and ``--full``, ``--backend``, ``--scheduler``,
    ``--n-jobs``, ``--out`` (plus ``--splits``, ``--only`` and ``--methods`` for partial
    runs)."""
    parser.add_argument("suite", choices=sorted(SUITES) + ["all"],
                        help="which suite (all: every suite, one after the other)")
    parser.add_argument("--full", action="store_true",
                        help="the full version (the papers' sizes; long) instead of the small one")
    parser.add_argument("--backend", choices=("loky", "dask"), default="loky",
                        help="joblib backend: local processes (loky) or dask.distributed")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="dask scheduler address (default with --backend dask: a "
                             "LocalCluster of --n-jobs workers)")
    parser.add_argument("--n-jobs", type=int, default=1,
                        help="parallel cells (default 1: timings undisturbed)")
    parser.add_argument("--out", metavar="CSV", default=None,
                        help="results file; finished cells in it are skipped (default: "
                             "bench_results/SUITE-VERSION.csv); the Markdown goes beside it")
    parser.add_argument("--splits", type=int, default=None,
                        help="number of splits instead of the version's (a partial run)")
    parser.add_argument("--only", default=None, metavar="NAMES",
                        help="comma-separated data sets / tasks to run (a partial run)")
    parser.add_argument("--methods", default=None, metavar="NAMES",
                        help="comma-separated methods to run, the others left out (a partial "
                             "run)")
    return parser


def machine() -> str:
    """One line: CPU model, cores, and the versions the figures depend on."""
    import cvxpy
    import numpy
    import scipy
    import sklearn
    model = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        model = next((line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                      if line.startswith("model name")), model)
    try:
        from importlib.metadata import version
        ipopt = version("cyipopt-wheels")
    except Exception:  # noqa: BLE001 - not installed: say so
        ipopt = "not installed"
    return (f"{model}, {os.cpu_count()} cores; python {platform.python_version()}, numpy "
            f"{numpy.__version__}, scipy {scipy.__version__}, cvxpy {cvxpy.__version__}, "
            f"scikit-learn {sklearn.__version__}, cyipopt-wheels {ipopt}")


def _name_set(names: str | None) -> set[str] | None:
    """``"a, b"`` → ``{"a", "b"}`` (None: no restriction)."""
    return None if names is None else {s.strip() for s in names.split(",") if s.strip()}


def run_bench(args: argparse.Namespace) -> int:
    """Run the suite(s) of ``args``, print and save the Markdown; return an exit status (1
    when a cell raised: the sweep goes on, the table says how many)."""
    if args.n_jobs < 1:
        raise SystemExit("--n-jobs must be ≥ 1")
    if args.splits is not None and args.splits < 1:
        raise SystemExit("--splits must be ≥ 1")
    version = "full" if args.full else "small"
    names = sorted(SUITES) if args.suite == "all" else [args.suite]
    only, methods = _name_set(args.only), _name_set(args.methods)
    if args.out is not None and len(names) > 1:
        raise SystemExit("--out names one file: give it with a single suite")
    if methods is not None and len(names) > 1:
        raise SystemExit("--methods names methods of one suite: give it with a single suite")
    status = 0
    for name in names:
        suite = SUITES[name]
        out = Path(args.out or Path("bench_results") / f"{name}-{version}.csv")
        cells = suite.cells(version, args.splits, only)
        if methods is not None:
            known = {c.method for c in cells}
            if unknown := methods - known:
                raise SystemExit(f"--methods: {', '.join(sorted(unknown))} not among the "
                                 f"methods of {name}: {', '.join(sorted(known))}")
            cells = [c for c in cells if c.method in methods]
        for reason in suite.missing():
            print(f"[{name}] not available offline here: {reason}")
        rows, computed = run_sweep(cells, out, args.backend, args.n_jobs, args.scheduler)
        partial = (len(rows) < len(cells) or args.splits is not None or only is not None
                   or methods is not None)
        text = suite.render(rows, version)
        text += (f"\n\nMachine: {machine()}.\nCommand: `sipkl bench {name}"
                 f"{' --full' if args.full else ''}"
                 f"{f' --splits {args.splits}' if args.splits else ''}"
                 f"{f' --only {args.only}' if args.only else ''}"
                 f"{f' --methods {args.methods}' if args.methods else ''}` ({len(rows)} of "
                 f"{len(cells)} "
                 f"cells{', a partial run' if partial else ''}; {computed} computed now).\n")
        failed = sum(str(r.get("status", "")).startswith("error:") for r in rows)
        if failed:
            text += (f"\n**{failed} of {len(rows)} cells raised an error** (their status is in "
                     f"`{out}`; delete those lines to run them again): they have no figures, "
                     "and a setting chosen by validation is missing where they were its "
                     "validation cells.\n")
            status = 1
        out.with_suffix(".md").write_text(text)
        print(text)
    return status
