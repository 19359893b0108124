"""The SVM on a working set against libsvm on all points, and in other units."""
import numpy as np
import pytest

from sipkl import GaussianARD
from sipkl.core.contracts import Column
from sipkl.compute.lazy_gram import LazyGram
from sipkl.kernel_learning.masters.hinge import HingeMKLNewton
from sipkl.kernel_learning.masters.lp_norm import HingeMKLLpNorm
from sipkl.kernel_learning.masters.working_set import (_combined_on, _next_gram, first_working_set,
                                                       svm_on_working_set)
from sipkl.solvers import solve_svm_dual
from sipkl.kernel_learning.space import KernelSpace
from boards import chessboard, gaussian, violation

THETAS = ([2, 2, 0, 0, 0], [0.5] * 5, [4, 0, 0, 0, 0])
D = np.array([0.5, 0.3, 0.2])
C, TOL = 10.0, 1e-6


def float32_slack(K, alpha):
    """What libsvm's criterion can miss by: its kernel cache holds Q in single precision,
    so each gradient entry (K(α∘y))_i carries up to ε₃₂ Σ_j |K_ij| α_j, twice in m − M."""
    return 2 * np.finfo(np.float32).eps * (np.abs(K) @ alpha).max()


@pytest.fixture
def small_start(budgets):
    """First working sets of 15 points per class, so that the set grows over rounds."""
    budgets(working_set_start=15)


def test_first_working_set_takes_both_classes_evenly():
    y = np.array([1.0] * 10 + [-1.0] * 3)
    np.testing.assert_array_equal(first_working_set(y, 4), [0, 3, 6, 9, 10, 11, 12])


@pytest.mark.parametrize("lazy, started", [(False, False), (True, False), (True, True)])
def test_working_set_svm_is_libsvm_on_all_points(small_start, lazy, started):
    """From the first working set, or from the SVM at other weights (started)."""
    X, y = chessboard(300, seed=3)
    dense = [gaussian(X, np.asarray(t, dtype=float)) for t in THETAS]
    grams = [LazyGram(GaussianARD(), t, X) for t in THETAS] if lazy else dense
    K = sum(dm * Km for dm, Km in zip(D, dense))
    start = solve_svm_dual(dense[1], y, C, tol=TOL).alpha if started else None
    svm, index, K_S = svm_on_working_set(grams, D, y, C, TOL, start)
    full = solve_svm_dual(K, y, C, tol=TOL)
    assert len(index) < len(y)  # not all points
    assert len(svm.attempts) >= (1 if started else 3)  # the first working set grows in rounds
    assert np.all(svm.alpha[np.setdiff1d(np.arange(len(y)), index)] == 0)
    np.testing.assert_allclose(K_S, K[np.ix_(index, index)], rtol=1e-12, atol=1e-14)
    assert violation(K, y, svm.alpha, C) <= TOL + float32_slack(K, svm.alpha)
    # both are optimal to libsvm's tolerance: the dual values agree far below it
    assert svm.objective == pytest.approx(full.objective, rel=1e-8)
    assert svm.objective == pytest.approx(
        svm.alpha.sum() - 0.5 * (svm.alpha * y) @ K @ (svm.alpha * y), rel=1e-12)


def test_working_set_without_its_violators_is_not_optimal(small_start):
    """The first working set alone leaves points that violate libsvm's criterion: the
    rounds above are needed (the test above could not pass on the first set)."""
    X, y = chessboard(300, seed=3)
    dense = [gaussian(X, np.asarray(t, dtype=float)) for t in THETAS]
    K = sum(dm * Km for dm, Km in zip(D, dense))
    index = first_working_set(y)
    part = solve_svm_dual(K[np.ix_(index, index)], y[index], C, tol=TOL)
    alpha = np.zeros(len(y))
    alpha[index] = part.alpha
    assert violation(K, y, alpha, C) > 100 * TOL


def test_working_set_svm_is_the_same_run_in_other_units(small_start):
    """X·1000 with the scales / 10⁶: the same kernels, the same rounds and working set."""
    X, y = chessboard(300, seed=3)
    runs = []
    for factor in (1.0, 1e3):
        grams = [LazyGram(GaussianARD(), np.asarray(t, dtype=float) / factor ** 2, X * factor)
                 for t in THETAS]
        runs.append(svm_on_working_set(grams, D, y, C, TOL))
    (a, ia, _), (b, ib, _) = runs
    np.testing.assert_array_equal(ia, ib)
    assert len(a.attempts) == len(b.attempts)
    # libsvm solves in single precision (its kernel cache): α agrees to that accuracy
    np.testing.assert_allclose(b.alpha, a.alpha, atol=1e-5 * C)
    assert b.objective == pytest.approx(a.objective, rel=1e-9)


@pytest.mark.parametrize("master", [HingeMKLNewton, HingeMKLLpNorm])
def test_hinge_master_on_a_working_set_is_the_cached_solution(small_start, budgets,
                                                              master):
    """The Newton and ℓp-norm masters on lazy Gram matrices, their SVMs on working sets,
    against the same masters on cached ones (libsvm on all points)."""
    budgets(working_set_min_n=0)
    X, y = chessboard(300, seed=1)
    columns = [Column.make(GaussianARD(), t) for t in THETAS + ([0, 4, 0, 1, 0],)]
    cached, lazy = [master(y, 1.0).solve(KernelSpace(X, GaussianARD(), max_gram_bytes=budget)
                                         .master_inputs(columns))
                    for budget in (None, 0)]
    assert cached.status.value == lazy.status.value == "optimal"
    assert (cached.weights > 1e-3).sum() >= 2
    np.testing.assert_allclose(lazy.weights, cached.weights, atol=1e-5)
    assert lazy.objective == pytest.approx(cached.objective, rel=1e-8)
    assert lazy.gap <= 1e-6 * abs(lazy.objective)


@pytest.mark.parametrize("dropped", [0, 5])
def test_next_working_set_computes_only_the_new_points_rows(kernel_values, dropped):
    """K(d) on the next set G from K(d) on S — G ⊃ S, or G without some points of S (those
    with α_i = 0) — against the sum formed densely, over a lazy and a cached column, while
    the lazy one computes |G ∖ S|·|G| entries, not |G|²."""
    X, _ = chessboard(60, seed=1)
    dense = [gaussian(X, np.asarray(t, dtype=float)) for t in THETAS[:2]]
    positive = [(LazyGram(GaussianARD(), THETAS[0], X), 0.6), (dense[1], 0.4)]
    K = 0.6 * dense[0] + 0.4 * dense[1]
    index = np.arange(0, 60, 4)
    following = np.union1d(np.delete(index, np.arange(0, 2 * dropped, 2)), [1, 2, 33, 59])
    K_S = _combined_on(positive, index)
    before = len(kernel_values)
    K_G = _next_gram(positive, index, K_S, following)
    np.testing.assert_allclose(K_G, K[np.ix_(following, following)], rtol=1e-12, atol=1e-14)
    assert sum(kernel_values[before:]) == 4 * len(following)
