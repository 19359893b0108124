"""Selection of the best distinct candidates, shared by the oracles."""
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
