"""The semi-infinite constraints (sipkl.sip.constraints): whether g takes many index points
at once (``vectorized``) is detected where it is not stated, and the run is the one with the
flag stated; a g that works neither way is a clear error."""
import cvxpy as cp
import numpy as np
import pytest

from sipkl.sip import (Box, NonlinearConstraint, NonlinearSemiInfiniteProgram,
                       SemiInfiniteConstraint, SemiInfiniteProgram)

A = np.array([1.0, -2.0, 0.5])


def linear_program(p: int, vectorized, form: str):
    """min z s.t. a·t − z ≤ 0 for all t ∈ [−1, 1]^p, with w = a a variable held by finite
    constraints: z* = ‖a‖₁; g written for one point (``t[i]``) or for many (``t[:, i]``)."""
    w, z = cp.Variable(p), cp.Variable()
    if form == "one":
        def g(x, t):
            return sum(x[0][i] * t[i] for i in range(p)) - x[1]
    else:
        def g(x, t):
            return sum(x[0][i] * t[:, i] for i in range(p)) - x[1]
    T = Box(-np.ones(p), np.ones(p))
    return SemiInfiniteProgram(cp.Minimize(z), SemiInfiniteConstraint(
        g, (w, z), T, vectorized=vectorized, name="linear"), [w == A[:p]])


@pytest.mark.parametrize("p", [1, 2, 3])
@pytest.mark.parametrize("form, flag", [("one", False), ("many", True)])
def test_the_detected_flag_gives_the_run_of_the_stated_one(p, form, flag):
    detected, stated = linear_program(p, None, form), linear_program(p, flag, form)
    assert detected.semi_infinite[0].vectorized is flag
    a, b = detected.solve("ipopt"), stated.solve("ipopt")
    assert a.success and a.objective == b.objective and a.nit == b.nit
    np.testing.assert_array_equal(a.points[0], b.points[0])
    np.testing.assert_allclose(a.objective, np.abs(A[:p]).sum(), rtol=1e-6)


@pytest.mark.parametrize("form, flag", [("one", False), ("many", True)])
def test_a_nonlinear_constraint_is_detected_alike(form, flag):
    """Watson 2, g for one point or for many: the closed form (3 − √5)/2 − 3/16."""
    def g(x, t):
        s = t[0] if form == "one" else t[:, 0]
        return (1 - x[0] ** 2 * s ** 2) ** 2 - x[0] * s ** 2 - x[1] ** 2 + x[1]
    f = lambda x: x[0] ** 2 / 3 + x[1] ** 2 + x[0] / 2  # noqa: E731
    runs = [NonlinearSemiInfiniteProgram(f, NonlinearConstraint(g, Box([0.0], [1.0]),
                                                                vectorized=v), [-1.0, -1.0])
            for v in (None, flag)]
    assert runs[0].semi_infinite[0].vectorized is flag
    a, b = (program.solve() for program in runs)
    assert a.objective == b.objective and a.nit == b.nit
    np.testing.assert_allclose(a.objective, (3 - 5 ** 0.5) / 2 - 3 / 16, rtol=1e-8)


def test_a_stated_flag_is_kept():
    """g = ‖t‖² works both ways; stated ``False``, it is called one point at a time."""
    shapes = []

    def g(x, t):
        shapes.append(np.shape(t))
        return x[0] * np.sum(t ** 2, axis=-1) - x[1]
    for flag in (False, True):
        shapes.clear()
        constraint = NonlinearConstraint(g, Box([0.0, 0.0], [1.0, 1.0]), vectorized=flag)
        values = constraint.values(np.array([1.0, 0.5]), np.array([[0.0, 1.0], [1.0, 1.0]]))
        np.testing.assert_allclose(values, [0.5, 1.5])
        assert shapes == ([(2,), (2,)] if not flag else [(2, 2)])
    assert NonlinearConstraint(g, Box([0.0], [1.0])).is_vectorized(np.ones(2))


def test_a_g_that_fails_both_ways_is_named():
    x = cp.Variable(2)
    with pytest.raises(ValueError, match=r"'broken'.*fails both.*shape \(2, 1\) \(IndexError"
                                         r".*shape \(1,\) \(IndexError"):
        SemiInfiniteProgram(cp.Minimize(x[1]), SemiInfiniteConstraint(
            lambda x, t: x[0] * t[3] - x[1], x, Box([0.0], [1.0]), name="broken"))
    with pytest.raises(ValueError, match=r"'broken'.*fails both"):
        NonlinearSemiInfiniteProgram(lambda x: x @ x, NonlinearConstraint(
            lambda x, t: x[0] * t[3], Box([0.0], [1.0]), name="broken"), [1.0, 1.0])


def test_a_g_whose_two_readings_disagree_must_state_its_flag():
    """m values for m points at once, another value for each one alone: which is meant
    cannot be told; where cvxpy's variables have values, they are compared too."""
    reversed_g = lambda x, t: t[::-1, 0] if np.ndim(t) == 2 else t[0]  # noqa: E731
    with pytest.raises(ValueError, match="'odd'.*at once.*one by one.*state vectorized"):
        NonlinearConstraint(reversed_g, Box([0.0], [1.0]), name="odd").is_vectorized(np.ones(1))
    x = cp.Variable()
    odd = SemiInfiniteConstraint(lambda x, t: reversed_g(x, t) * x, x, Box([0.0], [1.0]),
                                 name="odd")
    assert odd.is_vectorized(x)  # no values: the shapes agree
    odd.vectorized, x.value = None, 1.0
    with pytest.raises(ValueError, match="'odd'.*state vectorized"):
        odd.is_vectorized(x)
