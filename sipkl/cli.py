"""Command line: ``sipkl demo``."""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="sipkl", description="Kernel learning by "
                                     "semi-infinite programming (column generation).")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="IKL on the chessboard toy vs a tuned SVM",
                               description="IKL chessboard toy (gehler_nowozin §4.3).")
    demo.add_argument("--n-train", type=int, default=300)
    demo.add_argument("--n-test", type=int, default=2000)
    demo.add_argument("--C", type=float, default=1.0)
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--quiet", action="store_true", help="no iteration log")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from .demo import run
        if args.n_train < 10 or args.n_test < 1 or args.C <= 0:
            parser.error("--n-train must be ≥ 10, --n-test ≥ 1 and --C > 0")
        run(args.n_train, args.n_test, args.C, args.seed, verbose=0 if args.quiet else 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
