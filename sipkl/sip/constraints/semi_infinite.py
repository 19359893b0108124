"""A semi-infinite constraint ``g(x, t) ≤ 0 for all t ∈ T`` and its pricing problem.

Two layers. :class:`IndexConstraint` is what pricing needs of any semi-infinite constraint,
whatever models its x: g, its index set T, and the NumPy side — g at a numeric x_k over
index points (:meth:`~IndexConstraint.values`), its t-gradients (stated or by central
differences) and t-Hessians. The x at which it is priced is the master's, handed over in
each :class:`~sipkl.sip.pricing.space.ConstraintPrice`, never the constraint's own.
:class:`SemiInfiniteConstraint` adds the cvxpy side of the convex program
(:class:`~sipkl.sip.SemiInfiniteProgram`); :class:`~sipkl.sip.NonlinearConstraint` the
x-derivatives of the NumPy one (:class:`~sipkl.sip.NonlinearSemiInfiniteProgram`).

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
from cvxpy.atoms.affine.binary_operators import DivExpression, MulExpression, multiply
from cvxpy.atoms.affine.unary_operators import NegExpression

from . import intervals
from ..sets.base import IndexSet
from ..sets.box import Box


class NonFiniteValue(ValueError):
    """g(x, t) is not finite at a point of T (g must be finite on T): an error naming the
    constraint and t; a local search at a trial x (the NLP back-ends') treats it as a
    point to step back from."""


#: the finite-difference step of the t-gradient, as a fraction of the box's width per
#: coordinate: ε^(1/3) (central differences, round-off and truncation balanced)
FD_STEP = np.finfo(float).eps ** (1.0 / 3.0)


def checked_callable(value, name: str, signature: str = "", optional: bool = True):
    """``value`` where it is callable (or ``None`` where ``optional``), else a TypeError that
    names the argument (and the ``signature`` expected, e.g. ``"g(x, t)"``)."""
    if value is None and optional:
        return None
    if not callable(value):
        raise TypeError(f"{name} must be a callable{' ' + signature if signature else ''}"
                        f"{' or None' if optional else ''}, got {type(value).__name__}")
    return value


def checked_name(name):
    """``name`` where it is ``None`` or a string, else a TypeError."""
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a string, got {name!r}")
    return name


class IndexConstraint:
    """``g(x, t) ≤ 0`` for every ``t`` in the index set ``T``, as pricing sees it: g at a
    numeric x (the master's solution, given to each call) over index points, its t-gradients
    and t-Hessians. The base of :class:`SemiInfiniteConstraint` (cvxpy) and
    :class:`~sipkl.sip.NonlinearConstraint` (NumPy), which state how x is modelled.

    Parameters
    ----------
    g : callable
        ``g(x, t)`` at a numeric ``x``; ``t`` a 1-D array of length p, or with
        ``vectorized=True`` an (m, p) array of m index points, and g returns m values.
        A scalar g is evaluated in a loop over the points in pricing (slower).
    T : :class:`~sipkl.sip.Box`, :class:`~sipkl.sip.FiniteSet`, or a set of
        :mod:`sipkl.sip.sets.base` (polytope, ball, ellipsoid, product, intersection)
    grad_t : callable, optional
        ``grad_t(x, t)``: the gradient of g in t at numeric x (p values; (m, p) when
        vectorized). ``None``: central finite differences with steps ``FD_STEP`` times the
        box's width (one-sided at its faces), all points in one evaluation when vectorized.
    vectorized : bool, optional
        Whether g (and ``grad_t``, and ``jac_g`` of a
        :class:`~sipkl.sip.NonlinearConstraint`) takes an (m, p) array of points. ``None``
        (default): detected at the first evaluation of g (:meth:`is_vectorized`).
    name : str, optional
        Names the constraint in messages, results and printed index points.
    """

    def __init__(self, g: Callable, T: IndexSet, grad_t: Callable = None,
                 vectorized: bool | None = None, name: str = None):
        checked_callable(g, "g", "g(x, t)", optional=False)
        checked_callable(grad_t, "grad_t", "grad_t(x, t)")
        if not isinstance(T, IndexSet):
            raise TypeError(f"T must be an index set (sipkl.sip.Box, FiniteSet, or one of "
                            f"sipkl.sip.sets.base: Polytope, Ball, Ellipsoid, Product, "
                            f"Intersection), got {type(T).__name__}")
        self.g, self.T, self.grad_t = g, T, grad_t
        self.vectorized = None if vectorized is None else bool(vectorized)
        self.name = checked_name(name)

    def is_vectorized(self, x) -> bool:
        """``vectorized``, detected at the first call where it is ``None`` (then kept), at
        ``x`` (numeric, or the cvxpy variables of a :class:`SemiInfiniteConstraint`).

        The probe calls g once with an (m, p) array of m = p + 1 points of T
        (``T.initial_points``; repeated where a finite T has fewer), and once per point with
        t of shape (p,). A g written for one point that indexes t (``t[0]``) returns p
        values, or fails, on the array, never the m = p + 1 it must return. g is vectorized
        where the array call returns m values (shape (m,): numbers, or a cvxpy expression)
        and these equal the point-by-point values to round-off (10⁻⁹ relative), as far as
        both are known: a cvxpy expression of variables without values has shapes only,
        which then decide. It is not vectorized where the array call fails or returns
        another shape while each point-by-point call returns one value. A ``ValueError``
        naming the constraint where neither way works (with both errors), or where both do
        and disagree (then state ``vectorized``)."""
        if self.vectorized is None:
            self.vectorized = self._probe(x)
        return self.vectorized

    def _probe(self, x) -> bool:
        """Whether g is vectorized, by the probe of :meth:`is_vectorized`."""
        p = self.T.dim
        points = self.T.initial_points(p + 1)
        points = points[np.arange(p + 1) % len(points)]
        together, failed_together = _attempt(lambda: _probed(self.g(x, points), p + 1))
        apart, failed_apart = _attempt(lambda: [_probed(self.g(x, t), 1) for t in points])
        if failed_together and failed_apart:
            raise ValueError(f"semi-infinite constraint {self.name!r}: g(x, t) fails both "
                             f"with t of shape {points.shape} ({failed_together}) and with t "
                             f"of shape ({p},) ({failed_apart})")
        if failed_together or failed_apart:
            return not failed_together
        if together is None or any(a is None for a in apart):  # variables without values
            return True
        apart = np.concatenate(apart)
        if np.allclose(together, apart, rtol=1e-9, atol=1e-9 * np.abs(apart).max(),
                       equal_nan=True):
            return True
        raise ValueError(f"semi-infinite constraint {self.name!r}: g(x, t) returns "
                         f"{together.tolist()} for the points {points.tolist()} at once but "
                         f"{apart.tolist()} one by one: state vectorized=True or False")

    def values(self, x, points: np.ndarray) -> np.ndarray:
        """g(x, t) at numeric ``x`` for the rows of ``points`` (m values), checked: shape,
        and finite (a NaN or an infinity is an error naming the constraint)."""
        if self.is_vectorized(x):
            values = _numbers(self.g(x, points))
            self._check_shape(values.shape, len(points), points)
            values = values.reshape(len(points))
        else:
            values = np.empty(len(points))
            for k, t in enumerate(points):  # a scalar g: one call per point
                value = _numbers(self.g(x, t))
                self._check_shape(value.shape, 1, t)
                values[k] = value.item()
        bad = ~np.isfinite(values)
        if bad.any():
            raise NonFiniteValue(f"semi-infinite constraint {self.name!r}: g(x, t) = "
                             f"{values[bad][0]} at t = {points[bad][0].tolist()} (g must be "
                             "finite on T)")
        return values

    def upper_bounds(self, x, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
        """Proven upper bounds of t ↦ g(x, t) at numeric ``x`` on the boxes ``[lower_k,
        upper_k]`` (rows; :func:`~sipkl.sip.constraints.intervals.upper_bounds`: g evaluated in
        interval arithmetic). A :class:`~sipkl.sip.constraints.intervals.NoIntervalForm` where g
        cannot be (:meth:`interval_form` says why)."""
        return intervals.upper_bounds(lambda t: self.g(x, t), lower, upper,
                                      self.is_vectorized(x))

    def interval_form(self, x) -> str | None:
        """``None`` where g(x, ·) at numeric ``x`` evaluates in interval arithmetic (tried
        on the box's first cell, its lower quarter), else the reason: what g does that
        intervals cannot follow (converts t to numbers, branches on it, calls a NumPy
        function without an interval rule, returns a cvxpy expression of a variable it
        closes over)."""
        if not isinstance(self.T, Box):
            return f"its index set is a {type(self.T).__name__}, not a box"
        lower, upper = self.T.param_bounds()
        try:
            self.upper_bounds(x, lower[None], (0.75 * lower + 0.25 * upper)[None])
        except intervals.NoIntervalForm as error:
            return str(error)
        return None

    def gradients(self, x, points: np.ndarray, values: np.ndarray) -> np.ndarray:
        """The t-gradients of g at numeric ``x`` for the rows of ``points`` (m × p), whose
        ``values`` are given: from ``grad_t``, or by central differences with the steps
        h = ``FD_STEP·(upper − lower)`` — at a face of the box the one-sided second-order
        (−3 g(t) + 4 g(t ± h) − g(t ± 2h)) / 2h — every shifted point in one :meth:`values`
        call."""
        m, p = points.shape
        if self.grad_t is not None:
            return self._stated_gradients(x, points)
        lower, upper = self.T.param_bounds()
        step = FD_STEP * (upper - lower)
        up, down = points + step <= upper, points - step >= lower  # m × p
        central = up & down
        side = np.where(up, 1.0, -1.0)  # a one-sided stencil points into the box
        first, second = np.where(central, 1.0, side), np.where(central, -1.0, 2.0 * side)
        shifts = np.eye(p)[None] * step[None, :, None]  # [·, i, :] = step_i e_i
        nodes = np.concatenate([points[:, None, :] + first[:, :, None] * shifts,
                                points[:, None, :] + second[:, :, None] * shifts])
        shifted = self.values(x, nodes.reshape(-1, p))
        f1, f2 = shifted[:m * p].reshape(m, p), shifted[m * p:].reshape(m, p)
        one_sided = side * (4.0 * f1 - f2 - 3.0 * values[:, None])
        return np.where(central, f1 - f2, one_sided) / (2.0 * step)

    def hessians(self, x, points: np.ndarray, coords: np.ndarray) -> np.ndarray:
        """The t-Hessians of g at numeric ``x`` for the rows of ``points`` on the coordinates
        ``coords`` (m × q × q), by differences of the stated gradient ``grad_t``:

            H[:, :, i] = (∇g(t + h₊ e_i) − ∇g(t − h₋ e_i)) / (h₊ + h₋),   then (H + Hᵀ)/2,

        central (h₊ = h₋ = ``FD_STEP·(upper − lower)``, error O(h²) ≈ ε^(2/3) relative) where
        both shifted points lie in the box, one-sided at its faces (the shift that leaves the
        box is 0; error O(h)); every shifted point in one ``grad_t`` evaluation. Only with
        ``grad_t`` (differences of differences would carry ε^(1/3) errors)."""
        if self.grad_t is None:
            raise ValueError(f"semi-infinite constraint {self.name!r}: t-Hessians need the "
                             "t-gradient grad_t")
        m, p = points.shape
        lower, upper = self.T.param_bounds()
        step = (FD_STEP * (upper - lower))[coords]
        forward = np.where(points[:, coords] + step <= upper[coords], step, 0.0)  # m × q
        backward = np.where(points[:, coords] - step >= lower[coords], step, 0.0)
        shifts = np.eye(p)[coords][None]  # [·, i, :] = e_coords[i]
        nodes = np.concatenate([points[:, None, :] + forward[:, :, None] * shifts,
                                points[:, None, :] - backward[:, :, None] * shifts])
        grads = self._stated_gradients(x, nodes.reshape(-1, p))[:, coords]
        ahead, behind = grads[:m * len(coords)], grads[m * len(coords):]
        columns = (ahead - behind).reshape(m, len(coords), len(coords)) \
            / (forward + backward)[:, :, None]  # [s, i, :] = ∂/∂t_i of the gradient
        return 0.5 * (columns + columns.transpose(0, 2, 1))

    def _stated_gradients(self, x, points: np.ndarray) -> np.ndarray:
        """``grad_t`` at the rows of ``points`` (m × p), checked: shape."""
        m, p = points.shape
        if self.is_vectorized(x):
            grads = _numbers(self.grad_t(x, points))
        else:
            grads = np.array([_numbers(self.grad_t(x, t)).reshape(-1) for t in points])
        if grads.shape != (m, p):
            raise ValueError(f"semi-infinite constraint {self.name!r}: grad_t must return "
                             f"{p} values per point, got shape {grads.shape} for {m} points")
        return grads

    def _check_shape(self, shape, m: int, t) -> None:
        if tuple(shape) != (m,) and not (m == 1 and tuple(shape) == ()):
            raise ValueError(f"semi-infinite constraint {self.name!r}: g(x, t) must return "
                             f"{'one value' if m == 1 else f'{m} values (one per row of t)'}, "
                             f"got shape {tuple(shape)} at t = {np.asarray(t).tolist()}")


class SemiInfiniteConstraint(IndexConstraint):
    """``g(x, t) ≤ 0`` for every ``t`` in the index set ``T``, with ``x`` cvxpy variables:
    the semi-infinite constraint of :class:`~sipkl.sip.SemiInfiniteProgram`, priced as every
    :class:`IndexConstraint`.

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
    T, grad_t, vectorized, name
        As for :class:`IndexConstraint` (``vectorized=None``: detected when the master
        first builds g's expressions, from their shapes where the variables have no value
        yet).
    """

    def __init__(self, g: Callable, x, T: IndexSet, grad_t: Callable = None,
                 vectorized: bool | None = None, name: str = None):
        super().__init__(g, T, grad_t, vectorized, name)
        xs = x if isinstance(x, (tuple, list)) else (x,)
        if not xs or not all(isinstance(v, cp.Expression) for v in xs):
            raise TypeError(f"x must be a cvxpy Variable or a tuple of them, got {x!r}")
        self.x = x

    def x_value(self):
        """The numeric value of ``x`` (its variables' current values, in its structure: one
        array, or a tuple of them)."""
        if isinstance(self.x, (tuple, list)):
            return tuple(v.value for v in self.x)
        return self.x.value

    def expressions(self, points: np.ndarray) -> list[cp.Expression]:
        """The cvxpy expressions g(x, t) of the rows of ``points`` (one (m,)-expression when
        vectorized, else m scalar ones), checked: shape, finite numbers, and convex in the
        variables."""
        if self.is_vectorized(self.x):
            expression = _expression(self.g(self.x, points))
            self._check_shape(expression.shape, len(points), points)
            self._check_finite(expression, points)
            exprs = [expression]
        else:
            exprs = [_expression(self.g(self.x, t)) for t in points]
            for e, t in zip(exprs, points):
                self._check_shape(e.shape, 1, t)
                self._check_finite(e, np.asarray(t)[None])
        for e in exprs:
            if not e.is_convex():
                raise ValueError(f"semi-infinite constraint {self.name!r}: g(x, t) must be "
                                 f"convex in the variables (DCP) for every fixed t, but it is "
                                 f"{e.curvature.lower()} (g(x, t) = {e})")
        return exprs

    def _check_finite(self, expression: cp.Expression, points: np.ndarray) -> None:
        """Every number in g(x, t) at the index points is finite (a NaN coefficient would
        reach the conic solver as a failure that names nothing)."""
        for constant in expression.constants():
            bad = ~np.isfinite(np.asarray(constant.value, dtype=float))
            if not bad.any():
                continue
            where = ""
            if bad.ndim and bad.shape[0] == len(points):
                row = np.flatnonzero(bad.reshape(len(points), -1).any(axis=1))[0]
                where = f" at t = {points[row].tolist()}"
            elif len(points) == 1:
                where = f" at t = {np.ravel(points[0]).tolist()}"
            raise ValueError(f"semi-infinite constraint {self.name!r}: g(x, t) has a "
                             f"non-finite number{where} (g must be finite on T)")

    @staticmethod
    def magnitudes(exprs: list[cp.Expression]) -> np.ndarray:
        """Σ |terms| of each index point's g at the variables' current values (one value per
        point of :meth:`expressions`, see :func:`magnitude`): the natural scale of the
        constraint's values."""
        return np.concatenate([magnitude(e, e.size) for e in exprs])


def magnitude(expression: cp.Expression, size: int) -> np.ndarray:
    """Σ |terms| of ``expression`` at its variables' current values (``size`` values).

    The terms are those of its sums, through negations and products or quotients by a
    scalar constant (``c·(a − b)`` has the terms c·a and c·b); any other expression (a matrix
    product, an atom) is one term.
    """
    if isinstance(expression, AddExpression):
        return sum(magnitude(arg, size) for arg in expression.args)
    if isinstance(expression, NegExpression):
        return magnitude(expression.args[0], size)
    if isinstance(expression, (multiply, MulExpression, DivExpression)):
        left, right = expression.args
        if isinstance(expression, DivExpression):
            if right.is_constant() and right.size == 1:
                return magnitude(left, size) / abs(np.asarray(right.value).item())
        elif left.is_constant() and left.size == 1:
            return abs(np.asarray(left.value).item()) * magnitude(right, size)
        elif right.is_constant() and right.size == 1:
            return abs(np.asarray(right.value).item()) * magnitude(left, size)
    return np.abs(np.broadcast_to(np.ravel(np.asarray(expression.value, dtype=float)), size))


def _attempt(call) -> tuple:
    """``(call(), None)``, or ``(None, "the error")`` where it raises."""
    try:
        return call(), None
    except Exception as error:  # the user's g, called in a way it may not take
        return None, f"{type(error).__name__}: {error}"


def _probed(value, m: int):
    """g's answer ``value`` for m points as m numbers (``None`` for a cvxpy expression of
    variables without values), a ``ValueError`` for another shape (one value: () or (1,))."""
    shape = tuple(value.shape) if isinstance(value, cp.Expression) else np.shape(value)
    if shape != (m,) and not (m == 1 and shape == ()):
        raise ValueError(f"g returned shape {shape}, not ({m},)")
    if isinstance(value, cp.Expression):
        value = value.value
    return None if value is None else np.asarray(value).reshape(m)


def _expression(value) -> cp.Expression:
    return value if isinstance(value, cp.Expression) else cp.Constant(value)


def _numbers(value) -> np.ndarray:
    if isinstance(value, cp.Expression):
        value = value.value
    return np.asarray(value, dtype=float)
