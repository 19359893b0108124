"""The column space of kernel learning: per-fit caches of θ-independent geometry, Gram
matrices of columns, and the pricing problems θ ↦ <W, K(θ)> − r(θ)."""
from __future__ import annotations

from functools import partial

import numpy as np

from ..compute.exponential import SecondOrderPricer
from ..compute.gram_storage import GramStorage, gram_storage
from ..compute.lazy_gram import LazyGram
from ..core.contracts import Column, PricingProblemBase, SecondOrderRegularizer
from ..utils.cache import Cache
from ..utils.config import budget
from ..utils.threads import one_blas_thread
from .families.base import KernelFamily, column_to_dict, family_to_dict
from .price_matrix import PriceMatrix


class KernelSpace:
    """Caches, for one training set ``X``, each family's geometry and each column's Gram matrix.

    With a ``family`` it is the :class:`~sipkl.core.contracts.ColumnSpace` of a kernel-learning
    run: the master reads the Gram matrices of the columns, and each concrete member of the
    family has one pricing problem per round.

    Memory: an n × n Gram matrix takes 8n² bytes per column. When that is more than
    ``max_gram_bytes`` (default: the budget ``gram_cache_bytes`` of :mod:`sipkl.utils.config`,
    256 MiB: n > 5792) the workspace is
    *lazy*: the columns are :class:`~sipkl.compute.lazy_gram.LazyGram` (computed when read, in blocks
    of rows) and no n × n geometry is built; the pricing problems use the geometry of the
    support of W only. A run then holds one n × n matrix, the master's K(d), whatever its
    number of columns. Below that size the Gram matrices are cached while they take at most
    the budget ``gram_total_bytes`` together (4 GiB); a column that would pass it is a
    :class:`~sipkl.compute.lazy_gram.LazyGram` (the matrices cached before it stay, those of pruned
    columns are dropped: their room goes to the next new columns), so that the memory, not
    n alone, decides when the masters work on lazy columns.
    """

    def __init__(self, X: np.ndarray, family: KernelFamily = None, max_gram_bytes=None):
        self.X = X
        self.families = [] if family is None else family.members(X.shape[1])
        limit = budget("gram_cache_bytes") if max_gram_bytes is None else max_gram_bytes
        if not (np.isscalar(limit) and limit >= 0):
            raise ValueError(f"max_gram_bytes must be a non-negative number, got {limit!r}")
        self.lazy = 8 * len(X) ** 2 > limit
        self.max_total_bytes = budget("gram_total_bytes")
        self.geometries = Cache("the θ-independent geometry of each family")
        self.grams = Cache("the Gram matrix of each column")

    def geometry(self, family: KernelFamily):
        return self.geometries.get(family, lambda: family.geometry(self.X))

    def gram(self, column: Column):
        """The Gram matrix of ``column`` on ``X``: an array, or a :class:`LazyGram` when the
        workspace is lazy (cached either way, so that a column reads as the same object)."""
        return self.grams.get(column, lambda: self._gram(column))

    def _gram(self, column: Column):
        if self.lazy or self.cached_bytes() + 8 * len(self.X) ** 2 > self.max_total_bytes:
            return LazyGram(column.family, column.theta, self.X)
        with one_blas_thread():  # see sipkl.utils.threads
            return column.family.gram_from(self.geometry(column.family), np.asarray(column.theta))

    def cached_bytes(self) -> int:
        """The bytes of the Gram matrices held as arrays."""
        return sum(K.nbytes for K in self.grams.values() if isinstance(K, np.ndarray))

    def master_inputs(self, columns) -> GramStorage:
        """The Gram matrices of ``columns`` (see :meth:`gram`), what a kernel master solves
        over, in their storage (:mod:`sipkl.compute.gram_storage`): lazy where one of them is."""
        return gram_storage([self.gram(c) for c in columns])

    def pricing_problems(self, price: PriceMatrix, regularizer=None) -> list:
        """One :class:`KernelPricingProblem` per concrete family of the run."""
        return [self.pricing_problem(f, price, regularizer) for f in self.families]

    def forget(self, keep) -> None:
        """Drop cached Gram matrices of columns not in ``keep`` (pruned columns)."""
        self.grams.keep(keep)

    def column_to_json(self, column: Column) -> dict:
        """``column`` as checkpoints write it: its family's document and θ (as model files)."""
        return column_to_dict(column)

    def column_from_json(self, data: dict) -> Column:
        """Inverse of :meth:`column_to_json`: the column of the run's family whose document
        it names (a checkpoint resumes the run of the same family); a ``ValueError`` for a θ
        that is not the family's number of finite parameters."""
        for family in self.families:
            if family_to_dict(family) == data["family"]:
                theta, n = np.asarray(data["theta"], dtype=float), family.n_params(self.X.shape[1])
                if theta.shape != (n,) or not np.all(np.isfinite(theta)):
                    raise ValueError(f"a column of {family!r} must have {n} finite "
                                     f"parameters, got {data['theta']!r}")
                return Column.make(family, theta)
        raise ValueError(f"the checkpoint's column family {data['family']} is not one of this "
                         f"run's families {self.families}")

    def pricing_problem(self, family: KernelFamily, price: PriceMatrix,
                        regularizer=None) -> "KernelPricingProblem":
        idx = price.support
        if self.lazy:
            return SupportPricingProblem(family, self.X[idx], price, self.X.shape[1],
                                         regularizer)
        return KernelPricingProblem(family, family.restrict(self.geometry(family), idx),
                                    price.on_support, self.X.shape[1], regularizer)


class KernelPricingProblem(PricingProblemBase):
    """``θ ↦ <W, K(θ)> − r(θ)`` for one concrete family, restricted to the support of W.

    This is what an oracle maximizes (the :class:`~sipkl.core.contracts.PricingProblem` of a
    kernel family). ``regularizer`` is an optional
    ``r(θ) -> (value, gradient)`` (e.g. the shrinkage λ‖σ − σ̄‖² of afkanpour eq. 4), subtracted
    from every value; where it also has ``hessian(θ) -> (p, p)``, its second derivatives
    are subtracted from the family's (:meth:`hessian_batch`, :meth:`curvature_batch`), else
    the problem states none. Kernel evaluations are counted in ``n_evals``.
    """

    def __init__(self, family: KernelFamily, geometry, W: np.ndarray, n_features: int,
                 regularizer=None):
        self.geometry, self.W = geometry, W
        self._setup(family, n_features, regularizer)

    def _setup(self, family, n_features, regularizer):
        self.family, self.n_features, self.regularizer = family, n_features, regularizer
        self.lower, self.upper = family.param_bounds(n_features)
        self.n_evals = 0
        self._pricer = None

    def _batch_pricer(self):
        """:meth:`KernelFamily.batch_pricer` of this problem, built on first use."""
        if self._pricer is None:
            self._pricer = self.family.batch_pricer(self.geometry, self.W)
        return self._pricer

    def value_and_grad(self, theta) -> tuple[float, np.ndarray]:
        values, grads = self.values_and_grads(np.asarray(theta, float)[None, :])
        return float(values[0]), grads[0]

    def values_and_grads(self, thetas, grad: bool = True, dtype=np.float64):
        """Values and (with ``grad``) gradients, as rows, of the rows of ``thetas``, all in
        one batch (:meth:`KernelFamily.batch_pricer`, built once per problem; ``dtype``
        float32 for a search whose results are evaluated again)."""
        thetas = np.atleast_2d(np.asarray(thetas, float))
        self.n_evals += len(thetas)
        return self._regularized(thetas, *self._batch_pricer()(thetas, grad, dtype))

    def hessian_batch(self, dtype=np.float64):
        """``H(thetas, coords=None) -> (S, q, q)``, the Hessians of the prices at the rows of
        ``thetas`` on the coordinates ``coords`` (computed in ``dtype``; less the
        regularizer's), or ``None`` where the family's batch pricer or the regularizer has
        none."""
        pricer = self._second_order_pricer()
        if pricer is None:
            return None
        if self.regularizer is None:
            return partial(pricer.hessians, dtype=dtype)

        def hessians(thetas, coords=None):
            thetas = np.atleast_2d(np.asarray(thetas, float))
            on = np.arange(thetas.shape[1]) if coords is None else np.asarray(coords)
            return pricer.hessians(thetas, on, dtype=dtype) - np.array(
                [self.regularizer.hessian(t)[np.ix_(on, on)] for t in thetas])
        return hessians

    def curvature_batch(self, dtype=np.float64):
        """``F(thetas) -> (values, gradients, curvatures)`` of the rows of ``thetas``, the
        curvatures being the diagonals of the Hessians (computed in ``dtype``, in the pass
        that computes the values; less the regularizer's), or ``None`` where the family's
        batch pricer or the regularizer has no Hessians."""
        pricer = self._second_order_pricer()
        if pricer is None:
            return None

        def evaluate(thetas):
            thetas = np.atleast_2d(np.asarray(thetas, float))
            self.n_evals += len(thetas)
            values, grads, curvatures = pricer(thetas, True, dtype, curvature=True)
            values, grads = self._regularized(thetas, values, grads)
            if self.regularizer is not None:
                curvatures = curvatures - np.array(
                    [np.diag(self.regularizer.hessian(t)) for t in thetas])
            return values, grads, curvatures
        return evaluate

    def _second_order_pricer(self):
        """The batch pricer where the problem's second derivatives are known: it has
        Hessians, and the regularizer, if any, has them too; else ``None``."""
        pricer = self._batch_pricer()
        stated = self.regularizer is None or isinstance(self.regularizer,
                                                        SecondOrderRegularizer)
        return pricer if isinstance(pricer, SecondOrderPricer) and stated else None

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


class SupportPricingProblem(KernelPricingProblem):
    """The pricing problem of a lazy :class:`KernelSpace`: the geometry of the support
    ``X_support`` of W and W on it (n_sv × n_sv each) are computed when read, not kept;
    the batch pricer is built once, in blocks of rows where the family can
    (:meth:`KernelFamily.support_pricer`: a Gaussian keeps only its pairs)."""

    def __init__(self, family: KernelFamily, X_support: np.ndarray, price: PriceMatrix,
                 n_features: int, regularizer=None):
        self.X_support, self.price = X_support, price
        self._setup(family, n_features, regularizer)

    @property
    def geometry(self):
        return self.family.geometry(self.X_support)

    @property
    def W(self) -> np.ndarray:
        return self.price.rows_on_support(slice(None))

    def _batch_pricer(self):
        if self._pricer is None:
            self._pricer = self.family.support_pricer(self.X_support,
                                                      self.price.rows_on_support)
        return self._pricer
