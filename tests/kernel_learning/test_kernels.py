"""Kernel families: gradients against finite differences, vectorized prices, Gram matrices,
support restriction through the workspace, and input validation."""
import numpy as np
import pytest

import sipkl.kernel_learning.families.gaussian as gaussian
from sipkl import (Dirichlet, GaussianARD, GaussianIso, GaussianSeparate, KernelFamily,
                   KernelUnion, Laplacian, Polynomial, PriceMatrix, Precomputed)
from sipkl.compute.exponential import (PairExponential, PointExponential, PointPairExponential,
                                       VaryingCoordinates, gaussian_gram, squared_distances,
                                       upper_triangle)
from sipkl.kernel_learning.space import KernelSpace

N, D = 15, 3


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(N, D))


CONTINUOUS = [pytest.param(f, id=name) for name, f in
              [("iso", GaussianIso()), ("iso_features", GaussianIso(features=(1,))),
               ("ard", GaussianARD()), ("dirichlet", Dirichlet()), ("laplacian", Laplacian())]
              + [(f"separate{d}", m) for d, m in enumerate(GaussianSeparate().members(D))]
              + [(f"poly{q}", Polynomial(degree=q)) for q in (1, 2, 3)]]
PSD = [p for p in CONTINUOUS if not isinstance(p.values[0], Dirichlet)]


def _theta(family, X, seed=1):
    """A random interior point where the kernel varies: the family's data-scaled first
    starting point times random factors in [0.5, 2]."""
    base = family.starting_points(X, 1)[0]
    return base * np.exp(np.random.default_rng(seed).uniform(np.log(0.5), np.log(2.0), base.shape))


def _symmetric(n, seed=2):
    A = np.random.default_rng(seed).normal(size=(n, n))
    return A + A.T


def _check_fd(f, theta, h=1e-6, rtol=1e-5):
    """The gradient returned by ``f`` equals central differences."""
    value, grad = f(theta)
    fd = np.empty_like(theta)
    for k in range(len(theta)):
        e = np.zeros_like(theta)
        e[k] = h
        fd[k] = (f(theta + e)[0] - f(theta - e)[0]) / (2 * h)
    # atol: rtol on the largest component, plus the round-off of the differences themselves
    atol = rtol * np.abs(fd).max() + 1e-8 * abs(value)
    np.testing.assert_allclose(grad, fd, rtol=rtol, atol=atol)
    return value


# -- gradients -----------------------------------------------------------------------------
@pytest.mark.parametrize("family", CONTINUOUS)
def test_gradient_dense_price(family, X):
    geom, W, theta = family.geometry(X), _symmetric(N), _theta(family, X)
    value = _check_fd(lambda t: family.price_and_grad(geom, t, W), theta)
    assert value == pytest.approx(np.sum(W * family.gram(theta, X)), rel=1e-12)


@pytest.mark.parametrize("family", CONTINUOUS)
def test_gradient_low_rank_price_on_support(family, X):
    rng = np.random.default_rng(3)
    U = rng.normal(size=(N, 2))
    U[[0, 4, 5, 11]] = 0.0  # rows off the support
    price = PriceMatrix(factor=U, signs=np.array([1.0, -1.0]))
    problem = KernelSpace(X).pricing_problem(family, price)
    assert len(price.support) == N - 4
    theta = _theta(family, X)
    value = _check_fd(problem.value_and_grad, theta)
    assert value == pytest.approx(price.inner(family.gram(theta, X)), rel=1e-10)
    assert value == pytest.approx(np.sum(price.dense() * family.gram(theta, X)), rel=1e-10)


# -- vectorized prices ---------------------------------------------------------------------
@pytest.mark.parametrize("family", CONTINUOUS)
def test_prices_equal_loop(family, X):
    geom, W = family.geometry(X), _symmetric(N)
    thetas = family.starting_points(X, 9, 4)
    expected = [np.sum(W * family.gram_from(geom, t)) for t in thetas]
    np.testing.assert_allclose(family.prices(geom, thetas, W), expected, rtol=1e-10)


@pytest.mark.parametrize("family", CONTINUOUS)
def test_batch_pricer_equals_price_and_grad(family, X):
    """Values and gradients of many θ at once equal the per-θ price_and_grad, whose
    gradient is checked against finite differences above; and the batch gradient itself
    against finite differences of the batch values."""
    geom, W = family.geometry(X), _symmetric(N)
    thetas = np.vstack([family.starting_points(X, 9, 4), _theta(family, X)])
    values, grads = family.batch_pricer(geom, W)(thetas)
    for t, v, g in zip(thetas, values, grads):
        value, grad = family.price_and_grad(geom, t, W)
        assert v == pytest.approx(value, rel=1e-10, abs=1e-12 * np.abs(W).sum())
        np.testing.assert_allclose(g, grad, rtol=1e-8, atol=1e-10 * np.abs(grad).max())
    pricer = family.batch_pricer(geom, W)
    _check_fd(lambda t: (pricer(t[None])[0][0], pricer(t[None])[1][0]), _theta(family, X, 7))


@pytest.mark.parametrize("family", [GaussianIso(), GaussianARD()])
def test_pair_prices_chunked(family, X, budgets):
    budgets(pricing_chunk_elements=20)  # 2 pairs a block for 7 θ
    geom, W = family.geometry(X), _symmetric(N)
    thetas = family.starting_points(X, 7, 3)
    expected = [np.sum(W * family.gram_from(geom, t)) for t in thetas]
    values, grads = family.batch_pricer(geom, W)(thetas)
    np.testing.assert_allclose(values, expected, rtol=1e-10)
    np.testing.assert_allclose(grads, [family.price_and_grad(geom, t, W)[1] for t in thetas],
                               rtol=1e-8, atol=1e-10 * np.abs(grads).max())


@pytest.mark.parametrize("chunk", [20, 2 ** 16])
def test_stored_pairs_in_single_precision(X, budgets, chunk):
    """Single precision over the stored pairs (the exponents through the contiguous copy of
    Δᵀ, a slice per block; 2 pairs a block, or one block): values against the sum over the
    Gram matrix, gradients and curvatures against the double-precision pricer (the view of
    the rows), Hessians against those in double precision."""
    budgets(pricing_chunk_elements=chunk)
    family, W = GaussianARD(), _symmetric(N)
    geom = family.geometry(X)
    thetas = family.starting_points(X, 7, 3)
    pricer = family.batch_pricer(geom, W)
    assert type(pricer).__name__ == "PairExponential"
    expected = [np.sum(W * family.gram_from(geom, t)) for t in thetas]
    single = pricer(thetas, dtype=np.float32, curvature=True)
    np.testing.assert_allclose(single[0], expected, rtol=1e-5)
    for got, want in zip(single[1:], pricer(thetas, curvature=True)[1:]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * np.abs(want).max())
    want = pricer.hessians(thetas, [0, 2])
    np.testing.assert_allclose(pricer.hessians(thetas, [0, 2], np.float32), want, rtol=1e-4,
                               atol=1e-5 * np.abs(want).max())


@pytest.mark.parametrize("chunk", [20, 2 ** 16])
def test_ard_point_pairs_beyond_the_pair_bound(X, budgets, chunk):
    """Above the size bound on the pair matrix, GaussianARD forms the squared differences
    block by block (blocks of 2 pairs crossing the rows, or all pairs in one block): prices
    against the sum over the Gram matrix, gradients and Hessians against the stored pairs."""
    family, W = GaussianARD(), _symmetric(N)
    geom = family.geometry(X)
    thetas = family.starting_points(X, 7, 3)
    stored = family.batch_pricer(geom, W)
    budgets(pair_elements=10)
    budgets(pricing_chunk_elements=chunk)
    pricer = family.batch_pricer(geom, W)
    assert isinstance(pricer, PointPairExponential) and not hasattr(pricer, "deltas")
    expected = [np.sum(W * family.gram_from(geom, t)) for t in thetas]
    values, grads = pricer(thetas)
    np.testing.assert_allclose(values, expected, rtol=1e-10)
    np.testing.assert_allclose(grads, stored(thetas)[1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(pricer.hessians(thetas, [0, 2]), stored.hessians(thetas, [0, 2]),
                               rtol=1e-10, atol=1e-12)
    single, single_grads = pricer(thetas, dtype=np.float32)
    np.testing.assert_allclose(single, expected, rtol=1e-5)
    np.testing.assert_allclose(single_grads, grads, rtol=1e-4, atol=1e-5 * np.abs(grads).max())


@pytest.mark.parametrize("through_points", [True, False])
def test_ard_prices_through_the_points(X, budgets, through_points):
    """Few scales at a time are priced through products of the points (the others through
    the pairs): values, gradients and curvatures against the stored pairs, in data far from
    the origin (the points are centred first) and in blocks of 2 rows."""
    family, W = GaussianARD(), _symmetric(N)
    Xf = X + 100.0
    geom = family.geometry(Xf)
    thetas = family.starting_points(Xf, 7, 3)
    stored = family.batch_pricer(geom, W)
    budgets(pair_elements=10)
    budgets(point_thetas=7 if through_points else 6)
    budgets(pricing_chunk_elements=2 * N)
    pricer = family.batch_pricer(geom, W)
    assert isinstance(pricer, PointExponential)
    for got, want in zip(pricer(thetas, curvature=True), stored(thetas, curvature=True)):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11 * np.abs(want).max())
    single = pricer(thetas, dtype=np.float32, curvature=True)
    for got, want in zip(single, stored(thetas, curvature=True)):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * np.abs(want).max())


@pytest.mark.parametrize("pair_elements", [2 ** 24, 10], ids=["stored", "points"])
def test_ard_prices_over_the_varying_dimensions(budgets, pair_elements):
    """Dimensions constant on the points (0 and 3.5 here) are left out of the pricer's
    products: values, gradients (0 along them), curvatures and Hessians on coordinates of
    both kinds equal those of the pairs over all dimensions, through the batch pricer and
    through the support pricer (blocks of W's rows)."""
    rng = np.random.default_rng(4)
    X = np.insert(rng.normal(size=(N, 4)), [1, 3], [0.0, 3.5], axis=1)  # columns 1 and 4
    family, W = GaussianARD(), _symmetric(N)
    i, j = np.triu_indices(N, 1)
    everything = PairExponential.from_upper((X[i] - X[j]) ** 2, W)
    thetas = rng.uniform(0.1, 1.0, (3, 6))
    coords = np.array([0, 1, 4, 5])
    budgets(pair_elements=pair_elements)
    for pricer in (family.batch_pricer(family.geometry(X), W),
                   family.support_pricer(X, lambda rows: W[rows])):
        assert isinstance(pricer, VaryingCoordinates)
        inner = pricer.pricer  # over the 4 varying dimensions
        assert getattr(inner, "X", getattr(inner, "deltas", None)).shape[1] == 4
        got, want = pricer(thetas, curvature=True), everything(thetas, curvature=True)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12 * np.abs(w).max())
        assert np.all(got[1][:, [1, 4]] == 0) and np.all(got[2][:, [1, 4]] == 0)
        np.testing.assert_allclose(pricer.hessians(thetas, coords),
                                   everything.hessians(thetas, coords), rtol=1e-10,
                                   atol=1e-12)


def test_ard_prices_points_that_are_all_equal(budgets):
    """No dimension varies: K = 11ᵀ at every θ, price 1ᵀW1, gradient 0 (any pricer)."""
    X, W = np.ones((N, 3)), _symmetric(N)
    budgets(pair_elements=0)
    family, thetas = GaussianARD(), np.full((2, 3), 0.5)
    for pricer in (family.batch_pricer(family.geometry(X), W),
                   family.support_pricer(X, lambda rows: W[rows])):
        values, grads = pricer(thetas)
        np.testing.assert_allclose(values, W.sum(), rtol=1e-12)
        assert np.all(grads == 0)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ard_prices_through_the_points_where_k_is_the_identity(budgets, seed):
    """Scales far beyond those where K ≈ I, with a repeated point (K = 1 on that pair, 0 on
    the others): in single precision the exponents' round-off (about ε·a_i) would make K of
    the repeated pair anything in [0, 1] (the price 100 % off here); the prices are those
    of the pairs."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, 20))
    family, W = GaussianARD(), _symmetric(N + 1)
    Xd = np.vstack([X, X[:1]])
    geom = family.geometry(Xd)
    thetas = 1e6 * rng.uniform(0.5, 2.0, (5, 20))
    stored = family.batch_pricer(geom, W)
    budgets(pair_elements=10)
    pricer = family.batch_pricer(geom, W)
    for dtype in (np.float32, np.float64):
        got = pricer(thetas, dtype=dtype)[0]
        np.testing.assert_allclose(got, stored(thetas)[0], rtol=1e-6)
    np.testing.assert_allclose(stored(thetas)[0], np.trace(W) + 2 * W[0, N], rtol=1e-12)


def test_ard_prices_each_scale_in_the_precision_it_needs(X, monkeypatch, budgets):
    """In one single-precision call, the scales whose exponents' round-off is within the
    bound are priced in single precision, those far beyond K ≈ I in double precision, all
    through the points; θ's beyond even double precision's bound, through the pairs."""
    family, W = GaussianARD(), _symmetric(N)
    geom = family.geometry(X)
    near = family.starting_points(X, 3, 3)
    far = 1e6 * np.ones((2, D))
    thetas = np.vstack([far[:1], near, far[1:]])
    stored = family.batch_pricer(geom, W)
    budgets(pair_elements=10)
    pricer = family.batch_pricer(geom, W)
    precisions, pairs = [], []
    through_points, through_pairs = pricer._through_points, PointPairExponential.__call__
    monkeypatch.setattr(pricer, "_through_points", lambda t, g, dtype, c: (
        precisions.append((len(t), np.dtype(dtype))) or through_points(t, g, dtype, c)))
    monkeypatch.setattr(PointPairExponential, "__call__", lambda self, t, *args: (
        pairs.append(len(t)) or through_pairs(self, t, *args)))
    values, grads, curvatures = pricer(thetas, dtype=np.float32, curvature=True)
    assert sorted(precisions) == [(2, np.float64), (3, np.float32)] and not pairs
    want = stored(thetas, curvature=True)
    for got, expected in zip((values, grads, curvatures), want):
        np.testing.assert_allclose(got[[0, 4]], expected[[0, 4]], rtol=1e-10)
        np.testing.assert_allclose(got[1:4], expected[1:4], rtol=1e-4,
                                   atol=1e-5 * np.abs(expected[1:4]).max())
    pricer(1e12 * np.ones((1, D)), dtype=np.float32)
    assert pairs == [1]


# -- Gram matrices -------------------------------------------------------------------------
@pytest.mark.parametrize("family", CONTINUOUS)
def test_gram_shapes_and_symmetry(family, X):
    theta, Y = _theta(family, X), X[:4] + 0.1
    assert family.gram(theta, X, Y).shape == (N, 4)
    K = family.gram(theta, X)
    assert K.shape == (N, N)
    np.testing.assert_allclose(K, K.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(family.gram(theta, X, X), K, rtol=1e-12, atol=1e-12)
    stacked = family.gram(theta, np.vstack([X, Y]))
    np.testing.assert_allclose(family.gram(theta, X, Y), stacked[:N, N:], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("family", [GaussianIso(), GaussianARD()])
@pytest.mark.parametrize("units", [1.0, 1000.0])
def test_gaussian_gram_has_a_unit_diagonal(family, X, units):
    """k(x, x) = exp(0) = 1 exactly, in any units (X·1000 with the scales / 10⁶), and every
    entry is exp(−Σ_d s_d (x_id − x_jd)²) from the differences themselves."""
    theta = _theta(family, X) / units ** 2
    X = X * units
    K = family.gram(theta, X)
    assert np.all(np.diag(K) == 1.0)
    scales = np.broadcast_to(theta, (D,))  # one scale for all dimensions, or one each
    squared = (X[:, None, :] - X[None, :, :]) ** 2
    np.testing.assert_allclose(K, np.exp(-squared @ scales), rtol=1e-12)


@pytest.mark.parametrize("family", PSD)
def test_gram_psd(family, X):
    eig = np.linalg.eigvalsh(family.gram(_theta(family, X), X))
    assert eig.min() >= -1e-10 * np.abs(eig).max()


def test_dirichlet_psd_in_one_dimension():
    x = np.random.default_rng(5).uniform(-10, 10, size=(40, 1))
    for sigma in (0.3, 1.4, 7.7):
        eig = np.linalg.eigvalsh(Dirichlet().gram([sigma], x))
        assert eig.min() >= -1e-10 * np.abs(eig).max()


def test_formulas(X):
    x, y = X[0], X[1]
    r = np.linalg.norm(x - y)
    assert Dirichlet().gram([0.7], X[:1], X[1:2])[0, 0] == pytest.approx(1 + 2 * np.cos(0.7 * r))
    assert Laplacian().gram([0.8], X[:1], X[1:2])[0, 0] == pytest.approx(np.exp(-r / (2 * 0.64)))
    assert Polynomial(degree=3).gram([0.5], X[:1], X[1:2])[0, 0] == pytest.approx(
        (1 + 0.5 * x @ y) ** 3)
    np.testing.assert_array_equal(GaussianIso(features=(1,)).gram([0.5], X, X[:4]),
                                  GaussianIso().gram([0.5], X[:, [1]], X[:4, [1]]))


@pytest.mark.parametrize("family", CONTINUOUS)
def test_starting_points_in_box(family, X):
    lo, hi = family.param_bounds(D)
    starts = family.starting_points(X, 12, 0)
    assert starts.shape == (12, family.n_params(D))
    assert np.all(starts >= lo) and np.all(starts <= hi)
    np.testing.assert_array_equal(starts, family.starting_points(X, 12, 0))
    np.testing.assert_array_equal(starts[:5], family.starting_points(X, 5, 99))
    grid = family.grid(X, 20, 0)
    assert grid.shape == (20, family.n_params(D))
    assert np.all(grid >= lo) and np.all(grid <= hi)


@pytest.mark.parametrize("family", [GaussianIso(bounds=(0.0, 1e-3)), GaussianIso(bounds=(50, 60)),
                                    Laplacian(bounds=(20, 30)), Polynomial(bounds=(0, 1e-4)),
                                    Dirichlet(bounds=(20, 30))])
def test_candidates_in_narrow_box(family, X):
    lo, hi = family.param_bounds(D)
    for points in (family.grid(X, 20, 0), family.starting_points(X, 8, 0)):
        assert np.all(points >= lo) and np.all(points <= hi)


# -- bad input -----------------------------------------------------------------------------
@pytest.mark.parametrize("make", [GaussianIso, GaussianARD, Dirichlet, Laplacian, Polynomial,
                                  lambda bounds: GaussianSeparate(bounds).members(D)[0]])
@pytest.mark.parametrize("bounds", [(2.0, 1.0), (1.0, 1.0), (np.nan, 1.0), (0.1, np.inf)])
def test_bad_bounds(make, bounds):
    with pytest.raises(ValueError, match="bounds"):
        make(bounds=bounds).param_bounds(D)


@pytest.mark.parametrize("make", [GaussianIso, Laplacian, Dirichlet, Polynomial])
def test_bounds_not_a_pair(make):
    with pytest.raises(TypeError, match="bounds"):
        make(bounds=1.0).param_bounds(D)


@pytest.mark.parametrize("make", [GaussianIso, GaussianARD, Dirichlet, Polynomial])
def test_negative_lower_bound(make):
    with pytest.raises(ValueError, match="bounds"):
        make(bounds=(-1.0, 1.0)).param_bounds(D)


def test_laplacian_lower_bound_positive():
    with pytest.raises(ValueError, match="bounds"):
        Laplacian(bounds=(0.0, 1.0)).param_bounds(D)


@pytest.mark.parametrize("degree, error", [(0, ValueError), (-2, ValueError), (2.0, TypeError),
                                           (True, TypeError), ("2", TypeError)])
def test_polynomial_bad_degree(degree, error):
    with pytest.raises(error, match="degree"):
        Polynomial(degree=degree)


@pytest.mark.parametrize("family, theta", [(GaussianIso(), [1.0, 2.0]), (GaussianARD(), [1.0]),
                                           (Dirichlet(), np.ones((1, 1, 2))),
                                           (Laplacian(), [np.nan])])
def test_bad_theta(family, theta, X):
    with pytest.raises(ValueError, match="theta"):
        family.gram(theta, X)


# -- Precomputed ---------------------------------------------------------------------------
def _grams(X):
    return [GaussianIso().gram([s], X) for s in (0.3, 1.0)] + [Polynomial(2).gram([0.5], X)]


def _column(idx):
    return np.asarray(idx, float)[:, None]


def test_precomputed_prices_equal_brute_force(X):
    grams = _grams(X)
    family = Precomputed(grams)
    idx = _column(np.arange(N))
    W = _symmetric(N)
    thetas = family.grid(idx, 1)
    np.testing.assert_array_equal(thetas.ravel(), [0, 1, 2])
    np.testing.assert_allclose(family.prices(family.geometry(idx), thetas, W),
                               [np.sum(W * K) for K in grams], rtol=1e-12)
    # through the workspace, restricted to the support of a low-rank price
    U = np.random.default_rng(6).normal(size=(N, 1))
    U[[1, 2, 3]] = 0.0
    price = PriceMatrix(factor=U)
    values = KernelSpace(idx).pricing_problem(family, price).values(thetas)
    np.testing.assert_allclose(values, [np.sum(price.dense() * K) for K in grams], rtol=1e-12)


def test_precomputed_gram_sub_block(X):
    grams = _grams(X)
    family = Precomputed(grams)
    i, j = [3, 0, 7, 7], [14, 2]
    np.testing.assert_array_equal(family.gram([1.0], _column(i), _column(j)),
                                  grams[1][np.ix_(i, j)])
    np.testing.assert_array_equal(family.gram([2.0], _column(i)), grams[2][np.ix_(i, i)])


def test_precomputed_callables(X):
    fs = [lambda A, B: GaussianIso().gram([0.5], A, B), lambda A, B: (1 + A @ B.T) ** 2]
    family = Precomputed(fs)
    W = _symmetric(N)
    np.testing.assert_allclose(family.prices(family.geometry(X), family.grid(X, 10), W),
                               [np.sum(W * f(X, X)) for f in fs], rtol=1e-12)
    assert family.gram([1.0], X, X[:4]).shape == (N, 4)


def test_precomputed_is_finite(X):
    family = Precomputed(_grams(X))
    assert family.finite
    assert family.members(1) == [family]
    with pytest.raises(TypeError, match="gradient"):
        family.price_and_grad(family.geometry(_column(range(N))), np.array([0.0]), _symmetric(N))
    with pytest.raises(ValueError, match="finite"):
        family.starting_points(_column(range(N)), 3)
    lo, hi = family.param_bounds(1)
    assert (lo[0], hi[0]) == (0.0, 2.0)


def test_precomputed_equality(X):
    grams = _grams(X)
    assert Precomputed(grams) == Precomputed([K.copy() for K in grams])
    assert Precomputed(grams) != Precomputed(grams[::-1])
    assert hash(Precomputed(grams)) == hash(Precomputed(grams))
    assert "3 Gram matrices 15×15" in repr(Precomputed(grams))


def _indefinite(X, relative):
    K = _grams(X)[1]
    eig, V = np.linalg.eigh(K)
    eig[0] = -relative * eig[-1]
    return (V * eig) @ V.T, eig[0]


@pytest.mark.parametrize("kernels, error, match", [
    ([], ValueError, "kernels"),
    (np.eye(3)[None][:0], ValueError, "kernels"),
    ("abc", TypeError, "kernels"),
    ([np.ones((3, 4))], ValueError, "kernels\\[0\\].*square"),
    ([np.eye(3), np.eye(4)], ValueError, "kernels\\[1\\].*shape"),
    ([np.eye(3), np.array([[1.0, 0.5, 0], [0, 1, 0], [0, 0, 1]])], ValueError,
     "kernels\\[1\\].*symmetric"),
    ([np.diag([1.0, np.nan, 1.0])], ValueError, "kernels\\[0\\]"),
    ([np.eye(3), lambda A, B: A @ B.T], TypeError, "kernels"),
])
def test_precomputed_bad_kernels(kernels, error, match):
    with pytest.raises(error, match=match):
        Precomputed(kernels)


def test_precomputed_indefinite(X):
    K, lam = _indefinite(X, 1e-2)
    with pytest.raises(ValueError, match=f"kernels\\[1\\].*eigenvalue {lam:.3g}"):
        Precomputed([np.eye(N), K])
    K, lam = _indefinite(X, 1e-9)
    with pytest.warns(UserWarning, match=f"kernels\\[0\\].*eigenvalue {lam:.3g}"):
        family = Precomputed([K])
    np.testing.assert_allclose(family.kernels[0], K, rtol=0, atol=1e-14)


@pytest.mark.parametrize("f", [lambda A, B: A @ A.T,
                               lambda A, B: np.full((len(A), len(B)), np.nan)])
def test_precomputed_bad_callable(f, X):
    with pytest.raises(ValueError, match="kernels\\[0\\]"):
        Precomputed([f]).gram([0.0], X, X[:4])


@pytest.mark.parametrize("idx", [np.arange(3.0), _column([0.5]), _column([N]), _column([-1])])
def test_precomputed_bad_indices(idx, X):
    family = Precomputed(_grams(X))
    with pytest.raises(ValueError, match="X"):
        family.geometry(np.atleast_2d(idx))


@pytest.mark.parametrize("theta", [[3.0], [0.5], [-1.0]])
def test_precomputed_bad_theta(theta, X):
    with pytest.raises(ValueError, match="theta"):
        Precomputed(_grams(X)).gram(theta, _column(range(N)))


# -- unions --------------------------------------------------------------------------------
def test_union_members():
    union = KernelUnion([GaussianIso(), GaussianSeparate(), KernelUnion([Laplacian()])])
    assert union.members(D) == [GaussianIso()] + GaussianSeparate().members(D) + [Laplacian()]
    assert all(isinstance(m, KernelFamily) for m in union.members(D))


@pytest.mark.parametrize("families", [[], [GaussianIso(), "rbf"], GaussianIso(), None])
def test_union_bad_families(families):
    with pytest.raises(TypeError, match="families"):
        KernelUnion(families)


@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_upper_triangle_is_in_the_order_of_triu_indices(n):
    A = np.random.default_rng(n).random((n, n))
    np.testing.assert_array_equal(upper_triangle(A), A[np.triu_indices(n, 1)])


@pytest.mark.parametrize("units", [1.0, 1e3])
def test_squared_distances_in_blocks_of_rows_are_the_pairwise_differences(budgets, units):
    """Squared distances and the Gaussian Gram matrix, formed in blocks of 2 rows, against
    the differences of the points; symmetric to the bit, with an exact diagonal, on one set
    of points; the same in other units (the points ·10³, the Gaussian's scale /10⁶)."""
    budgets(cache_block_elements=20)  # blocks of 2 rows
    rng = np.random.default_rng(3)
    X, Y = units * rng.normal(size=(9, 4)), units * rng.normal(size=(7, 4))
    for A, B in ((X, Y), (X, X)):
        reference = np.square(A[:, None, :] - B[None, :, :]).sum(-1)
        np.testing.assert_allclose(squared_distances(A, B), reference, rtol=1e-12,
                                   atol=1e-12 * units ** 2)
        np.testing.assert_allclose(gaussian_gram(A / units, B / units),
                                   np.exp(-reference / units ** 2), rtol=1e-12, atol=1e-15)
    assert np.all(np.diag(squared_distances(X, X)) == 0)
    Z = X / units
    K = gaussian_gram(Z, Z)
    assert np.all(np.diag(K) == 1.0) and np.array_equal(K, K.T)
    np.testing.assert_array_equal(gaussian_gram(Z, Z.copy()), gaussian_gram(Z.copy(), Z).T)
    np.testing.assert_array_equal(squared_distances(X, X), squared_distances(X, X).T)


@pytest.mark.parametrize("family", [GaussianIso(), GaussianARD()], ids=["iso", "ard"])
def test_starting_points_are_in_the_units_of_the_data(family):
    """With X in other units (·2³ and ·2¹³, exact in binary) the starting points are θ/2²⁰
    with the same default box, which neither reaches: none is drawn from the box's range
    instead of the data's, also for a feature that is mostly 0 (median squared difference 0)
    and a constant one."""
    rng = np.random.default_rng(0)
    X = np.hstack([rng.normal(size=(40, 3)), (np.arange(40)[:, None] % 9 == 0) * 1.0,
                   np.full((40, 1), 5.0)])
    a = family.starting_points(X * 8.0, 60, random_state=1)
    b = family.starting_points(X * 8192.0, 60, random_state=1)
    np.testing.assert_allclose(a, b * 1024.0 ** 2, rtol=1e-12)
    _, smallest = gaussian._sqdist_range(X * 8.0)
    assert np.all(a <= 52 * np.log(2) / smallest * (1 + 1e-12))


def test_data_scales_are_remembered_by_content_not_by_identity():
    """The data scales behind the starting points are computed once per training set: a copy
    of X gets the remembered values, an X changed in place gets new ones (each checked
    against the pairs formed by brute force), and the remembered array cannot be changed."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 4))

    def per_dim(X):
        diffs = np.square(X[:, None, :] - X[None, :, :])[np.triu_indices(len(X), 1)]
        return np.median(diffs, axis=0)

    first = gaussian._median_sqdiff_per_dim(X)
    np.testing.assert_allclose(first, per_dim(X), rtol=1e-12)
    assert gaussian._median_sqdiff_per_dim(X.copy()) is first
    with pytest.raises(ValueError):
        first[0] = 1.0
    X[:, 1] *= 3.0  # in place: same object, other content
    np.testing.assert_allclose(gaussian._median_sqdiff_per_dim(X), per_dim(X), rtol=1e-12)
    median, smallest = gaussian._sqdist_range(X)
    d2 = np.square(X[:, None, :] - X[None, :, :]).sum(-1)[np.triu_indices(len(X), 1)]
    assert (median, smallest) == pytest.approx((np.median(d2), d2.min()), rel=1e-12)
