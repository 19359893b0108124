"""Pricing on small index sets: a dense sample of T, its local maxima refined by Newton steps.

On a box of dimension p ≤ 2 a dense tensor grid of t ↦ g(x_k, t)/s costs a few thousand
evaluations (one vectorized call), and every local maximum of the sampled values starts a
projected Newton search (:func:`~sipkl.solvers.newton_box`) on the exact function: global in
practice, where a few random starts miss the largest of an error curve's extrema. It is no
proof — a maximum narrower than the grid's spacing can be missed — so the oracle states no
bound (``upper_bound`` ``None``; a proof needs :class:`~sipkl.sip.LipschitzOracle`). The points
of a :class:`~sipkl.sip.FiniteSet` are all evaluated (its result is exact).

Over a set beyond a box (:class:`~sipkl.sip.sets.base.ConvexSet`) the same search runs on
the set's radial grid (the image of the cube's tensor grid, neighbours kept), its local
maxima refined inside the set (:func:`~sipkl.sip.pricing.search.refine_in_set`: projected
gradient steps, or IPOPT on a polytope):
:class:`~sipkl.sip.pricing.sets.SetSearchOracle` uses it there. The oracle itself prices
boxes and finite sets.
"""
from __future__ import annotations

import numpy as np

from ...core.contracts import OracleBase, OracleResult, PricingRound
from ...core.selection import best_distinct
from ...solvers import newton_box
from ..sets.box import Box
from .search import refine_in_set

#: the Newton steps' relative tolerance and iteration limit (quadratic convergence: a
#: maximum found to 10⁻¹² of the function's scale in a few steps from the grid's spacing)
NEWTON_TOL, NEWTON_ITER = 1e-13, 30

#: step of the second differences, as a fraction of the box's width: ε^(1/4), which balances
#: truncation (h²) and round-off (ε/h²), a Hessian to about 10⁻⁸ relative
HESSIAN_STEP = np.finfo(float).eps ** 0.25


class DenseSampleOracle(OracleBase):
    """Maximize each violation t ↦ g_j(x_k, t)/s_j over its index set from a dense sample.

    Parameters
    ----------
    n_samples : int
        Points of the sample per index set, about (a tensor grid with
        ``round(n_samples^(1/p))`` points per coordinate, endpoints included).
    max_starts : int
        Local maxima of the sample refined at most (the best ones), per index set.

    Each round, per semi-infinite constraint: the sample's local maxima (a grid point at
    least as large as its 2p (p = 1) or 3^p − 1 neighbours) and the constraint's current
    index points (the exchange step: an active point follows the maximizer it sits near)
    climb together by projected Newton steps on the scaled g, with its t-gradient (stated or
    by differences, :meth:`~sipkl.sip.constraints.semi_infinite.IndexConstraint.gradients`) and its
    t-Hessian by second differences of the gradient where g states one, else of the values
    (:func:`value_hessians`). The best distinct end points above the engine's cut are the
    candidates (no proof: ``upper_bound`` is ``None``).

    Examples
    --------
    >>> import cvxpy as cp
    >>> import numpy as np
    >>> from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram
    >>> from sipkl.sip.pricing.dense import DenseSampleOracle
    >>> c, z = cp.Variable(5), cp.Variable()
    >>> err = lambda c, t: np.vander(t[:, 0], 5, increasing=True) @ c - t[:, 0] ** 5
    >>> T = Box([-1.0], [1.0])
    >>> result = SemiInfiniteProgram(cp.Minimize(z), [
    ...     SemiInfiniteConstraint(lambda c, t: err(c, t) - z, c, T, vectorized=True),
    ...     SemiInfiniteConstraint(lambda c, t: -err(c, t) - z, c, T, vectorized=True),
    ... ]).solve(DenseSampleOracle())
    >>> bool(abs(result.objective - 2.0 ** -4) <= 1e-8 * 2.0 ** -4)   # 2^(1-d) T_d, d = 5
    True
    """

    def __init__(self, n_samples: int = 4097, max_starts: int = 64):
        self.n_samples, self.max_starts = n_samples, max_starts

    def price(self, pricing_round: PricingRound) -> OracleResult:
        cut = pricing_round.price_cut()
        scored = []
        for problem in pricing_round.problems:
            if not (problem.family.finite or isinstance(problem.family, Box)):
                raise ValueError(
                    f"DenseSampleOracle (oracle='dense') prices boxes and finite sets; over "
                    f"{problem.family!r} use the default oracle, "
                    "sipkl.sip.pricing.sets.SetSearchOracle")
            own = np.array([c.theta for c in pricing_round.columns
                            if c.family is problem.family]).reshape(-1, problem.family.dim)
            points, values = self.search(problem, own)
            scored += [(v, problem.column(t)) for v, t in zip(values, points)]
        columns, scores = best_distinct(scored, pricing_round.n_price,
                                        exclude=pricing_round.columns, cut=cut)
        return OracleResult(columns, scores, pricing_round.n_evals())

    def search(self, problem, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The points found and their values (best first) for one pricing problem: the
        local maxima of the sample and the rows of ``starts`` refined by Newton steps, and
        the best sample point; every point of a finite set."""
        T = problem.family
        if T.finite:
            points = T.tensor_grid(2)
            values = problem.values(points)
        else:
            per_axis = max(3, int(round(self.n_samples ** (1.0 / T.dim))))
            grid = T.tensor_grid(per_axis)
            sampled = problem.values(grid)
            peaks = local_maxima(sampled.reshape((per_axis,) * T.dim))
            peaks = peaks[np.argsort(-sampled[peaks], kind="stable")[:self.max_starts]]
            climbing = np.vstack([starts, grid[peaks]])
            refined = climb_box(problem, climbing) if isinstance(T, Box) else \
                refine_in_set(problem, climbing)
            best = np.argmax(sampled)
            points = np.vstack([refined.x, grid[best]])
            values = np.append(refined.fun, sampled[best])
        order = np.argsort(-values, kind="stable")
        return points[order], values[order]


def climb_box(problem, starts: np.ndarray):
    """Projected Newton steps (:func:`~sipkl.solvers.newton_box`) on a pricing problem of a
    semi-infinite program over a box from the rows of ``starts``, to ``NEWTON_TOL`` (over
    any set: :func:`~sipkl.sip.pricing.faces.climb`)."""
    return newton_box(problem.values_and_grads, pricing_hessians(problem), starts,
                      problem.lower, problem.upper, tol=NEWTON_TOL, max_iter=NEWTON_ITER)


def local_maxima(values: np.ndarray) -> np.ndarray:
    """Flat indices of the entries of ``values`` (an array of any dimension, the sample on a
    tensor grid) at least as large as each of their neighbours, diagonal ones included."""
    padded = np.pad(values, 1, constant_values=-np.inf)
    peak = np.ones(values.shape, dtype=bool)
    for shift in np.ndindex(*(3,) * values.ndim):
        if all(s == 1 for s in shift):
            continue
        window = tuple(slice(s, s + n) for s, n in zip(shift, values.shape))
        peak &= values >= padded[window]
    return np.flatnonzero(peak)


def value_hessians(fun, points: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                   coords) -> np.ndarray:
    """The Hessians of ``fun`` (values of the rows of an (m, p) array) at the rows of
    ``points`` on the coordinates ``coords`` (m × q × q), by second differences
    (:func:`second_differences`) with the step h = ``HESSIAN_STEP`` times the box's width per
    coordinate, centred at the point moved into the box by h (so that no node leaves it;
    error O(h) there, O(h²) inside)."""
    coords = np.asarray(coords)
    step = HESSIAN_STEP * (upper - lower)
    centre = np.clip(points, lower + step, upper - step)
    offsets = np.zeros((len(coords), points.shape[1]))
    offsets[np.arange(len(coords)), coords] = step[coords]
    return second_differences(fun, centre, offsets) / np.multiply.outer(step[coords],
                                                                      step[coords])


def second_differences(fun, centres: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The second derivatives of ``fun`` along the rows d_i of ``offsets`` (q × p, each a
    step), at the rows c of ``centres`` (m × q × q): with f_{±i} = f(c ± d_i) and
    f_{±i±j} = f(c ± d_i ± d_j),

        H_ii = f_{+i} − 2 f(c) + f_{−i},
        H_ij = (f_{+i+j} − f_{+i−j} − f_{−i+j} + f_{−i−j}) / 4,

    ≈ d_iᵀ ∇²f d_j (error O(‖d‖⁴)), every node of every centre in one call of
    ``fun``: 1 + 2q² nodes a centre (the 3^q stencil's nodes with at most two steps, in its
    order)."""
    m, p = centres.shape
    q = len(offsets)
    signs = _stencil(q)  # n × q, entries −1, 0, 1
    nodes = (centres[:, None, :] + (signs @ offsets)[None]).reshape(-1, p)
    f = fun(nodes).reshape(m, len(signs))
    where = {tuple(row): k for k, row in enumerate(signs)}

    def at(*steps):  # the column of the node c + Σ sign·d_index
        row = [0] * q
        for index, sign in steps:
            row[index] = sign
        return f[:, where[tuple(row)]]

    H = np.empty((m, q, q))
    for i in range(q):
        H[:, i, i] = at((i, 1)) - 2 * at() + at((i, -1))
        for j in range(i):
            H[:, i, j] = H[:, j, i] = (at((i, 1), (j, 1)) - at((i, 1), (j, -1))
                                       - at((i, -1), (j, 1)) + at((i, -1), (j, -1))) / 4
    return H


def _stencil(q: int) -> np.ndarray:
    """The sign vectors of :func:`second_differences`' nodes: those of {−1, 0, 1}^q with at
    most two non-zero entries, in the lexicographic order of the full stencil."""
    rows = [np.zeros(q, dtype=int)]
    for i in range(q):
        for a in (-1, 1):
            row = np.zeros(q, dtype=int)
            row[i] = a
            rows.append(row)
            for j in range(i + 1, q):
                for b in (-1, 1):
                    pair = row.copy()
                    pair[j] = b
                    rows.append(pair)
    rows = np.array(rows)
    order = np.lexsort(rows[:, ::-1].T + 1)  # lexicographic in the first coordinate first
    return rows[order]


def pricing_hessians(problem):
    """``H(points, coords)`` of the scaled g: the pricing problem's own (differences of a
    stated t-gradient), else second differences of its values (:func:`value_hessians`)."""
    stated = problem.hessian_batch()
    if stated is not None:
        return stated
    return lambda points, coords: value_hessians(problem.values, points, problem.lower,
                                                 problem.upper, coords)
