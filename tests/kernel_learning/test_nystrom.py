"""Nyström columns (sipkl.kernel_learning.nystrom) against closed forms built here from the whole kernel."""
import sys
import types

import numpy as np
import pytest

import sipkl.kernel_learning.nystrom
from sipkl import GaussianARD, GaussianIso, GaussianSeparate, IKLClassifier, Polynomial
from sipkl.core.contracts import Column
from sipkl.kernel_learning.masters.hinge import HingeMKLNewton
from sipkl.compute.features import FeatureGram
from sipkl.compute.torch_backend import auto_device
from sipkl.kernel_learning.nystrom import NystromSpace, exact_kernel_gap
from sipkl.persistence import load_model, save_model
from sipkl.kernel_learning.price_matrix import PriceMatrix
from boards import chessboard, gaussian

try:  # the torch devices of this machine, where PyTorch is installed (sipkl.compute.torch_backend)
    import torch
    TORCH_DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
except ImportError:
    TORCH_DEVICES = []

MEMBERS = [(GaussianARD(), [0.3, 2.0, 0.05, 0.1, 1.5]), (GaussianIso(), [0.7]),
           (GaussianSeparate().members(5)[1], [1.5])]


def scales_of(family, theta, p=5):
    if isinstance(family, GaussianARD):
        return np.asarray(theta, float)
    scales = np.zeros(p)
    scales[list(family.features) if family.features else slice(None)] = theta[0]
    return scales


def nystrom_gram(X, landmarks, scales):
    """K(X, L) (K(L, L) + εI)⁻¹ K(L, X) from the whole kernel matrix and a dense solve."""
    K = gaussian(X, scales)
    A = K[np.ix_(landmarks, landmarks)] + sipkl.compute.features.JITTER * np.eye(len(landmarks))
    return K[:, landmarks] @ np.linalg.solve(A, K[landmarks])


@pytest.fixture
def problem():
    X, y = chessboard(120, seed=3)
    rng = np.random.default_rng(0)
    w = np.where(rng.random(len(y)) < 0.4, rng.random(len(y)), 0.0) * y
    return X, w, np.sort(rng.choice(len(y), 25, replace=False))


@pytest.mark.parametrize("family, theta", MEMBERS)
def test_price_and_features_are_the_dense_nystrom_formula(problem, family, theta):
    X, w, landmarks = problem
    space = NystromSpace(X, family, landmarks)
    K_hat = nystrom_gram(X, landmarks, scales_of(family, theta))
    Phi = space.gram(Column.make(family, theta)).X
    np.testing.assert_allclose(Phi @ Phi.T, K_hat, atol=1e-9)
    value, _ = space.pricing_problem(family, PriceMatrix.rank_one(w, 0.5)).value_and_grad(theta)
    assert value == pytest.approx(0.5 * w @ K_hat @ w, rel=1e-9)


@pytest.mark.parametrize("family, theta", MEMBERS)
def test_price_gradient_is_the_finite_difference(problem, family, theta):
    X, w, landmarks = problem
    pricing = NystromSpace(X, family, landmarks).pricing_problem(
        family, PriceMatrix.rank_one(w, 0.5))
    theta = np.asarray(theta, float)
    _, gradient = pricing.value_and_grad(theta)
    for d in range(len(theta)):
        step = 1e-6 * max(theta[d], 1.0)
        up, down = theta.copy(), theta.copy()
        up[d] += step
        down[d] -= step
        difference = (pricing.value_and_grad(up)[0] - pricing.value_and_grad(down)[0]) / (
            2 * step)
        assert gradient[d] == pytest.approx(difference, rel=1e-5, abs=1e-7)


def test_batched_prices_are_the_single_ones(problem, budgets):
    X, w, landmarks = problem
    family = GaussianARD()
    thetas = np.abs(np.random.default_rng(1).normal(size=(7, 5)))
    pricing = NystromSpace(X, family, landmarks).pricing_problem(
        family, PriceMatrix.rank_one(w, 0.5))
    budgets(lazy_block_elements=2 * 25 * 120)  # chunks of 2 θ's
    values, grads = pricing.values_and_grads(thetas)
    budgets(lazy_block_elements=1)  # one θ at a time
    for theta, value, grad in zip(thetas, values, grads):
        one, one_grad = pricing.value_and_grad(theta)
        assert value == pytest.approx(one, rel=1e-12)
        np.testing.assert_allclose(grad, one_grad, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(pricing.values(thetas), values, rtol=1e-12)


def test_all_points_as_landmarks_price_the_exact_kernel(problem):
    X, w, _ = problem
    family, theta = GaussianARD(), np.array([0.3, 2.0, 0.05, 0.1, 1.5])
    pricing = NystromSpace(X, family, np.arange(len(X))).pricing_problem(
        family, PriceMatrix.rank_one(w, 0.5))
    exact = 0.5 * w @ gaussian(X, theta) @ w
    assert pricing.value_and_grad(theta)[0] == pytest.approx(exact, rel=1e-3)


def test_feature_gram_products_and_blocks():
    Phi = np.random.default_rng(2).normal(size=(30, 4))
    K, w = FeatureGram(Phi), np.random.default_rng(3).normal(size=30)
    w[::3] = 0.0
    np.testing.assert_allclose(K @ w, Phi @ Phi.T @ w, atol=1e-12)
    np.testing.assert_allclose(np.asarray(K), Phi @ Phi.T, atol=1e-12)
    index = np.array([1, 4, 9])
    np.testing.assert_allclose(np.asarray(K.restricted(index)), (Phi @ Phi.T)[np.ix_(index, index)],
                               atol=1e-12)
    columns = np.array([0, 4, 7, 29])
    block = K.restricted(index, columns)
    assert isinstance(block, FeatureGram) and block.shape == (3, 4)
    np.testing.assert_allclose(np.asarray(block), (Phi @ Phi.T)[np.ix_(index, columns)],
                               atol=1e-12)


def test_exact_kernel_gap_is_the_mkl_gap_of_the_exact_columns(problem):
    X, w, _ = problem
    columns = [Column.make(f, t) for f, t in MEMBERS]
    d = np.array([0.5, 0.3, 0.2])
    T = np.array([0.5 * w @ gaussian(X, scales_of(f, t)) @ w for f, t in MEMBERS])
    gap, prices = exact_kernel_gap(columns, d, X, w)
    np.testing.assert_allclose(prices, T, rtol=1e-10)
    assert gap == pytest.approx((T.max() - d @ T) / T.max(), rel=1e-9)


def fitted(X, y, **params):
    settings = dict(family=GaussianARD(), C=10.0, random_state=0, n_landmarks=40, max_iter=4)
    return IKLClassifier(**{**settings, **params}).fit(X, y)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_ikl_on_nystrom_columns_predicts_with_its_approximated_kernel():
    X, y = chessboard(150, seed=1, noise=2)
    model = fitted(X, y)
    result, expansion = model.result_, model.expansions_[0]
    alpha = result.master.model.alpha
    landmarks = np.flatnonzero((X[:, None, :] == expansion.points[None]).all(axis=2).any(axis=1))
    K_hat = sum(d * nystrom_gram(X, landmarks, c.theta)
                for c, d in zip(result.columns, result.weights))
    expected = K_hat @ (alpha * y) + result.master.model.bias
    np.testing.assert_allclose(model.decision_function(X), expected, rtol=1e-7, atol=1e-7)
    assert 0 <= model.exact_kernel_gap_ < 1
    assert len(expansion.points) == 40


@pytest.mark.parametrize("family, theta", MEMBERS)
def test_nystrom_prices_are_scale_free(problem, family, theta):
    """X·1000 with the scales / 10⁶: the same prices, gradients × 10⁶."""
    X, w, landmarks = problem
    price = PriceMatrix.rank_one(w, 0.5)
    value, gradient = NystromSpace(X, family, landmarks).pricing_problem(
        family, price).value_and_grad(theta)
    scaled = type(family)(**{**family.get_params(), "bounds": (0.0, 900e-6)})
    scaled_value, scaled_gradient = NystromSpace(1000 * X, scaled, landmarks).pricing_problem(
        scaled, price).value_and_grad(np.asarray(theta) * 1e-6)
    assert scaled_value == pytest.approx(value, rel=1e-10)
    np.testing.assert_allclose(scaled_gradient * 1e-6, gradient, rtol=1e-8)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_ikl_on_nystrom_columns_is_scale_free():
    """X·1000 with the box of the scales / 10⁶: the same first rounds (a local search on the
    approximated prices is sensitive to round-off: later rounds may find other columns)."""
    X, y = chessboard(150, seed=1, noise=2)
    model = fitted(X, y, max_iter=2)
    scaled = fitted(1000 * X, y, family=GaussianARD(bounds=(0.0, 900e-6)), max_iter=2)
    np.testing.assert_allclose(scaled.result_.history["objective"],
                               model.result_.history["objective"], rtol=1e-6)
    assert len(scaled.kernel_.columns) == len(model.kernel_.columns)
    for a, b in zip(model.kernel_.columns, scaled.kernel_.columns):
        np.testing.assert_allclose(b.theta, np.asarray(a.theta) * 1e-6, rtol=1e-4, atol=1e-12)
    np.testing.assert_array_equal(scaled.predict(1000 * X), model.predict(X))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_nystrom_model_saves_and_loads(tmp_path):
    X, y = chessboard(150, seed=1, noise=2)
    labels = np.array(["a", "b", "c"])[(X[:, 0] > 0).astype(int) + (X[:, 2] > 0.3)]
    model = fitted(X, labels, family=GaussianIso(), max_iter=2)
    assert model.exact_kernel_gap_.shape == (3,)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("params, named", [
    (dict(family=Polynomial()), "n_landmarks"), (dict(oracle="dc", family=GaussianIso()),
                                                 "n_landmarks"),
    (dict(master="qcqp"), "n_landmarks"), (dict(n_landmarks=0), "n_landmarks")])
def test_nystrom_refuses_what_it_does_not_serve(params, named):
    X, y = chessboard(60, seed=1, noise=2)
    with pytest.raises(ValueError, match=named):
        fitted(X, y, **params)


def test_device_without_pytorch_is_refused_by_name(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # what an environment without it imports
    X, y = chessboard(60, seed=1, noise=2)
    with pytest.raises(ValueError, match="device='cuda' needs PyTorch"):
        fitted(X, y, device="cuda")


@pytest.mark.parametrize("device", [None] + TORCH_DEVICES)
def test_hinge_master_on_nystrom_columns_above_the_working_set_size(budgets, device):
    """The Newton master on Nyström columns with its SVMs on working sets (K(d) from the
    features on each set; on a torch device, summed there) against the same master on the
    dense matrices of the NumPy path."""
    X, y = chessboard(400, seed=1)
    landmarks = np.arange(0, 400, 8)
    space = NystromSpace(X, GaussianARD(), landmarks, device)
    columns = [Column.make(GaussianARD(), t) for t in
               ([1.0, 1.0, 0, 0, 0], [0.3, 2.0, 0.05, 0.1, 1.5], [0, 4, 0, 1, 0])]
    dense = HingeMKLNewton(y, 10.0).solve(
        [np.asarray(NystromSpace(X, GaussianARD(), landmarks).gram(c)) for c in columns])
    budgets(working_set_min_n=0, working_set_start=20)
    lazy = HingeMKLNewton(y, 10.0).solve(space.master_inputs(columns))
    assert dense.status.value == lazy.status.value == "optimal"
    np.testing.assert_allclose(lazy.weights, dense.weights, atol=1e-4)
    assert lazy.objective == pytest.approx(dense.objective, rel=1e-6)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_device_auto_is_the_cpu_without_a_cuda_device(monkeypatch):
    """``device="auto"``: NumPy where PyTorch is absent (the same model as ``device=None``),
    over exact columns too; "cuda" where torch sees a CUDA device."""
    monkeypatch.setitem(sys.modules, "torch", None)
    assert auto_device() is None
    X, y = chessboard(150, seed=1, noise=2)
    np.testing.assert_array_equal(fitted(X, y, device="auto").decision_function(X),
                                  fitted(X, y).decision_function(X))
    fitted(X, y, device="auto", n_landmarks=None, max_iter=1)  # exact columns: the CPU
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: True))
    monkeypatch.setitem(sys.modules, "torch", fake)
    assert auto_device() == "cuda"
