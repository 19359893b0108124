"""x-derivatives of the user's NumPy functions that state none: the complex step where the
function is analytic in x, else central differences — the choice measured once, at the start.

The **complex step** (Squire & Trapp 1998, Using complex variables to estimate derivatives
of real functions, SIAM Review 40:110–112) takes ``Im f(x + i h e_k) / h``: no subtraction,
hence no cancellation, exact to round-off for any small h (:func:`complex_step`, h =
``COMPLEX_STEP``·max(|x_k|, typical size)). **Central differences** take
(f(x + h e_k) − f(x − h e_k)) / 2h with h = ε^(1/3)·max(|x_k|, typical size), round-off and
truncation balanced, about 10⁻¹⁰ relative (:func:`central_differences`).

The choice was measured (``tests/sip/test_sip_nonlinear.py::
test_complex_step_is_exact_where_central_differences_are_not``): on the constraints of TFI1,
Watson 6 and the fseminf example (1025 index points) and Watson 6's objective, at their
solutions, the complex step matches the closed-form derivatives to 2·10⁻¹⁶–4·10⁻¹⁵ relative,
central differences to 2·10⁻¹¹–2·10⁻⁸ (worst where terms cancel: Watson 6's objective near
its minimum, fseminf's oscillating K); one Jacobian took 12–340 µs by the complex step and
14–450 µs by central differences (n complex evaluations against 2n real ones); and the
complex step needs no step size, hence no unit of x. Whole runs of TFI1, Watson 2 and 6 and
fseminf end at the same points in the same rounds either way. Central differences serve any
real NumPy code (``abs``, ``float`` casts), which the complex step would differentiate wrongly
or not at all: hence the check at the start (:func:`measured_differences`), whose outcome
each result of :class:`~sipkl.sip.NonlinearSemiInfiniteProgram` reports
(``result.differences``).
"""
from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from .semi_infinite import FD_STEP

#: the complex step h, relative to max(|x_k|, the variable's typical size): any h small
#: enough works (no cancellation), this one leaves h² f‴ far below round-off
COMPLEX_STEP = 1e-20

#: the complex step is used where it agrees with central differences at the start to this
#: fraction of the derivatives' magnitude (central differences are good to about 10⁻¹⁰)
AGREEMENT_RTOL = 1e-6


def complex_step(fun: Callable, x: np.ndarray, typical: np.ndarray) -> np.ndarray:
    """The derivatives of ``fun`` (an array of any shape S) in x by the complex step,
    S × n: column k is ``Im fun(x + i h_k e_k) / h_k`` with h_k = ``COMPLEX_STEP`` times
    max(|x_k|, ``typical[k]``); exact to round-off for a function analytic in x."""
    step = COMPLEX_STEP * np.maximum(np.abs(x), typical)
    columns = []
    for k in range(len(x)):
        z = x.astype(complex)
        z[k] += 1j * step[k]
        value = np.asarray(fun(z))
        if not np.iscomplexobj(value):
            raise TypeError("the complex step needs a function analytic in x: it returned "
                            "real numbers for a complex x")
        columns.append(value.imag / step[k])
    return np.stack(columns, axis=-1)


def central_differences(fun: Callable, x: np.ndarray, typical: np.ndarray) -> np.ndarray:
    """The derivatives of ``fun`` in x by central differences, S × n, with the steps
    h_k = ε^(1/3)·max(|x_k|, ``typical[k]``) (round-off and truncation balanced: about
    10⁻¹⁰ relative)."""
    step = FD_STEP * np.maximum(np.abs(x), typical)
    columns = []
    for k in range(len(x)):
        up, down = x.copy(), x.copy()
        up[k] += step[k]
        down[k] -= step[k]
        columns.append((np.asarray(fun(up), dtype=float) - np.asarray(fun(down), dtype=float))
                       / (up[k] - down[k]))
    return np.stack(columns, axis=-1)


def measured_differences(fun: Callable, x: np.ndarray, typical: np.ndarray) -> str:
    """``"complex-step"`` where ``fun`` takes a complex x and its complex-step derivatives at
    ``x`` agree with central differences (to ``AGREEMENT_RTOL`` of each column's magnitude:
    the largest derivative, or the largest value over max(|x_k|, ``typical[k]``)), else
    ``"central"`` (code that is not analytic in x: ``abs``, ``float`` casts, …)."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            exact = complex_step(fun, x, typical)
    except Exception:  # any failure of the user's code on a complex x: not analytic here
        return "central"
    value = np.abs(np.asarray(fun(x), dtype=float))
    approximate = central_differences(fun, x, typical)
    axes = tuple(range(approximate.ndim - 1))
    size = np.abs(approximate).max(axis=axes, initial=0.0) + value.max(initial=0.0) / np.maximum(
        np.abs(x), typical)
    agree = np.all(np.abs(exact - approximate) <= AGREEMENT_RTOL * size)
    return "complex-step" if agree and np.all(np.isfinite(exact)) else "central"


def derivative(fun: Callable, x: np.ndarray, method: str, typical: np.ndarray) -> np.ndarray:
    """The derivatives of ``fun`` in x by ``method``: ``"complex-step"`` (:func:`complex_step`)
    or ``"central"`` (:func:`central_differences`), as :func:`measured_differences` chose."""
    if method == "complex-step":
        return complex_step(fun, x, typical)
    return central_differences(fun, x, typical)
