"""Pricing measured apart from the path of a run: record the pricing rounds of W2 fits (of
another board with ``--cells``), then price the same rounds again with any version of the
oracle.

A change to the oracle moves the round-off, hence the columns, the rounds and the round
where the objective-stall rule ends a run, so whole-run times of two versions compare runs
that stop at different points. Replaying the same recorded rounds (the pricing problems,
the current columns, the cut and the random state of each round) through either version
measures the pricing alone: its CPU time per round and the best price it finds.

Run:  .venv/bin/python benchmarks/pricing_replay.py record rounds.pkl [--seeds 0 4] [--C 1 100] \\
          [--cells 3]
      .venv/bin/python benchmarks/pricing_replay.py price rounds.pkl --save best.npy
      PYTHONPATH=<other checkout> .venv/bin/python benchmarks/pricing_replay.py price \\
          rounds.pkl --compare best.npy
"""
from __future__ import annotations

import argparse
import pickle
import time

import numpy as np

from ikl_chessboard import board
from sipkl import GaussianARD, IKLClassifier
from sipkl.pricing import IpoptOracle


def record(path, seeds, Cs, cells=3):
    """Fit IKL (GaussianARD) on the W2 board (``cells`` × ``cells``) for each seed and C,
    keeping every pricing round the IPOPT oracle is given (pickled as it arrives: the oracle
    may advance its random state)."""
    rounds, real = [], IpoptOracle.price

    def recording(oracle, pricing_round):
        rounds.append(pickle.dumps(pricing_round))
        return real(oracle, pricing_round)

    IpoptOracle.price = recording
    try:
        for seed in seeds:
            X, y, _, _ = board(300, 2000, cells, seed)
            for C in Cs:
                IKLClassifier(family=GaussianARD(), C=C, random_state=seed).fit(X, y)
    finally:
        IpoptOracle.price = real
    with open(path, "wb") as f:
        pickle.dump(rounds, f)
    print(f"{len(rounds)} rounds recorded in {path}")


def price(path, save=None, compare=None):
    """Price the recorded rounds with this version's default oracle: CPU time per round and
    each round's best price (saved, or compared with the best prices of another version)."""
    with open(path, "rb") as f:
        rounds = pickle.load(f)
    oracle, cpu, best = IpoptOracle(), 0.0, []
    for blob in rounds:
        pricing_round = pickle.loads(blob)
        t0 = time.process_time()
        result = oracle.price(pricing_round)
        cpu += time.process_time() - t0
        best.append(result.scores[0] if len(result.scores) else -np.inf)
    best = np.array(best)
    print(f"{len(rounds)} rounds: pricing CPU {1e3 * cpu / len(rounds):.1f} ms per round")
    if save:
        np.save(save, best)
    if compare:
        other = np.load(compare)
        ratio = best / other
        print(f"best price against {compare}: higher in {np.sum(ratio > 1 + 1e-6)} rounds, "
              f"lower in {np.sum(ratio < 1 - 1e-6)}, equal in the others "
              f"(median ratio {np.median(ratio):.4f})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("path")
    rec.add_argument("--seeds", type=int, nargs="+", default=[0, 4])
    rec.add_argument("--C", type=float, nargs="+", default=[1.0, 100.0])
    rec.add_argument("--cells", type=int, default=3)
    rep = sub.add_parser("price")
    rep.add_argument("path")
    rep.add_argument("--save")
    rep.add_argument("--compare")
    args = parser.parse_args(argv)
    if args.command == "record":
        record(args.path, args.seeds, args.C, args.cells)
    else:
        price(args.path, args.save, args.compare)


if __name__ == "__main__":
    main()
