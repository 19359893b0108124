"""The geometry the index sets share: LPs and vertices of polytopes, analytic centres, the
interior check, bounds rounded up, the smooth description of :meth:`~sipkl.sip.sets.base.ConvexSet.nlp`,
and the fixed designs (spread points, chords) that sample a set or check a function on it.
"""
from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np
from scipy.optimize import linprog
from scipy.stats import qmc

from ...solvers.conic import HIGHS_OPTIONS
from ...utils.validation import finite_array


@lru_cache(maxsize=64)
def spread_points(dim: int, n: int) -> np.ndarray:
    """The ``n`` points of :meth:`Box.initial_points` in the unit cube (computed once per
    ``(dim, n)``: the pricing rounds ask for the same ones; read-only)."""
    centre = np.full(dim, 0.5)
    halton = qmc.Halton(dim, scramble=False).random(n + 1)[1:]
    halton = halton[np.any(halton != centre, axis=1)][:n - 1]
    points = np.vstack([centre, halton])
    points.flags.writeable = False
    return points


def chords(to_set, dim: int, n: int, lengths=(1.0,)) -> tuple[np.ndarray, np.ndarray]:
    """Chords along which a function is checked convex or affine on samples: n pairs u, u′
    of uniform points of the cube ``[−1, 1]^p`` and weights λ ∈ [0.1, 0.9] (fixed seed:
    the same chords in every run), and for each s in ``lengths`` the chord from
    a = to_set(u) to b = to_set(u + s(u′ − u)) (short chords see a curvature that long
    ones average out). Returns the rows [a; b; λa + (1 − λ)b] of its m = n·len(lengths)
    chords, (3m, p), and their λ (m,): f is convex along them where
    f(λa + (1 − λ)b) ≤ λf(a) + (1 − λ)f(b), affine where equal (:func:`chord_gaps`)."""
    rng = np.random.default_rng(0)
    u, far = rng.uniform(-1.0, 1.0, (2, n, dim))
    lam = np.tile(rng.uniform(0.1, 0.9, n), len(lengths))
    a = to_set(np.tile(u, (len(lengths), 1)))
    b = to_set(np.vstack([u + s * (far - u) for s in lengths]))
    return np.vstack([a, b, lam[:, None] * a + (1.0 - lam[:, None]) * b]), lam


def chord_gaps(values, lam, sizes) -> tuple[np.ndarray, np.ndarray]:
    """f(λa + (1 − λ)b) − λf(a) − (1 − λ)f(b) per chord of :func:`chords`, from f's
    ``values`` at its points (rows; a column per function), and the largest of ``sizes``
    at the chord's three points (the scale of the gap's round-off)."""
    fa, fb, fm = np.split(np.asarray(values, dtype=float), 3)
    w = lam.reshape((-1,) + (1,) * (fa.ndim - 1))
    return fm - w * fa - (1.0 - w) * fb, np.max(np.split(np.asarray(sizes), 3), axis=0)


#: a polytope whose largest inscribed ball has a radius below this fraction of its
#: bounding box has no interior (an ellipsoid: a condition number of P above its inverse)
INTERIOR_RTOL = 1e-9


def rounded_up(value: float, magnitude: float) -> float:
    """``value`` raised by the round-off of a sum of terms of total ``magnitude`` (a bound
    computed in floating point stays a bound)."""
    return float(value + 16.0 * np.finfo(float).eps * (abs(value) + magnitude))


def nlp_arrays(p: int, k: int = 0, A_t=None, A_w=None, b=None, quadratic=(), smooth=()) -> dict:
    """The smooth description of :meth:`ConvexSet.nlp` (no inequality by default)."""
    A_t = np.zeros((0, p)) if A_t is None else A_t
    return {"k": k, "A_t": A_t, "A_w": np.zeros((len(A_t), k)) if A_w is None else A_w,
            "b": np.zeros(len(A_t)) if b is None else b, "quadratic": list(quadratic),
            "smooth": list(smooth)}


def lp_max(c, A, b):
    """``max cᵀz s.t. A z ≤ b`` (z free) by HiGHS's dual simplex: ``(status, z, y)``, status
    0 optimal (y ≥ 0 the duals, Aᵀy = c), 2 infeasible, 3 unbounded (tolerances
    :data:`~sipkl.solvers.conic.HIGHS_OPTIONS`: the polytopes pose their LPs in their own
    frame, rows of unit norm and the bounding box [−1, 1]^p)."""
    res = linprog(-np.asarray(c, dtype=float), A_ub=A, b_ub=b,
                  bounds=[(None, None)] * A.shape[1], method="highs-ds", options=HIGHS_OPTIONS)
    if res.status != 0:
        return res.status, None, None
    return 0, res.x, np.clip(-res.ineqlin.marginals, 0.0, None)


#: the tie-breaking perturbation of the polytopes' LPs (a fraction of the objective's
#: largest entry, in the set's frame): among optimal vertices, the one that a fixed generic
#: direction prefers, so that the set in other units picks the same vertex (HiGHS's own
#: choice among ties follows round-off)
TIE_BREAK = 1e-9


def tie_breaker(p: int) -> np.ndarray:
    """A fixed generic direction of R^p (fractional parts of multiples of the golden ratio,
    centred), of ∞-norm at most ½."""
    return np.mod(np.arange(1, p + 1) * 0.6180339887498949, 1.0) - 0.5


def vertex(c, A, b):
    """A maximizer of ``cᵀz`` over ``{A z ≤ b}`` chosen the same way whatever the round-off
    (the LP with the objective ``c + TIE_BREAK·‖c‖_∞·w``, w :func:`tie_breaker`; where that
    vertex is not optimal for c itself — a gap below the perturbation — HiGHS's vertex for
    c): ``(status, z, y)`` as :func:`lp_max`."""
    status, z, y = lp_max(c, A, b)
    if status != 0:
        return status, z, y
    size = float(np.abs(c).max())
    tilted, zt, yt = lp_max(c + TIE_BREAK * size * tie_breaker(len(c)), A, b)
    if tilted == 0 and c @ zt >= c @ z - 1e-14 * size * (1.0 + np.abs(z).sum()):
        return 0, zt, y
    return 0, z, y


#: the most p-subsets of a polytope's m rows (m choose p) whose vertices are enumerated: the
#: support function is then a product with the vertex list instead of an LP
VERTEX_SUBSETS = 5000


def polytope_vertices(A, b) -> np.ndarray | None:
    """Every vertex of the bounded polytope ``{A z ≤ b}`` (rows of unit norm, in a frame where
    it spans about [−1, 1]^p), as rows: the solutions of each nonsingular p × p system of
    its rows (condition number below 10¹⁰) that satisfy all of them to 10⁻⁹ — the points
    at which an LP's optimum is attained, found without one. ``None`` where there are more
    than ``VERTEX_SUBSETS`` systems to solve."""
    m, p = A.shape
    if math.comb(m, p) > VERTEX_SUBSETS:
        return None
    if m < p:  # no vertex: the set is unbounded or empty
        return np.zeros((0, p))
    subsets = np.array(list(itertools.combinations(range(m), p)))
    systems = A[subsets]
    regular = np.linalg.cond(systems) < 1e10
    z = np.linalg.solve(systems[regular], b[subsets[regular]][..., None])[..., 0]
    return z[np.all(z @ A.T <= b + 1e-9, axis=1)]


def best_vertex(c, vertices) -> np.ndarray:
    """The row of ``vertices`` (:func:`polytope_vertices`) that :func:`vertex` would return
    for ``cᵀz``: the maximizer of the tilted objective where it is optimal for c to
    round-off, else the maximizer of c."""
    values = vertices @ c
    best = int(np.argmax(values))
    size = float(np.abs(c).max())
    tilted = int(np.argmax(vertices @ (c + TIE_BREAK * size * tie_breaker(len(c)))))
    if values[tilted] >= values[best] - 1e-14 * size * (1.0 + np.abs(vertices[best]).sum()):
        return vertices[tilted]
    return vertices[best]


def analytic_centre(A, b, z, max_iter: int = 100) -> np.ndarray:
    """The analytic centre of ``{A z ≤ b}`` (the maximizer of Σ log(b − A z), unique and
    strictly inside), by damped Newton steps from the interior point ``z``."""
    for _ in range(max_iter):
        slack = b - A @ z
        scaled = A / slack[:, None]
        gradient = scaled.sum(axis=0)  # of −Σ log(b − A z)
        step = -np.linalg.solve(scaled.T @ scaled, gradient)
        decrement = float(-gradient @ step)
        if decrement <= 1e-20:
            break
        length = 1.0 if decrement < 0.25 else 1.0 / (1.0 + np.sqrt(decrement))
        while np.any(b - A @ (z + length * step) <= 0):
            length *= 0.5
        z = z + length * step
    return z


def check_interior(name: str, ratio: float) -> None:
    if not ratio > INTERIOR_RTOL:
        raise ValueError(f"{name}: the set has no interior (its largest inscribed ball has "
                         f"{ratio:.3g} of its extent)")


def onto_ball(z: np.ndarray) -> np.ndarray:
    """Projection of the rows of ``z`` onto the unit ball."""
    norm = np.linalg.norm(z, axis=1, keepdims=True)
    return z / np.maximum(norm, 1.0)


def onto_budget(z: np.ndarray, budget: float) -> np.ndarray:
    """Projection onto {|z_i| ≤ 1, Σ|z_i| ≤ Γ}: the box's where it meets the budget, else
    the soft threshold ``sign(z)·clip(|z| − τ, 0, 1)`` with τ > 0 fitting Σ = Γ, exactly:
    S(τ) = Σ clip(|z_i| − τ, 0, 1) is piecewise linear and non-increasing, with knots at
    |z_i| − 1 and |z_i|, so τ interpolates linearly between the last knot where S ≥ Γ and
    the next (where S < Γ: S = 0 at the largest knot)."""
    size = np.abs(z)
    out = np.clip(z, -1.0, 1.0)
    over = np.minimum(size, 1.0).sum(axis=1) > budget
    if over.any():
        a = size[over]
        knots = np.sort(np.maximum(np.hstack([np.zeros((len(a), 1)), a - 1.0, a]), 0.0),
                        axis=1)
        S = np.clip(a[:, None, :] - knots[:, :, None], 0.0, 1.0).sum(axis=2)
        rows = np.arange(len(a))
        k = np.sum(S >= budget, axis=1) - 1  # S(0) > Γ: k ≥ 0; S(max) = 0 < Γ: k + 1 exists
        low, high, s_low, s_high = (knots[rows, k], knots[rows, k + 1], S[rows, k],
                                    S[rows, k + 1])
        tau = low + (s_low - budget) * (high - low) / (s_low - s_high)
        out[over] = np.sign(z[over]) * np.clip(a - tau[:, None], 0.0, 1.0)
    return out


def linear_rows(A: np.ndarray, b: np.ndarray) -> tuple:
    """``(fun, jac)`` of the inequalities ``A t − b ≤ 0`` on rows of points."""
    return (lambda t: t @ A.T - b, lambda t: np.broadcast_to(A, (len(t),) + A.shape))


def half_spaces(pair, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(A, b)`` of the set ``{t : A t ≤ b}`` given as the pair ``pair``, the ``k``-th set
    of an intersection: finite arrays with one entry of b per row of A (a ``ValueError``
    naming the set else)."""
    A = finite_array(pair[0], f"the A of set {k}", 2)
    b = finite_array(pair[1], f"the b of set {k}")
    if len(A) != len(b):
        raise ValueError(f"Intersection: set {k} has {len(A)} rows in A but {len(b)} "
                         "entries in b")
    return A, b
