"""The result of a semi-infinite program (sipkl.sip.program.SIPResult) reads the same for
every oracle: ``fun`` is ``objective``, ``lower_bound`` the relaxation, ``x`` and
``bracket["x"]`` are read through the user's variables, and ``load`` puts a point in them.

The numbers are checked against closed forms (Chebyshev's 2^(1−n), a Gauss–Radau
quadrature, linear programs solved by hand) and independent grids.
"""
import pickle

import cvxpy as cp
import numpy as np
import pytest

from sipkl.sip import (Box, FiniteSet, NonlinearConstraint, NonlinearSemiInfiniteProgram,
                       SemiInfiniteConstraint, SemiInfiniteProgram)
from sipkl.sip.program import SIPResult, VariableValues


def chebyshev(n: int, sense=cp.Minimize):
    """The best uniform approximation of tⁿ on [−1, 1] by a polynomial of degree < n:
    |err(c, t)| ≤ z, optimum 2^(1−n) (Chebyshev), minimized (or −z maximized)."""
    c, z = cp.Variable(n, name="c"), cp.Variable(name="z")

    def err(c, t):
        return np.vander(t[:, 0], n, increasing=True) @ c - t[:, 0] ** n
    T = Box([-1.0], [1.0])
    program = SemiInfiniteProgram(sense(z if sense is cp.Minimize else -z), [
        SemiInfiniteConstraint(lambda c, t: err(c, t) - z, c, T, vectorized=True),
        SemiInfiniteConstraint(lambda c, t: -err(c, t) - z, c, T, vectorized=True)])
    lipschitz = lambda c: np.abs(c[1:]) @ np.arange(1, n) + n  # noqa: E731
    return program, c, z, lipschitz


@pytest.mark.parametrize("oracle", [None, "ipopt", "lipschitz"])
def test_lower_bound_is_the_relaxation_for_every_oracle(oracle):
    """For every oracle, ``lower_bound`` is set, at most Chebyshev's optimum (a relaxation),
    and within the tolerance of it; ``fun`` is ``objective``, f at x (here z)."""
    n = 4
    optimum = 2.0 ** (1 - n)
    program, c, z, lipschitz = chebyshev(n)
    res = program.solve(oracle, lipschitz=lipschitz if oracle == "lipschitz" else None)
    assert res.success and res.lower_bound is not None
    assert res.lower_bound <= optimum * (1 + 1e-8)
    assert res.lower_bound >= optimum * (1 - 1e-5)
    assert res.fun == res.objective == res["fun"]
    np.testing.assert_allclose(res.objective, z.value, rtol=1e-12)


def test_lower_bound_of_a_maximization_is_an_upper_bound():
    """max −z: the relaxation bounds the optimum −2^(1−n) from above."""
    n = 3
    program, _, _, _ = chebyshev(n, cp.Maximize)
    res = program.solve("ipopt")
    assert res.success
    assert -(2.0 ** (1 - n)) * (1 - 1e-8) >= res.objective
    assert res.lower_bound >= -(2.0 ** (1 - n)) * (1 + 1e-8)
    assert res.lower_bound - res.objective <= 1e-5 * 2.0 ** (1 - n)


def test_a_nonlinear_program_claims_no_bound():
    """Watson 2: its local NLP master's value is no bound (``lower_bound`` None), and
    ``fun`` is ``objective``, f at x."""
    f = lambda x: x[0] ** 2 / 3 + x[1] ** 2 + x[0] / 2  # noqa: E731
    g = lambda x, t: (1 - x[0] ** 2 * t[:, 0] ** 2) ** 2 - x[0] * t[:, 0] ** 2 - x[1] ** 2 + x[1]  # noqa: E501,E731
    res = NonlinearSemiInfiniteProgram(f, NonlinearConstraint(g, Box([0.0], [1.0])),
                                       [-1.0, -1.0]).solve()
    assert res.success and res.lower_bound is None
    assert res.fun == res.objective
    np.testing.assert_allclose(res.fun, f(res.x), rtol=1e-10)
    np.testing.assert_allclose(res.fun, (3 - 5 ** 0.5) / 2 - 3 / 16, rtol=1e-8)


def test_fun_and_objective_cannot_differ():
    result = SIPResult(objective=1.0, x=None)
    assert result.fun == 1.0 and set(result) == {"objective", "fun", "x"}
    result.objective = 2.0
    assert result["fun"] == 2.0
    result["fun"] = 3.0
    assert result.objective == 3.0
    result.update(objective=4.0)
    assert result.fun == 4.0
    copy = pickle.loads(pickle.dumps(result))
    assert type(copy) is SIPResult and copy == result
    copy.fun = 5.0
    assert copy.objective == 5.0


def two_named_w():
    """min a + b with a ≥ t and b ≥ 2t on the finite set {0, ½, 1}, both variables named
    "w": a = 1, b = 2 (by hand), the grid oracle exact, so the run has a bracket."""
    a, b = cp.Variable(name="w"), cp.Variable(name="w")
    T = FiniteSet([[0.0], [0.5], [1.0]])
    program = SemiInfiniteProgram(cp.Minimize(a + b), [
        SemiInfiniteConstraint(lambda a, t: t[0] - a, a, T),
        SemiInfiniteConstraint(lambda b, t: 2.0 * t[0] - b, b, T)])
    return program, a, b


def test_x_is_read_by_variable_and_by_name():
    program, c, z, _ = chebyshev(3)
    unnamed = cp.Variable()
    res = program.solve()
    assert isinstance(res.x, VariableValues) and set(res.x) == {"c", "z"}
    np.testing.assert_array_equal(res.x[c], c.value)
    np.testing.assert_array_equal(res.x["c"], c.value)
    assert res.x[z] == res.x["z"] == z.value and res.x.get(z) == z.value
    assert c in res.x and "c" in res.x and unnamed not in res.x
    with pytest.raises(KeyError, match="not a variable of this program"):
        res.x[unnamed]
    copy = pickle.loads(pickle.dumps(res.x))
    assert dict(copy).keys() == dict(res.x).keys()
    np.testing.assert_array_equal(copy[c], c.value)


def test_variables_sharing_a_name_are_read_through_the_objects():
    program, a, b = two_named_w()
    res = program.solve()
    assert res.status == "certified_optimal" and res.bracket is not None
    for values in (res.x, res.bracket["x"]):
        np.testing.assert_allclose([values[a], values[b]], [1.0, 2.0], rtol=1e-6)
        with pytest.raises(KeyError, match="'w' names 2 variables"):
            values["w"]
        assert len(values) == 2 and "w" not in values


def test_load_puts_the_proved_feasible_point_in_the_variables():
    """The one-sided approximation of tan on [0, 1] by 3 coefficients, certified: after the
    run the variables hold ``x``; ``load(bracket["x"])`` puts in them a point feasible on
    an independent grid, where f is the bracket's upper end, ``load(x)`` the answer back."""
    c = cp.Variable(3, name="c")
    weights = 1.0 / np.arange(1, 4)
    program = SemiInfiniteProgram(cp.Minimize(weights @ c), [SemiInfiniteConstraint(
        lambda c, t: np.tan(t[:, 0]) - np.vander(t[:, 0], 3, increasing=True) @ c, c,
        Box([0.0], [1.0]))])
    res = program.solve(lipschitz=lambda c: 1.0 / np.cos(1.0) ** 2 + abs(c[1]) + 2 * abs(c[2]))
    assert res.status == "certified_optimal" and res.bracket is not None
    np.testing.assert_array_equal(c.value, res.x[c])
    program.load(res.bracket["x"])
    u = np.linspace(0.0, 1.0, 100_001)
    assert np.max(np.tan(u) - np.vander(u, 3, increasing=True) @ c.value) <= 0.0
    np.testing.assert_allclose(weights @ c.value, res.bracket["upper"], rtol=1e-12)
    program.load(res.x)
    np.testing.assert_array_equal(c.value, res.x[c])
    program.load({"c": np.zeros(3)})  # a plain mapping by name
    np.testing.assert_array_equal(c.value, np.zeros(3))


def test_load_names_what_is_missing():
    program, a, b = two_named_w()
    other, _, _ = two_named_w()
    with pytest.raises(ValueError, match=r"no value for the variables \['w', 'w'\]"):
        program.load(other.solve().x)  # the other program's variables
    program, c, z, _ = chebyshev(3)
    with pytest.raises(ValueError, match=r"no value for the variables \['z'\]"):
        program.load({"c": np.zeros(3)})
    assert c.value is None  # nothing set
    with pytest.raises(TypeError, match="values must be a mapping"):
        program.load([np.zeros(3), 0.0])
    with pytest.raises(ValueError, match="dimensions"):  # cvxpy's check of the shape
        program.load({"c": np.zeros(2), "z": 0.0})
