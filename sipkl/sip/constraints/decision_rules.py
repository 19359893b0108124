"""Adjustable (second-stage) variables: decision rules z(t), decided after t ∈ T is known.

A two-stage robust program asks for x now and, for each t ∈ T, a recourse z(t):

    min f(x)  s.t.  g(x, z(t), t) ≤ 0   for all t ∈ T.

Over all functions z this is intractable in general; restricted to a finite basis it is a
semi-infinite program in x and the rule's coefficients (Ben-Tal, Goryashko, Guslitzer &
Nemirovski 2004, "Adjustable robust solutions of uncertain linear programs", Math. Prog.
99:351–376, affine rules; Kuhn, Wiesemann & Georghiou 2011 and PyROS's quadratic rules):

    z(t) = Σ_α C_α u(t)^α,   u(t) = (t − c)/h,   |α| ≤ degree,

the monomials of t in the frame of T's bounding box (c its centre, h its half-widths), so that
the coefficients C (a cvxpy Variable) have the units of z whatever the units of t — the same
run in any units of T. ``degree`` 0 is the static rule (z constant), 1 the affine rule, 2
the quadratic one. z(t) is affine in C for every t, so a g convex in (x, z) stays convex in
(x, C): the rule's coefficients enter the constraints' g by closure, as any variable not
passed as x, and every oracle prices them. Where g is affine in (x, z), the recourse matrix
does not depend on t (fixed recourse) and the rule is affine, g is affine in t, and the
program imposes it by its exact robust counterpart over a conic set
(:mod:`sipkl.sip.robust`); otherwise (a quadratic rule, recourse that depends on t) by the
exchange method.
"""
from __future__ import annotations

import itertools

import cvxpy as cp
import numpy as np

from ..sets.base import IndexSet


class DecisionRule:
    """z(t) = C ᵀ b(u(t)), the polynomial rule of the module doc: :func:`decision_rule` makes
    one.

    Attributes
    ----------
    coefficients : cvxpy Variable
        C, one row per monomial b_α (1, then u_i, then u_i u_j for i ≤ j, …), one column
        per entry of z.
    T : index set
        The set whose points the rule answers (its bounding box is the rule's frame).
    degree : int
    depends_on : tuple of int
        The coordinates of t the rule reads (all by default): a rule decided before the
        other coordinates are known (non-anticipative, in a multi-stage program) reads only
        those known then.
    """

    def __init__(self, size: int, T: IndexSet, degree: int = 1, depends_on=None,
                 name: str = None):
        if not (isinstance(size, (int, np.integer)) and not isinstance(size, bool)
                and size >= 1):
            raise ValueError(f"size must be an integer ≥ 1, got {size!r}")
        if not (isinstance(degree, (int, np.integer)) and not isinstance(degree, bool)
                and 0 <= degree <= 2):
            raise ValueError(f"degree must be 0 (static), 1 (affine) or 2 (quadratic), got "
                             f"{degree!r}")
        if not isinstance(T, IndexSet):
            raise TypeError(f"T must be an index set, got {type(T).__name__}")
        self.T, self.degree, self.size = T, int(degree), int(size)
        self.depends_on = checked_coordinates(depends_on, T.dim)
        self._centre = 0.5 * (T.lower + T.upper)
        self._half = 0.5 * (T.upper - T.lower)
        self._monomials = [m for d in range(self.degree + 1) for m in
                           itertools.combinations_with_replacement(self.depends_on, d)]
        self.coefficients = cp.Variable((len(self._monomials), self.size),
                                        name=name or "decision_rule")

    def basis(self, t) -> np.ndarray:
        """The monomials b_α(u(t)) at the points t: (m, number of monomials) for an (m, p)
        array, one row for a point of shape (p,)."""
        u = (self.T.as_points(t) - self._centre) / self._half
        return np.column_stack([np.prod(u[:, list(m)], axis=1) for m in self._monomials])

    def __call__(self, t):
        """z(t) as a cvxpy expression: shape (size,) at one point (p,), (m, size) at an
        (m, p) array of points."""
        values = self.basis(t) @ self.coefficients
        return values[0] if np.ndim(t) == 1 else values

    def value(self, t) -> np.ndarray:
        """z(t) at the coefficients' values (numbers, shaped as :meth:`__call__`'s)."""
        if self.coefficients.value is None:
            raise ValueError("value: the rule has no coefficients yet (solve the program)")
        values = self.basis(t) @ self.coefficients.value
        return values[0] if np.ndim(t) == 1 else values

    def __repr__(self):
        kind = ("static", "affine", "quadratic")[self.degree]
        return f"DecisionRule({self.size} entries, {kind} in t ∈ {self.T!r})"


def decision_rule(size: int, T: IndexSet, degree: int = 1, depends_on=None,
                  name: str = None) -> DecisionRule:
    """An adjustable variable of ``size`` entries, z(t) for t ∈ ``T``, as a polynomial rule
    of ``degree`` (0 static, 1 affine — the default —, 2 quadratic) in the coordinates of T's
    bounding box (module doc), or in those of ``depends_on`` only (the coordinates of t
    known when z is decided). Write it into g as ``z(t)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sipkl.sip import Box, decision_rule
    >>> z = decision_rule(2, Box([0.0], [10.0]))
    >>> z.coefficients.shape                   # (1, u) × 2 entries, u = (t − 5)/5
    (2, 2)
    >>> z(np.array([[0.0], [10.0]])).shape     # two points: a (2, 2) cvxpy expression
    (2, 2)
    """
    return DecisionRule(size, T, degree, depends_on, name)


def checked_coordinates(depends_on, p: int) -> tuple:
    """``depends_on`` as a sorted tuple of distinct coordinates of t (0 … p − 1; all where
    ``None``), else a ``ValueError`` naming it."""
    if depends_on is None:
        return tuple(range(p))
    coordinates = tuple(sorted(set(np.atleast_1d(depends_on).tolist())))
    if len(coordinates) != np.size(depends_on) or not all(
            isinstance(k, int) and 0 <= k < p for k in coordinates):
        raise ValueError(f"depends_on must list distinct coordinates of t among 0 … {p - 1}, "
                         f"got {depends_on!r}")
    return coordinates
