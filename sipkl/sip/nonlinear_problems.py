"""Smooth semi-infinite programs that are not convex, from the literature, for
:class:`~sipkl.sip.NonlinearSemiInfiniteProgram`.

Each entry of :data:`NONLINEAR_PROBLEMS` is a :class:`NonlinearProblem`: the statement (read
from its source, cited in ``source``), a start, the closed-form x-derivatives and t-gradients,
the reference value with where it comes from, and :meth:`NonlinearProblem.build`, which
returns a fresh program (with the stated derivatives, or with none: the complex step in x and
central differences in t). ``tests/test_sip_nonlinear.py`` recomputes each reference
independently (a closed form, or SciPy on a fine discretization).

* ``tfi1`` — Tanaka, Fukushima & Ibaraki (1988), A comparative study of several semi-infinite
  nonlinear programming algorithms, EJOR 36:92–100; CUTEst TFI1 (SIF input Ph. Toint 1992,
  read in the S2MPJ translation ``python_problems/TFI1.py``): min x₁² + x₂² + x₃² s.t.
  x₁ + x₂·exp(x₃t) ≤ 2 sin(4t) − exp(2t) on [0, 1], start (1, 1, 1). The SIF file's solution
  line 5.3346872 is its discretization's (t = 0, 1/100, …, 1) value; its grid holds the one
  active point t = 1, so it is also the program's.
* ``watson2`` and ``watson6`` — Watson (1983), Numerical experiments with globally convergent
  methods for semi-infinite programming problems, in Fiacco & Kortanek (eds.), LNEMS 215,
  problems 2 and 6, as stated in Mitsos (2009, revised by Djelassi 2016), A test set of
  semi-infinite programs, RWTH Aachen (box X = [−1000, 1000]ⁿ there, inactive).
* ``fseminf`` — the one-dimensional example of MATLAB's ``fseminf`` documentation ("Minimize
  function with semi-infinite constraints", two constraints K₁, K₂ on w ∈ [1, 100], start
  (0.5, 0.2, 0.3)), whose printed answer f = 0.0771 at x = (0.6675, 0.3012, 0.4022) is a
  local solution: the unconstrained minimizer (½, ½, ½) is feasible, so the optimum is 0.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .index_sets import Box
from .nonlinear_constraints import NonlinearConstraint
from .nonlinear_program import NonlinearSemiInfiniteProgram

__all__ = ["NONLINEAR_PROBLEMS", "NonlinearProblem", "SemiInfinite"]


@dataclass(frozen=True)
class SemiInfinite:
    """One constraint ``g(x, t) ≤ 0`` on the box ``[lower, upper]``, with its x-gradients
    ``jac_g(x, t)`` (m × n), its t-gradients ``grad_t(x, t)`` (m × p) and a Lipschitz
    constant ``lipschitz(x)`` of t ↦ g(x, t) on the box (from a bound on its t-gradient)."""

    name: str
    g: Callable
    jac_g: Callable
    grad_t: Callable
    lower: tuple
    upper: tuple
    lipschitz: Callable


@dataclass(frozen=True)
class NonlinearProblem:
    """A smooth semi-infinite program with a reference value (see the module docstring)."""

    name: str
    source: str
    f: Callable
    grad_f: Callable
    constraints: tuple
    x0: tuple
    optimum: float
    optimum_source: str
    x_optimum: tuple | None = None

    def build(self, derivatives: bool = True) -> NonlinearSemiInfiniteProgram:
        """A fresh program: with the closed-form derivatives, or (``False``) with none."""
        sics = [NonlinearConstraint(c.g, Box(c.lower, c.upper), name=c.name,
                                    jac_g=c.jac_g if derivatives else None,
                                    grad_t=c.grad_t if derivatives else None)
                for c in self.constraints]
        return NonlinearSemiInfiniteProgram(self.f, sics, self.x0,
                                            grad_f=self.grad_f if derivatives else None)

    def lipschitz(self) -> dict:
        """The Lipschitz constants by constraint name, for ``solve(lipschitz=...)``."""
        return {c.name: c.lipschitz for c in self.constraints}


def _tfi1() -> NonlinearProblem:
    def g(x, t):
        s = t[:, 0]
        return x[0] + x[1] * np.exp(x[2] * s) + np.exp(2 * s) - 2 * np.sin(4 * s)

    def jac_g(x, t):
        s = t[:, 0]
        e = np.exp(x[2] * s)
        return np.column_stack([np.ones_like(s), e, x[1] * s * e])

    def grad_t(x, t):
        s = t[:, :1]
        return x[1] * x[2] * np.exp(x[2] * s) + 2 * np.exp(2 * s) - 8 * np.cos(4 * s)

    return NonlinearProblem(
        name="tfi1",
        source=("Tanaka, Fukushima & Ibaraki (1988), EJOR 36:92–100 (CUTEst TFI1): min ‖x‖² "
                "s.t. x₁ + x₂·exp(x₃t) + exp(2t) − 2 sin(4t) ≤ 0, t ∈ [0, 1]"),
        f=lambda x: x @ x, grad_f=lambda x: 2 * x,
        # |∂g/∂t| ≤ |x₂x₃|·e^max(x₃, 0) + 2e² + 8 on [0, 1]
        constraints=(SemiInfinite("g", g, jac_g, grad_t, (0.0,), (1.0,), lambda x: (
            abs(x[1] * x[2]) * np.exp(max(x[2], 0.0)) + 2 * np.e ** 2 + 8)),),
        x0=(1.0, 1.0, 1.0), optimum=5.3346872789,
        optimum_source=("the SIF file's solution line 5.3346872 (its grid holds the active "
                        "point t = 1); recomputed in the tests by SciPy on a fine grid"))


def _watson2() -> NonlinearProblem:
    def g(x, t):
        s2 = t[:, 0] ** 2
        return (1 - x[0] ** 2 * s2) ** 2 - x[0] * s2 - x[1] ** 2 + x[1]

    def jac_g(x, t):
        s2 = t[:, 0] ** 2
        return np.column_stack([-4 * x[0] * s2 * (1 - x[0] ** 2 * s2) - s2,
                                np.full_like(s2, 1 - 2 * x[1])])

    def grad_t(x, t):
        s = t[:, :1]
        return -4 * x[0] ** 2 * s * (1 - x[0] ** 2 * s ** 2) - 2 * x[0] * s

    root = (1 - 5 ** 0.5) / 2
    return NonlinearProblem(
        name="watson2",
        source=("Watson (1983) problem 2 in Mitsos's test set: min x₁²/3 + x₂² + x₁/2 s.t. "
                "(1 − x₁²t²)² − x₁t² − x₂² + x₂ ≤ 0, t ∈ [0, 1] (not convex in x)"),
        f=lambda x: x[0] ** 2 / 3 + x[1] ** 2 + x[0] / 2,
        grad_f=lambda x: np.array([2 * x[0] / 3 + 0.5, 2 * x[1]]),
        # |∂g/∂t| ≤ 4x₁²(1 + x₁²) + 2|x₁| on [0, 1]
        constraints=(SemiInfinite("g", g, jac_g, grad_t, (0.0,), (1.0,), lambda x: (
            4 * x[0] ** 2 * (1 + x[0] ** 2) + 2 * abs(x[0]))),),
        x0=(-1.0, -1.0), optimum=(3 - 5 ** 0.5) / 2 - 3 / 16, x_optimum=(-0.75, root),
        optimum_source=(
            "closed form (3 − √5)/2 − 3/16 at x = (−3/4, (1 − √5)/2): the minimizer of f over "
            "the constraint at t = 0, 1 − x₂² + x₂ ≤ 0 (x₂ ≤ (1 − √5)/2; x₁ free: −3/4), "
            "where g(x, t) = −(3/8)t² + (81/256)t⁴ ≤ 0 on [0, 1]"))


def _freudenstein_roth(x):
    r1 = x[0] - 2 * x[1] + 5 * x[1] ** 2 - x[1] ** 3 - 13
    r2 = x[0] - 14 * x[1] + x[1] ** 2 + x[1] ** 3 - 29
    return r1, r2


def _watson6() -> NonlinearProblem:
    def f(x):
        r1, r2 = _freudenstein_roth(x)
        return r1 ** 2 + r2 ** 2

    def grad_f(x):
        r1, r2 = _freudenstein_roth(x)
        return np.array([2 * r1 + 2 * r2, 2 * r1 * (-2 + 10 * x[1] - 3 * x[1] ** 2)
                         + 2 * r2 * (-14 + 2 * x[1] + 3 * x[1] ** 2)])

    def g(x, t):
        s = t[:, 0]
        return x[0] ** 2 + 2 * x[1] * s ** 2 + np.exp(x[0] + x[1]) - np.exp(s)

    def jac_g(x, t):
        s = t[:, 0]
        e = np.exp(x[0] + x[1])
        return np.column_stack([2 * x[0] + e + 0 * s, 2 * s ** 2 + e])

    def grad_t(x, t):
        s = t[:, :1]
        return 4 * x[1] * s - np.exp(s)

    return NonlinearProblem(
        name="watson6",
        source=("Watson (1983) problem 6 in Mitsos's test set: min (x₁ − 2x₂ + 5x₂² − x₂³ − "
                "13)² + (x₁ − 14x₂ + x₂² + x₂³ − 29)² s.t. x₁² + 2x₂t² + exp(x₁ + x₂) − "
                "exp(t) ≤ 0, t ∈ [0, 1]"),
        f=f, grad_f=grad_f,
        # |∂g/∂t| ≤ 4|x₂| + e on [0, 1]
        constraints=(SemiInfinite("g", g, jac_g, grad_t, (0.0,), (1.0,),
                                  lambda x: 4 * abs(x[1]) + np.e),),
        x0=(1.0, 1.0), optimum=97.158852436112,
        optimum_source=("the finite program with the active point t = 0 alone, solved by "
                        "SciPy, feasible on a fine grid of [0, 1] (recomputed in the tests)"))


def _fseminf() -> NonlinearProblem:
    def k(first, second):
        def g(x, w):
            s = w[:, 0]
            return (np.sin(s * x[first]) * np.cos(s * x[second]) - (s - 50) ** 2 / 1000
                    - np.sin(s * x[2]) - x[2] - 1)

        def jac_g(x, w):
            s = w[:, 0]
            jac = np.empty((len(s), 3))
            jac[:, first] = s * np.cos(s * x[first]) * np.cos(s * x[second])
            jac[:, second] = -s * np.sin(s * x[first]) * np.sin(s * x[second])
            jac[:, 2] = -s * np.cos(s * x[2]) - 1
            return jac

        def grad_t(x, w):
            s = w[:, :1]
            return (x[first] * np.cos(s * x[first]) * np.cos(s * x[second])
                    - x[second] * np.sin(s * x[first]) * np.sin(s * x[second])
                    - (s - 50) / 500 - x[2] * np.cos(s * x[2]))

        # |∂K/∂w| ≤ |x₁| + |x₂| + 0.1 + |x₃| on [1, 100]
        return SemiInfinite(f"K{first + 1}", g, jac_g, grad_t, (1.0,), (100.0,),
                            lambda x: float(np.abs(x).sum()) + 0.1)

    return NonlinearProblem(
        name="fseminf",
        source=("MATLAB fseminf documentation, one-dimensional example: min Σ(x_i − ½)² s.t. "
                "K₁ = sin(w x₁)cos(w x₂) − (w − 50)²/1000 − sin(w x₃) − x₃ − 1 ≤ 0 and K₂ (x₁, "
                "x₂ swapped) ≤ 0, w ∈ [1, 100]; printed answer f = 0.0771, a local solution"),
        f=lambda x: np.sum((x - 0.5) ** 2), grad_f=lambda x: 2 * (x - 0.5),
        constraints=(k(0, 1), k(1, 0)), x0=(0.5, 0.2, 0.3), optimum=0.0,
        x_optimum=(0.5, 0.5, 0.5),
        optimum_source=("f ≥ 0, and its unconstrained minimizer (½, ½, ½) is feasible: "
                        "K_i ≤ −0.2163 there (a fine grid and the Lipschitz bound prove it)"))


NONLINEAR_PROBLEMS: dict[str, NonlinearProblem] = {
    p.name: p for p in (_tfi1(), _watson2(), _watson6(), _fseminf())}
