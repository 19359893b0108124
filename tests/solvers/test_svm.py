"""The SVM dual solved on the active set of a nearby solution, against libsvm."""
import numpy as np
import pytest

from sipkl.solvers import solve_svm_dual, svm_on_active_set
from boards import chessboard, gaussian, violation

THETAS = ([2, 2, 0, 0, 0], [0.5] * 5, [4, 0, 0, 0, 0])
C, TOL, SV_RTOL = 10.0, 1e-6, 1e-6


def sets(alpha, C):
    """The masks (free, at C) of a libsvm solution."""
    return (alpha > SV_RTOL * C) & (alpha < (1 - SV_RTOL) * C), alpha >= (1 - SV_RTOL) * C


def combined(grams, d):
    return sum(dm * K for dm, K in zip(d, grams))


@pytest.fixture(scope="module")
def board():
    X, y = chessboard(300, seed=3)
    return [gaussian(X, np.asarray(t, dtype=float)) for t in THETAS], y


@pytest.mark.parametrize("d_new", [(0.48, 0.32, 0.2), (0.45, 0.35, 0.2), (0.5, 0.3, 0.2)])
def test_active_set_svm_from_nearby_weights_is_the_svm(board, d_new):
    """From the sets of the SVM at weights (0.5, 0.3, 0.2) to the SVM at nearby weights
    (and at the same ones): libsvm's criterion holds on all points, and the dual value is
    libsvm's at a tolerance 10⁴ times tighter."""
    grams, y = board
    start = solve_svm_dual(combined(grams, (0.5, 0.3, 0.2)), y, C, tol=TOL).alpha
    K = combined(grams, d_new)
    svm = svm_on_active_set(K, y, C, *sets(start, C), tol=TOL)
    assert svm is not None and svm.status.value == "optimal"
    assert violation(K, y, svm.alpha, C) <= TOL
    assert abs(svm.alpha @ y) <= 1e-10 * svm.alpha.sum()
    assert np.all((svm.alpha >= 0) & (svm.alpha <= C))
    tight = solve_svm_dual(K, y, C, tol=1e-10)
    assert svm.objective == pytest.approx(tight.objective, rel=1e-9)
    w = svm.alpha * y
    assert svm.objective == pytest.approx(svm.alpha.sum() - 0.5 * w @ K @ w, rel=1e-12)
    # the decision values y_i f(x_i) are 1 on the free points (the bias is the SVM's)
    free = sets(svm.alpha, C)[0]
    np.testing.assert_allclose(y[free] * (K[free] @ w + svm.bias), 1.0, atol=1e-9)


def test_active_set_svm_returns_the_factor_of_its_free_block(board):
    """``free_factor`` is (F, L) with F the free points of the answer and L the Cholesky
    factor of K_FF in its lower triangle (against NumPy's factorization)."""
    grams, y = board
    start = solve_svm_dual(combined(grams, (0.5, 0.3, 0.2)), y, C, tol=TOL).alpha
    K = combined(grams, (0.45, 0.35, 0.2))
    svm = svm_on_active_set(K, y, C, *sets(start, C), tol=TOL)
    F, L = svm.free_factor
    np.testing.assert_array_equal(F, np.flatnonzero((svm.alpha > 0) & (svm.alpha < C)))
    np.testing.assert_allclose(np.tril(L), np.linalg.cholesky(K[np.ix_(F, F)]), rtol=1e-10,
                               atol=1e-12)
    assert solve_svm_dual(K, y, C, tol=TOL).free_factor is None


def test_active_set_steps_move_the_sets(board):
    """Weights far enough apart that the sets differ (by 10 points): one solve on the old
    sets is not the SVM (``max_rounds=1`` gives up), the active-set steps find the new
    sets."""
    grams, y = board
    start = solve_svm_dual(combined(grams, (0.5, 0.3, 0.2)), y, C, tol=TOL).alpha
    K = combined(grams, (0.45, 0.35, 0.2))
    svm = svm_on_active_set(K, y, C, *sets(start, C), tol=TOL)
    changed = np.sum(sets(svm.alpha, C)[0] != sets(start, C)[0])
    assert changed > 0
    assert svm_on_active_set(K, y, C, *sets(start, C), tol=TOL, max_rounds=1) is None


def test_active_set_svm_gives_up_rather_than_answer_wrong(board):
    """Sets far from the solution's (every point at 0 but two free ones) or a singular system
    (two copies of every point, both labels on each pair): ``None``, or an answer that meets
    the criterion — never a point that does not."""
    grams, y = board
    K = combined(grams, (0.5, 0.3, 0.2))
    free = np.zeros(len(y), dtype=bool)
    free[[np.argmax(y > 0), np.argmax(y < 0)]] = True
    svm = svm_on_active_set(K, y, C, free, np.zeros(len(y), dtype=bool), tol=TOL)
    assert svm is None or violation(K, y, svm.alpha, C) <= TOL
    doubled = np.block([[K, K], [K, K]])
    both = np.concatenate([y, -y])
    start = np.full(len(both), C / 2)
    assert svm_on_active_set(doubled, both, C, *sets(start, C), tol=TOL) is None


def test_active_set_svm_of_low_rank_refuses_more_free_points_than_its_rank_allows():
    """K = Z Zᵀ of rank 3 and 6 free points: the bordered system has rank at most 5 of 7,
    singular; ``None`` (without solving it), and the same sets with the rank unknown are not
    answered with a point that violates the criterion either."""
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(40, 3))
    K, y = Z @ Z.T, np.where(np.arange(40) % 2 == 0, 1.0, -1.0)
    free = np.zeros(40, dtype=bool)
    free[:6] = True
    upper = np.zeros(40, dtype=bool)
    assert svm_on_active_set(K, y, C, free, upper, tol=TOL, rank=3) is None
    svm = svm_on_active_set(K, y, C, free, upper, tol=TOL)
    assert svm is None or violation(K, y, svm.alpha, C) <= TOL


def test_active_set_svm_is_the_same_in_other_units(board):
    """K / 1000 with C · 1000 is the same problem with α · 1000: the same answer."""
    grams, y = board
    start = solve_svm_dual(combined(grams, (0.5, 0.3, 0.2)), y, C, tol=TOL).alpha
    K = combined(grams, (0.45, 0.35, 0.2))
    a = svm_on_active_set(K, y, C, *sets(start, C), tol=TOL)
    b = svm_on_active_set(K / 1e3, y, C * 1e3, *sets(start * 1e3, C * 1e3), tol=TOL)
    np.testing.assert_allclose(b.alpha, 1e3 * a.alpha, rtol=1e-8, atol=1e-10 * C)
    assert b.objective == pytest.approx(1e3 * a.objective, rel=1e-10)
    assert b.bias == pytest.approx(a.bias, rel=1e-8)


def test_solve_bordered_is_the_lu_solve_of_the_whole_system():
    """[M u; uᵀ 0][Z; b] = [R; r] by M's Cholesky factor and the Schur complement, against
    NumPy's LU solve of the bordered matrix (one and three right-hand sides); a matrix M that
    is not positive definite raises LinAlgError (the callers then solve by LU)."""
    from sipkl.solvers import solve_bordered
    rng = np.random.default_rng(0)
    A = rng.normal(size=(40, 40))
    M, u = A @ A.T + 0.1 * np.eye(40), rng.normal(size=40)
    R, r = rng.normal(size=(40, 3)), rng.normal(size=3)
    full = np.block([[M, u[:, None]], [u[None, :], np.zeros((1, 1))]])
    reference = np.linalg.solve(full, np.vstack([R, r[None]]))
    Z, b = solve_bordered(M, u, R, r)
    np.testing.assert_allclose(Z, reference[:-1], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(b, reference[-1], rtol=1e-9, atol=1e-9)
    z, b0 = solve_bordered(M, u, R[:, 0], r[0])
    np.testing.assert_allclose(z, reference[:-1, 0], rtol=1e-9, atol=1e-9)
    assert abs(b0 - reference[-1, 0]) <= 1e-9 * max(1.0, abs(reference[-1, 0]))
    with pytest.raises(np.linalg.LinAlgError):
        solve_bordered(-M, u, R, r)
