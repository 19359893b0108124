"""Intersections of index sets: a polytope of all their inequalities, or a smooth set."""
from __future__ import annotations

import numpy as np

from .base import ConvexSet
from .box import Box
from .geometry import half_spaces
from .polytopes import Budget, Polytope
from .smooth import smooth_intersection


def Intersection(*sets, name: str = None) -> ConvexSet:
    """The intersection of boxes, polytopes and half-spaces or other inequalities given as
    pairs ``(A, b)`` (of one dimension; a pair alone may be unbounded): the
    :class:`Polytope` of all their inequalities, checked as any (empty, unbounded, without
    interior: errors). With an ellipsoid or a :class:`~sipkl.sip.sets.smooth.SmoothSet`
    among them: the :class:`~sipkl.sip.sets.smooth.SmoothSet` of all their inequalities
    (:func:`~sipkl.sip.sets.smooth.smooth_intersection`); a budget set (2^p facets) is a
    ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> from sipkl.sip.sets import Box, Intersection
    >>> T = Intersection(Box([0.0, 0.0], [1.0, 1.0]), ([[1.0, 1.0]], [1.5]))  # t₁ + t₂ ≤ 1.5
    >>> np.round(T.upper, 12).tolist(), round(T.support([1.0, 1.0])[1], 12)
    ([1.0, 1.0], 1.5)
    """
    if len(sets) == 1 and isinstance(sets[0], list):
        sets = tuple(sets[0])
    if not sets:
        raise ValueError("Intersection needs at least one set")
    rows, rhs = [], []
    for k, T in enumerate(sets):
        if isinstance(T, Box):
            p = T.dim
            rows += [np.eye(p), -np.eye(p)]
            rhs += [T.upper, -T.lower]
        elif isinstance(T, Polytope) and not isinstance(T, Budget):
            rows.append(T.A)
            rhs.append(T.b)
        elif isinstance(T, tuple) and len(T) == 2:
            A, b = half_spaces(T, k)
            rows.append(A)
            rhs.append(b)
        else:  # an ellipsoid, a smooth set: the intersection is a smooth set
            return smooth_intersection(list(sets), name)
    dims = {r.shape[1] for r in rows}
    if len(dims) > 1:
        raise ValueError(f"Intersection: the sets must have one dimension, got {sorted(dims)}")
    return Polytope(np.vstack(rows), np.concatenate(rhs), name)
