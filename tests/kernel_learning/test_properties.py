"""Property-based tests (hypothesis) of invariants that every run must keep."""
import numpy as np
from hypothesis import example, given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from sipkl import GaussianARD, GaussianIso
from sipkl.kernel_learning.families import Dirichlet, Laplacian, Polynomial
from sipkl.kernel_learning.masters import HingeMKLNewton

finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


def points(n_features):
    return arrays(np.float64, st.tuples(st.integers(2, 12), st.just(n_features)), elements=finite)


def _assert_psd(K):
    np.testing.assert_allclose(K, K.T, atol=1e-12)
    eig = np.linalg.eigvalsh(0.5 * (K + K.T))
    assert eig[0] >= -1e-9 * max(1.0, abs(eig).max())


@settings(max_examples=40, deadline=None)
@given(X=points(3), s=st.floats(0, 50), scales=arrays(np.float64, 3, elements=st.floats(0, 20)),
       gamma=st.floats(1e-3, 10), sigma=st.floats(1e-2, 10), degree=st.integers(1, 4))
def test_gram_matrices_are_symmetric_psd(X, s, scales, gamma, sigma, degree):
    for family, theta in ((GaussianIso(), [s]), (GaussianARD(), scales),
                          (Polynomial(degree=degree), [gamma]), (Laplacian(), [sigma])):
        _assert_psd(family.gram(theta, X))


@settings(max_examples=40, deadline=None)
@given(X=points(1), sigma=st.floats(1e-3, 10))
def test_dirichlet_is_psd_in_one_dimension(X, sigma):
    _assert_psd(Dirichlet().gram([sigma], X))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(1, 4), C=st.sampled_from([0.1, 1.0, 10.0]))
def test_hinge_master_weights_on_simplex_and_columns_priced_at_most_lambda(seed, m, C):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(25, 3))
    y = np.where(X[:, 0] + rng.normal(scale=0.5, size=25) > 0, 1.0, -1.0)
    if len(np.unique(y)) < 2:
        y[0] = -y[0]
    grams = [GaussianIso().gram([s], X) for s in rng.uniform(0.05, 5.0, size=m)]
    sol = HingeMKLNewton(y, C).solve(grams)
    assert np.all(sol.weights >= 0) and np.isclose(sol.weights.sum(), 1.0)
    w = sol.model.alpha * y  # prices recomputed from α, independently of the master
    prices = np.array([0.5 * w @ K @ w for K in grams])
    assert np.all(prices <= sol.threshold * (1 + 1e-9) + 1e-12)
    assert sol.gap >= -1e-9


@settings(max_examples=60, deadline=None)
@given(K_factor=arrays(np.float64, st.tuples(st.integers(3, 10), st.integers(1, 4)),
                       elements=finite),
       labels=st.lists(st.sampled_from([-1.0, 1.0]), min_size=10, max_size=10))
@example(K_factor=np.array([[1.20015e-78], [0.0], [0.0]]), labels=[-1.0] * 10)  # K ~ 1e-156
def test_centred_alignment_lies_in_minus_one_one(K_factor, labels):
    from sipkl.kernel_learning.masters.alignment import centered_alignment
    n = len(K_factor)
    y = np.array(labels[:n])
    y[0] = -y[1]  # both classes: the alignment with a constant target is undefined
    K = K_factor @ K_factor.T  # PSD
    assert -1 - 1e-12 <= centered_alignment(K, y) <= 1 + 1e-12
