"""Interval arithmetic on NumPy arrays, with enclosures of the first derivatives: rigorous
bounds of a function written with NumPy's elementary operations over boxes.

An :class:`Interval` is an array of intervals [lo, hi]. Evaluated on intervals, a function
built from +, −, ×, ÷, powers, ``@`` with numeric arrays, sums and the elementary functions
(exp, log, sqrt, sin, cos, tan, arctan, tanh, …) returns an *enclosure*: an interval that
contains every value the function takes when each argument ranges over its interval (the
natural interval extension; Moore, Kearfott & Cloud, *Introduction to Interval Analysis*,
SIAM 2009, ch. 5). Rounding is outward: a result of +, −, ×, ÷ (correctly rounded in
IEEE 754) is widened by one unit in the last place on each side, one of the elementary
functions (accurate to within a few units) by ``LIBM_ULPS`` units, and a sum or a matrix
product of k terms by the bound γ_{k+1}·Σ|terms| of its rounding error,
γ_k = k·u/(1 − k·u) (Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, §3.1),
whatever the order in which BLAS adds them.

With first-order parts (``Interval.variables``), every interval also carries an enclosure
of its gradient in the variables over the same box (forward differentiation, each rule
evaluated in interval arithmetic; for max, min and abs the hull of the pieces' gradients,
Clarke's generalized gradient). The *mean-value form* (ibid., §6.1)

    g(X) ⊆ g(c) + Σ_i G_i · (X_i − c_i),     G_i ⊇ {∂g/∂t_i (t) : t ∈ X},

overestimates the range of g by O(width²) where the natural extension overestimates by
O(width): the branch and bound of :mod:`~sipkl.sip.pricing.branch_and_bound` uses the
smaller of the two upper ends (:func:`upper_bounds`).

What has no interval form raises a ``TypeError`` (:class:`NoIntervalForm` from
:func:`upper_bounds`): converting an interval to numbers
(``np.asarray(t)``, ``float(t)``), comparing intervals, and NumPy functions outside the
list of ``_FUNCTIONS``.
"""
from __future__ import annotations

import numpy as np

#: the accuracy assumed of NumPy's elementary functions (exp, log, sin, …: the C library's
#: or NumPy's own SIMD loops), in units in the last place: a margin over the 1–4 units these
#: are accurate to (glibc's manual, "Known Maximum Errors in Math Functions");
#: tests/compute/test_intervals.py checks the enclosures against mpmath on the machine
LIBM_ULPS = 8

_U = np.finfo(float).eps / 2  # the unit roundoff
_TINY = np.finfo(float).tiny  # the absolute part of an error bound (underflow)
_TWO_PI = 2.0 * np.pi


class NoIntervalForm(TypeError):
    """A function that interval arithmetic cannot evaluate (its message says why)."""


class Interval:
    """An array of intervals ``[lo, hi]`` (same shape), optionally with the enclosures
    ``grad`` of their gradients in p variables (an :class:`Interval` of shape (p,) + shape:
    ``grad[i]`` encloses the derivative in variable i).

    NumPy's operators, ufuncs and the functions of ``_FUNCTIONS`` take intervals and numeric
    arrays alike and return intervals; see the module docstring.
    """

    __array_priority__ = 1000

    def __init__(self, lo, hi=None, grad: "Interval" = None):
        self.lo = np.asarray(lo, dtype=float)
        self.hi = self.lo if hi is None else np.asarray(hi, dtype=float)
        if self.lo.shape != self.hi.shape:
            self.lo, self.hi = np.broadcast_arrays(self.lo, self.hi)
        self.grad = grad

    @classmethod
    def variables(cls, lower, upper) -> "Interval":
        """The box ``[lower, upper]`` (arrays of shape (..., p)) as p variables: each
        interval's gradient is the unit vector of its coordinate."""
        lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
        p = lower.shape[-1]
        seeds = np.broadcast_to(np.eye(p).reshape((p,) + (1,) * (lower.ndim - 1) + (p,)),
                                (p,) + lower.shape)
        return cls(lower, upper, grad=cls(seeds))

    # -- shape ------------------------------------------------------------------
    @property
    def shape(self):
        return self.lo.shape

    @property
    def ndim(self):
        return self.lo.ndim

    @property
    def size(self):
        return self.lo.size

    def __len__(self):
        return len(self.lo)

    def _restructured(self, operation) -> "Interval":
        """The same intervals rearranged by ``operation`` (an indexing, a reshape), the
        gradients by ``operation`` behind their leading variable axis."""
        grad = None
        if self.grad is not None:
            grad = Interval(_per_variable(self.grad.lo, operation),
                            _per_variable(self.grad.hi, operation))
        return Interval(operation(self.lo), operation(self.hi), grad)

    def __getitem__(self, key) -> "Interval":
        return self._restructured(lambda a: a[key])

    def reshape(self, *shape) -> "Interval":
        shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
        return self._restructured(lambda a: a.reshape(shape))

    @property
    def T(self) -> "Interval":
        return self._restructured(lambda a: a.T)

    def transpose(self, *axes) -> "Interval":
        return self._restructured(lambda a: a.transpose(*axes))

    def sum(self, axis=None, keepdims=False) -> "Interval":
        return _sum(self, axis, keepdims)

    def __array__(self, dtype=None, copy=None):
        raise TypeError("an interval has no single value: g converts t to numbers (e.g. "
                        "np.asarray(t) or float(t)), which interval arithmetic cannot follow")

    def __float__(self):
        self.__array__()

    def __bool__(self):
        raise TypeError("intervals are not compared: g branches on t (if, np.where, "
                        "comparisons), which interval arithmetic cannot follow")

    def __repr__(self):
        return f"Interval(lo={self.lo!r}, hi={self.hi!r})"

    # -- arithmetic -------------------------------------------------------------
    def __neg__(self):
        return Interval(-self.hi, -self.lo, None if self.grad is None else -self.grad)

    def __pos__(self):
        return self

    def __add__(self, other):
        return _add(self, other)

    __radd__ = __add__

    def __sub__(self, other):
        return _add(self, -_interval(other))

    def __rsub__(self, other):
        return _add(-self, other)

    def __mul__(self, other):
        return _multiply(self, other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        return _divide(self, other)

    def __rtruediv__(self, other):
        return _divide(other, self)

    def __pow__(self, exponent):
        return _power(self, exponent)

    def __rpow__(self, base):
        return _exp(_multiply(self, _log(_interval(base))))

    def __matmul__(self, other):
        return _matmul(self, other)

    def __rmatmul__(self, other):
        return _matmul(other, self)

    def __abs__(self):
        return _abs(self)

    def __lt__(self, other):
        self.__bool__()

    __le__ = __gt__ = __ge__ = __lt__

    # -- NumPy's protocols --------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        rule = _UFUNCS.get(ufunc)
        if method != "__call__" or rule is None or kwargs:
            return NotImplemented
        return rule(*inputs)

    def __array_function__(self, func, types, args, kwargs):
        rule = _FUNCTIONS.get(func)
        if rule is None:
            return NotImplemented
        return rule(*args, **kwargs)


# -- helpers ---------------------------------------------------------------------------
def _interval(value) -> Interval:
    """``value`` as an :class:`Interval`: a number, an array or a cvxpy expression whose
    variables hold values (g's variables by closure, at the master's solution in pricing)
    becomes a point interval, without gradient."""
    if isinstance(value, Interval):
        return value
    if isinstance(value, np.ndarray) and value.dtype == object:
        raise TypeError("an object array has no interval form")
    if any(kind.__module__.startswith("cvxpy") for kind in type(value).__mro__):  # subclasses too
        if value.value is None:
            raise TypeError("a cvxpy expression without a value has no interval form")
        value = value.value
    return Interval(np.asarray(value, dtype=float))


def _per_variable(array: np.ndarray, operation) -> np.ndarray:
    """``operation`` applied to each slice ``array[i]`` of the leading variable axis."""
    return np.stack([operation(a) for a in array])


def _down(values: np.ndarray, ulps: int = 1) -> np.ndarray:
    """``values`` lowered by ``ulps`` units in the last place (∞ and NaN kept)."""
    if ulps == 1:
        return np.nextafter(values, -np.inf)
    with np.errstate(invalid="ignore"):
        step = np.abs(np.spacing(values)) * ulps
    return np.where(np.isfinite(values), values - step, values)


def _up(values: np.ndarray, ulps: int = 1) -> np.ndarray:
    """``values`` raised by ``ulps`` units in the last place (∞ and NaN kept)."""
    return -_down(-values, ulps)


def _outward(lo, hi, ulps: int = 1, grad: Interval = None) -> Interval:
    """``[lo, hi]`` rounded outward; a NaN end (an undefined operation: ∞ − ∞, 0·∞)
    becomes the infinite end on its side."""
    lo = np.where(np.isnan(lo), -np.inf, _down(lo, ulps))
    hi = np.where(np.isnan(hi), np.inf, _up(hi, ulps))
    return Interval(lo, hi, grad)


def _lifted(grad: Interval, ndim: int) -> Interval:
    """``grad`` of an interval of fewer than ``ndim`` dimensions, reshaped to broadcast
    against a result of ``ndim`` dimensions behind the variable axis."""
    missing = ndim - (grad.ndim - 1)
    if missing <= 0:
        return grad
    shape = grad.shape[:1] + (1,) * missing + grad.shape[1:]
    return Interval(grad.lo.reshape(shape), grad.hi.reshape(shape))


def _chain(result_ndim: int, *terms) -> Interval | None:
    """Σ factor·grad over the pairs ``(factor, operand)`` whose operand has a gradient
    (``None`` where none has): the first-order part of a result."""
    total = None
    for factor, operand in terms:
        if not isinstance(operand, Interval) or operand.grad is None:
            continue
        term = _multiply(_lifted(operand.grad, result_ndim), _no_grad(factor))
        total = term if total is None else _add(total, term)
    return total


def _no_grad(value):
    if isinstance(value, Interval) and value.grad is not None:
        return Interval(value.lo, value.hi)
    return value


def _ndim(*values) -> int:
    return max(np.ndim(v.lo if isinstance(v, Interval) else v) for v in values)


def _products(a: Interval, b: Interval):
    """The four products of the ends of ``a`` and ``b`` (0·∞ taken as 0)."""
    with np.errstate(invalid="ignore"):
        products = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
    return [np.where(np.isnan(q), 0.0, q) for q in products]


# -- the rules -------------------------------------------------------------------------
def _add(a, b) -> Interval:
    a, b = _interval(a), _interval(b)
    grad = None
    if a.grad is not None or b.grad is not None:
        ndim = _ndim(a, b)
        grads = [_lifted(v.grad, ndim) for v in (a, b) if v.grad is not None]
        grad = grads[0] if len(grads) == 1 else _add(*grads)
    return _outward(a.lo + b.lo, a.hi + b.hi, grad=grad)


def _multiply(a, b) -> Interval:
    a, b = _interval(a), _interval(b)
    products = _products(a, b)
    lo, hi = np.minimum.reduce(products), np.maximum.reduce(products)
    grad = _chain(lo.ndim, (b, a), (a, b))
    return _outward(lo, hi, grad=grad)


def _reciprocal(a: Interval) -> Interval:
    """1/a: [1/hi, 1/lo] where 0 ∉ a, the whole line where it is."""
    straddles = (a.lo <= 0.0) & (a.hi >= 0.0)
    with np.errstate(divide="ignore"):
        lo = np.where(straddles, -np.inf, 1.0 / a.hi)
        hi = np.where(straddles, np.inf, 1.0 / a.lo)
    value = _outward(lo, hi)
    if a.grad is not None:  # d(1/a) = −da/a²
        value.grad = _chain(lo.ndim, (-_multiply(value, value), a))
    return value


def _divide(a, b) -> Interval:
    a, b = _interval(a), _interval(b)
    if b.grad is None and a.grad is None:
        return _exact_quotient(a, b)
    return _multiply(a, _reciprocal(b))


def _exact_quotient(a: Interval, b: Interval) -> Interval:
    """a/b in one rounding (no first-order parts): the ends' quotients where 0 ∉ b."""
    straddles = (b.lo <= 0.0) & (b.hi >= 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        quotients = [a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi]
    lo = np.where(straddles, -np.inf, np.minimum.reduce(quotients))
    hi = np.where(straddles, np.inf, np.maximum.reduce(quotients))
    return _outward(lo, hi)


def _square(a) -> Interval:
    a = _interval(a)
    lo2, hi2 = a.lo * a.lo, a.hi * a.hi
    contains = (a.lo <= 0.0) & (a.hi >= 0.0)
    lo = np.where(contains, 0.0, np.minimum(lo2, hi2))
    value = _outward(lo, np.maximum(lo2, hi2))
    value.lo = np.maximum(value.lo, 0.0)
    value.grad = _chain(lo.ndim, (_multiply(a, 2.0), a))
    return value


def _power(a, exponent) -> Interval:
    """a ** e for numeric exponents e (arrays of them too): integer e by parity and sign,
    other e on a ≥ 0 (monotone); an interval exponent through exp(e·log a)."""
    if isinstance(exponent, Interval):
        return _exp(_multiply(exponent, _log(_interval(a))))
    a, e = _interval(a), np.asarray(exponent, dtype=float)
    integer = e == np.round(e)
    even = integer & (np.mod(e, 2.0) == 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        base_lo = np.where(integer, a.lo, np.maximum(a.lo, 0.0))  # real powers: a ≥ 0
        at_lo, at_hi = base_lo ** np.abs(e), a.hi ** np.abs(e)
        contains = (a.lo <= 0.0) & (a.hi >= 0.0)
        # |e| even: decreasing then increasing about 0; odd or real (on a ≥ 0): increasing
        lo = np.where(even, np.where(contains, 0.0, np.minimum(at_lo, at_hi)), at_lo)
        hi = np.where(even, np.maximum(at_lo, at_hi), at_hi)
        lo = np.where(~integer & (a.hi < 0.0), np.nan, np.where(e == 0.0, 1.0, lo))
    magnitude = _outward(lo, hi, LIBM_ULPS)
    negative = e < 0.0
    if negative.any():
        inverse = _reciprocal(magnitude)
        magnitude = Interval(np.where(negative, inverse.lo, magnitude.lo),
                             np.where(negative, inverse.hi, magnitude.hi))
    if a.grad is not None:  # d(a^e) = e·a^(e−1)·da, 0 where e = 0
        lower = _power(Interval(a.lo, a.hi), np.where(e == 0.0, 0.0, e - 1.0))
        magnitude.grad = _chain(magnitude.ndim, (_multiply(lower, e), a))
    return magnitude


def _monotone(function, derivative, domain_lo=-np.inf, increasing=True):
    """The rule of a monotone elementary function (on its domain [domain_lo, ∞): the part
    of an interval below it is dropped, its lower end taken there) with its derivative
    ``derivative(a)`` (an interval rule of the argument, or of the value: see callers)."""

    def rule(a) -> Interval:
        a = _interval(a)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            at_lo = function(np.maximum(a.lo, domain_lo))
            at_hi = function(np.maximum(a.hi, domain_lo))
        lo, hi = (at_lo, at_hi) if increasing else (at_hi, at_lo)
        value = _outward(lo, hi, LIBM_ULPS)
        if a.grad is not None:
            value.grad = _chain(value.ndim, (derivative(Interval(a.lo, a.hi), value), a))
        return value

    return rule


def _exp_derivative(a, value):
    return value


def _log_derivative(a, value):
    return _reciprocal(a)


def _sqrt_derivative(a, value):
    return _multiply(_reciprocal(value), 0.5)


def _arctan_derivative(a, value):
    return _reciprocal(_add(_square(a), 1.0))


def _tanh_derivative(a, value):
    return _add(1.0, -_square(value))


_exp = _monotone(np.exp, _exp_derivative)
_log = _monotone(np.log, _log_derivative, domain_lo=0.0)
_sqrt = _monotone(np.sqrt, _sqrt_derivative, domain_lo=0.0)
_arctan = _monotone(np.arctan, _arctan_derivative)
_tanh = _monotone(np.tanh, _tanh_derivative)


def _contains_point(a: Interval, offset: float, period: float) -> np.ndarray:
    """Whether ``[lo, hi]`` contains a point ``offset + k·period`` (k an integer), decided
    outward: a point within the rounding error of π's multiples of an end counts."""
    slack = 8.0 * _U * (1.0 + np.abs(a.lo) + np.abs(a.hi))
    k = np.ceil((a.lo - slack - offset) / period)
    return (offset + k * period <= a.hi + slack) | (a.hi - a.lo >= period)


def _cos(a) -> Interval:
    a = _interval(a)
    with np.errstate(invalid="ignore"):
        ends = np.cos(a.lo), np.cos(a.hi)
    lo = np.where(_contains_point(a, np.pi, _TWO_PI), -1.0, np.minimum(*ends))
    hi = np.where(_contains_point(a, 0.0, _TWO_PI), 1.0, np.maximum(*ends))
    value = _clipped(_outward(lo, hi, LIBM_ULPS))
    if a.grad is not None:
        value.grad = _chain(value.ndim, (-_sin(Interval(a.lo, a.hi)), a))
    return value


def _sin(a) -> Interval:
    a = _interval(a)
    with np.errstate(invalid="ignore"):
        ends = np.sin(a.lo), np.sin(a.hi)
    lo = np.where(_contains_point(a, -0.5 * np.pi, _TWO_PI), -1.0, np.minimum(*ends))
    hi = np.where(_contains_point(a, 0.5 * np.pi, _TWO_PI), 1.0, np.maximum(*ends))
    value = _clipped(_outward(lo, hi, LIBM_ULPS))
    if a.grad is not None:
        value.grad = _chain(value.ndim, (_cos(Interval(a.lo, a.hi)), a))
    return value


def _clipped(value: Interval) -> Interval:
    value.lo, value.hi = np.maximum(value.lo, -1.0), np.minimum(value.hi, 1.0)
    return value


def _tan(a) -> Interval:
    """tan: increasing between its poles π/2 + kπ; the whole line over a pole."""
    a = _interval(a)
    pole = _contains_point(a, 0.5 * np.pi, np.pi)
    with np.errstate(invalid="ignore"):
        lo = np.where(pole, -np.inf, np.tan(a.lo))
        hi = np.where(pole, np.inf, np.tan(a.hi))
    value = _outward(lo, hi, LIBM_ULPS)
    if a.grad is not None:  # d tan = 1 + tan²
        value.grad = _chain(value.ndim, (_add(1.0, _square(Interval(value.lo, value.hi))), a))
    return value


def _abs(a) -> Interval:
    a = _interval(a)
    contains = (a.lo <= 0.0) & (a.hi >= 0.0)
    lo = np.where(contains, 0.0, np.minimum(np.abs(a.lo), np.abs(a.hi)))
    value = Interval(lo, np.maximum(np.abs(a.lo), np.abs(a.hi)))  # exact
    if a.grad is not None:  # the sign, [−1, 1] where a may be 0
        sign = Interval(np.where(a.hi < 0.0, -1.0, np.where(a.lo > 0.0, 1.0, -1.0)),
                        np.where(a.lo > 0.0, 1.0, np.where(a.hi < 0.0, -1.0, 1.0)))
        value.grad = _chain(value.ndim, (sign, a))
    return value


def _extremum(larger: bool):
    """np.maximum or np.minimum of two intervals; the gradient where one piece is the
    larger on the whole box, else the hull of both pieces' gradients."""

    def rule(a, b) -> Interval:
        a, b = _interval(a), _interval(b)
        pick = np.maximum if larger else np.minimum
        value = Interval(pick(a.lo, b.lo), pick(a.hi, b.hi))  # exact
        if a.grad is None and b.grad is None:
            return value
        ndim = value.ndim
        zero = Interval(np.zeros((1,) * (ndim + 1)))
        ga = _lifted(a.grad, ndim) if a.grad is not None else zero
        gb = _lifted(b.grad, ndim) if b.grad is not None else zero
        a_wins = (a.lo > b.hi) if larger else (a.hi < b.lo)
        b_wins = (b.lo > a.hi) if larger else (b.hi < a.lo)
        lo_a, lo_b, hi_a, hi_b = np.broadcast_arrays(ga.lo, gb.lo, ga.hi, gb.hi)
        value.grad = Interval(
            np.where(a_wins, lo_a, np.where(b_wins, lo_b, np.minimum(lo_a, lo_b))),
            np.where(a_wins, hi_a, np.where(b_wins, hi_b, np.maximum(hi_a, hi_b))))
        return value

    return rule


def _hypot(a, b) -> Interval:
    return _sqrt(_add(_square(a), _square(b)))


def _sum(a, axis=None, keepdims=False) -> Interval:
    """Σ along ``axis``, widened by γ_{k+1}·Σ|terms| (k terms)."""
    a = _interval(a)
    terms = a.size if axis is None else np.prod([a.shape[i] for i in np.atleast_1d(axis)])
    lo, hi = a.lo.sum(axis, keepdims=keepdims), a.hi.sum(axis, keepdims=keepdims)
    magnitude = np.maximum(np.abs(a.lo), np.abs(a.hi)).sum(axis, keepdims=keepdims)
    error = _gamma(terms + 1) * magnitude + _TINY
    value = _outward(lo - error, hi + error)
    if a.grad is not None:
        shifted = None if axis is None else tuple(
            (i % a.ndim) + 1 for i in np.atleast_1d(axis))
        grad_axis = tuple(range(1, a.ndim + 1)) if shifted is None else shifted
        value.grad = _sum(a.grad, grad_axis, keepdims)
    return value


def _gamma(k) -> float:
    """γ_k = k·u / (1 − k·u), rounded up."""
    return float(k) * _U / (1.0 - float(k) * _U) * (1.0 + 4.0 * _U)


def _matmul(a, b) -> Interval:
    """a @ b where one side is a numeric array: the ends' products split by the numeric
    side's sign, widened by γ_{k+1}·(|numeric| @ |interval|); the gradient is the same
    product of the interval side's gradient."""
    if isinstance(a, Interval) and isinstance(b, Interval):
        raise TypeError("interval arithmetic takes a @ b with a numeric side only")
    if isinstance(a, Interval):
        b = np.asarray(b, dtype=float)
        positive, negative = np.maximum(b, 0.0), np.minimum(b, 0.0)
        lo = a.lo @ positive + a.hi @ negative
        hi = a.hi @ positive + a.lo @ negative
        magnitude = np.maximum(np.abs(a.lo), np.abs(a.hi)) @ np.abs(b)
        k, interval, numeric = b.shape[0] if b.ndim == 1 else b.shape[-2], a, b
    else:
        a = np.asarray(a, dtype=float)
        positive, negative = np.maximum(a, 0.0), np.minimum(a, 0.0)
        lo = positive @ b.lo + negative @ b.hi
        hi = positive @ b.hi + negative @ b.lo
        magnitude = np.abs(a) @ np.maximum(np.abs(b.lo), np.abs(b.hi))
        k, interval, numeric = np.shape(a)[-1], b, a
    error = _gamma(k + 1) * magnitude + _TINY
    value = _outward(lo - error, hi + error)
    if interval.grad is not None:
        grad = Interval(interval.grad.lo, interval.grad.hi)
        if interval is a:
            value.grad = _matmul(grad, numeric)
        elif b.ndim == 1:  # A @ (p, k)ᵀ, the variable axis back in front
            value.grad = _matmul(numeric, grad.T).T
        else:
            value.grad = _matmul(numeric, grad)
    return value


def _joined(join):
    """A function that stacks or concatenates a sequence of intervals and numbers
    (np.stack, np.concatenate, …) by ``join`` of their ends, and of their gradients."""

    def rule(arrays, *args, **kwargs) -> Interval:
        parts = [_interval(v) for v in arrays]
        value = Interval(join([v.lo for v in parts], *args, **kwargs),
                         join([v.hi for v in parts], *args, **kwargs))
        if any(v.grad is not None for v in parts):
            p = next(v.grad.shape[0] for v in parts if v.grad is not None)
            grads = [v.grad if v.grad is not None
                     else Interval(np.zeros((p,) + v.shape)) for v in parts]
            value.grad = Interval(
                np.stack([join([g.lo[i] for g in grads], *args, **kwargs) for i in range(p)]),
                np.stack([join([g.hi[i] for g in grads], *args, **kwargs) for i in range(p)]))
        return value

    return rule


def _reshape(a, shape, *args, **kwargs):
    return _interval(a).reshape(shape)


def _transpose(a, axes=None):
    return _interval(a).transpose(*(() if axes is None else (axes,)))


def _broadcast_to(a, shape):
    a = _interval(a)
    return a._restructured(lambda v: np.broadcast_to(v, shape))


def _np_sum(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    if dtype is not None or out is not None or kwargs:
        raise TypeError("interval arithmetic takes np.sum(a, axis, keepdims) only")
    return _sum(a, axis, keepdims)


def _dot(a, b):
    if np.ndim(a.lo if isinstance(a, Interval) else a) == 0 or \
            np.ndim(b.lo if isinstance(b, Interval) else b) == 0:
        return _multiply(a, b)
    return _matmul(a, b)


def _like(fill):
    """np.ones_like and its kin: numbers in the interval's shape (no interval)."""

    def rule(a, *args, dtype=None, shape=None, **kwargs):
        return fill(a.shape if shape is None else shape, *args)

    return rule


def _norm(a, ord=None, axis=None, keepdims=False):
    """The Euclidean norm (np.linalg.norm with ``ord=None``) along ``axis``."""
    if ord not in (None, 2, "fro") or (ord == 2 and axis is None):
        raise TypeError("interval arithmetic takes np.linalg.norm's Euclidean norm only")
    return _sqrt(_sum(_square(a), axis, keepdims))


def _outer(a, b):
    a = _interval(a).reshape(-1) if isinstance(a, Interval) else np.ravel(a)
    b = _interval(b).reshape(-1) if isinstance(b, Interval) else np.ravel(b)
    return _multiply(a[:, None], b[None, :])


def _expand_dims(a, axis):
    return _interval(a)._restructured(lambda v: np.expand_dims(v, axis))


def _vander(x, N=None, increasing=False):
    powers = np.arange(x.shape[0] if N is None else N)
    return _power(_interval(x)[:, None], powers if increasing else powers[::-1])


def _atleast(ndim: int):
    def rule(*arrays):
        parts = [_interval(v) for v in arrays]
        for i, v in enumerate(parts):
            while v.ndim < ndim:
                v = v[None]
            parts[i] = v
        return parts[0] if len(parts) == 1 else parts

    return rule


_UFUNCS = {
    np.add: _add, np.subtract: lambda a, b: _add(a, -_interval(b)),
    np.multiply: _multiply, np.true_divide: _divide, np.negative: lambda a: -_interval(a),
    np.positive: lambda a: _interval(a), np.power: _power, np.square: _square,
    np.reciprocal: lambda a: _reciprocal(_interval(a)), np.matmul: _matmul,
    np.exp: _exp, np.log: _log, np.sqrt: _sqrt, np.sin: _sin, np.cos: _cos, np.tan: _tan,
    np.arctan: _arctan, np.tanh: _tanh, np.absolute: _abs, np.hypot: _hypot,
    np.maximum: _extremum(True), np.minimum: _extremum(False),
}

_FUNCTIONS = {
    np.stack: _joined(np.stack), np.concatenate: _joined(np.concatenate),
    np.column_stack: _joined(np.column_stack), np.vstack: _joined(np.vstack),
    np.hstack: _joined(np.hstack), np.sum: _np_sum, np.reshape: _reshape,
    np.transpose: _transpose, np.broadcast_to: _broadcast_to, np.dot: _dot,
    np.shape: lambda a: a.shape, np.ndim: lambda a: a.ndim,
    np.ones_like: _like(np.ones), np.zeros_like: _like(np.zeros),
    np.full_like: _like(np.full), np.linalg.norm: _norm, np.outer: _outer,
    np.expand_dims: _expand_dims, np.vander: _vander, np.atleast_1d: _atleast(1),
    np.atleast_2d: _atleast(2),
}


def upper_bounds(function, lower, upper, vectorized: bool = True) -> np.ndarray:
    """Rigorous upper bounds of a real ``function`` of t on each box ``[lower_k,
    upper_k]`` (rows of the (m, p) arrays): the smaller of the upper ends of its natural
    interval extension and of its mean-value form (module docstring), ``function`` called on
    :class:`Interval` arguments (all boxes at once where ``vectorized``, an (m, p)
    interval; else one box, a (p,) interval, per call). :class:`NoIntervalForm` where the
    function has none."""
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    centres = 0.5 * (lower + upper)
    radii = _up(np.maximum(upper - centres, centres - lower))
    if vectorized:
        cells = _evaluated(function, Interval.variables(lower, upper), len(lower))
        at_centres = _evaluated(function, Interval(centres), len(lower))
    else:
        cells = [_evaluated(function, Interval.variables(lo, hi), 1)
                 for lo, hi in zip(lower, upper)]
        cells = Interval(np.concatenate([c.lo for c in cells]),
                         np.concatenate([c.hi for c in cells]),
                         Interval(np.concatenate([c.grad.lo for c in cells], axis=1),
                                  np.concatenate([c.grad.hi for c in cells], axis=1)))
        at_centres = Interval(np.concatenate([_evaluated(function, Interval(c), 1).hi
                                              for c in centres]))
    slopes = np.maximum(np.abs(cells.grad.lo), np.abs(cells.grad.hi))  # (p, m)
    with np.errstate(invalid="ignore"):
        spread = (slopes * radii.T).sum(axis=0)
    spread = np.where(np.isnan(spread), np.inf, spread)
    p = lower.shape[1]
    mean_value = _up(at_centres.hi + spread * (1.0 + _gamma(p + 2)) + _TINY)
    return np.minimum(cells.hi, mean_value)


def _evaluated(function, t: Interval, m: int) -> Interval:
    """``function(t)`` as m intervals (a point value, a constant, is broadcast; a missing
    gradient, a function constant in t, is zero); :class:`NoIntervalForm` where the
    function fails on intervals or returns something else than m numbers or intervals."""
    try:
        value = _interval(function(t))
    except Exception as error:  # the user's function, called on intervals, which it may
        # not take: its error is the reason there is no interval form
        raise NoIntervalForm(f"g fails on intervals ({type(error).__name__}: {error})") \
            from error
    shape = (m,)
    if value.size not in (1, m):
        raise NoIntervalForm(f"g returns shape {value.shape} for {m} boxes")
    p = t.shape[-1]
    grad = value.grad
    lo, hi = np.broadcast_to(value.lo.reshape(-1), shape), np.broadcast_to(
        value.hi.reshape(-1), shape)
    if t.grad is None:
        return Interval(lo, hi)
    if grad is None:
        grad = Interval(np.zeros((p,) + shape))
    return Interval(lo, hi, Interval(np.broadcast_to(grad.lo.reshape(p, -1), (p,) + shape),
                                     np.broadcast_to(grad.hi.reshape(p, -1), (p,) + shape)))
