"""Kernel families: continuously parameterized kernels ``k_θ`` with θ in a box.

A family knows its parameter box, builds ``K(θ)`` between two point sets, and evaluates the
price ``<W, K(θ)>_F`` with its gradient in θ using matrix products only (the batched pricers
and the blocked pairwise computations are in :mod:`sipkl.compute.exponential`). Pairwise data that
does not depend on θ (distances, selected features) is computed once by :meth:`geometry` and
reused: the column-generation engine caches it for the whole fit and restricts it to the
support of the price matrix with :meth:`restrict`.
"""
from __future__ import annotations

import functools
import inspect
from typing import Callable, Protocol, runtime_checkable

import numpy as np

from ...utils.validation import check_bounds


@runtime_checkable
class ExponentialSum(Protocol):
    """A family whose price is a signed sum of exponentials of its scales s (the Gaussians),

        <W, K(s)> = Σ_i W_ii + Σ_{i<j} (W_ij + W_ji) exp(−⟨s, D_ij⟩),

    what :class:`~sipkl.kernel_learning.dc_oracle.DCGaussianOracle` bounds: ``exp_sum_exponents(geometry)`` is
    the matrix of the rows D_ij ≥ 0, one per pair i < j in the order of
    ``np.triu_indices``, one column per scale."""

    def exp_sum_exponents(self, geometry) -> np.ndarray: ...


class KernelFamily:
    """Base class of kernel families.

    Subclasses implement :meth:`n_params`, :meth:`param_bounds`, :meth:`_geometry`,
    :meth:`gram_from` and :meth:`price_and_grad`; the rest has generic defaults.
    ``features`` restricts the family to a subset of the input columns.

    As scikit-learn's estimators and kernels, a family keeps each argument of its
    constructor as an attribute of the same name: :meth:`get_params` reads them, two families
    are equal (and hash alike) when they are of the same class with equal arguments, and
    :mod:`sipkl.persistence` writes a family as its class name and arguments.
    """

    #: a finite family (a list of candidates) has no gradient and is priced by enumeration
    finite = False
    #: the name of the parameter θ in this family's formula (the scale ``"s"`` of a
    #: Gaussian), used when columns are printed and plotted
    param_name = "θ"
    #: θ's are parameters compared relative to their own magnitude, not index points (see
    #: :class:`~sipkl.core.contracts.ColumnFamily`)
    index_points = False

    def __init__(self, features=None):
        self.features = features

    def same_columns(self, thetas, theta, rtol: float) -> np.ndarray:
        """Whether the rows of ``thetas`` and ``theta`` (broadcast) are the same column:
        equal for a finite family, else ``|θa − θb| ≤ rtol·max(|θa|, |θb|)`` in every
        coordinate (scale-free, and exact at θ = 0)."""
        if self.finite:
            return np.all(thetas == theta, axis=-1)
        scale = np.maximum(np.abs(thetas), np.abs(theta))
        return np.all(np.abs(thetas - theta) <= rtol * scale, axis=-1)

    # -- structure -------------------------------------------------------------------
    def members(self, n_features: int) -> list["KernelFamily"]:
        """Concrete families making up this one (a union has several)."""
        return [self]

    def n_params(self, n_features: int) -> int:
        raise NotImplementedError

    def param_bounds(self, n_features: int) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def validate_theta(self, theta, n_features: int) -> np.ndarray:
        theta = np.atleast_1d(np.asarray(theta, dtype=float))
        if theta.shape != (self.n_params(n_features),):
            raise ValueError(f"theta must have shape ({self.n_params(n_features)},) for "
                             f"{self!r}, got {theta.shape}")
        if not np.all(np.isfinite(theta)):
            raise ValueError(f"theta must be finite, got {theta}")
        return theta

    # -- pairwise data ---------------------------------------------------------------
    def _select(self, X):
        return X if self.features is None else X[:, list(self.features)]

    def geometry(self, X, Y=None):
        """θ-independent pairwise data of ``X`` against ``Y`` (``Y=None``: X against itself)."""
        Xs = self._select(X)
        return self._geometry(Xs, Xs if Y is None else self._select(Y))

    def _geometry(self, X, Y):
        return X, Y

    def restrict(self, geom, idx):
        """The square geometry of ``X`` restricted to the points ``idx``."""
        X, _ = geom
        Xr = X[idx]
        return Xr, Xr

    # -- kernel values ---------------------------------------------------------------
    def gram_from(self, geom, theta) -> np.ndarray:
        raise NotImplementedError

    def gram(self, theta, X, Y=None) -> np.ndarray:
        """Gram matrix ``K(θ)[i, j] = k_θ(X[i], Y[j])``."""
        X = np.asarray(X, dtype=float)
        theta = self.validate_theta(theta, X.shape[1])
        return self.gram_from(self.geometry(X, None if Y is None else np.asarray(Y, float)),
                              theta)

    def support_pricer(self, X, W_rows) -> "Callable":
        """The :meth:`batch_pricer` of the points ``X`` (the support of W), W given by its
        rows, ``W_rows(rows) -> W[rows, :]`` (``rows`` a slice). This default forms the
        square geometry and W; a family whose pricer keeps only the pairs builds them in
        blocks of rows instead
        (:meth:`~sipkl.compute.exponential.PairExponential.from_row_blocks`)."""
        return self.batch_pricer(self.geometry(X), W_rows(slice(None)))

    def price_and_grad(self, geom, theta, W) -> tuple[float, np.ndarray]:
        """``<W, K(θ)>`` and its gradient in θ, for a square geometry and dense W."""
        raise NotImplementedError

    def prices(self, geom, thetas, W) -> np.ndarray:
        """``<W, K(θ)>`` for each row of ``thetas`` (vectorized where the family can)."""
        return np.array([np.sum(W * self.gram_from(geom, t)) for t in thetas])

    def batch_pricer(self, geom, W) -> "Callable":
        """``f(thetas, grad=True, dtype=np.float64) -> (values, gradients)``: the price
        ``<W, K(θ)>`` of each row of ``thetas`` (S × p), and with ``grad`` its gradient
        (S × p, else ``None``). ``dtype=np.float32`` allows single-precision arithmetic, for
        searches whose results are evaluated again in double precision.

        Families whose kernel is ``exp(−θ·δ(x, x′))``
        (:class:`~sipkl.compute.exponential.PairExponential`) evaluate all rows with two matrix
        products; this default evaluates :meth:`price_and_grad` per row
        (in double precision whatever ``dtype``).
        """
        def pricer(thetas, grad=True, dtype=np.float64):
            pairs = [self.price_and_grad(geom, t, W) for t in np.atleast_2d(thetas)]
            values = np.array([v for v, _ in pairs])
            return values, (np.array([g for _, g in pairs]) if grad else None)
        return pricer

    # -- candidate points ------------------------------------------------------------
    def grid(self, X, size: int, random_state=None) -> np.ndarray:
        """A default finite candidate list of about ``size`` parameters."""
        return self.starting_points(X, size, random_state)

    def starting_points(self, X, n: int, random_state=None) -> np.ndarray:
        """``n`` starting points: a deterministic spread, then random draws."""
        raise NotImplementedError

    def __repr__(self):
        params = {k: v for k, v in vars(self).items() if not k.startswith("_") and v is not None}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in params.items())})"

    def get_params(self, deep: bool = True) -> dict:
        """The constructor arguments of this family, by name (as scikit-learn's
        ``Kernel.get_params``): ``type(self)(**self.get_params())`` is an equal family.
        ``deep`` is scikit-learn's (``clone`` of an estimator holding a family passes
        ``deep=False``); a family's arguments are all its own."""
        return {name: getattr(self, name) for name in _constructor_arguments(type(self))}

    def _key(self) -> tuple:
        return type(self), tuple(_hashable(getattr(self, name))
                                 for name in _constructor_arguments(type(self)))

    def __eq__(self, other):
        """Equal when of the same class with equal constructor arguments."""
        return self is other or (type(self) is type(other) and self._key() == other._key())

    def __hash__(self):
        return hash(self._key())


_SCALARS = (bool, int, float, str)


@functools.cache
def _constructor_arguments(cls) -> tuple[str, ...]:
    """The names of the arguments of ``cls.__init__`` (read once per class)."""
    return tuple(name for name in inspect.signature(cls.__init__).parameters if name != "self")


def _hashable(value):
    """``value`` with lists, tuples and arrays as tuples, NumPy scalars as Python numbers."""
    if value is None or type(value) in _SCALARS:
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return tuple(map(_hashable, value))
    if isinstance(value, np.generic):
        return value.item()
    return value


class OneParameterFamily(KernelFamily):
    """A family with one parameter in ``bounds`` whose geometry is an n × m matrix."""

    def __init__(self, bounds, features=None):
        super().__init__(features)
        self.bounds = bounds

    def n_params(self, n_features):
        return 1

    def param_bounds(self, n_features):
        lo, hi = check_bounds(self.bounds)
        return np.array([lo]), np.array([hi])

    def restrict(self, geom, idx):
        return geom[np.ix_(idx, idx)]


def family_to_dict(family: KernelFamily) -> dict:
    """``{"type": class name, "params": constructor arguments}`` of a family: how files and
    checkpoints name it (read back by :func:`sipkl.persistence.family_from_dict`)."""
    if not isinstance(family, KernelFamily):
        raise TypeError(f"family must be a KernelFamily, got {type(family).__name__}")
    try:
        params = {name: json_value(value) for name, value in family.get_params().items()}
    except TypeError as exc:
        raise TypeError(f"{type(family).__name__} cannot be written to JSON ({exc}); "
                        f"families holding matrices or functions are not serializable") from None
    return {"type": type(family).__name__, "params": params}


def column_to_dict(column) -> dict:
    """A kernel column as files and checkpoints write it: its family's document and θ."""
    return {"family": family_to_dict(column.family), "theta": list(map(float, column.theta))}


def json_value(value):
    """``value`` (a family, numbers, strings, lists of them) as ``json`` writes it; a
    ``TypeError`` for anything else."""
    if isinstance(value, KernelFamily):
        return family_to_dict(value)
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot write {type(value).__name__} to JSON")
