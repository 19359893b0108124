"""A status is a promise: certificates need an optimal master and a proven pricing bound,
failures are statuses only for solver errors, and every tolerance is scale-free."""
import dataclasses
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.exceptions import ConvergenceWarning

from sipkl import (ColumnGeneration, GaussianARD, GaussianIso, GreedyKernelRidge, IKLClassifier,
                   LinearPerFeature, NonlinearKernelRidge, OracleResult)
from sipkl.core.contracts import MasterSolution
from sipkl.kernel_learning.masters import HingeMKLNewton, HingeMKLQCQP
from sipkl.kernel_learning.dc_oracle import DCGaussianOracle
from sipkl.pricing import GridOracle, MultiStartOracle
from sipkl.core.selection import best_distinct
from sipkl.kernel_learning.price_matrix import PriceMatrix
from sipkl.core.run_status import SUCCESS, RunStatus
from sipkl.core.contracts import Column
from sipkl.solvers import SolverError, Status
from sipkl.kernel_learning.space import KernelSpace

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def linear40():
    """40 points, 3 features: the three per-feature linear kernels are the whole family."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=40) > 0, 1.0, -1.0)
    return X, y


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(60, noise=0.25, random_state=0)
    return X, np.where(y == 1, 1.0, -1.0)


def first(family, X):
    member = family.members(X.shape[1])[0]
    theta = member.grid(X, 1, 0)[0] if member.finite else member.starting_points(X, 1, 0)[0]
    return [Column.make(member, theta)]


# -- 1. a certificate needs an optimal master ---------------------------------------------
@pytest.mark.parametrize("family, oracle", [(LinearPerFeature(), GridOracle()),
                                            (GaussianIso(), DCGaussianOracle())],
                         ids=["linear-grid", "gaussian-dc"])
def test_master_stopped_early_is_not_certified(linear40, family, oracle):
    X, y = linear40
    early = ColumnGeneration(HingeMKLNewton(y, 10.0, max_steps=0), oracle).run(
        KernelSpace(X, family), first(family, X))
    assert early.upper_bound <= early.threshold * (1 + 1e-4)  # the pricing *is* proven ...
    assert early.status == "master_inaccurate" and not early.success  # ... the master is not
    assert "iteration_limit" in early.message and "gap" in early.message
    # the optimum, from an independent master (the dual QCQP in cvxpy), is lower
    reference = ColumnGeneration(HingeMKLQCQP(y, 10.0), oracle).run(KernelSpace(X, family), first(family, X))
    assert reference.status == "certified_optimal" and reference.success
    assert early.objective > reference.objective * 1.2
    converged = ColumnGeneration(HingeMKLNewton(y, 10.0), oracle).run(KernelSpace(X, family),
                                                                      first(family, X))
    assert converged.status == "certified_optimal"
    np.testing.assert_allclose(converged.objective, reference.objective, rtol=1e-4)  # tol


# -- 2. oracle statuses ----------------------------------------------------------------
class Returning:
    def __init__(self, result):
        self.result = result

    def price(self, pricing_round):
        return self.result


def test_unusable_oracle_status_is_oracle_failed(linear40):
    X, y = linear40
    oracle = Returning(OracleResult([], np.array([]), 0, status=Status.SOLVER_ERROR))
    res = ColumnGeneration(HingeMKLNewton(y, 10.0), oracle).run(KernelSpace(X, LinearPerFeature()),
                                                               first(LinearPerFeature(), X))
    assert res.status == "oracle_failed" and not res.success
    assert "solver_error" in res.message
    assert [(it, a.solver, a.status) for it, a in res.attempts] == [
        (0, "Returning", Status.SOLVER_ERROR)]


def test_bound_above_the_cut_without_new_column_is_not_converged(linear40):
    X, y = linear40
    oracle = Returning(OracleResult([], np.array([]), 0, upper_bound=1e9))
    res = ColumnGeneration(HingeMKLNewton(y, 10.0), oracle).run(KernelSpace(X, LinearPerFeature()),
                                                               first(LinearPerFeature(), X))
    assert res.status == "no_new_column" and not res.success
    assert "bound" in res.message


# -- 3. programming errors propagate, solver errors are survived -------------------------
class Raising:
    def __init__(self, exc):
        self.exc, self.calls = exc, 0

    def price(self, pricing_round):
        self.calls += 1
        raise self.exc


def test_bug_in_an_oracle_propagates_with_its_traceback(linear40):
    X, y = linear40
    oracle = Raising(AttributeError("'NoneType' object has no attribute 'theta'"))
    with pytest.raises(AttributeError, match="theta"):
        ColumnGeneration(HingeMKLNewton(y, 10.0), oracle).run(KernelSpace(X, LinearPerFeature()),
                                                             first(LinearPerFeature(), X))


@pytest.mark.parametrize("exc", [SolverError("gave up"), np.linalg.LinAlgError("not PD")])
def test_solver_errors_of_an_oracle_are_oracle_failed(linear40, exc):
    X, y = linear40
    res = ColumnGeneration(HingeMKLNewton(y, 10.0), Raising(exc)).run(
        KernelSpace(X, LinearPerFeature()), first(LinearPerFeature(), X))
    assert res.status == "oracle_failed" and not res.success
    assert res.attempts[-1][1].status is Status.SOLVER_ERROR


def test_cvxpy_solver_error_in_a_master_is_master_failed(linear40):
    import cvxpy as cp
    X, y = linear40

    class FailsSecond:
        def __init__(self):
            self.inner, self.calls = HingeMKLNewton(y, 10.0), 0

        def solve(self, grams, warm_start=None):
            self.calls += 1
            if self.calls == 2:
                raise cp.error.SolverError("injected")
            return self.inner.solve(grams, warm_start)

    res = ColumnGeneration(FailsSecond(), GridOracle(), tol=0.0, n_price=1).run(
        KernelSpace(X, LinearPerFeature()), first(LinearPerFeature(), X))
    assert res.status == "master_failed" and "injected" in res.message


@pytest.mark.parametrize("entry", [np.nan, np.inf, -np.inf])
def test_libsvm_on_a_non_finite_gram_raises_solver_error(entry):
    from sipkl.solvers import solve_svm_dual
    K = np.eye(4)
    K[0, 1] = entry
    with pytest.raises(SolverError, match="non-finite"):
        solve_svm_dual(K, np.array([1.0, -1.0, 1.0, -1.0]), 1.0)


# -- 4. duplicate detection is scale-free -------------------------------------------------
def test_distinct_columns_relative_to_their_own_magnitude():
    fam = GaussianIso(bounds=(1.6e-9, 1.8e-4))  # σ ∈ [75, 25000] on raw pixels

    def col(s):
        return Column.make(fam, [s])

    # σ = 1634 and σ = 1570 (s ≈ 3.7e-7 and 4.1e-7): different kernels, kept apart at any rtol
    # below their relative difference; the rule rtol·(1 + |θ|) merged everything in the box
    chosen, _ = best_distinct([(2.0, col(1 / 1634**2)), (1.0, col(1 / 1570**2))], 2,
                              exclude=[col(1.0e-4)], rtol=1e-3)
    assert len(chosen) == 2
    same, _ = best_distinct([(2.0, col(3.0e-7)), (1.0, col(3.0e-7 * (1 + 1e-4)))], 2, rtol=1e-3)
    assert len(same) == 1
    zero, _ = best_distinct([(2.0, col(0.0)), (1.0, col(1e-300)), (0.5, col(0.0))], 3)
    assert [c.theta for c in zero] == [(0.0,), (1e-300,)]  # exact at s = 0


@pytest.mark.parametrize("make_oracle", [MultiStartOracle, DCGaussianOracle], ids=["ipopt", "dc"])
def test_the_same_run_in_other_units(moons, make_oracle):
    """X·1000 with the scales' box /10⁶ is the same problem: the same run, θ/10⁶."""
    X, y = moons
    runs = []
    for f in (1.0, 1000.0):
        fam = GaussianIso(bounds=(0.0, 900.0 / f ** 2))
        runs.append(ColumnGeneration(HingeMKLNewton(y, 10.0), make_oracle(), random_state=0,
                                     obj_tol=1e-4).run(KernelSpace(X * f, fam),
                                                       [Column.make(fam, [1.0 / f ** 2])]))
    a, b = runs
    assert (a.status, a.nit, len(a.columns)) == (b.status, b.nit, len(b.columns))
    assert a.nit > 2
    np.testing.assert_allclose(a.objective, b.objective, rtol=1e-6)
    np.testing.assert_allclose(sorted(c.theta[0] for c in a.columns),
                               sorted(c.theta[0] * 1e6 for c in b.columns), rtol=1e-3)


@pytest.mark.parametrize("family, units", [(GaussianIso(), (1e3, 1e6)),
                                           (GaussianARD(), (8.0, 8192.0))], ids=["iso", "ard"])
def test_the_same_run_in_other_units_with_the_default_box(moons, family, units):
    """X in two units (factor 10³ or 2¹⁰) with the family's default box (0, 900), *not*
    scaled, which neither run reaches: the starting points and the local search's steps are
    sized by the data and by θ, not by the box, so the run is the same, θ/10⁶ (2²⁰). (Sized
    by the box, the first step jumped from useful θ to K(θ) ≈ I: CA-nD on raw MNIST pixels
    ended at the identity kernel with test error 0.5.) One feature is mostly 0: its median
    squared difference is 0. ARD in units that are powers of 2, where its single-precision
    search rounds alike: in units of 10 the 30 steps of its ascent amplify the different
    round-off of δ·θ (10⁻⁷) into other columns."""
    X, y = moons
    X = np.hstack([X, np.where(np.arange(len(X))[:, None] % 7 == 0, 1.0, 0.0)])
    runs = []
    for f in units:
        start = Column.make(family, np.full(family.n_params(X.shape[1]), 1.0 / f ** 2))
        runs.append(ColumnGeneration(HingeMKLNewton(y, 10.0), MultiStartOracle(), random_state=0,
                                     obj_tol=1e-4).run(KernelSpace(X * f, family), [start]))
    a, b = runs
    assert (a.status, a.nit, len(a.columns)) == (b.status, b.nit, len(b.columns))
    assert a.nit > 2
    np.testing.assert_allclose(a.objective, b.objective, rtol=1e-6)
    top = max(np.max(c.theta) for c in a.columns)
    np.testing.assert_allclose(np.sort(np.concatenate([c.theta for c in a.columns])),
                               np.sort(np.concatenate([c.theta for c in b.columns]))
                               * (units[1] / units[0]) ** 2, rtol=1e-3, atol=1e-6 * top)


# -- 5. the stale-gap check is relative at every scale ------------------------------------
def solution(scale, gap):
    return MasterSolution(weights=np.ones(1), objective=2.0 * scale,
                          price=PriceMatrix.rank_one(np.ones(3)), threshold=1.0 * scale,
                          gap=gap * scale, status=Status.OPTIMAL)


@pytest.mark.parametrize("scale", [1e-5, 1.0, 1e5])
def test_gap_tolerance_is_relative_at_any_scale(scale):
    engine = ColumnGeneration(HingeMKLNewton(np.array([1.0, -1.0])), GridOracle())
    assert engine.master_optimal(solution(scale, 1e-4))      # 5e-5 relative: optimal
    assert not engine.master_optimal(solution(scale, 1e-2))  # 0.5 % relative: not


@pytest.mark.parametrize("C", [1e-5, 1e5])
def test_stale_optimal_is_caught_at_small_and_large_objectives(linear40, C):
    X, y = linear40

    class Stale(HingeMKLNewton):
        def solve(self, grams, warm_start=None):
            sol = super().solve(grams, warm_start)
            sol.gap = 0.5 * abs(sol.objective)
            return sol

    with pytest.warns(RuntimeWarning, match="inaccurate"):
        res = ColumnGeneration(Stale(y, C), GridOracle()).run(KernelSpace(X, LinearPerFeature()),
                                                              first(LinearPerFeature(), X))
    assert res.status == "master_inaccurate" and not res.success
    assert any(a.status is Status.OPTIMAL_INACCURATE for _, a in res.attempts)


def test_an_inaccurate_cvxpy_answer_warns_unless_the_caller_says_not_to():
    """solve_cvxpy accepts an optimal_inaccurate answer when no later solver does better,
    with a RuntimeWarning; ``warn=False`` (callers that use optimal answers only: the SIP
    reduction and bracket) leaves the status and the attempts to say so."""
    from sipkl.solvers import solve_cvxpy

    class Inaccurate:  # a problem every solver answers inaccurately
        status, constraints = "optimal_inaccurate", []

        def solve(self, **options):
            return None

        def variables(self):
            return []

    with pytest.warns(RuntimeWarning, match="optimal_inaccurate"):
        status, attempts = solve_cvxpy(Inaccurate(), ("CLARABEL", "SCS"))
    assert status is Status.OPTIMAL_INACCURATE and len(attempts) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet, attempts = solve_cvxpy(Inaccurate(), ("CLARABEL", "SCS"), warn=False)
    assert quiet is Status.OPTIMAL_INACCURATE and len(attempts) == 2


def _verdicts(attempts):
    return [(a.solver, a.status) for a in attempts]


def test_an_interior_point_verdict_is_not_overruled_by_a_less_accurate_solver():
    """min x s.t. y ≤ 0, y ≥ 1 has no feasible point, and x no lower bound: SCS (first-order)
    calls it unbounded, Clarabel and ECOS (interior-point) prove it infeasible. Their verdict
    stands, and SCS, after them in the list, is not asked."""
    from sipkl.solvers import solve_cvxpy
    x, y = cp.Variable(), cp.Variable()
    problem = cp.Problem(cp.Minimize(x), [y <= 0, y >= 1])
    assert solve_cvxpy(problem, ["SCS"])[0] is Status.UNBOUNDED  # the contradiction
    status, attempts = solve_cvxpy(problem)
    assert status is Status.INFEASIBLE
    assert _verdicts(attempts) == [("CLARABEL", Status.INFEASIBLE), ("ECOS", Status.INFEASIBLE)]


def test_contradicting_interior_point_verdicts_are_a_conflict():
    """min x s.t. x ≤ y, y ≤ 0, y ≥ 1: infeasible (y ≤ 0 < 1 ≤ y), and x has no lower bound.
    Clarabel proves it infeasible, ECOS unbounded: no verdict, a status that says so."""
    from sipkl.solvers import solve_cvxpy
    x, y = cp.Variable(), cp.Variable()
    status, attempts = solve_cvxpy(cp.Problem(cp.Minimize(x), [x <= y, y <= 0, y >= 1]))
    assert _verdicts(attempts) == [("CLARABEL", Status.INFEASIBLE), ("ECOS", Status.UNBOUNDED)]
    assert status is Status.CONFLICTING and not status.usable


def test_a_back_end_runtime_error_is_an_attempt_and_a_programming_error_propagates():
    """A RuntimeError raised by a back-end (ECOS's failed setup raises one) is a failed
    attempt, and the next solver answers; a TypeError or a NotImplementedError propagates."""
    from sipkl.solvers import solve_cvxpy
    x = cp.Variable()

    def clarabel_raises(error):
        class Raising(cp.Problem):  # min x s.t. x ≥ 1, whose Clarabel back-end raises
            def solve(self, solver=None, **options):
                if solver == "CLARABEL":
                    raise error("in the back-end")
                return super().solve(solver=solver, **options)
        return Raising(cp.Minimize(x), [x >= 1])

    status, attempts = solve_cvxpy(clarabel_raises(RuntimeError))
    assert status is Status.OPTIMAL and x.value == pytest.approx(1.0)
    assert [(a.solver, a.status, a.message) for a in attempts] == [
        ("CLARABEL", Status.SOLVER_ERROR, "RuntimeError: in the back-end"),
        ("ECOS", Status.OPTIMAL, "optimal")]
    for error in (TypeError, NotImplementedError):
        with pytest.raises(error, match="in the back-end"):
            solve_cvxpy(clarabel_raises(error))


def test_ecos_is_not_handed_a_problem_that_crashes_it():
    """ECOS's setup fails where no cone constraint has a coefficient on a variable (its
    inequality matrix is empty): a RuntimeError, or, on some calls, SIGSEGV or SIGABRT — hence
    a subprocess. min x s.t. 0·x ≤ 1 is unbounded: ECOS is not asked, Clarabel answers."""
    code = textwrap.dedent("""
        import cvxpy as cp
        from sipkl.solvers import solve_cvxpy
        x = cp.Variable()
        for _ in range(50):
            status, attempts = solve_cvxpy(cp.Problem(cp.Minimize(x), [0 * x <= 1]),
                                           ["ECOS", "CLARABEL"])
        print(status.value, [(a.solver, a.status.value) for a in attempts])
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split("\n")[0] == ("unbounded [('ECOS', 'solver_error'), "
                                         "('CLARABEL', 'unbounded')]")


# -- 6. one vocabulary ------------------------------------------------------------------
def test_run_status_is_a_str_enum_with_success():
    assert RunStatus("certified_optimal") is RunStatus.CERTIFIED_OPTIMAL
    assert RunStatus.CERTIFIED_OPTIMAL == "certified_optimal"
    assert str(RunStatus.NO_NEW_COLUMN) == f"{RunStatus.NO_NEW_COLUMN}" == "no_new_column"
    assert {s for s in RunStatus if s.success} == SUCCESS
    assert not RunStatus.MASTER_INACCURATE.success and RunStatus.STATIONARY_POINT.success


@pytest.mark.parametrize("page", ["README.md", "docs/concepts.md"])
def test_every_status_is_documented(page):
    text = (ROOT / page).read_text()
    missing = [s.value for s in RunStatus if s is not RunStatus.RUNNING
               and f"`{s.value}`" not in text]
    assert not missing, f"{page} does not name {missing}"


@pytest.mark.parametrize("kw, rule", [({"obj_tol": 0.5}, "relative rule"),
                                      ({"obj_atol": 1e6}, "absolute rule"),
                                      ({"obj_tol": 0.5, "obj_atol": 1e6}, "obj_tol·|objective| "
                                                                          "+ obj_atol")])
def test_objective_stalled_names_the_rule_that_fired(moons, kw, rule):
    X, y = moons
    res = ColumnGeneration(HingeMKLNewton(y, 10.0), DCGaussianOracle(), n_price=1, **kw).run(
        KernelSpace(X, GaussianIso()), first(GaussianIso(), X))
    assert res.status == "objective_stalled" and rule in res.message


class _FlagRecorder:
    """An IPOPT oracle that records each round's ``any_violator``, and with ``ignore`` prices
    every round in full."""

    def __init__(self, ignore=False):
        self.oracle, self.ignore, self.flags = MultiStartOracle(), ignore, []

    def price(self, pricing_round):
        self.flags.append(pricing_round.any_violator)
        if self.ignore:
            pricing_round = dataclasses.replace(pricing_round, any_violator=False)
        return self.oracle.price(pricing_round)


@pytest.mark.parametrize("C", [1.0, 100.0])
def test_the_stalled_round_asks_only_for_a_violator(moons, C):
    """The round whose objective stalled, and only that one, asks the oracle for a violator
    alone; the run stops there with the status, objective and columns of a run whose oracle
    searched that round in full."""
    X, y = moons
    runs = {}
    for ignore in (False, True):
        oracle = _FlagRecorder(ignore)
        res = ColumnGeneration(HingeMKLNewton(y, C), oracle, obj_tol=1e-3,
                               random_state=0).run(KernelSpace(X, GaussianARD()), first(GaussianARD(), X))
        runs[ignore] = res
        assert oracle.flags == [False] * (len(oracle.flags) - 1) + [True]
    fast, full = runs[False], runs[True]
    assert fast.status == full.status == "objective_stalled"
    assert fast.objective == full.objective and fast.columns == full.columns
    assert fast.history["best_price"][:-1] == full.history["best_price"][:-1]
    cut = ColumnGeneration(HingeMKLNewton(y, C), MultiStartOracle()).cut(fast.master)
    assert fast.history["best_price"][-1] > cut  # a violator, maybe not the best


def test_no_stall_rule_no_violator_rounds(moons):
    X, y = moons
    oracle = _FlagRecorder()
    ColumnGeneration(HingeMKLNewton(y, 10.0), oracle, obj_tol=0.0, max_iter=4,
                     random_state=0).run(KernelSpace(X, GaussianARD()), first(GaussianARD(), X))
    assert oracle.flags == [False] * 4

# -- 7. estimators warn when a fit ends without success ------------------------------------
@pytest.mark.parametrize("estimator", [
    IKLClassifier(oracle="dc", max_iter=1, obj_tol=0.0),
    GreedyKernelRidge(max_iter=1, tol=1e-12),
    NonlinearKernelRidge(family=GaussianIso(), oracle="ipopt", max_iter=1, random_state=0)],
    ids=lambda e: type(e).__name__)
def test_fit_without_success_warns(moons, estimator):
    X, y = moons
    with pytest.warns(ConvergenceWarning, match="iteration_limit"):
        estimator.fit(X, y)
    assert not estimator.result_.success


# -- 8. NKRR: a stationary point for d ≥ 2 -------------------------------------------------
@pytest.mark.parametrize("degree, norm, status", [(1, "l1", "certified_optimal"),
                                                  (1, "l2", "certified_optimal"),
                                                  (2, "l1", "stationary_point"),
                                                  (2, "l2", "stationary_point")])
def test_nkrr_certificate_names_what_it_proves(linear40, degree, norm, status):
    X, y = linear40
    model = NonlinearKernelRidge(degree=degree, norm=norm, mu0=0.0, n_start=1).fit(X, y)
    assert model.result_.status == status and model.result_.success
    assert model.result_.upper_bound is not None  # the whole family was enumerated


def _reference_best_distinct(candidates, n, exclude=(), rtol=1e-5):
    """best_distinct written out pair by pair, as defined in its docstring."""
    def same(a, b):
        if a.family != b.family:
            return False
        if a.family.finite:
            return a.theta == b.theta
        return all(abs(x - y) <= rtol * max(abs(x), abs(y)) for x, y in zip(a.theta, b.theta))

    chosen, taken = [], list(exclude)
    for score, column in sorted(candidates, key=lambda sc: -sc[0]):
        if len(chosen) < n and np.isfinite(score) and not any(same(column, c) for c in taken):
            chosen.append((score, column))
            taken.append(column)
    return [c for _, c in chosen], [s for s, _ in chosen]


@pytest.mark.parametrize("seed", range(6))
def test_best_distinct_matches_the_pairwise_definition(seed):
    """Random candidate sets with tied scores, non-finite scores, θ = 0, duplicates, near
    duplicates on both sides of rtol, two equal family objects, a finite family and an
    excluded list: the same columns in the same order as the pair-by-pair definition."""
    from sipkl import GaussianARD, LinearPerFeature
    rng = np.random.default_rng(seed)
    ard, ard_twin, iso, lin = GaussianARD(), GaussianARD(), GaussianIso(), LinearPerFeature()
    base = rng.choice([0.0, 1e-300, 1e-3, 0.5, 2.0], size=(6, 3))
    columns = []
    for _ in range(60):
        kind = rng.integers(4)
        if kind == 3:
            columns.append(Column.make(lin, [float(rng.integers(4))]))
        elif kind == 2:
            columns.append(Column.make(iso, base[rng.integers(6), :1]))
        else:
            theta = base[rng.integers(6)] * (1 + rng.choice([0, 0, 5e-4, 2e-3, -5e-4], size=3))
            columns.append(Column.make(ard if kind == 0 else ard_twin, theta))
    scores = rng.choice([1.0, 2.0, 3.0, np.nan, np.inf, -np.inf, 0.0], size=60)
    scores = np.where(rng.random(60) < 0.5, scores, rng.normal(size=60))
    candidates = list(zip(scores, columns[:50]))
    for n in (0, 3, 60):
        for exclude in ((), columns[50:]):
            for rtol in (0.0, 1e-3, 1e-2):
                got, got_scores = best_distinct(candidates, n, exclude=exclude, rtol=rtol)
                want, want_scores = _reference_best_distinct(candidates, n, exclude, rtol)
                assert [(c.family, c.theta) for c in got] == [(c.family, c.theta) for c in want]
                assert all(a is b for a, b in zip(got, want))
                np.testing.assert_array_equal(got_scores, np.array(want_scores, dtype=float))


def test_best_distinct_with_a_cut_keeps_close_violators_of_an_index_set_only():
    """Against the current columns (``exclude``): an index point priced above the cut is new
    unless equal to one; below the cut, near ones (rtol·width) are not. A kernel family
    keeps the rtol test whatever the score."""
    from sipkl.sip import Box
    T, iso = Box([0.0], [10.0]), GaussianIso()
    current = [Column.make(T, [5.0]), Column.make(iso, [1.0])]
    candidates = [(3.0, Column.make(T, [5.0])),  # equal: never new
                  (2.0, Column.make(T, [5.001])),  # near, above the cut: new
                  (0.5, Column.make(T, [4.999])),  # near, below the cut: not new
                  (2.5, Column.make(iso, [1.0001]))]  # near kernel column: not new
    chosen, scores = best_distinct(candidates, 4, exclude=current, rtol=1e-3, cut=1.0)
    assert [c.theta for c in chosen] == [(5.001,)] and list(scores) == [2.0]
    plain, _ = best_distinct(candidates, 4, exclude=current, rtol=1e-3)
    assert plain == []
