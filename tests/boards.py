"""Test data shared by the lazy-Gram, working-set and SVM tests: a chessboard, its Gaussians,
and libsvm's stopping quantity."""
import numpy as np


def chessboard(n, seed=0, noise=3):
    """A 2 × 2 chessboard in 2 signal dimensions plus ``noise`` noise dimensions."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2 + noise))
    y = np.where((X[:, 0] > 0) == (X[:, 1] > 0), 1.0, -1.0)
    return X, y


def gaussian(X, scales):
    """exp(−Σ_d s_d (x_id − x_jd)²) by broadcasting over all pairs (the closed form)."""
    diff = X[:, None, :] - X[None, :, :]
    return np.exp(-np.einsum("ijd,d->ij", diff * diff, scales))


def violation(K, y, alpha, C):
    """libsvm's stopping quantity m(α) − M(α) on all points, from the whole K."""
    v = y - K @ (alpha * y)
    up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
    low = ((y < 0) & (alpha < C)) | ((y > 0) & (alpha > 0))
    return v[up].max() - v[low].min()
