"""Centred-alignment masters and estimators against independent computations.

The references below are written from the formulas of afkanpour §2 and Cortes et al. (2010),
with the centring matrix C = I − 11ᵀ/n built explicitly — nothing is read back from sipkl:

* A_c(K) = <CKC, CYYᵀC>_F / (‖CKC‖_F ‖CYYᵀC‖_F),
* the step of Prop. 2 as a bounded 1-D maximization (scipy),
* the price of Prop. 1 as a finite-difference directional derivative,
* alignf as non-negative least squares: with B = [vec(CK_1C) … vec(CK_mC)] and
  t = vec(CYYᵀC), M = BᵀB and a = Bᵀt, so vᵀMv − 2vᵀa = ‖Bv − t‖² − ‖t‖² (scipy NNLS).
"""
import numpy as np
import pytest
from scipy.optimize import minimize_scalar, nnls
from scipy.spatial.distance import cdist
from sklearn.datasets import load_iris, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import check_estimator

from sipkl import (ColumnGeneration, Column, Dirichlet, AlignmentKernelClassifier,
                   AlignmentKernelRegressor, GaussianARD, GaussianIso)
from sipkl.kernel_learning.masters import AlignfMaster, FSAMMaster, UniformMaster
from sipkl.kernel_learning.masters.alignment import (AlignmentTarget, Shrinkage,
                                                     centered_alignment, fsam_step)
from sipkl.pricing import GridOracle
from sipkl.kernel_learning.space import KernelSpace


# -- independent references ----------------------------------------------------------
def centring(n):
    return np.eye(n) - np.ones((n, n)) / n


def alignment(K, y):
    Y = np.asarray(y, float).reshape(len(K), -1)
    C = centring(len(K))
    Kc, T = C @ K @ C, C @ Y @ Y.T @ C
    return np.sum(Kc * T) / (np.linalg.norm(Kc) * np.linalg.norm(T))


def rbf(X, gamma, Z=None):
    return np.exp(-gamma * cdist(X, X if Z is None else Z, "sqeuclidean"))


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(80, noise=0.25, random_state=0)
    return X, np.where(y == 1, 1, -1)


# -- Prop. 2: the closed-form step ---------------------------------------------------
def test_prop2_step_is_the_maximizer_on_the_segment():
    rng = np.random.default_rng(0)
    kinds = set()
    for _ in range(60):
        n = 12
        A, B = rng.normal(size=(n, 3)), rng.normal(size=(n, 2))
        y = np.resize([-1.0, 1.0], n)
        rng.shuffle(y)
        C = centring(n)
        K = 10.0 ** rng.uniform(-2, 1) * C @ A @ A.T @ C
        K_new = C @ B @ B.T @ C
        eta_max = 10.0 ** rng.uniform(-1, 1)
        eta = fsam_step(K, K_new, AlignmentTarget(y), eta_max)

        def g(e):
            return alignment(K + e * K_new, y)

        res = minimize_scalar(lambda e: -g(e), bounds=(0, eta_max), method="bounded",
                              options={"xatol": 1e-10})
        best = max(g(res.x), g(0.0), g(eta_max))
        assert 0.0 <= eta <= eta_max
        assert g(eta) >= best - 1e-10
        if 1e-6 * eta_max < res.x < (1 - 1e-6) * eta_max and g(res.x) >= best - 1e-12:
            assert eta == pytest.approx(res.x, rel=1e-5, abs=1e-8)
        kinds.add("zero" if eta == 0 else "max" if eta == eta_max else "interior")
    assert kinds == {"zero", "interior", "max"}  # all three cases of Prop. 2 were exercised


# -- Prop. 1: the price matrix -------------------------------------------------------
def test_price_is_the_directional_derivative_of_the_alignment(moons):
    X, y = moons
    grams = [rbf(X, g) for g in (0.3, 3.0)]
    master = FSAMMaster(y)
    sol = master.solve(grams, None)
    K = master.epsilon * np.eye(len(X)) + sum(w * G for w, G in zip(sol.weights, grams))
    C = centring(len(X))
    assert -sol.objective == pytest.approx(alignment(K, y), rel=1e-10)
    W = sol.price.dense()
    rng = np.random.default_rng(1)
    A = rng.normal(size=(len(X), 3))
    for K_new in (rbf(X, 30.0), rbf(X, 0.01), A @ A.T):
        h = 1e-6 * np.linalg.norm(K) / np.linalg.norm(K_new)
        slope = (alignment(K + h * K_new, y) - alignment(K - h * K_new, y)) / (2 * h)
        # W = ‖K_c‖ F′(K_c): the derivative scaled by ‖K_c‖ (module notes)
        assert np.sum(W * K_new) == pytest.approx(np.linalg.norm(C @ K @ C) * slope, rel=1e-6)
        step = fsam_step(C @ K @ C, C @ K_new @ C, AlignmentTarget(y))
        assert step > 0 or np.sum(W * K_new) <= 0  # threshold 0: a positive price improves
    np.testing.assert_allclose(sol.column_prices, [np.sum(W * G) for G in grams], atol=1e-12)


def test_first_column_maximizes_the_price_at_the_initial_ridge(moons):
    """The first column is priced in the engine's first round (the callback sees it)."""
    X, y = moons
    scales = np.geomspace(0.01, 100.0, 15)
    firsts = []

    def stop(intermediate):
        firsts.append(intermediate.pricing.columns[0])
        raise StopIteration

    with pytest.warns(ConvergenceWarning, match="callback"):
        clf = AlignmentKernelClassifier(family=GaussianIso(), oracle=GridOracle(candidates=scales),
                                      callback=stop).fit(X, y)
    # at K_0 = εI: W ∝ CyyᵀC − (‖Cy‖²/(n−1)) C, independent of ε
    n, C = len(X), centring(len(X))
    W = C @ np.outer(y, y) @ C - (np.sum((C @ y) ** 2) / (n - 1)) * C
    assert firsts[0].theta[0] == scales[np.argmax([np.sum(W * rbf(X, s)) for s in scales])]
    assert clf.result_.status == "callback" and clf.n_iter_ == 1
    assert clf.kernel_.columns == [firsts[0]]


def test_fsam_first_round_is_under_the_time_limit(moons):
    X, y = moons
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        clf = AlignmentKernelClassifier(family=GaussianIso(), time_limit=1e-9,
                                      random_state=0).fit(X, y)
    assert clf.result_.status == "time_limit" and clf.n_iter_ == 1
    assert len(clf.kernel_.columns) == 1 and clf.predict(X).shape == (len(X),)


# -- the FSAM run -------------------------------------------------------------------
def test_fsam_alignment_never_decreases_and_old_weights_never_change(moons):
    X, y = moons
    snapshots = []
    clf = AlignmentKernelClassifier(
        family=GaussianIso(), tol=1e-12, max_iter=8, random_state=0,
        callback=lambda r: snapshots.append(dict(zip(r.columns, r.weights)))).fit(X, y)
    F = -np.array(clf.result_.history["objective"])
    assert len(F) == clf.n_iter_ >= 4
    assert np.all(np.diff(F) >= -1e-12)
    for before, after in zip(snapshots, snapshots[1:]):  # stagewise: no re-weighting
        assert all(after[c] == w for c, w in before.items() if c in after)
    res = clf.result_
    K = 1e-10 * np.eye(len(X)) + sum(w * c.family.gram(np.array(c.theta), X)
                                     for c, w in zip(res.columns, res.weights))
    assert F[-1] == pytest.approx(alignment(K, y), rel=1e-9)
    np.testing.assert_allclose(clf.kernel_.weights.sum(), 1.0)


def test_stop_rule_theta_is_relative_objective_decrease(moons):
    X, y = moons
    clf = AlignmentKernelClassifier(tol=1e-2, random_state=0).fit(X, y)
    F = -np.array(clf.result_.history["objective"])
    assert clf.result_.status in ("objective_stalled", "converged_local")
    if clf.result_.status == "objective_stalled":
        assert F[-1] - F[-2] < 1e-2 * F[-1]
    assert np.all(np.diff(F)[:-1] >= 1e-2 * F[1:-1])


def test_no_improving_column_stops_in_the_first_round_with_that_column_alone():
    """Labels alternating along a line sit on the smallest eigenvector of a wide Gaussian:
    the column does not improve on K_0 = εI (its price is not positive), so the run stops in
    its first round with no column, and the learned kernel is the priced column alone."""
    X = np.arange(20.0)[:, None]
    y = np.resize([1, -1], 20)
    assert alignment(rbf(X, 0.01), y) < 1 / np.sqrt(19)  # A_c(εI) = 1/√(n − 1)
    clf = AlignmentKernelClassifier(oracle=GridOracle(candidates=[0.01])).fit(X, y)
    assert clf.result_.status == "converged_local"
    assert clf.result_.columns == [] and clf.result_.best_price <= 0
    np.testing.assert_array_equal(clf.kernel_.weights, [1.0])
    assert -clf.result_.objective == pytest.approx(1 / np.sqrt(19))


# -- alignf ---------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["labels", "real"])
def test_alignf_weights_match_nnls(target):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    y = np.sign(X[:, 0] * X[:, 1]) if target == "labels" else X[:, 0] ** 2 + 0.1 * X[:, 2]
    grams = [rbf(X, g) for g in (0.02, 0.1, 0.5, 2.5, 12.5)] + [(1 + X @ X.T) ** 2]
    sol = AlignfMaster(y).solve(grams)
    C = centring(len(X))
    B = np.column_stack([(C @ K @ C).ravel() for K in grams])
    v, _ = nnls(B, (C @ np.outer(y, y) @ C).ravel())
    np.testing.assert_allclose(sol.weights, v / np.linalg.norm(v), atol=1e-6)
    assert -sol.objective == pytest.approx(alignment(sum(w * K for w, K in zip(v, grams)), y),
                                           rel=1e-6)
    assert sol.gap <= 1e-6 * np.abs(sol.column_prices).max()


def test_alignf_price_is_the_qp_derivative_and_the_alignment_gradient():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = np.sign(X[:, 0] + 0.3 * rng.normal(size=30))
    grams = [rbf(X, g) for g in (0.1, 1.0, 10.0)]
    sol = AlignfMaster(y).solve(grams)
    C = centring(30)
    T = C @ np.outer(y, y) @ C
    fit = sum(v * C @ K @ C for v, K in zip(sol.model.v, grams))
    W = sol.price.dense()
    K_new = rbf(X, 0.5)
    # derivative of ‖K_v + u K′_c − T‖² at u = 0 (central difference is exact on a quadratic)
    q = [np.sum((fit + u * C @ K_new @ C - T) ** 2) for u in (1e-3, -1e-3)]
    assert (q[0] - q[1]) / 2e-3 == pytest.approx(-2 * np.linalg.norm(T) * np.sum(W * K_new),
                                                 rel=1e-7)
    # ... and W is FSAM's ‖K_c‖ F′(K_c) (eq. 3) at the alignf combination (ρ = 1 at optimum)
    Kc = sum(w * C @ K @ C for w, K in zip(sol.weights, grams))
    F_prime = (T - np.sum(Kc * T) / np.sum(Kc * Kc) * Kc) / (np.linalg.norm(Kc)
                                                            * np.linalg.norm(T))
    np.testing.assert_allclose(W, np.linalg.norm(Kc) * F_prime, atol=1e-7 * np.abs(W).max())


def test_alignf_master_in_the_engine_reaches_the_finite_optimum(moons):
    """DA: column generation with the alignf master over a finite list ends at the alignf
    optimum over the whole list (prices ≤ 0 everywhere = the QP's KKT conditions)."""
    X, y = moons
    scales = np.geomspace(0.01, 100.0, 9)
    clf = AlignmentKernelClassifier(master="alignf", oracle=GridOracle(candidates=scales),
                                  tol=1e-12, random_state=0).fit(X, y)
    assert clf.result_.status == "converged_local"
    C = centring(len(X))
    v, _ = nnls(np.column_stack([(C @ rbf(X, s) @ C).ravel() for s in scales]),
                (C @ np.outer(y, y) @ C).ravel())
    assert -clf.result_.objective == pytest.approx(
        alignment(sum(w * rbf(X, s) for w, s in zip(v, scales)), y), rel=1e-6)


# -- uniform --------------------------------------------------------------------------
def test_uniform_master_gives_equal_weights_and_stops_at_once(moons):
    X, y = moons
    scales = (0.1, 1.0, 10.0, 100.0)
    class NeverCalled:
        def price(self, pricing_round):
            raise AssertionError("a master that prices nothing needs no oracle")

    res = ColumnGeneration(UniformMaster(y), NeverCalled()).run(
        KernelSpace(X, GaussianIso()), [Column.make(GaussianIso(), s) for s in scales])
    assert res.nit == 1 and res.success and res.status == "fixed_columns"
    assert "no column generation" in res.message and res.pricing is None
    np.testing.assert_array_equal(res.weights, np.full(4, 0.25))
    assert -res.objective == pytest.approx(alignment(sum(rbf(X, s) for s in scales), y),
                                           rel=1e-10)
    clf = AlignmentKernelClassifier(family=Dirichlet(), master="uniform",
                                  oracle=GridOracle(candidates=[0.5, 1.0, 2.0])).fit(X, y)
    assert [c.theta for c in clf.kernel_.columns] == [(0.5,), (1.0,), (2.0,)]
    assert clf.result_.status == "fixed_columns"
    np.testing.assert_allclose(clf.kernel_.weights, 1.0 / 3.0)


# -- estimators -----------------------------------------------------------------------
def test_one_hot_and_signed_labels_have_the_same_alignment(moons):
    X, y = moons
    K = rbf(X, 1.0)
    one_hot = np.c_[y == -1, y == 1].astype(float)
    assert centered_alignment(K, one_hot) == pytest.approx(centered_alignment(K, y), rel=1e-12)
    assert centered_alignment(K, y) == pytest.approx(alignment(K, y), rel=1e-12)


def test_classifier_multiclass_one_kernel():
    X, y = load_iris(return_X_y=True)
    clf = AlignmentKernelClassifier(C=10.0, random_state=0).fit(X, y)
    assert clf.score(X, y) > 0.95
    assert clf.decision_function(X).shape == (150, 3)
    assert np.array_equal(clf.classes_, [0, 1, 2])


def test_regressor_is_ridge_with_intercept_in_the_learned_feature_space():
    rng = np.random.default_rng(4)
    X = rng.uniform(-3, 3, size=(60, 2))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=60) + 5.0
    X_test = rng.uniform(-3, 3, size=(20, 2))
    reg = AlignmentKernelRegressor(alpha=0.1, random_state=0).fit(X, y)
    assert reg.score(X, y) > 0.9
    # independent: centre train and test features by the training mean, solve, add ȳ
    K, K_test = reg.kernel_(X), reg.kernel_(X_test, X)
    n = len(X)
    C = centring(n)
    Kc = C @ K @ C
    K_test_c = K_test - K_test.mean(1, keepdims=True) - K.mean(0) + K.mean()
    alpha = np.linalg.solve(Kc + 0.1 * np.eye(n), y - y.mean())
    np.testing.assert_allclose(reg.predict(X_test), K_test_c @ alpha + y.mean(), rtol=1e-8)


def test_shrinkage_is_eq4_and_pulls_scales_together(moons):
    lam, theta = 3.0, np.array([0.5, 2.0, 1.0])
    value, grad = Shrinkage(lam)(theta)
    assert value == pytest.approx(lam * np.sum((theta - theta.mean()) ** 2))
    fd = [(Shrinkage(lam)(theta + h)[0] - Shrinkage(lam)(theta - h)[0]) / 2e-6
          for h in 1e-6 * np.eye(3)]
    np.testing.assert_allclose(grad, fd, rtol=1e-6)
    fd = np.array([(Shrinkage(lam)(theta + h)[1] - Shrinkage(lam)(theta - h)[1]) / 2e-6
                   for h in 1e-6 * np.eye(3)])
    np.testing.assert_allclose(Shrinkage(lam).hessian(theta), fd, rtol=1e-6, atol=1e-9)
    X, y = moons
    X = np.c_[X, np.random.default_rng(0).normal(size=(len(X), 2))]

    def spread(shrinkage):
        clf = AlignmentKernelClassifier(family=GaussianARD(), shrinkage=shrinkage, max_iter=3,
                                      random_state=0).fit(X, y)
        thetas = np.array([c.theta for c in clf.kernel_.columns])
        return np.max(thetas.std(1) / (thetas.mean(1) + 1e-12))

    assert spread(1e5) < 1e-2 < spread(0.0)


@pytest.mark.parametrize("Estimator", [AlignmentKernelClassifier, AlignmentKernelRegressor])
def test_check_estimator(Estimator):
    check_estimator(Estimator(oracle="grid", max_iter=3))


BAD = [
    ({"tol": -1e-3}, "tol"), ({"tol": 0.0}, "tol"), ({"max_iter": 0}, "max_iter"),
    ({"max_iter": 2.5}, "max_iter"), ({"time_limit": -1.0}, "time_limit"),
    ({"shrinkage": -1.0}, "shrinkage"), ({"shrinkage": "big"}, "shrinkage"),
    ({"master": "nope"}, "master"), ({"oracle": "nope"}, "oracle"), ({"family": "nope"}, "family"),
    ({"family": GaussianIso(bounds=(2.0, 1.0))}, "bounds"),
]


@pytest.mark.parametrize("params, name", BAD + [({"C": 0}, "C"), ({"C": np.nan}, "C")])
def test_classifier_bad_parameters_name_the_argument(moons, params, name):
    X, y = moons
    with pytest.raises(ValueError, match=name):
        AlignmentKernelClassifier(**params).fit(X, y)


@pytest.mark.parametrize("params, name", BAD + [({"alpha": -1.0}, "alpha")])
def test_regressor_bad_parameters_name_the_argument(moons, params, name):
    X, y = moons
    with pytest.raises(ValueError, match=name):
        AlignmentKernelRegressor(**params).fit(X, y.astype(float))


def test_bad_types_and_data(moons):
    X, y = moons
    with pytest.raises(TypeError, match="family"):
        AlignmentKernelClassifier(family=3).fit(X, y)
    with pytest.raises(TypeError, match="oracle"):
        AlignmentKernelRegressor(oracle=object()).fit(X, y)
    with pytest.raises(TypeError, match="callback"):
        AlignmentKernelClassifier(callback=3).fit(X, y)
    with pytest.raises(ValueError, match="1 class"):
        AlignmentKernelClassifier().fit(X, np.ones(len(X)))
    with pytest.raises(ValueError, match="constant"):
        AlignmentKernelRegressor().fit(X, np.ones(len(X)))
    with pytest.raises(ValueError, match="NaN"):
        AlignmentKernelRegressor().fit(np.where(X > 1, np.nan, X), y)
    for name, kwargs in (("epsilon", {"epsilon": 0.0}), ("eta_max", {"eta_max": -1.0})):
        with pytest.raises(ValueError, match=name):
            FSAMMaster(y, **kwargs)
