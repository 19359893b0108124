"""The constraints of a smooth semi-infinite program written in NumPy
(:class:`~sipkl.sip.NonlinearSemiInfiniteProgram`): the semi-infinite
:class:`NonlinearConstraint` ``g(x, t) ≤ 0`` for all t ∈ T and the :class:`FiniteConstraint`
``c(x) ≤ 0`` (or = 0), each with the x-derivatives that the local NLP master needs: stated,
else by the complex step or central differences, as measured at the first use
(:mod:`sipkl.sip.constraints.derivatives`).

A :class:`NonlinearConstraint` is an :class:`~sipkl.sip.constraints.semi_infinite.IndexConstraint`: pricing
evaluates t ↦ g(x_k, t) by the same code as for a cvxpy constraint, at the master's x_k.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..sets.base import IndexSet
from .derivatives import derivative, measured_differences
from .semi_infinite import IndexConstraint, checked_callable, checked_name


class FiniteConstraint:
    """Finitely many smooth constraints ``fun(x) ≤ 0`` (``equality=True``: ``= 0``).

    Parameters
    ----------
    fun : callable
        ``fun(x) -> q values`` (or one number) at a NumPy ``x``.
    jac : callable, optional
        ``jac(x) -> (q, n)``; ``None``: complex step or central differences (see
        :mod:`sipkl.sip.constraints.derivatives`).
    equality : bool
    name : str, optional
        Names it in messages (``"c0"``, ``"c1"``, … by position otherwise).
    """

    def __init__(self, fun: Callable, jac: Callable = None, equality: bool = False,
                 name: str = None):
        self.fun = checked_callable(fun, "fun", optional=False)
        self.jac = checked_callable(jac, "jac")
        self.equality, self.name, self.differences = bool(equality), checked_name(name), None

    def values(self, x, check: bool = True) -> np.ndarray:
        """fun(x) as a 1-D array, checked (``check``: finite, else an error naming it)."""
        with np.errstate(all="ignore"):
            values = np.atleast_1d(np.asarray(self.fun(x), dtype=float))
        if values.ndim != 1 or (check and not np.all(np.isfinite(values))):
            raise ValueError(f"finite constraint {self.name!r}: fun(x) must return finite "
                             f"numbers (one or a 1-D array), got {values.tolist()}")
        return values

    def jacobian(self, x, typical, check: bool = True) -> np.ndarray:
        """The (q, n) Jacobian at x: ``jac``, else the complex step or central differences;
        checked (``check``: finite)."""
        q = len(self.values(x, check))
        if self.jac is not None:
            jac = np.asarray(self.jac(x), dtype=float)
            jac = jac.reshape(1, -1) if jac.ndim == 1 and q == 1 else jac
            name = "jac"
        else:
            if self.differences is None:
                self.differences = measured_differences(self._raw, x, typical)
            jac = derivative(self._raw, x, self.differences, typical).reshape(q, len(x))
            name = "its x-derivative"
        if jac.shape != (q, len(x)):
            raise ValueError(f"finite constraint {self.name!r}: jac must return a ({q}, "
                             f"{len(x)}) array, got shape {jac.shape}")
        if check and not np.all(np.isfinite(jac)):
            raise ValueError(f"finite constraint {self.name!r}: {name} is not finite at x = "
                             f"{np.asarray(x).tolist()}")
        return jac

    def _raw(self, x):
        return np.atleast_1d(np.asarray(self.fun(x)))


class NonlinearConstraint(IndexConstraint):
    """``g(x, t) ≤ 0`` for every ``t`` in ``T``, with ``g`` a smooth NumPy function of a
    NumPy ``x`` (of length n): the semi-infinite constraint of
    :class:`~sipkl.sip.NonlinearSemiInfiniteProgram`, priced as every
    :class:`~sipkl.sip.constraints.semi_infinite.IndexConstraint` (``values``, ``gradients`` in t,
    ``hessians``), with the x-derivatives that its master needs (:meth:`jacobian`).

    Parameters
    ----------
    g : callable
        ``g(x, t)``: with ``vectorized=True``, t an (m, p) array of index points and m
        values returned; else t one point (p values) and one value returned.
    T : an index set of :mod:`sipkl.sip.sets.base` (:class:`~sipkl.sip.Box`,
        :class:`~sipkl.sip.FiniteSet`, …)
    jac_g : callable, optional
        ``jac_g(x, t)``: the x-gradients of g, (m, n) for m points (n values for one point
        when not vectorized). ``None``: the complex step where g is analytic in x, else
        central differences (see :mod:`sipkl.sip.constraints.derivatives`).
    grad_t : callable, optional
        ``grad_t(x, t)``: the t-gradients, for pricing, as for
        :class:`~sipkl.sip.SemiInfiniteConstraint` (``None``: central differences in t).
    vectorized : bool, optional
        ``None`` (default): detected at the first evaluation of g, as for every
        :class:`~sipkl.sip.constraints.semi_infinite.IndexConstraint`
        (:meth:`~sipkl.sip.constraints.semi_infinite.IndexConstraint.is_vectorized`).
    name : str, optional
    """

    def __init__(self, g: Callable, T: IndexSet, jac_g: Callable = None,
                 grad_t: Callable = None, vectorized: bool | None = None, name: str = None):
        super().__init__(g, T, grad_t, vectorized, name)
        self.jac_g = checked_callable(jac_g, "jac_g", "jac_g(x, t)")
        self.differences = None  # "complex-step" or "central", measured at the first use

    def jacobian(self, x, points: np.ndarray, typical: np.ndarray,
                 check: bool = True) -> np.ndarray:
        """The x-gradients of g at the rows of ``points`` (m × n): ``jac_g``, else the
        complex step or central differences (steps relative to max(|x_k|, ``typical[k]``)),
        checked: shape, and (``check``) finite, an error naming the constraint and t."""
        x = np.asarray(x, dtype=float)
        m, n = len(points), len(x)
        if self.jac_g is not None:
            if self.is_vectorized(x):
                jac = np.asarray(self.jac_g(x, points), dtype=float)
            else:
                jac = np.array([np.ravel(np.asarray(self.jac_g(x, t), dtype=float))
                                for t in points]).reshape(m, -1)
            if jac.shape != (m, n):
                raise ValueError(f"semi-infinite constraint {self.name!r}: jac_g must return "
                                 f"an ({m}, {n}) array for {m} points, got shape {jac.shape}")
            what = "jac_g(x, t)"
        else:
            def fun(z):
                return self.raw_values(z, points)
            if self.differences is None:
                self.differences = measured_differences(fun, x, typical)
            jac = derivative(fun, x, self.differences, typical).reshape(m, n)
            what = f"the x-gradient of g ({self.differences})"
        bad = ~np.all(np.isfinite(jac), axis=1)
        if check and bad.any():
            raise ValueError(f"semi-infinite constraint {self.name!r}: {what} is not finite at "
                             f"t = {points[bad][0].tolist()} (x = {x.tolist()})")
        return jac

    def raw_values(self, x, points) -> np.ndarray:
        """g at the rows of ``points`` without conversion or checks (complex for a complex
        x; the NLP master's trial points, which may overflow)."""
        if self.is_vectorized(x):
            return np.asarray(self.g(x, points)).reshape(len(points))
        return np.array([np.asarray(self.g(x, t)).reshape(()) for t in points])
