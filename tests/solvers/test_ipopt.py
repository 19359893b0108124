"""IPOPT's one module (sipkl.solvers.ipopt): its return codes, the codes each caller accepts
(the box search, the constrained programs, the search in an index set), and the one import
of cyipopt. IPOPT itself is replaced by stand-ins that end with a chosen code."""
import re
from pathlib import Path
from types import SimpleNamespace

import cvxpy as cp
import numpy as np
import pytest

from sipkl.sip import SemiInfiniteConstraint, SmoothSet
from sipkl.sip.pricing.search import ipopt_in_set
from sipkl.sip.pricing.space import ConstraintPrice, IndexPointPricing
from ipopt_stand_in import ending
from sipkl.solvers import Status, ipopt, maximize_box, nlp

#: IPOPT's return codes that leave a usable point, as its documentation names them
USABLE = {0: Status.OPTIMAL,  # Solve_Succeeded
          1: Status.OPTIMAL_INACCURATE,  # Solved_To_Acceptable_Level
          3: Status.OPTIMAL_INACCURATE,  # Search_Direction_Becomes_Too_Small
          -1: Status.ITERATION_LIMIT,  # Maximum_Iterations_Exceeded
          -4: Status.ITERATION_LIMIT,  # Maximum_CpuTime_Exceeded
          -5: Status.ITERATION_LIMIT}  # Maximum_WallTime_Exceeded

#: codes that leave none: infeasible, user stop, restoration failed, too few degrees of
#: freedom, invalid number, internal error
FAILED = (2, 5, -2, -10, -13, -199)

#: what the searches that have a fallback accept: all but a too small search direction
RETRIED = {code: status for code, status in USABLE.items() if code != 3}

ROOT = Path(__file__).resolve().parents[2]


def ending_with(code):
    """A stand-in for cyipopt's ``minimize_ipopt`` that ends at its start with ``code``."""
    def minimize_ipopt(fun, x0, **_):
        return SimpleNamespace(x=np.asarray(x0, dtype=float), fun=fun(x0)[0], status=code,
                               message=f"IPOPT status {code}")
    return minimize_ipopt


@pytest.mark.parametrize("code", [*USABLE, *FAILED])
def test_each_return_code_has_its_status(code):
    assert ipopt.status(code) is USABLE.get(code, Status.SOLVER_ERROR)
    assert ipopt.status(code, small_direction=False) is RETRIED.get(code, Status.SOLVER_ERROR)


@pytest.mark.parametrize("code", [*USABLE, *FAILED])
def test_the_box_search_retries_all_but_its_usable_ends(monkeypatch, code):
    """A start that IPOPT ends at the maximum keeps IPOPT's status where the code leaves a
    usable point other than a too small direction; L-BFGS-B retries it otherwise."""
    monkeypatch.setattr(ipopt, "minimize_ipopt", ending_with(code))
    monkeypatch.setattr(ipopt, "available", True)  # the stand-in, even without cyipopt
    res = maximize_box(lambda x: (-float((x[0] - 0.3) ** 2), -2 * (x - 0.3)), [[0.3]],
                       [0.0], [1.0])
    tries = [(a.solver, a.status) for a in res.attempts]
    if code in RETRIED:
        assert tries == [("ipopt", RETRIED[code])]
    else:
        assert tries == [("ipopt", Status.SOLVER_ERROR), ("lbfgsb", Status.OPTIMAL)]


class HalfPlane:
    """min ‖x‖² s.t. 1 − x₁ − x₂ ≤ 0 (solution (1/2, 1/2)), as
    :func:`sipkl.solvers.nlp.minimize_nlp` takes a program."""

    n_equality = 0

    def objective(self, x):
        return float(x @ x)

    def gradient(self, x):
        return 2 * x

    def constraints(self, x):
        return np.array([1 - x[0] - x[1]])

    def jacobian(self, x):
        return np.array([[-1.0, -1.0]])


@pytest.mark.parametrize("code", [*USABLE, *FAILED])
def test_a_constrained_program_keeps_every_usable_end(monkeypatch, code):
    """IPOPT's answer is kept, with its status, wherever the code leaves a usable point, a
    too small search direction included; none is kept otherwise."""
    monkeypatch.setattr(ipopt, "Problem", ending(code))
    monkeypatch.setattr(ipopt, "available", True)
    free = np.full(2, -np.inf), np.full(2, np.inf)
    answer, attempts = nlp.minimize_nlp(HalfPlane(), np.array([0.5, 0.5]), *free,
                                        methods=("ipopt",))
    assert [(a.solver, a.status) for a in attempts] == [
        ("ipopt", USABLE.get(code, Status.SOLVER_ERROR))]
    assert f"(IPOPT status {code})" in attempts[0].message
    assert (answer is not None) == (code in USABLE)


def disk_pricing():
    """t₁ + t₂ over the disk of radius 2 centred at (1, 0), written as an inequality (no
    cheap projection: IPOPT searches it); the maximum is 1 + 2√2."""
    c = np.array([1.0, 0.0])
    T = SmoothSet(lambda t: np.sum((t - c) ** 2, axis=1) - 4.0, [-5.0, -5.0], [5.0, 5.0],
                  jac=lambda t: 2.0 * (t - c)[:, None, :])
    x = cp.Variable(1)
    g = SemiInfiniteConstraint(lambda x, t: t[:, 0] + t[:, 1] + x[0], x, T, vectorized=True)
    return IndexPointPricing(g, ConstraintPrice(np.zeros(1), 1.0)), T


@pytest.mark.parametrize("code", [*USABLE, *FAILED])
def test_the_search_in_a_set_retries_all_but_its_usable_ends(monkeypatch, code):
    """As the box search: SLSQP takes over a search that IPOPT ends with a too small
    direction or a failure, and reaches the maximum."""
    monkeypatch.setattr(ipopt, "minimize_ipopt", ending_with(code))
    monkeypatch.setattr(ipopt, "available", True)
    problem, T = disk_pricing()
    found = ipopt_in_set(problem, T.starting_points(None, 1, 0))
    if code in RETRIED:
        assert found.statuses == [RETRIED[code]] and found.attempts == []
    else:
        assert [a.solver for a in found.attempts] == ["ipopt", "slsqp"]
        assert found.attempts[0].status is Status.SOLVER_ERROR
        assert abs(found.fun[0] - (1.0 + 2.0 * np.sqrt(2.0))) <= 1e-8


def test_each_search_says_that_cyipopt_cannot_load(without_ipopt):
    """Without cyipopt every caller records a failed IPOPT try naming the import's error, and
    its fallback answers."""
    message = f"cyipopt unavailable ({without_ipopt})"
    box = maximize_box(lambda x: (-float(x[0] ** 2), -2 * x), [[0.5]], [-1.0], [1.0])
    assert [a.solver for a in box.attempts] == ["ipopt", "lbfgsb"]
    free = np.full(2, -np.inf), np.full(2, np.inf)
    answer, attempts = nlp.minimize_nlp(HalfPlane(), np.array([0.0, 0.0]), *free)
    assert [a.solver for a in attempts] == ["ipopt", "slsqp"]
    np.testing.assert_allclose(answer.x, [0.5, 0.5], atol=1e-8)
    problem, T = disk_pricing()
    found = ipopt_in_set(problem, T.starting_points(None, 2, 0))
    assert [a.solver for a in found.attempts] == ["ipopt", "slsqp"] * 2
    assert abs(found.fun[0] - (1.0 + 2.0 * np.sqrt(2.0))) <= 1e-8
    failed = [box.attempts[0], attempts[0], *found.attempts[::2]]
    assert all(a.status is Status.SOLVER_ERROR and message in a.message for a in failed)


def test_cyipopt_is_imported_by_this_module_alone():
    importing = re.compile(r"^\s*(import cyipopt|from cyipopt\b)", re.MULTILINE)
    sources = [*(ROOT / "solvers").glob("*.py"), *(ROOT / "sipkl").rglob("*.py")]
    assert [p.relative_to(ROOT).as_posix() for p in sources
            if importing.search(p.read_text(encoding="utf-8"))] == ["solvers/ipopt.py"]
