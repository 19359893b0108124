"""The PyTorch back-end of Nyström columns (sipkl.compute.torch_backend) against the NumPy path: on
torch's CPU wherever PyTorch is installed, and on a GPU where there is one (the suite's own
environment has no PyTorch: these tests are skipped there; the Newton master on a device is
tested in test_nystrom.py)."""
import numpy as np
import pytest

from sipkl import GaussianARD, GaussianIso, IKLClassifier
from sipkl.core.contracts import Column
from sipkl.compute.lazy_gram import combined_gram, restrict
from sipkl.kernel_learning.masters.working_set import svm_on_working_set
from sipkl.kernel_learning.nystrom import NystromSpace
from sipkl.kernel_learning.price_matrix import PriceMatrix
from boards import chessboard

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
COLUMNS = [(GaussianARD(), [0.3, 2.0, 0.05, 0.1, 1.5]), (GaussianIso(), [0.7]),
           (GaussianARD(), [1.0, 1.0, 0.0, 0.0, 0.0])]


@pytest.fixture
def spaces(request):
    X, y = chessboard(300, seed=3)
    landmarks = np.sort(np.random.default_rng(0).choice(len(y), 40, replace=False))
    return (X, y, NystromSpace(X, GaussianARD(), landmarks),
            NystromSpace(X, GaussianARD(), landmarks, device=request.param))


@pytest.mark.parametrize("spaces", DEVICES, indirect=True)
def test_features_products_and_working_set_sums_are_the_numpy_ones(spaces):
    X, y, cpu, device = spaces
    columns = [Column.make(f, t) for f, t in COLUMNS]
    for c in columns:
        np.testing.assert_allclose(device.gram(c).X.cpu().numpy(), cpu.gram(c).X,
                                   rtol=1e-9, atol=1e-12)
    w = np.where(np.arange(len(y)) % 3 == 0, 0.0, y * 0.3)
    for c in columns:
        np.testing.assert_allclose(device.gram(c) @ w, cpu.gram(c) @ w, rtol=1e-9, atol=1e-10)
    d = np.array([0.5, 0.0, 1.5])
    index, rows = np.arange(0, 300, 4), np.array([1, 2, 7, 8, 299])
    for columns_of in (None, rows):
        on_device = combined_gram([restrict(device.gram(c), index, columns_of)
                                   for c in columns], d)
        on_cpu = combined_gram([restrict(cpu.gram(c), index, columns_of) for c in columns], d)
        assert isinstance(on_device, np.ndarray) and on_device.shape == on_cpu.shape
        np.testing.assert_allclose(on_device, on_cpu, rtol=1e-9, atol=1e-12)
    square = combined_gram([device.gram(c) for c in columns], d)
    np.testing.assert_array_equal(square, square.T)
    beta = device.landmark_coefficients(columns[0], 0.5, w)
    np.testing.assert_allclose(beta, cpu.landmark_coefficients(columns[0], 0.5, w), rtol=1e-9)


@pytest.mark.parametrize("spaces", DEVICES, indirect=True)
def test_working_set_svm_on_the_device_features_is_the_numpy_one(spaces, budgets):
    """The interior-point method on the stacked features on the device (forced by
    ``svm_features_ratio=0``; on a GPU it is taken at any ratio) gives NumPy's SVM."""
    budgets(working_set_start=20, svm_features_ratio=0)
    X, y, cpu, device = spaces
    columns = [Column.make(f, t) for f, t in COLUMNS]
    d = np.array([0.5, 0.0, 1.5])
    on_device = svm_on_working_set([device.gram(c) for c in columns], d, y, 10.0, 1e-6)
    on_cpu = svm_on_working_set([cpu.gram(c) for c in columns], d, y, 10.0, 1e-6)
    assert "interior_point" in {a.solver for a in on_device[0].attempts}
    np.testing.assert_array_equal(on_device[1], on_cpu[1])
    np.testing.assert_allclose(on_device[0].alpha, on_cpu[0].alpha, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(np.asarray(on_device[2]), np.asarray(on_cpu[2]), rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("spaces", DEVICES, indirect=True)
def test_prices_and_gradients_are_the_numpy_ones(spaces):
    X, y, cpu, device = spaces
    w = np.where(np.arange(len(y)) % 4 == 0, 0.0, y * np.linspace(0.1, 1.0, len(y)))
    thetas = np.abs(np.random.default_rng(1).normal(size=(9, 5)))
    price = PriceMatrix.rank_one(w, 0.5)
    for family, theta in ((GaussianARD(), thetas), (GaussianIso(), thetas[:, :1])):
        values, grads = device.pricing_problem(family, price).values_and_grads(theta)
        expected, expected_grads = cpu.pricing_problem(family, price).values_and_grads(theta)
        assert isinstance(values, np.ndarray) and isinstance(grads, np.ndarray)
        np.testing.assert_allclose(values, expected, rtol=1e-10)
        np.testing.assert_allclose(grads, expected_grads, rtol=1e-8, atol=1e-10)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("device", DEVICES)
def test_ikl_on_the_device_takes_the_numpy_fits_first_rounds(device):
    X, y = chessboard(150, seed=1, noise=2)
    settings = dict(family=GaussianARD(), C=10.0, random_state=0, n_landmarks=40, max_iter=2)
    model = IKLClassifier(**settings).fit(X, y)
    on_device = IKLClassifier(**settings, device=device).fit(X, y)
    np.testing.assert_allclose(on_device.result_.history["objective"],
                               model.result_.history["objective"], rtol=1e-6)
    assert len(on_device.kernel_.columns) == len(model.kernel_.columns)
    np.testing.assert_allclose(on_device.decision_function(X), model.decision_function(X),
                               rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("params, message", [
    (dict(device="cpu"), "needs n_landmarks"),
    (dict(device="no such device", n_landmarks=10), "not a torch device")])
def test_device_refuses_what_it_does_not_serve(params, message):
    X, y = chessboard(60, seed=1, noise=2)
    with pytest.raises(ValueError, match=message):
        IKLClassifier(family=GaussianARD(), **params).fit(X, y)
