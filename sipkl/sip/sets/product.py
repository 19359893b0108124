"""Products of index sets: each block samples, bounds and describes itself, the product composes them."""
from __future__ import annotations

import numpy as np

from .base import ConvexSet
from .box import Box
from .conic import stacked
from .geometry import nlp_arrays, rounded_up


class Product(ConvexSet):
    """The Cartesian product ``T_1 × T_2 × …`` of boxes and convex sets, the coordinates of
    each stacked in order (finite sets are not allowed).

    Membership, extremes and the smooth description are blockwise; the exit of a ray is the
    smallest of its blocks'; the support function is the sum of the blocks' (exact where
    each is); the frame is block diagonal.

    Examples
    --------
    >>> from sipkl.sip.sets import Ball, Box, Product
    >>> T = Product(Box([0.0], [1.0]), Ball([0.0, 0.0], 1.0))
    >>> T.dim, T.lower.tolist(), T.upper.tolist()
    (3, [0.0, -1.0, -1.0], [1.0, 1.0, 1.0])
    >>> t, bound = T.support([1.0, 0.0, -2.0])        # 1 + 2
    >>> t.tolist(), round(bound, 12)
    ([1.0, 0.0, -1.0], 3.0)
    """

    def __init__(self, *sets, name: str = None):
        if len(sets) == 1 and isinstance(sets[0], (list, tuple)):
            sets = tuple(sets[0])
        if not sets:
            raise ValueError("Product needs at least one set")
        for k, T in enumerate(sets):
            if not isinstance(T, (Box, ConvexSet)):
                raise TypeError(f"Product: set {k} must be a Box or a convex set (Polytope, "
                                f"Ellipsoid, Ball, Product), got {type(T).__name__}")
        self.sets, self.name = tuple(sets), name
        ends = np.cumsum([0] + [T.dim for T in sets])
        self._blocks = [slice(a, b) for a, b in zip(ends[:-1], ends[1:])]
        self.lower = np.concatenate([T.lower for T in sets])
        self.upper = np.concatenate([T.upper for T in sets])
        frame = np.zeros((ends[-1], ends[-1]))
        for T, block in zip(sets, self._blocks):
            frame[block, block] = T.frame()
        self._set_frame(np.concatenate([T.centre() for T in sets]), frame)

    def contains(self, points, rtol: float = 1e-9) -> np.ndarray:
        points = self.as_points(points)
        return np.all([T.contains(points[:, block], rtol)
                       for T, block in zip(self.sets, self._blocks)], axis=0)

    def exit(self, directions) -> np.ndarray:
        d = np.atleast_2d(np.asarray(directions, dtype=float))
        steps = np.full(len(d), np.inf)
        for T, block in zip(self.sets, self._blocks):
            moving = np.any(d[:, block] != 0, axis=1)
            steps[moving] = np.minimum(steps[moving], T.exit(d[moving, block]))
        return steps

    def extremes(self) -> np.ndarray:
        rows = []
        for T, block in zip(self.sets, self._blocks):
            points = np.repeat(self._centre[None], 2 * T.dim, axis=0)
            points[:, block] = T.extremes()
            rows.append(points)
        return np.vstack(rows)

    def support(self, v) -> tuple[np.ndarray, float]:
        v = self._direction(v)
        parts = [T.support(v[block]) for T, block in zip(self.sets, self._blocks)]
        return (np.concatenate([t for t, _ in parts]),
                rounded_up(sum(b for _, b in parts), sum(abs(b) for _, b in parts)))

    def nlp(self) -> dict:
        """The blocks' descriptions side by side (their auxiliary variables stacked)."""
        parts = [T.nlp() for T in self.sets]
        p, k = self.dim, sum(d["k"] for d in parts)
        A_t, A_w, b, quadratic, smooth, offset = [], [], [], [], [], 0
        for d, block in zip(parts, self._blocks):
            rows = np.zeros((len(d["b"]), p))
            rows[:, block] = d["A_t"]
            lifted = np.zeros((len(d["b"]), k))
            lifted[:, offset:offset + d["k"]] = d["A_w"]
            A_t.append(rows)
            A_w.append(lifted)
            b.append(d["b"])
            quadratic += [(np.arange(p)[block][index], c, G) for index, c, G in d["quadratic"]]
            smooth += [(np.arange(p)[block][index], fun, jac)
                       for index, fun, jac in d["smooth"]]
            offset += d["k"]
        return nlp_arrays(p, k, np.vstack(A_t), np.vstack(A_w), np.concatenate(b), quadratic,
                    smooth)

    def projector(self):
        """Blockwise, where every block has one (see :meth:`IndexSet.projector`)."""
        parts = [T.projector() for T in self.sets]
        if any(part is None for part in parts):
            return None
        M = np.zeros((self.dim, self.dim))
        for (_, block_M, _), block in zip(parts, self._blocks):
            M[block, block] = block_M

        def project(z):
            return np.hstack([part[2](z[:, block]) for part, block in zip(parts, self._blocks)])
        return np.concatenate([part[0] for part in parts]), M, project

    def lift(self, t: np.ndarray) -> np.ndarray:
        """The blocks' auxiliary variables, in the order of :meth:`nlp`."""
        return np.concatenate([T.lift(t[block]) for T, block in zip(self.sets, self._blocks)])

    def inequalities(self):
        """The blocks' inequalities, each on its block's coordinates (a ``ValueError`` where
        a block states none; see :meth:`IndexSet.inequalities`)."""
        rows = []
        for T, block in zip(self.sets, self._blocks):
            rows += [_on_block(fun, jac, block, self.dim) for fun, jac in T.inequalities()[2]]
        return self.lower, self.upper, rows

    def conic_form(self):
        """The blocks' forms stacked (see :meth:`IndexSet.conic_form`; the frame is block
        diagonal, the centre the blocks' centres)."""
        return stacked([T.conic_form() for T in self.sets])

    def __repr__(self):
        return f"Product({', '.join(map(repr, self.sets))}{self._name()})"


def _on_block(fun, jac, block: slice, p: int) -> tuple:
    """``(fun, jac)`` of a block's inequalities on points of the whole product (``jac``
    zero off the block; ``None`` where the block states none)."""
    def jacobian(t):
        inner = np.asarray(jac(t[:, block]), dtype=float)
        full = np.zeros(inner.shape[:2] + (p,))
        full[:, :, block] = inner
        return full
    return (lambda t: fun(t[:, block])), (None if jac is None else jacobian)
