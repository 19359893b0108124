"""Time limits and Ctrl-C that hold: the phases of a semi-infinite program after the exchange
method, the SVM on working sets and the pricing of a Nyström fit, and every binary problem
of a one-vs-rest fit.

The timed tests measure wall time with ``time.perf_counter`` around the call and assert a
generous bound (the limit plus a few seconds, several steps of the run on a loaded two-core
machine), far below what the run takes where the limit or the interrupt is not read inside
it; what is measured is said in each docstring.
"""
import os
import signal
import threading
import time
import warnings

import cvxpy as cp
import numpy as np
import pytest
from sklearn.datasets import make_classification, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from sipkl import (Column, ColumnGeneration, GaussianARD, GaussianIso, IKLClassifier, PriceMatrix,
                   PricingRound)
from sipkl.core.contracts import OracleBase, OracleResult
from sipkl.datasets import make_checkerboard
from sipkl.compute.lazy_gram import LazyGram
from sipkl.kernel_learning.masters import HingeMKLNewton
from sipkl.kernel_learning.masters.working_set import first_working_set, svm_on_working_set
from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram
from sipkl.sip.library.convex import upper_quadrature
from sipkl.pricing import MultiStartOracle
from sipkl.solvers import Status, solve_svm_dual
from sipkl.kernel_learning.space import KernelSpace
from boards import chessboard, gaussian


def slow_tan_program(n, delay):
    """min Σ c_k/(k + 1) s.t. tan t ≤ Σ_k c_k t^k on [0, 1] (the one-sided L1 approximation of
    tan, whose optimum is Gauss–Radau's quadrature of tan for odd n), g sleeping ``delay``
    seconds per call: a g slow to evaluate, the same program."""
    c = cp.Variable(n, name="c")

    def g(c, t):
        time.sleep(delay)
        u = t[:, 0]
        return np.tan(u) - np.vander(u, n, increasing=True) @ c
    program = SemiInfiniteProgram(cp.Minimize((1.0 / np.arange(1, n + 1)) @ c), [
        SemiInfiniteConstraint(g, c, Box([0.0], [1.0]), vectorized=True)])
    nodes, weights = upper_quadrature(n)
    return program, float(weights @ np.tan(nodes))


def test_the_local_reduction_ends_at_the_time_limit():
    """n = 5, tol = 1e-3, g sleeping 20 ms per call: the exchange method converges in one
    round (about 30 calls, under a second) and the local reduction would take about 330
    calls (7 s). Measured: the wall time of ``solve(time_limit=1.5)``, at most the limit
    plus 3 s (a step of a round, a climb, a solve or a dense check, is about 30 calls); the
    exchange method's converged answer stands (or a round the reduction completed), the
    message names the time limit, and the objective is the Gauss–Radau optimum to the
    exchange method's tolerance."""
    program, optimum = slow_tan_program(5, 0.02)
    start = time.perf_counter()
    res = program.solve(tol=1e-3, time_limit=1.5)
    elapsed = time.perf_counter() - start
    assert elapsed <= 1.5 + 3.0, elapsed
    assert res.status == "converged_local" and res.success
    assert "time limit" in res.message
    assert res.reduction is None or (res.reduction["stopped"]
                                     and not res.reduction["converged"])
    assert abs(res.objective - optimum) <= 1e-3 * optimum


def test_the_bracket_ends_at_the_time_limit():
    """n = 3 with the Lipschitz oracle, g sleeping 5 ms per call: the exchange method
    certifies its answer in about 1 s, and the rounds of the bracket (restricted solves and
    their proofs, about 570 calls) would take 6 s more. Measured: the wall time of
    ``solve(time_limit=2)``, at most the limit plus 3 s; the bracket found by then still
    holds the Gauss–Radau optimum, the message naming the time limit."""
    program, optimum = slow_tan_program(3, 0.005)
    lipschitz = lambda c: 1.0 / np.cos(1.0) ** 2 + abs(c[1]) + 2 * abs(c[2])  # noqa: E731
    start = time.perf_counter()
    res = program.solve(lipschitz=lipschitz, time_limit=2.0)
    elapsed = time.perf_counter() - start
    assert elapsed <= 2.0 + 3.0, elapsed
    assert res.status == "certified_optimal"
    assert "the time limit ended its rounds" in res.message
    if res.bracket is not None:
        assert res.bracket["lower"] <= optimum <= res.bracket["upper"] + 1e-12


def test_an_svm_on_working_sets_solves_no_set_past_its_deadline(budgets):
    """Lazy Gram matrices of 300 chessboard points, first working sets of 15 points per
    class (the set then grows over rounds): with a deadline already past, the first set
    alone is solved — α is libsvm's SVM of those 30 points solved on their own, zero off
    them — with status ``iteration_limit``; without one the rounds go on to the optimal SVM
    of all points, whose dual value is higher."""
    budgets(working_set_start=15)
    X, y = chessboard(300, seed=3)
    thetas = [np.array(t, dtype=float) for t in ([2, 2, 0, 0, 0], [0.5] * 5)]
    grams, d, C = [LazyGram(GaussianARD(), t, X) for t in thetas], np.array([0.6, 0.4]), 10.0
    stopped, index, _ = svm_on_working_set(grams, d, y, C, 1e-6, deadline=0.0)
    first = first_working_set(y)
    np.testing.assert_array_equal(index, first)
    assert stopped.status is Status.ITERATION_LIMIT
    K = sum(dm * gaussian(X, t) for dm, t in zip(d, thetas))
    alone = solve_svm_dual(K[np.ix_(first, first)], y[first], C, tol=1e-6)
    np.testing.assert_allclose(stopped.alpha[first], alone.alpha, atol=1e-6 * C)
    assert not np.any(np.delete(stopped.alpha, first))
    full, _, _ = svm_on_working_set(grams, d, y, C, 1e-6)
    assert full.status is Status.OPTIMAL and full.objective > stopped.objective


def test_the_multistart_oracle_ends_its_search_at_the_round_deadline():
    """A pricing round over GaussianARD on 40 points (a rank-one price matrix) with its
    deadline already past: the oracle evaluates its screened sample and each stage once,
    fewer prices than the whole search (which climbs, refines and polishes with IPOPT), and
    answers with status ``iteration_limit``; each candidate's score is its price, summed
    here from W and the Gram matrix of its θ."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    a = rng.normal(size=40)
    W = PriceMatrix.rank_one(a - a.mean(), 1.0)

    def pricing_round(deadline):
        problems = [KernelSpace(X).pricing_problem(GaussianARD(), W)]
        return PricingRound(problems, X, [], 0.0, 3, np.random.default_rng(0),
                            deadline=deadline)
    whole = MultiStartOracle().price(pricing_round(None))
    stopped = MultiStartOracle().price(pricing_round(0.0))
    assert whole.status is Status.OPTIMAL and stopped.status is Status.ITERATION_LIMIT
    assert stopped.n_evals < whole.n_evals and len(stopped.columns) > 0
    for column, score in zip(stopped.columns, stopped.scores):
        price = np.sum(W.dense() * column.family.gram(np.asarray(column.theta), X))
        assert score == pytest.approx(price, rel=1e-10)


def test_a_pricing_cut_short_by_the_deadline_claims_nothing():
    """An oracle that searches until the round's deadline (the engine's start plus
    ``time_limit``, 2 s) and finds nothing, status ``iteration_limit``: the run ends
    ``time_limit``, not ``converged_local`` (a search cut short proves nothing). The
    master's SVM on 60 points takes milliseconds, so the deadline passes in the pricing."""
    class UntilTheDeadline(OracleBase):
        def price(self, pricing_round):
            time.sleep(max(pricing_round.deadline - time.perf_counter(), 0.0))
            return OracleResult([], np.zeros(0), 0, status=Status.ITERATION_LIMIT)
    X, y = make_moons(60, noise=0.2, random_state=0)
    engine = ColumnGeneration(HingeMKLNewton(np.where(y == 1, 1.0, -1.0), 10.0),
                              UntilTheDeadline(), time_limit=2.0)
    res = engine.run(KernelSpace(X, GaussianIso()), [Column.make(GaussianIso(), 1.0)])
    assert res.status == "time_limit" and not res.success
    assert "during the pricing" in res.message


def test_no_pricing_follows_a_master_solve_past_the_time_limit():
    """A master that sleeps 1.5 s before its SVM, ``time_limit=1``: the run stops with
    ``time_limit`` after that solve without asking the oracle (its prices would not be
    used), the round recorded with best price NaN, and the model is that solve's."""
    class Slow:
        def __init__(self, master):
            self.master = master

        def solve(self, inputs, warm_start=None):
            time.sleep(1.5)
            return self.master.solve(inputs, warm_start)
    asked = []

    class Counted(OracleBase):
        def price(self, pricing_round):
            asked.append(pricing_round)
            return MultiStartOracle().price(pricing_round)
    X, y = make_moons(60, noise=0.2, random_state=0)
    engine = ColumnGeneration(Slow(HingeMKLNewton(np.where(y == 1, 1.0, -1.0), 10.0)),
                              Counted(), time_limit=1.0)
    res = engine.run(KernelSpace(X, GaussianIso()), [Column.make(GaussianIso(), 1.0)])
    assert res.status == "time_limit" and "before its pricing" in res.message
    assert not asked and res.nit == 1 and np.isnan(res.history["best_price"][-1])
    assert res.pricing is None and res.master.status is Status.OPTIMAL


def test_a_nystrom_fit_ends_at_its_time_limit():
    """IKL over Nyström columns (q = 200 landmarks) on 3000 points of the 3 × 3 chessboard
    with 8 noise dimensions, ``time_limit=1``: the first round's pricing alone (IPOPT's
    polish of a price whose every evaluation costs q·n_sv) takes over 10 s unless it reads
    the deadline. Measured: the wall time of ``fit``, at most the limit plus 6 s (past the
    deadline the run ends after the master's current SVM or the pricing's current batched
    evaluation); the status is ``time_limit``, with a ConvergenceWarning."""
    X, y = make_checkerboard(3000, 8, 3, random_state=0)
    X = StandardScaler().fit_transform(X)
    clf = IKLClassifier(family=GaussianARD(), C=10.0, n_landmarks=200, random_state=0,
                        time_limit=1.0)
    start = time.perf_counter()
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        clf.fit(X, y)
    elapsed = time.perf_counter() - start
    assert elapsed <= 1.0 + 6.0, elapsed
    assert clf.result_.status == "time_limit"
    assert clf.predict(X).shape == y.shape


def send_ctrl_c(sent):
    """SIGINT to this process, as Ctrl-C sends it; the time it was sent appended to ``sent``."""
    sent.append(time.perf_counter())
    os.kill(os.getpid(), signal.SIGINT)


def fit_keeping_a_model(clf, X, y, timer):
    """``clf.fit(X, y)`` with its warnings recorded, then ``timer`` cancelled: the time it
    returned and the warnings. A ``KeyboardInterrupt`` out of ``fit`` fails the test."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            clf.fit(X, y)
            return time.perf_counter(), caught
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C propagated out of fit: no model was kept")
    finally:
        timer.cancel()


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_ctrl_c_ends_every_class_of_a_one_vs_rest_fit(n_jobs):
    """A 3-class IKL fit that runs for tens of seconds (no objective rule, tol = 1e-8) gets
    SIGINT 2 s after it starts, from a timer thread, as Ctrl-C sends it. Measured: the time
    from the signal to the return of ``fit``, at most 10 s (the rounds take tenths of a
    second; a class not begun solves its first master); ``fit`` returns a model of every
    class, each status ``interrupted`` with its ConvergenceWarning, and it predicts its
    training set far above chance (1/3)."""
    X, y = make_classification(400, n_features=6, n_informative=4, n_redundant=0,
                               n_classes=3, n_clusters_per_class=2, random_state=0)
    clf = IKLClassifier(family=GaussianARD(), C=10.0, obj_tol=0.0, tol=1e-8, max_iter=1000,
                        random_state=0, n_jobs=n_jobs)
    sent = []
    timer = threading.Timer(2.0, send_ctrl_c, [sent])
    timer.start()
    returned, caught = fit_keeping_a_model(clf, X, y, timer)
    assert sent, "the fit ended before the signal"
    assert returned - sent[0] <= 10.0, returned - sent[0]
    assert [r.status.value for r in clf.result_] == ["interrupted"] * 3
    assert sum(issubclass(w.category, ConvergenceWarning) for w in caught) == 3
    assert clf.score(X, y) > 0.8


@pytest.mark.slow
@pytest.mark.parametrize("stop", ["time_limit", "ctrl_c"])
def test_the_one_call_at_large_n_ends_at_its_time_limit_and_at_ctrl_c(stop):
    """The default call ``IKLClassifier(family=GaussianARD())`` on 20 000 points of the 3 × 3
    chessboard with 8 noise dimensions (two stages: exact IKL on 3000 points, then Nyström
    columns on 400 landmarks), a fit of many minutes (about 25 s a round on all points, up
    to 50 rounds), stopped by ``time_limit=20`` or by SIGINT 5 s into stage 2 (sent from a
    timer that the sixth call of the callback starts: stage 1 has 5 rounds at most).
    Measured: the wall time of ``fit`` past the limit, or from the signal to its return, at
    most 10 s (one SVM on a working set or one batched price evaluation on all points); a
    model is kept, the one of the stage more accurate on the held-out points."""
    X, y = make_checkerboard(20000, 8, 3, random_state=0)
    X = StandardScaler().fit_transform(X)
    sent, calls = [], []
    timer = threading.Timer(5.0, send_ctrl_c, [sent])

    def callback(intermediate_result):
        calls.append(intermediate_result)
        if stop == "ctrl_c" and len(calls) == 6:
            timer.start()
    clf = IKLClassifier(family=GaussianARD(), callback=callback,
                        time_limit=20.0 if stop == "time_limit" else None)
    start = time.perf_counter()
    returned, _ = fit_keeping_a_model(clf, X, y, timer)
    overshoot = returned - (start + 20.0 if stop == "time_limit" else sent[0])
    assert overshoot <= 10.0, overshoot
    assert [s["status"][0] for s in clf.stages_][-1] == (
        "time_limit" if stop == "time_limit" else "interrupted")
    held = clf.held_out_
    assert clf.score(X[held], y[held]) == max(s["held_out_accuracy"] for s in clf.stages_)
