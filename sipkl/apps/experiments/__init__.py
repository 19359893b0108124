"""Experiment sweeps: the seeds' tables, peers and performance workloads (``sipkl bench``).

:func:`run_sweep` runs cells (data set × split × method × hyper-parameters) through joblib,
appending each result to a CSV as it finishes and skipping cells already there; suites in
:data:`SUITES` define the cells and render their rows as Markdown. The command line entry
points are :func:`add_bench_arguments` and :func:`run_bench`.
"""
from .bench import add_bench_arguments, run_bench
from .cells import Cell
from .runner import ResultStore, read_rows, run_sweep
from .suites import SUITES

__all__ = [
           "SUITES",
           "Cell",
           "ResultStore",
           "add_bench_arguments",
           "read_rows",
           "run_bench",
           "run_sweep",
]
