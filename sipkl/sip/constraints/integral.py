"""Integrals over an index set, for objectives and constraints: ``integral(f, x, T, degree)``
is the cvxpy expression

    ∫_T f(x, t) ρ(t) dt  ≈  Σ_k w_k ρ(t_k) f(x, t_k),

the rule ``T.quadrature(degree)`` (nodes t_k ∈ T, weights w_k > 0;
:mod:`~sipkl.sip.sets.quadrature`) applied to f. It is the integral itself, with no error,
wherever t ↦ f(x, t) ρ(t) is a polynomial of total degree ≤ ``degree`` — the objectives
∫ p(t) dt of one-sided L1 approximation by polynomials, moments, expectations of
polynomial losses under a polynomial density — and otherwise the rule's approximation,
whose error :meth:`~sipkl.sip.sets.quadrature.QuadratureRule.error_estimate` estimates and,
on boxes, :meth:`~sipkl.sip.sets.quadrature.QuadratureRule.error_bound` bounds.

The weights w_k ρ(t_k) are nonnegative (ρ ≥ 0 is checked at the nodes), so the integral of
an f convex (concave, affine) in x for each t is convex (concave, affine): DCP wherever
f(·, t) is. With ρ the density of a distribution on T it is the expectation E_ρ f(x, t).
"""
from __future__ import annotations

from typing import Callable

import cvxpy as cp
import numpy as np

from ..sets.base import IndexSet
from .semi_infinite import IndexConstraint, checked_callable


def integral(f: Callable, x, T: IndexSet, degree: int, density: Callable = None,
             vectorized: bool | None = None):
    """∫_T f(x, t) ρ(t) dt by the rule of T exact for polynomials of total degree
    ≤ ``degree`` (module doc), as a cvxpy expression in the variables of f.

    Parameters
    ----------
    f : callable
        ``f(x, t)``, written as a semi-infinite constraint's g is
        (:class:`~sipkl.sip.SemiInfiniteConstraint`): a scalar expression at one point t of
        shape (p,), or with ``vectorized=True`` one value per row of an (m, p) array.
    x : cvxpy Variable or list of them
        The variables f is given (others may enter f by closure).
    T : :class:`~sipkl.sip.Box`, :class:`~sipkl.sip.sets.Polytope` (a simplex included)
        The set integrated over; a ``TypeError`` for one without a quadrature rule.
    degree : int
        The total degree in t up to which the integral is exact.
    density : callable, optional
        ``density(t)`` on an (m, p) array: m values ρ(t) ≥ 0 (``None``: ρ = 1). A density
        of total mass 1 makes the integral an expectation.
    vectorized : bool, optional
        Whether f takes an (m, p) array; ``None`` detects it as
        :meth:`~sipkl.sip.sets.base.IndexConstraint.is_vectorized` does.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from sipkl.sip import Box, integral
    >>> x = cp.Variable(3)                          # p(t) = x₀ + x₁ t + x₂ t²
    >>> area = integral(lambda x, t: x[0] + x[1] * t[0] + x[2] * t[0] ** 2, x, Box([0], [1]), 2)
    >>> x.value = [1.0, 1.0, 3.0]
    >>> round(float(area.value), 12)                # 1 + 1/2 + 3/3
    2.5
    """
    if not isinstance(T, IndexSet):
        raise TypeError(f"T must be an index set (sipkl.sip.Box or Polytope), got "
                        f"{type(T).__name__}")
    checked_callable(f, "f", "f(x, t)", optional=False)
    checked_callable(density, "density", "density(t)")
    rule = T.quadrature(degree)
    weights = rule.weights
    if density is not None:
        rho = np.asarray(density(rule.nodes), dtype=float)
        if rho.shape != weights.shape or not np.all(np.isfinite(rho) & (rho >= 0)):
            raise ValueError(f"density: must return {len(weights)} finite values ≥ 0 at "
                             f"the {len(weights)} nodes of an (m, p) array, got "
                             f"{np.array2string(rho, threshold=6)}")
        weights = weights * rho
    used = weights > 0
    nodes, weights = rule.nodes[used], weights[used]
    if IndexConstraint(f, T, vectorized=vectorized, name="integral").is_vectorized(x):
        return weights @ f(x, nodes)
    return cp.sum(cp.hstack([weight * f(x, t) for weight, t in zip(weights, nodes)]))
