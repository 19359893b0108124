"""A semi-infinite constraint ``g(x, t) ≤ 0 for all t ∈ T`` and its pricing problem.

The user writes g once, as one Python function of ``(x, t)``: with the cvxpy variables it
builds the master's constraint at an index point (it must then be convex in the variables,
DCP, for every fixed t); with the master's numeric solution x_k it evaluates the violation at
index points (pricing). Variables that are not passed as ``x`` may enter g by closure, as in
``g = lambda x, t: x[0] + x[1] * t[0] - z``: the master builds constraints in them, and in
pricing they hold their values at the master's solution, so that g returns a cvxpy
expression whose ``.value`` is taken.
"""
from __future__ import annotations

from collections.abc import Callable

import cvxpy as cp
import numpy as np
from cvxpy.atoms.affine.add_expr import AddExpression

from .index_sets import IndexSet

#: the finite-difference step of the t-gradient, as a fraction of the box's width per
#: coordinate: ε^(1/3) (central differences, round-off and truncation balanced)
FD_STEP = np.finfo(float).eps ** (1.0 / 3.0)


class SemiInfiniteConstraint:
    """``g(x, t) ≤ 0`` for every ``t`` in the index set ``T``.

    Parameters
    ----------
    g : callable
        ``g(x, t)``. ``x`` is what is passed below: a cvxpy Variable (or expression), or a
        tuple of them, which g receives as one tuple (``g(xs, t)`` with ``xs = (a, b)``); in
        pricing the same structure of numeric values. ``t`` is a 1-D array of length p, or
        with ``vectorized=True`` an (m, p) array of m index points, and g returns m values
        (the master, too, then builds the constraints of all its points in one call).
        A scalar g is evaluated in a loop over the points in pricing (slower).
    x : cvxpy Variable, or tuple of them
    T : :class:`~sipkl.sip.Box` or :class:`~sipkl.sip.FiniteSet`
    grad_t : callable, optional
        ``grad_t(x, t)``: the gradient of g in t at numeric x (p values; (m, p) when
        vectorized). ``None``: central finite differences with steps ``FD_STEP`` times the
        box's width (one-sided at its faces), all points in one evaluation when vectorized.
    vectorized : bool
    name : str, optional
        Names the constraint in messages, results and printed index points.
    """

    def __init__(self, g: Callable, x, T: IndexSet, grad_t: Callable = None,
                 vectorized: bool = False, name: str = None):
        if not callable(g):
            raise TypeError(f"g must be a callable g(x, t), got {type(g).__name__}")
        if grad_t is not None and not callable(grad_t):
            raise TypeError(f"grad_t must be a callable grad_t(x, t) or None, got "
                            f"{type(grad_t).__name__}")
        xs = x if isinstance(x, (tuple, list)) else (x,)
        if not xs or not all(isinstance(v, cp.Expression) for v in xs):
            raise TypeError(f"x must be a cvxpy Variable or a tuple of them, got {x!r}")
        if not isinstance(T, IndexSet):
            raise TypeError(f"T must be a sipkl.sip.Box or FiniteSet, got {type(T).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a string, got {name!r}")
        self.g, self.x, self.grad_t, self.vectorized = g, x, grad_t, bool(vectorized)
        self.T, self.name = T, name

    # -- the master's side ---------------------------------------------------------
    def expressions(self, points: np.ndarray) -> list[cp.Expression]:
        """The cvxpy expressions g(x, t) of the rows of ``points`` (one (m,)-expression when
        vectorized, else m scalar ones), checked: shape, and convex in the variables."""
        if self.vectorized:
            expression = _expression(self.g(self.x, points))
            self._check_shape(expression.shape, len(points), points)
            exprs = [expression]
        else:
            exprs = [_expression(self.g(self.x, t)) for t in points]
            for e, t in zip(exprs, points):
                self._check_shape(e.shape, 1, t)
        for e in exprs:
            if not e.is_convex():
                raise ValueError(f"semi-infinite constraint {self.name!r}: g(x, t) must be "
                                 f"convex in the variables (DCP) for every fixed t, but it is "
                                 f"{e.curvature.lower()} (g(x, t) = {e})")
        return exprs

    def magnitudes(self, exprs: list[cp.Expression]) -> np.ndarray:
        """Σ |terms| of each index point's g at the variables' current values (one value per
        point of :meth:`expressions`): the terms of a sum ``a + b − c`` are a, b and c, any
        other expression is one term. The natural scale of the constraint's values."""
        return np.concatenate([magnitude(e, e.size) for e in exprs])

    # -- the pricing side ----------------------------------------------------------
    def values(self, x, points: np.ndarray) -> np.ndarray:
        """g(x, t) at numeric ``x`` for the rows of ``points`` (m values), checked: shape,
        and finite (a NaN or an infinity is an error naming the constraint)."""
        if self.vectorized:
            values = _numbers(self.g(x, points))
            self._check_shape(values.shape, len(points), points)
        else:
            values = np.empty(len(points))
            for k, t in enumerate(points):  # a scalar g: one call per point
                value = _numbers(self.g(x, t))
                self._check_shape(value.shape, 1, t)
                values[k] = value.item()
        bad = ~np.isfinite(values)
        if bad.any():
            raise ValueError(f"semi-infinite constraint {self.name!r}: g(x, t) = "
                             f"{values[bad][0]} at t = {points[bad][0].tolist()} (g must be "
                             "finite on T)")
        return values

    def gradients(self, x, points: np.ndarray, values: np.ndarray) -> np.ndarray:
        """The t-gradients of g at numeric ``x`` for the rows of ``points`` (m × p): from
        ``grad_t``, or by central differences (one-sided at the faces of the box) with the
        steps ``FD_STEP·(upper − lower)``, every shifted point in one :meth:`values` call."""
        m, p = points.shape
        if self.grad_t is not None:
            if self.vectorized:
                grads = _numbers(self.grad_t(x, points))
            else:
                grads = np.array([_numbers(self.grad_t(x, t)).reshape(-1) for t in points])
            if grads.shape != (m, p):
                raise ValueError(f"semi-infinite constraint {self.name!r}: grad_t must return "
                                 f"{p} values per point, got shape {grads.shape} for {m} points")
            return grads
        lower, upper = self.T.param_bounds()
        step = FD_STEP * (upper - lower)
        shifts = np.eye(p) * step  # p × p
        ahead = np.minimum(points[:, None, :] + shifts, upper)  # m × p × p
        behind = np.maximum(points[:, None, :] - shifts, lower)
        shifted = self.values(x, np.concatenate([ahead, behind]).reshape(-1, p))
        forward, backward = shifted[:m * p].reshape(m, p), shifted[m * p:].reshape(m, p)
        width = np.einsum("mpp->mp", ahead - behind)
        return (forward - backward) / width

    def _check_shape(self, shape, m: int, t) -> None:
        if tuple(shape) != (m,) and not (m == 1 and tuple(shape) == ()):
            raise ValueError(f"semi-infinite constraint {self.name!r}: g(x, t) must return "
                             f"{'one value' if m == 1 else f'{m} values (one per row of t)'}, "
                             f"got shape {tuple(shape)} at t = {np.asarray(t).tolist()}")


def magnitude(expression: cp.Expression, size: int) -> np.ndarray:
    terms = expression.args if isinstance(expression, AddExpression) else [expression]
    return sum(np.abs(np.broadcast_to(np.ravel(np.asarray(term.value, dtype=float)), size))
               for term in terms)


def _expression(value) -> cp.Expression:
    return value if isinstance(value, cp.Expression) else cp.Constant(value)


def _numbers(value) -> np.ndarray:
    if isinstance(value, cp.Expression):
        value = value.value
    return np.asarray(value, dtype=float)
