"""The column space of kernel learning: per-fit caches of θ-independent geometry, Gram
matrices of columns, and the pricing problems θ ↦ <W, K(θ)> − r(θ)."""
from __future__ import annotations

from functools import partial

import numpy as np

from .contracts import Column
from .kernels.base import KernelFamily
from .price import PriceMatrix
from .threads import one_blas_thread


class Workspace:
    """Caches, for one training set ``X``, each family's geometry and each column's Gram matrix.

    With a ``family`` it is the :class:`~sipkl.contracts.ColumnSpace` of a kernel-learning
    run: the master reads the Gram matrices of the columns, and each concrete member of the
    family has one pricing problem per round.
    """

    def __init__(self, X: np.ndarray, family: KernelFamily = None):
        self.X = X
        self.families = [] if family is None else family.members(X.shape[1])
        self._geometry: dict[KernelFamily, object] = {}
        self._grams: dict[Column, np.ndarray] = {}

    def geometry(self, family: KernelFamily):
        if family not in self._geometry:
            self._geometry[family] = family.geometry(self.X)
        return self._geometry[family]

    def gram(self, column: Column) -> np.ndarray:
        if column not in self._grams:
            with one_blas_thread():  # see sipkl.threads
                self._grams[column] = column.family.gram_from(self.geometry(column.family),
                                                              np.asarray(column.theta))
        return self._grams[column]

    def master_inputs(self, columns) -> list[np.ndarray]:
        """The Gram matrices of ``columns``, what a kernel master solves over."""
        return [self.gram(c) for c in columns]

    def pricing_problems(self, price: PriceMatrix, regularizer=None) -> list:
        """One :class:`KernelPricingProblem` per concrete family of the run."""
        return [self.pricing_problem(f, price, regularizer) for f in self.families]

    def forget(self, keep) -> None:
        """Drop cached Gram matrices of columns not in ``keep`` (pruned columns)."""
        keep = set(keep)
        for column in [c for c in self._grams if c not in keep]:
            del self._grams[column]

    def pricing_problem(self, family: KernelFamily, price: PriceMatrix,
                        regularizer=None) -> "KernelPricingProblem":
        idx = price.support
        return KernelPricingProblem(family, family.restrict(self.geometry(family), idx),
                              price.on_support, self.X.shape[1], regularizer)


class KernelPricingProblem:
    """``θ ↦ <W, K(θ)> − r(θ)`` for one concrete family, restricted to the support of W.

    This is what an oracle maximizes (the :class:`~sipkl.contracts.PricingProblem` of a
    kernel family). ``regularizer`` is an optional
    ``r(θ) -> (value, gradient)`` (e.g. the shrinkage λ‖σ − σ̄‖² of afkanpour eq. 4), subtracted
    from every value. Kernel evaluations are counted in ``n_evals``.
    """

    def __init__(self, family: KernelFamily, geometry, W: np.ndarray, n_features: int,
                 regularizer=None):
        self.family, self.geometry, self.W = family, geometry, W
        self.n_features, self.regularizer = n_features, regularizer
        self.lower, self.upper = family.param_bounds(n_features)
        self.n_evals = 0
        self._pricer = None

    def value_and_grad(self, theta) -> tuple[float, np.ndarray]:
        values, grads = self.values_and_grads(np.asarray(theta, float)[None, :])
        return float(values[0]), grads[0]

    def values_and_grads(self, thetas, grad: bool = True, dtype=np.float64):
        """Values and (with ``grad``) gradients, as rows, of the rows of ``thetas``, all in
        one batch (:meth:`KernelFamily.batch_pricer`, built once per problem; ``dtype``
        float32 for a search whose results are evaluated again)."""
        thetas = np.atleast_2d(np.asarray(thetas, float))
        self.n_evals += len(thetas)
        if self._pricer is None:
            self._pricer = self.family.batch_pricer(self.geometry, self.W)
        return self._regularized(thetas, *self._pricer(thetas, grad, dtype))

    def hessian_batch(self, dtype=np.float64):
        """``H(thetas) -> (S, p, p)``, the Hessians of the prices at the rows of ``thetas``
        (computed in ``dtype``), or ``None`` where the family's batch pricer has none or a
        regularizer is subtracted."""
        if self._pricer is None:
            self._pricer = self.family.batch_pricer(self.geometry, self.W)
        if not hasattr(self._pricer, "hessians") or self.regularizer is not None:
            return None
        return partial(self._pricer.hessians, dtype=dtype)

    def values(self, thetas) -> np.ndarray:
        thetas = np.asarray(thetas, float).reshape(len(thetas), -1)
        self.n_evals += len(thetas)
        return self._regularized(thetas, self.family.prices(self.geometry, thetas, self.W))[0]

    def _regularized(self, thetas, values, grads=None):
        """``values`` (and ``grads``, when given) of the rows of ``thetas`` less r(θ) (and
        its gradient)."""
        if self.regularizer is None:
            return values, grads
        penalties = [self.regularizer(t) for t in thetas]
        values = values - np.array([r for r, _ in penalties])
        if grads is not None:
            grads = grads - np.array([g for _, g in penalties])
        return values, grads

    def column(self, theta) -> Column:
        return Column.make(self.family, theta)
