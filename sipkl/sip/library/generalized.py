"""Generalized semi-infinite programs from the literature with published optimal values:
design centering, the largest body B(x) of a family inside a fixed set G,

    max vol B(x)   s.t.   g_k(y) ≤ 0   for every y ∈ B(x)   (k = 1 … 3),

written as the minimization of −vol B(x) (:class:`~sipkl.sip.GeneralizedSemiInfiniteProgram`,
one lower level per inequality of G, B(x) = {y : v(x, y) ≤ 0}).

* ``design_cent_1`` … ``design_cent_4`` (Stein & Still 2003, "Solving semi-infinite
  optimization problems with interior point techniques", SIAM J. Control Optim.
  42:769–788; as the MPECs design-cent-1 … 4 of Leyffer's MacMPEC collection, whose table
  gives the optima): G = {y : y₁ ≥ −y₂², y₁/4 + y₂ ≤ 3/4, y₂ ≥ −1}, a set that is not
  convex, and B(x) a disc, an axis-parallel ellipse, any ellipse, an axis-parallel box.
  Each lower level is convex (−y₁ − y₂² is concave, the others affine; B(x) convex).
* ``steiner_inellipse``: the largest ellipse inside the triangle with the vertices (0, 0),
  (1, 0), (0, 1) is its Steiner inellipse, of area π/(3√3) times the triangle's (Minda &
  Phelps 2008, "Triangles, ellipses, and cubic polynomials", Amer. Math. Monthly
  115:679–689, Theorem 5): π/(6√3).

Every ellipse is c + A·(unit disc) with A lower triangular, [[x₃, 0], [x₄, x₅]] (any A is
L·Q, Q a rotation, which leaves the disc unchanged: the family of MacMPEC's design-cent-3,
whose full A leaves the rotations free and the solutions a manifold), so
B(x) = {y : ‖A⁻¹(y − c)‖ ≤ 1} and its area π·x₃x₅.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..generalized import GeneralizedSemiInfiniteProgram, LowerLevelConstraint
from ..sets.box import Box

#: the fixed set G of Stein and Still's design-centering problems, g_k(y) ≤ 0
STEIN_STILL = (lambda y: -y[0] - y[1] ** 2, lambda y: y[0] / 4 + y[1] - 0.75,
               lambda y: -y[1] - 1.0)
_STEIN_STILL_SLOPES = (lambda y: np.array([-1.0, -2.0 * y[1]]), lambda y: np.array([0.25, 1.0]),
                       lambda y: np.array([0.0, -1.0]))
#: the triangle (0, 0), (1, 0), (0, 1)
TRIANGLE = (lambda y: -y[0], lambda y: -y[1], lambda y: y[0] + y[1] - 1.0)
_TRIANGLE_SLOPES = (lambda y: np.array([-1.0, 0.0]), lambda y: np.array([0.0, -1.0]),
                    lambda y: np.array([1.0, 1.0]))

_MACMPEC = ("Stein & Still (2003), SIAM J. Control Optim. 42:769–788; MacMPEC {name} "
            "(Leyffer), optimum from its table")


@dataclass(frozen=True)
class DesignCentering:
    """A design-centering GSIP: its name and source, the body (``v(x, y)``, its y-Jacobian,
    the volume and its gradient), the set G (its inequalities and their gradients), the box
    holding every body the runs visit, the start x₀ and the published optimum of the
    minimization of −vol, with the number of decimals published (``None``: a closed form)."""

    name: str
    source: str
    body: Callable
    body_slopes: Callable
    volume: Callable
    volume_gradient: Callable
    G: tuple
    G_slopes: tuple
    box: tuple
    x0: tuple
    optimum: float
    decimals: int | None

    def build(self) -> GeneralizedSemiInfiniteProgram:
        """A fresh :class:`~sipkl.sip.GeneralizedSemiInfiniteProgram` of the problem."""
        box = Box(*self.box)
        constraints = [LowerLevelConstraint(lambda x, y, g=g: g(y), self.body, box,
                                            grad_t=lambda x, y, s=s: s(y),
                                            jac_t=self.body_slopes, name=f"g{k + 1}")
                       for k, (g, s) in enumerate(zip(self.G, self.G_slopes))]
        return GeneralizedSemiInfiniteProgram(lambda x: -self.volume(x), constraints,
                                              len(self.x0),
                                              gradient=lambda x: -self.volume_gradient(x))

    def solve(self, **options):
        """Build and solve from the problem's x₀ (``options`` to ``solve``)."""
        return self.build().solve(np.array(self.x0, dtype=float), **options)


def _disc(x, y):
    return np.array([(y[0] - x[0]) ** 2 + (y[1] - x[1]) ** 2 - x[2] ** 2])


def _disc_slopes(x, y):
    return 2.0 * np.array([[y[0] - x[0], y[1] - x[1]]])


def _axes(x, y):
    return np.array([(y[0] - x[0]) ** 2 / x[2] ** 2 + (y[1] - x[1]) ** 2 / x[3] ** 2 - 1.0])


def _axes_slopes(x, y):
    return 2.0 * np.array([[(y[0] - x[0]) / x[2] ** 2, (y[1] - x[1]) / x[3] ** 2]])


def _ellipse(x, y):  # ‖A⁻¹(y − c)‖² − 1, A = [[x₃, 0], [x₄, x₅]]
    u = (y[0] - x[0]) / x[2]
    w = (y[1] - x[1] - x[3] * u) / x[4]
    return np.array([u * u + w * w - 1.0])


def _ellipse_slopes(x, y):  # 2 A⁻ᵀ A⁻¹ (y − c)
    u = (y[0] - x[0]) / x[2]
    w = (y[1] - x[1] - x[3] * u) / x[4]
    return 2.0 * np.array([[u / x[2] - w * x[3] / (x[2] * x[4]), w / x[4]]])


def _box(x, y):  # [x₃, x₁] × [x₄, x₂]
    return np.array([y[0] - x[0], y[1] - x[1], x[2] - y[0], x[3] - y[1]])


def _box_slopes(x, y):
    return np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])


PROBLEMS: dict[str, DesignCentering] = {p.name: p for p in (
    DesignCentering(
        "design_cent_1", _MACMPEC.format(name="design-cent-1") + ": the largest disc in G",
        _disc, _disc_slopes, lambda x: np.pi * x[2] ** 2,
        lambda x: np.array([0.0, 0.0, 2 * np.pi * x[2]]),
        STEIN_STILL, _STEIN_STILL_SLOPES, ([-3.0, -3.0], [3.0, 3.0]), (0.0, 0.0, 1.0),
        -1.86065, 5),
    DesignCentering(
        "design_cent_2", _MACMPEC.format(name="design-cent-2") + ": the largest "
        "axis-parallel ellipse in G", _axes, _axes_slopes, lambda x: np.pi * x[2] * x[3],
        lambda x: np.array([0.0, 0.0, np.pi * x[3], np.pi * x[2]]),
        STEIN_STILL, _STEIN_STILL_SLOPES, ([-4.0, -4.0], [4.0, 4.0]), (0.5, 0.5, 0.5, 0.5),
        -3.48382, 5),
    DesignCentering(
        "design_cent_3", _MACMPEC.format(name="design-cent-3") + ": the largest ellipse in "
        "G (its table: 3.7237, and 3.72337 for design-cent-31, the same problem)",
        _ellipse, _ellipse_slopes, lambda x: np.pi * x[2] * x[4],
        lambda x: np.pi * np.array([0.0, 0.0, x[4], 0.0, x[2]]),
        STEIN_STILL, _STEIN_STILL_SLOPES, ([-4.0, -4.0], [4.0, 4.0]),
        (0.5, 0.0, 0.5, 0.0, 0.5), -3.72337, 5),
    DesignCentering(
        "design_cent_4", _MACMPEC.format(name="design-cent-4") + ": the largest "
        "axis-parallel box [x₃, x₁] × [x₄, x₂] in G", _box, _box_slopes,
        lambda x: (x[0] - x[2]) * (x[1] - x[3]),
        lambda x: np.array([x[1] - x[3], x[0] - x[2], x[3] - x[1], x[2] - x[0]]),
        STEIN_STILL, _STEIN_STILL_SLOPES, ([-4.0, -4.0], [4.0, 4.0]), (1.0, 1.0, -1.0, -1.0),
        -3.0792, 4),
    DesignCentering(
        "steiner_inellipse", "Minda & Phelps (2008), Amer. Math. Monthly 115:679–689: the "
        "largest ellipse in the triangle (0, 0), (1, 0), (0, 1), area π/(3√3) of the "
        "triangle's", _ellipse, _ellipse_slopes, lambda x: np.pi * x[2] * x[4],
        lambda x: np.pi * np.array([0.0, 0.0, x[4], 0.0, x[2]]),
        TRIANGLE, _TRIANGLE_SLOPES, ([-0.5, -0.5], [1.5, 1.5]), (0.3, 0.3, 0.1, 0.0, 0.1),
        -np.pi / (6 * np.sqrt(3.0)), None),
)}
