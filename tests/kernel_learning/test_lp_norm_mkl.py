"""ℓp-norm MKL master (afkanpour's D2 at p = 2) against an independent formulation.

The reference is written here from Kloft et al.'s dual and solved by cvxpy, its answer proved by
its KKT certificate (:func:`conic_reference.certified_solve`),

    OPT = max_α 1ᵀα − ‖(½ (α∘y)ᵀ K_m (α∘y))_m‖_q   s.t.  0 ≤ α ≤ C,  yᵀα = 0,  q = p/(p − 1),

whose optimal weights are d = T^{q−1}/‖T‖_q^{q−1}; and the primal value J(d) of those weights is
checked by a plain SVM dual for Σ d_m K_m, also in cvxpy.
"""
import numpy as np
import cvxpy as cp
import pytest
from scipy.spatial.distance import cdist
from sklearn.datasets import make_classification

from conic_reference import certified_solve
from sipkl import Column, ColumnGeneration, Precomputed
from sipkl.kernel_learning.masters.lp_norm import HingeMKLLpNorm
from sipkl.pricing import GridOracle
from sipkl.kernel_learning.space import KernelSpace


def factor(K):
    vals, vecs = np.linalg.eigh(0.5 * (K + K.T))
    keep = vals > 1e-12 * vals.max()
    return np.sqrt(vals[keep])[:, None] * vecs[:, keep].T


def reference(grams, y, C, p):
    """(OPT, d) of the ℓp-norm MKL dual, solved by Clarabel."""
    q = p / (p - 1.0)
    alpha = cp.Variable(len(y))
    w = cp.multiply(alpha, y)
    T = cp.hstack([0.5 * cp.sum_squares(factor(K) @ w) for K in grams])
    problem = cp.Problem(cp.Maximize(cp.sum(alpha) - cp.norm(T, q)),
                         [alpha >= 0, alpha <= C, y @ alpha == 0])
    certified_solve(problem)
    t = np.array([0.5 * (alpha.value * y) @ K @ (alpha.value * y) for K in grams])
    d = t ** (q - 1.0)
    return problem.value, d / np.linalg.norm(d, p)


def svm_value(K, y, C):
    alpha = cp.Variable(len(y))
    problem = cp.Problem(cp.Maximize(cp.sum(alpha) - 0.5 * cp.sum_squares(
        factor(K) @ cp.multiply(alpha, y))), [alpha >= 0, alpha <= C, y @ alpha == 0])
    certified_solve(problem)
    return problem.value


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(60, 4, n_informative=3, n_redundant=0, random_state=3)
    return X, np.where(y == 1, 1.0, -1.0)


GAMMAS = (0.05, 0.3, 1.0, 3.0)


@pytest.mark.parametrize("p", [2.0, 4 / 3])
@pytest.mark.parametrize("C", [1.0, 100.0])
def test_master_reaches_the_dual_optimum(data, p, C):
    X, y = data
    grams = [np.exp(-g * cdist(X, X, "sqeuclidean")) for g in GAMMAS]
    opt, d_ref = reference(grams, y, C, p)
    sol = HingeMKLLpNorm(y, C, p=p).solve(grams)
    assert sol.status.value == "optimal"
    assert abs(sol.objective - opt) <= 1e-5 * abs(opt)
    assert np.allclose(sol.weights, d_ref, atol=2e-3)
    assert np.linalg.norm(sol.weights, p) == pytest.approx(1.0)
    # J(d) of the returned weights, by an independent SVM: the objective is a primal value
    K = sum(dm * G for dm, G in zip(sol.weights, grams))
    assert abs(svm_value(K, y, C) - sol.objective) <= 1e-5 * abs(opt)
    assert sol.gap >= -1e-9 * abs(opt)


def test_column_generation_over_a_finite_family_is_certified_with_every_kernel(data):
    """Every kernel improves an ℓ2 combination, so the run adds the whole family, and the grid
    oracle's bound over the finite family (−∞ once every member is a column) certifies it; the
    value is the reference's over the whole family."""
    X, y = data
    C = 10.0
    grams = [np.exp(-g * cdist(X, X, "sqeuclidean")) for g in GAMMAS]
    opt, _ = reference(grams, y, C, 2.0)
    family = Precomputed(grams)
    index = np.arange(len(y))[:, None]
    engine = ColumnGeneration(HingeMKLLpNorm(y, C), GridOracle(), n_price=1, max_iter=10)
    res = engine.run(KernelSpace(index, family), [Column.make(family, 0)])
    assert res.status == "certified_optimal"
    assert sorted(c.theta[0] for c in res.columns) == [0, 1, 2, 3]
    assert res.nit == len(GAMMAS)
    assert abs(res.objective - opt) <= 1e-5 * abs(opt)


def test_bad_p_is_rejected(data):
    _, y = data
    with pytest.raises(ValueError, match="p must"):
        HingeMKLLpNorm(y, 1.0, p=1.0)


def test_ikl_classifier_with_the_l2_master_predicts_like_an_svm_on_the_reference_kernel(data):
    """``IKLClassifier(master="lp_norm")`` over a finite list: every candidate ends up a column
    (beside the estimator's starting column), and the decision values are those of
    scikit-learn's SVC on Σ d_m K_m with d the reference's ℓ2 weights over those kernels."""
    from sklearn.svm import SVC

    from sipkl import GaussianIso, IKLClassifier
    X, y = data
    C = 10.0
    clf = IKLClassifier(family=GaussianIso(), master="lp_norm", C=C,
                        oracle=GridOracle(candidates=np.array(GAMMAS)[:, None]),
                        random_state=0).fit(X, y)
    gammas = [c.theta[0] for c in clf.result_.columns]
    assert set(GAMMAS) <= set(gammas) and len(gammas) == len(GAMMAS) + 1
    grams = [np.exp(-g * cdist(X, X, "sqeuclidean")) for g in gammas]
    _, d_ref = reference(grams, y, C, 2.0)
    X_new = X[:20] + 0.1
    K_new = sum(d * np.exp(-g * cdist(X_new, X, "sqeuclidean")) for d, g in zip(d_ref, gammas))
    svc = SVC(C=C, kernel="precomputed", tol=1e-8).fit(sum(d * K for d, K in zip(d_ref, grams)), y)
    np.testing.assert_allclose(clf.decision_function(X_new), svc.decision_function(K_new),
                               atol=2e-3)
