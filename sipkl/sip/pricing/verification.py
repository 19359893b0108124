"""The final check of an answer: a search of each index set for the largest violation at x.

The exchange method stops where its oracle finds no index point whose relative violation
g_j(x, t)/s_j exceeds the cut ``tol + atol``; over a continuous set that is the oracle's
word — a grid, a sample, local searches from its own points — and the violations it saw are
those at the points it tried. :func:`verify` searches every T_j once more at the answer x,
independently of the pricing's points:

* a scrambled Sobol sample u_1 … u_n of the cube ``[−1, 1]^p`` at the fixed seed
  ``VERIFY_SEED``, n = min(``VERIFY_BUDGET``, ``VERIFY_BASE``·2^p) (p = dim T_j: 2048 on an
  interval, 8192 in three dimensions, 16 384 from four on), and the same points pushed onto
  the cube's faces (the coordinate of largest |u_i| set to ±1), mapped onto the set by its
  own map ``from_cube`` (affine on a box; the radial map of a convex set, which sends the
  cube onto the set and its faces onto the boundary, where maxima often lie); every point
  of a finite set (there the search is exact);
* the sample's local maxima — points with no better one within the radius of a ball that
  holds about ``VERIFY_NEIGHBOURS``·p sample points in the cube, sought among its
  ``VERIFY_CANDIDATES`` best points — best first, ``VERIFY_STARTS`` of them (fewer where the
  set's local search is IPOPT: :func:`~sipkl.sip.pricing.search.affordable_starts`), each
  refined by a local ascent inside the set (:func:`~sipkl.sip.pricing.search.refine_in_set`:
  projected gradient steps in the set's frame, IPOPT on a general polytope or a smooth set).

The answer is the largest value seen, at a sample point or a refined one.

What it finds is a value, not a bound: a maximum narrower than the sample's spacing, away
from the basins of the refined points, can be missed (a proof needs a certified oracle:
``violation_proved``). It is deterministic (a fixed seed, no random state), and scale-free:
the sample is the image of the same cube points, so the set in other units (``1000·T``) is
searched at the same points in those units, the ascent runs in the set's frame, and the
violations are relative to each constraint's scale s_j.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.spatial import cKDTree
from scipy.special import gamma
from scipy.stats import qmc

from .search import affordable_starts, refine_in_set
from .space import ConstraintPrice, IndexPointPricing

#: the seed of the scrambled Sobol sample
VERIFY_SEED = 20240611

#: sample points per doubling of the dimension (``VERIFY_BASE·2^p``), and at most
VERIFY_BASE, VERIFY_BUDGET = 1024, 2 ** 14

#: a local maximum of the sample is the best in a ball that holds about
#: ``VERIFY_NEIGHBOURS·p`` sample points; it is sought among the ``VERIFY_CANDIDATES`` best
VERIFY_NEIGHBOURS, VERIFY_CANDIDATES = 4, 2048

#: local maxima of the sample refined at most, per index set (fewer where the local search
#: is IPOPT: :func:`~sipkl.sip.pricing.search.affordable_starts`)
VERIFY_STARTS = 16


@dataclass
class Verification:
    """The largest violation found: its relative value g_j(x, t)/s_j (``relative``), the
    constraint's position ``j`` and the point ``t``."""

    relative: float = -np.inf
    j: int = None
    t: np.ndarray = None


@lru_cache(maxsize=16)
def cube_sample(p: int) -> np.ndarray:
    """The sample of ``[−1, 1]^p`` (the module docstring: Sobol points, then the same on the
    faces, without repeats); computed once per p, read-only."""
    n = min(VERIFY_BUDGET, VERIFY_BASE * 2 ** p)
    inner = 2.0 * qmc.Sobol(p, scramble=True, seed=VERIFY_SEED).random(n) - 1.0
    faces = inner.copy()
    rows, largest = np.arange(n), np.argmax(np.abs(inner), axis=1)
    faces[rows, largest] = np.sign(inner[rows, largest])
    points = np.unique(np.vstack([inner, faces]), axis=0)
    points.flags.writeable = False
    return points


def local_maxima(cube: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """The ``n`` best sample points (indices, best first) with no better sample point
    within the radius ρ = 2·(k / (m·V_p))^(1/p) in the cube — that of a ball holding about
    k = ``VERIFY_NEIGHBOURS``·p of the m sample points, V_p the volume of the unit ball —,
    sought among the ``VERIFY_CANDIDATES`` best (the best point always is one; a better
    point is an earlier one of them)."""
    m, p = cube.shape
    unit_ball = np.pi ** (p / 2) / gamma(p / 2 + 1)
    radius = 2.0 * (VERIFY_NEIGHBOURS * p / (m * unit_ball)) ** (1.0 / p)
    order = np.argsort(-values, kind="stable")[:VERIFY_CANDIDATES]
    pairs = cKDTree(cube[order]).query_pairs(radius, output_type="ndarray")  # ranks i < j
    dominated = np.zeros(len(order), dtype=bool)
    dominated[pairs[:, 1]] = True
    return order[~dominated][:n]


def search_set(problem) -> tuple[float, np.ndarray]:
    """``(value, t)``: the largest value of the pricing problem found over its set (the
    module docstring's search)."""
    T = problem.family
    if T.finite:
        values = problem.values(T.points)
        best = int(np.argmax(values))
        return float(values[best]), T.points[best]
    cube = cube_sample(T.dim)
    sample = T.from_cube(cube)
    values = problem.values(sample)
    peaks = local_maxima(cube, values, min(VERIFY_STARTS, affordable_starts(T)))
    refined = refine_in_set(problem, sample[peaks])
    best = int(np.argmax(values))
    if refined.fun[0] > values[best]:
        return float(refined.fun[0]), refined.x[0]
    return float(values[best]), sample[best]


def verify(constraints, prices: list[ConstraintPrice]) -> Verification:
    """The largest relative violation found over every constraint's index set at the x of
    its price (:func:`search_set`)."""
    found = Verification()
    for j, (constraint, price) in enumerate(zip(constraints, prices)):
        relative, t = search_set(IndexPointPricing(constraint, price))
        if relative > found.relative:
            found.relative, found.j, found.t = relative, j, np.array(t)
    return found


__all__ = ["Verification", "cube_sample", "local_maxima", "search_set", "verify"]
