"""The interior-point SVM on low-rank features (sipkl.solvers.svm_features) against libsvm on
the whole Gram matrix, in other units, on torch, and inside the working sets of Nyström
columns."""
import numpy as np
import pytest

from sipkl import GaussianARD
from sipkl.core.contracts import Column
from sipkl.kernel_learning.masters.working_set import svm_on_working_set
from sipkl.kernel_learning.nystrom import NystromSpace
from sipkl.solvers import SolverError, solve_svm_dual
from sipkl.solvers.svm_features import LowRankGram, svm_on_features
from boards import chessboard, violation

TOL = 1e-6


def features(m, p, seed):
    """Points of a noisy quadratic boundary and p random Fourier features of a Gaussian
    kernel (a low-rank K = Z Zᵀ, as Nyström's)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=m) > 0.5, 1.0, -1.0)
    W, b = rng.normal(size=(3, p)), rng.uniform(0, 2 * np.pi, p)
    return np.sqrt(2.0 / p) * np.cos(X @ W + b), y


@pytest.mark.parametrize("m, p, C", [(400, 20, 1.0), (1500, 60, 10.0), (1200, 150, 100.0)])
def test_interior_point_svm_is_libsvm(m, p, C):
    Z, y = features(m, p, seed=m)
    K = Z @ Z.T
    svm = svm_on_features(Z, y, C, TOL)
    reference = solve_svm_dual(K, y, C, tol=TOL)
    assert [a.solver for a in svm.attempts] == ["interior_point", "active_set"]
    assert np.all((svm.alpha >= 0) & (svm.alpha <= C))
    assert abs(svm.alpha @ y) <= 1e-10 * C * m
    assert violation(K, y, svm.alpha, C) <= TOL
    # both optimal to libsvm's tolerance: the dual values agree far below it
    assert svm.objective == pytest.approx(reference.objective, rel=1e-8)
    w = svm.alpha * y
    assert svm.objective == pytest.approx(svm.alpha.sum() - 0.5 * w @ K @ w, rel=1e-12)
    free = (svm.alpha > 0) & (svm.alpha < C)
    np.testing.assert_allclose(y[free] * (K[free] @ w + svm.bias), 1.0, atol=1e-8)


@pytest.mark.parametrize("seed, C", [(0, 1.0), (1, 100.0)])
def test_interior_point_svm_of_a_kernel_that_separates_nothing(seed, C):
    """Features of a Gaussian so wide that they hardly vary, labels 7 : 3 at random: the SVM
    puts v = Gᵀα = 0 and b = 1, the minority at C and the majority on its margin, whose α
    are not unique (far more free points than the rank p, the bordered system of the
    active-set steps singular). Its value is 2·C·(minority count) (Σα with v = 0); the
    answer is the interior-point iterate, held to libsvm's own criterion."""
    rng = np.random.default_rng(seed)
    m, p = 1200, 40
    y = np.where(rng.uniform(size=m) < 0.7, 1.0, -1.0)
    W, b = 0.05 * rng.normal(size=(5, p)), rng.uniform(0, 2 * np.pi, p)
    Z = np.sqrt(2.0 / p) * np.cos(rng.normal(size=(m, 5)) @ W + b)
    svm = svm_on_features(Z, y, C, TOL)
    assert [a.solver for a in svm.attempts] == ["interior_point", "degenerate_sets"]
    assert svm.objective == pytest.approx(2 * C * np.sum(y < 0), rel=1e-9)
    assert np.all((svm.alpha >= 0) & (svm.alpha <= C)) and np.all(svm.alpha[y < 0] == C)
    assert abs(svm.alpha @ y) <= 1e-10 * svm.alpha.sum()
    assert violation(Z @ Z.T, y, svm.alpha, C) <= TOL
    assert svm.bias == pytest.approx(1.0, abs=10 * TOL)  # to the order of libsvm's rule


def test_interior_point_svm_is_the_same_run_in_other_units():
    """Z·1000 (K·10⁶) with C/10⁶: the same steps, α/10⁶, the same sets and bias."""
    Z, y = features(800, 40, seed=1)
    a = svm_on_features(Z, y, 10.0, TOL)
    b = svm_on_features(Z * 1e3, y, 10.0 / 1e6, TOL)
    assert a.attempts[0].message == b.attempts[0].message  # "k steps"
    np.testing.assert_allclose(b.alpha * 1e6, a.alpha, rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(b.alpha > 0, a.alpha > 0)
    assert b.bias == pytest.approx(a.bias, rel=1e-7)


def test_interior_point_svm_that_runs_out_of_steps_raises():
    Z, y = features(400, 20, seed=2)
    with pytest.raises(SolverError, match="3 steps"):
        svm_on_features(Z, y, 1.0, TOL, max_steps=3)


def test_low_rank_gram_reads_as_the_matrix():
    Z, _ = features(50, 7, seed=3)
    K, low = Z @ Z.T, LowRankGram(Z)
    rows, columns = np.array([3, 1, 40]), np.array([0, 49, 2, 5])
    np.testing.assert_allclose(low[np.ix_(rows, columns)], K[np.ix_(rows, columns)],
                               rtol=1e-13)
    w = np.arange(50.0)
    np.testing.assert_allclose(low @ w, K @ w, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(low), K, rtol=1e-13)


def test_interior_point_svm_on_torch_is_numpys():
    torch = pytest.importorskip("torch")
    Z, y = features(600, 30, seed=4)
    a = svm_on_features(Z, y, 10.0, TOL)
    b = svm_on_features(torch.as_tensor(Z), y, 10.0, TOL)
    np.testing.assert_allclose(b.alpha, a.alpha, rtol=1e-8, atol=1e-9)
    assert b.objective == pytest.approx(a.objective, rel=1e-12)


@pytest.mark.parametrize("ratio, solver", [(0, "interior_point"), (10 ** 9, "libsvm")])
def test_working_set_svm_on_nystrom_features(budgets, ratio, solver):
    """The budget ``svm_features_ratio`` picks the solver of each working set (0: the
    interior-point method on the features); either way the SVM is libsvm's on all points."""
    budgets(working_set_start=30, svm_features_ratio=ratio)
    X, y = chessboard(600, seed=5)
    landmarks = np.sort(np.random.default_rng(0).choice(len(y), 40, replace=False))
    space = NystromSpace(X, GaussianARD(), landmarks)
    grams = [space.gram(Column.make(GaussianARD(), t))
             for t in ([2.0, 2.0, 0.0, 0.0, 0.0], [0.5] * 5)]
    d = np.array([0.7, 0.3])
    svm, index, K_S = svm_on_working_set(grams, d, y, 10.0, TOL)
    K = sum(dm * np.asarray(Km) for dm, Km in zip(d, grams))
    reference = solve_svm_dual(K, y, 10.0, tol=TOL)
    assert solver in {a.solver for a in svm.attempts}
    assert violation(K, y, svm.alpha, 10.0) <= TOL + 1e-12
    assert svm.objective == pytest.approx(reference.objective, rel=1e-8)
    np.testing.assert_allclose(np.asarray(K_S), K[np.ix_(index, index)], rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("C", [0.01, 1.0, 1000.0])
def test_interior_point_svm_on_a_dataset_it_was_not_written_for(C):
    """scikit-learn's breast-cancer data (569 points, 30 coordinates, standardized) under 120
    random Fourier features: the SVM at a small, a middle and a large C."""
    from sklearn.datasets import load_breast_cancer
    X, labels = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    y = np.where(labels == 1, 1.0, -1.0)
    rng = np.random.default_rng(0)
    W, b = rng.normal(size=(30, 120)) / np.sqrt(30), rng.uniform(0, 2 * np.pi, 120)
    Z = np.sqrt(2.0 / 120) * np.cos(X @ W + b)
    K = Z @ Z.T
    svm = svm_on_features(Z, y, C, TOL)
    reference = solve_svm_dual(K, y, C, tol=TOL)
    assert violation(K, y, svm.alpha, C) <= TOL
    assert svm.objective == pytest.approx(reference.objective, rel=1e-8)


def test_interior_point_svm_with_repeated_points_is_libsvms_or_raises():
    """Every point twice (K singular on any set holding both copies): the answer, where
    there is one, meets libsvm's criterion; else a SolverError, never a wrong SVM."""
    Z, y = features(300, 20, seed=6)
    Z, y = np.vstack([Z, Z]), np.concatenate([y, y])
    K = Z @ Z.T
    try:
        svm = svm_on_features(Z, y, 10.0, TOL)
    except SolverError:
        return
    assert violation(K, y, svm.alpha, 10.0) <= TOL
    assert svm.objective == pytest.approx(solve_svm_dual(K, y, 10.0, tol=TOL).objective,
                                          rel=1e-8)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_ikl_with_the_interior_point_svms_takes_libsvms_path(budgets, monkeypatch):
    """A Nyström fit whose SVMs all go to working sets: with every set solved by the
    interior-point method (``svm_features_ratio=0``) it takes the rounds, objectives and
    model of the fit whose sets libsvm solves."""
    import sipkl.kernel_learning.masters.working_set as working_set
    from sipkl import IKLClassifier
    solves = []
    monkeypatch.setattr(working_set, "svm_on_features",
                        lambda *args: solves.append(1) or svm_on_features(*args))
    budgets(working_set_min_n=100, working_set_start=20)
    X, y = chessboard(300, seed=1, noise=2)
    settings = dict(family=GaussianARD(), C=10.0, random_state=0, n_landmarks=40, max_iter=3)
    with_libsvm = IKLClassifier(**settings).fit(X, y)
    assert not solves
    budgets(svm_features_ratio=0)
    interior = IKLClassifier(**settings).fit(X, y)
    assert len(solves) > 10
    np.testing.assert_allclose(interior.result_.history["objective"],
                               with_libsvm.result_.history["objective"], rtol=1e-6)
    assert len(interior.kernel_.columns) == len(with_libsvm.kernel_.columns)
    np.testing.assert_allclose(interior.decision_function(X),
                               with_libsvm.decision_function(X), rtol=1e-4, atol=1e-4)
