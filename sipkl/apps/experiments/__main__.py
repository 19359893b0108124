"""``python -m sipkl.apps.experiments SUITE [options]``: the same as ``sipkl bench``."""
import argparse
import sys

from .bench import add_bench_arguments, run_bench

parser = argparse.ArgumentParser(prog="python -m sipkl.apps.experiments",
                                 description="Run a benchmark suite (see docs/benchmarks.md).")
sys.exit(run_bench(add_bench_arguments(parser).parse_args()))
