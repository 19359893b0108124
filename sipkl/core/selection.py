"""What the oracles share: selection of the best distinct candidates."""
from __future__ import annotations

import numpy as np


def best_distinct(candidates, n: int, exclude=(), rtol: float = 1e-5, cut=None):
    """The ``n`` best of ``candidates`` (``(score, column)`` pairs), pairwise distinct.

    Two columns are the same when they share their family and the family's own rule,
    :meth:`~sipkl.core.contracts.ColumnFamily.same_columns`, says so at ``rtol``: for a kernel
    family, parameters that agree to ``rtol`` relative to their own magnitude in every
    coordinate, ``|θa − θb| ≤ rtol·max(|θa|, |θb|)`` (scale-free: the parameters of every
    kernel family are non-negative scales or widths, so data in other units scale θ and the
    test alike, and exact at θ = 0); for an index set (:mod:`sipkl.sip`, whose points t have
    signs and an origin of no meaning), to ``rtol`` times its extent per coordinate; members
    of a finite family (θ an index) only when equal. Columns in ``exclude`` are skipped.

    ``cut`` (the engine's cut, optional) makes an index point priced above it new unless it
    *equals* an excluded point: the excluded points are the current ones, at which the
    master imposes g_j(x, t) ≤ 0, so their prices are at most the cut, and a point whose
    price exceeds it differs from every one of them, however close (the exchange method
    moves an active point towards the maximizer this way). The rule is scale-free: prices
    are relative violations. Kernel families (``index_points`` false) keep the ``rtol``
    test.

    Greedy in the order of decreasing score (ties in the given order): a candidate is taken
    when its score is finite and it is the same as no excluded and no taken column. The tests
    run per family on the stacked θ's, one array operation per excluded family and per taken
    column.
    """
    ranked = sorted(candidates, key=lambda sc: -sc[0])
    columns = [c for _, c in ranked]
    scores = np.array([s for s, _ in ranked], dtype=float)
    alive = np.isfinite(scores)
    everything = columns + list(exclude)
    families, members = _family_groups(everything)
    family_of = np.empty(len(columns), dtype=int)  # each candidate's family ...
    row_of = np.empty(len(columns), dtype=int)  # ... and its row in that family's θ stack
    stacks = []
    for f, m in enumerate(members):
        stack = np.array([everything[i].theta for i in m], dtype=float)
        inside = m[m < len(columns)]
        family_of[inside], row_of[inside] = f, np.arange(len(inside))
        stacks.append(stack[:len(inside)])
        if len(inside) < len(m):  # the candidates against this family's excluded columns
            family = families[f]
            near = family.same_columns(stacks[f][:, None], stack[len(inside):],
                                       rtol).any(axis=1)
            if cut is not None and family.index_points:
                equal = family.same_columns(stacks[f][:, None], stack[len(inside):],
                                            0.0).any(axis=1)
                near = equal | (near & ~(scores[inside] > cut))
            alive[inside] &= ~near
    chosen = []
    while len(chosen) < n and alive.any():
        i = int(np.argmax(alive))
        chosen.append(i)
        alive[i] = False  # also when θ has a NaN (same as nothing)
        f = family_of[i]
        alive[members[f][:len(stacks[f])]] &= ~families[f].same_columns(
            stacks[f], stacks[f][row_of[i]], rtol)
    return [columns[i] for i in chosen], scores[chosen]


def _family_groups(columns):
    """The distinct families of ``columns`` (equal families compared once per distinct object)
    and, for each, the indices of its columns in increasing order."""
    families, codes, by_id = [], np.empty(len(columns), dtype=int), {}
    for i, column in enumerate(columns):
        key = id(column.family)
        if key not in by_id:
            by_id[key] = next((f for f, fam in enumerate(families) if fam == column.family),
                              len(families))
            if by_id[key] == len(families):
                families.append(column.family)
        codes[i] = by_id[key]
    return families, [np.flatnonzero(codes == f) for f in range(len(families))]
