"""What the oracles share: selection of the best distinct candidates, and whether an oracle
proves its bound."""
from __future__ import annotations

import numpy as np


def best_distinct(candidates, n: int, exclude=(), rtol: float = 1e-5):
    """The ``n`` best of ``candidates`` (``(score, column)`` pairs), pairwise distinct.

    Two columns are the same when they share their family and their parameters agree to
    ``rtol`` relative to their own magnitude in every coordinate,
    ``|θa − θb| ≤ rtol·max(|θa|, |θb|)``: scale-free (the parameters of every family are
    non-negative scales or widths, so data in other units scale θ and the test alike), and
    exact at θ = 0. Members of a finite family (θ an index) are the same only when equal.
    Columns in ``exclude`` are skipped.
    """
    chosen = []
    taken = list(exclude)
    for score, column in sorted(candidates, key=lambda sc: -sc[0]):
        if len(chosen) == n:
            break
        if not np.isfinite(score) or any(same_column(column, c, rtol) for c in taken):
            continue
        chosen.append((score, column))
        taken.append(column)
    return [c for _, c in chosen], np.array([s for s, _ in chosen])


def same_column(a, b, rtol: float) -> bool:
    """Same family, and θ's equal to ``rtol`` relative to their magnitude (see above)."""
    if a.family != b.family:
        return False
    if a.family.finite:
        return a.theta == b.theta
    ta, tb = np.asarray(a.theta), np.asarray(b.theta)
    return bool(np.all(np.abs(ta - tb) <= rtol * np.maximum(np.abs(ta), np.abs(tb))))


def proves_bound(oracle, family, n_features: int) -> bool:
    """Whether ``oracle`` returns a proven upper bound on max_θ <W, K(θ)> in every round over
    ``family`` — what a ``"certified_optimal"`` stop needs. An oracle says so through a method
    ``proves_bound(family, n_features)``; one without it is taken to be local."""
    method = getattr(oracle, "proves_bound", None)
    return bool(method(family, n_features)) if callable(method) else False
