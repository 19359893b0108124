"""Argyriou's greedy square loss, Pothin–Richard's pairwise alignment and NKRR, against
independent computations.

The references are written here from the papers' formulas, with SciPy/NumPy/cvxpy:

* argyriou: Q_μ(K) = μ yᵀ(K + μI)⁻¹y and c_K = −2μ (K + μI)⁻¹y (eq. 16 for the square loss,
  derived in the test below from R(c, K) of eq. 14), inequality (29) on a dense grid of
  exp(−s‖x − x′‖²) Gram matrices built with scipy's cdist, and the line search (30) by
  ``scipy.optimize.minimize_scalar``;
* pothin_richard: alignment <K, yyᵀ>/(‖K‖‖yyᵀ‖) (eq. 4) maximized by brute force on a dense
  grid of the two weights, and Table 1 run by hand with that brute force;
* cortes_mohri_rostamizadeh: F(µ) = yᵀ((Σ µ_k K_k)^{∘d} + λI)⁻¹y by ``np.linalg.solve``,
  central finite differences, and the projection on {µ ≥ 0, ‖µ‖ ≤ Λ} from its KKT conditions
  with the multiplier found by ``scipy.optimize.brentq``.
"""
import numpy as np
import pytest
from scipy.optimize import brentq, minimize, minimize_scalar
from scipy.spatial.distance import cdist
from sklearn.datasets import make_moons
from sklearn.utils.estimator_checks import check_estimator

from sipkl import (Column, ColumnGeneration, GaussianIso, GreedyKernelRidge,
                   GreedyKernelRidgeClassifier, LearnedKernel, NonlinearKernelRidge,
                   PairwiseAlignmentClassifier, Precomputed)
from sipkl.kernel_learning.masters import (GreedySquareLossMaster, NonlinearKRRMaster,
                                           PairwiseAlignmentMaster)
from sipkl.kernel_learning.masters.greedy import line_search
from sipkl.kernel_learning.masters.nonlinear import nkrr_terms
from sipkl.kernel_learning.masters.pairwise import (pair_alignment, pairwise_weights,
                                                    refine_parameters)
from sipkl.pricing import GridOracle, MultiStartOracle
from sipkl.kernel_learning.space import KernelSpace


def rbf(X, s, Y=None):
    return np.exp(-s * cdist(X, X if Y is None else Y, "sqeuclidean"))


def wave(n=70, seed=0):
    """1-D regression with structure at two scales: optima mix several bandwidths."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, 1))
    return X, np.sin(2 * X[:, 0]) + 0.5 * np.sin(7 * X[:, 0]) + 0.1 * rng.normal(size=n)


# -- argyriou ------------------------------------------------------------------------------
def reference_c(K, y, mu):
    """argmin_c R(c, K), R = (1/4μ)(c, Kc) + ¼‖c‖² + (y, c) (eq. 14 with the square loss's
    Q*(v) = ¼‖v‖² + (y, v)), minimized numerically — no closed form used."""
    res = minimize(lambda c: ((c @ K @ c) / (4 * mu) + 0.25 * c @ c + y @ c,
                              K @ c / (2 * mu) + 0.5 * c + y),
                   np.zeros(len(y)), jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 10000})
    return res.x, res.fun


def test_square_loss_dual_vector_is_eq16():
    X, y = wave(30)
    mu = 0.1
    K = 0.5 * rbf(X, 0.3) + 0.5 * rbf(X, 3.0)
    # max_steps=0: the master stays at its start, the average of the columns (§4.1)
    sol = GreedySquareLossMaster(y, mu, max_steps=0).solve([rbf(X, 0.3), rbf(X, 3.0)])
    np.testing.assert_allclose(sol.weights, [0.5, 0.5])
    c, g = reference_c(K, y, mu)
    np.testing.assert_allclose(sol.model.c, c, rtol=1e-5, atol=1e-7)
    # objective = Q_μ(K) = −g(K), g(K) = min_c R(c, K) (eqs. 13, 27)
    assert abs(sol.objective + g) <= 1e-7 * abs(g)
    assert sol.threshold == pytest.approx(c @ K @ c, rel=1e-6)
    # the gap bounds Q_μ(K) − min over the hull of the two columns
    best = minimize_scalar(lambda t: mu * y @ np.linalg.solve(
        (1 - t) * rbf(X, 0.3) + t * rbf(X, 3.0) + mu * np.eye(len(y)), y),
        bounds=(0, 1), method="bounded", options={"xatol": 1e-10})
    assert sol.objective - best.fun <= sol.gap * (1 + 1e-6)
    assert sol.gap > 0 and sol.status.value == "iteration_limit"


@pytest.fixture(scope="module")
def greedy_run():
    X, y = wave()
    mu, tol = 1e-2, 1e-3
    family = GaussianIso()
    start = [Column.make(family, s) for s in np.geomspace(0.05, 50, 10)]
    engine = ColumnGeneration(GreedySquareLossMaster(y, mu), MultiStartOracle(), tol=tol, n_price=1,
                              max_iter=100, random_state=0)
    return X, y, mu, tol, engine.run(KernelSpace(X, family), start)


def test_greedy_objective_increases_strictly(greedy_run):
    """Eq. (28): g(K⁽¹⁾) < g(K⁽²⁾) < …, i.e. the engine's objective Q_μ = −g decreases."""
    X, y, mu, _, res = greedy_run
    assert res.status == "converged_local", res.message
    h = np.array(res.history["objective"])
    assert len(h) >= 3
    assert np.all(np.diff(h) < 0)
    # the final objective is Q_μ of the learned kernel, recomputed from scratch
    K = sum(w * rbf(X, c.theta[0]) for c, w in zip(res.columns, res.weights))
    assert res.objective == pytest.approx(mu * y @ np.linalg.solve(K + mu * np.eye(len(y)), y),
                                          rel=1e-8)
    assert np.all(res.weights > 0) and res.weights.sum() == pytest.approx(1.0)


def test_greedy_terminates_with_no_violation_of_29_on_a_dense_grid(greedy_run):
    X, y, mu, tol, res = greedy_run
    K = sum(w * rbf(X, c.theta[0]) for c, w in zip(res.columns, res.weights))
    c = -2 * mu * np.linalg.solve(K + mu * np.eye(len(y)), y)  # eq. (16), square loss
    lam = c @ K @ c
    d2 = cdist(X, X, "sqeuclidean")
    grid = np.concatenate([[0.0], np.geomspace(1e-4, 900.0, 20000)])
    prices = np.array([c @ np.exp(-s * d2) @ c for s in grid])
    assert prices.max() <= lam * (1 + tol)


def test_finite_version_through_the_grid_oracle():
    X, y = wave(50, seed=1)
    mu, scales = 1e-2, np.geomspace(0.05, 50, 12)
    family = GaussianIso()
    res = ColumnGeneration(GreedySquareLossMaster(y, mu), GridOracle(candidates=scales[:, None]),
                           tol=1e-3, n_price=1).run(KernelSpace(X, family), [Column.make(family, scales[0])])
    assert res.status == "converged_local"
    assert np.all(np.diff(res.history["objective"]) < 0)
    K = sum(w * rbf(X, c.theta[0]) for c, w in zip(res.columns, res.weights))
    c = -2 * mu * np.linalg.solve(K + mu * np.eye(len(y)), y)
    assert max(c @ rbf(X, s) @ c for s in scales) <= (c @ K @ c) * (1 + 1e-3)


@pytest.mark.parametrize("seed", range(6))
def test_newton_line_search_matches_bounded_scalar_minimization(seed):
    rng = np.random.default_rng(seed)
    X, y = wave(40, seed)
    mu = 10.0 ** rng.uniform(-3, 0)
    K = rbf(X, 10.0 ** rng.uniform(-1.5, 1.5))
    G = rbf(X, 10.0 ** rng.uniform(-1.5, 1.5))

    def minus_g(t):  # −g(tG + (1 − t)K) = μ yᵀ(K_t + μI)⁻¹y
        return mu * y @ np.linalg.solve((1 - t) * K + t * G + mu * np.eye(len(y)), y)

    ref = minimize_scalar(minus_g, bounds=(0.0, 1.0), method="bounded",
                          options={"xatol": 1e-10})
    t, _ = line_search(K, G - K, y, mu)
    assert minus_g(t) <= ref.fun + 1e-9 * abs(ref.fun)
    assert abs(t - ref.x) <= 1e-4 or min(ref.x, 1 - ref.x) < 1e-4


# -- pothin_richard ------------------------------------------------------------------------
def alignment(K, Y):
    T = Y @ Y.T
    return np.sum(K * T) / (np.linalg.norm(K) * np.linalg.norm(T))


def center(K):
    H = np.eye(len(K)) - 1.0 / len(K)
    return H @ K @ H


def random_pair(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] + 0.5 * np.sin(3 * X[:, 1]) + 0.3 * rng.normal(size=40) > 0, 1.0, -1.0)
    K1 = rbf(X[:, :2], 10 ** rng.uniform(-1.5, 1))
    K2 = rbf(X[:, 1:], 10 ** rng.uniform(-1.5, 1)) if seed % 2 else (1 + X @ X.T / 3) ** 2
    return K1, K2, y


@pytest.mark.parametrize("centered", [False, True])
def test_closed_form_7_is_the_brute_force_2d_maximum(centered):
    cases = []
    for seed in range(12):
        K1, K2, y = random_pair(seed)
        if centered:
            K1, K2 = center(K1), center(K2)
            Y = (y - y.mean())[:, None]
        else:
            Y = y[:, None]
        T = Y @ Y.T
        p, q, r = np.sum(K1 * K1), np.sum(K2 * K2), np.sum(K1 * K2)
        a, b = np.sum(K1 * T), np.sum(K2 * T)
        mu1, mu2 = pairwise_weights(p, q, r, a, b)
        closed = alignment(mu1 * K1 + mu2 * K2, Y)
        assert pair_alignment(mu1, mu2, p, q, r, a, b, np.linalg.norm(T)) == \
            pytest.approx(closed, rel=1e-12)
        # brute force over a dense grid of (μ₁, μ₂) ∈ [0, 1]², (0, 0) left out
        w = np.linspace(0, 1, 801)
        M1, M2 = np.meshgrid(w, w, indexing="ij")
        num = M1 * a + M2 * b
        den = np.sqrt(M1 ** 2 * p + 2 * M1 * M2 * r + M2 ** 2 * q) * np.linalg.norm(T)
        grid = np.where(den > 0, num / np.where(den > 0, den, 1), -np.inf)
        i, j = np.unravel_index(np.argmax(grid), grid.shape)
        brute = alignment(M1[i, j] * K1 + M2[i, j] * K2, Y)
        assert closed >= brute - 1e-9
        assert closed <= brute + 1e-5  # grid resolution
        cases.append("interior" if mu1 > 0 and mu2 > 0 else "vertex")
        # the price <∇A(K₁), K₂> has the sign of the gain, and gives it by a Schur complement
        W = PairwiseAlignmentMaster(y, centered).solve([K1]).price.dense()
        price = np.sum(W * K2)
        assert (price > 0) == (closed > alignment(K1, Y) + 1e-12)
        if cases[-1] == "interior":
            assert closed ** 2 == pytest.approx(alignment(K1, Y) ** 2
                                                + price ** 2 * p / (q - r * r / p), rel=1e-8)
    assert {"interior", "vertex"} <= set(cases)


def table1_by_hand(grams, y, eps):
    """Table 1 with the pair step maximized by brute force over the ratio μ₂/μ₁."""
    Y = y[:, None]
    ratios = np.concatenate([[0.0], np.geomspace(1e-4, 1e4, 4001), [np.inf]])
    align = [alignment(G, Y) for G in grams]
    chosen, weights = [int(np.argmax(align))], np.eye(len(grams))[int(np.argmax(align))]
    current = max(align)
    while True:
        best = (current, None, None)
        for j in set(range(len(grams))) - set(chosen):
            for rho in ratios:
                w = np.eye(len(grams))[j] if np.isinf(rho) else weights + rho * np.eye(len(grams))[j]
                A = alignment(np.tensordot(w, grams, axes=1), Y)
                if A > best[0]:
                    best = (A, j, w / w.sum())
        if best[1] is None or best[0] - current <= eps:
            return chosen, current
        current, weights = best[0], best[2]
        chosen.append(best[1])


def test_master_through_the_engine_is_table1():
    X, y = make_moons(60, noise=0.3, random_state=2)
    y = np.where(y == 1, 1.0, -1.0)
    grams = [rbf(X, s) for s in (0.1, 1.0, 10.0)] + [(1 + X @ X.T) ** q for q in (1, 2, 3)]
    family = Precomputed(grams)
    idx = np.arange(len(X))[:, None]
    start = [Column.make(family, m) for m in range(len(grams))]
    res = ColumnGeneration(PairwiseAlignmentMaster(y), GridOracle(), n_price=len(grams),
                           obj_tol=1e-9).run(KernelSpace(idx, family), start)
    chosen, reference = table1_by_hand(np.array(grams), y, eps=1e-9)
    assert -res.objective == pytest.approx(reference, abs=1e-4)  # resolution of the ratios
    assert {int(c.theta[0]) for c in res.columns} == set(chosen)
    assert np.all(np.diff(res.history["objective"]) <= 0)  # the alignment never decreases


def test_refinement_gradient_is_eq12_and_alignment_increases():
    X, y = make_moons(50, noise=0.3, random_state=0)
    y = np.where(y == 1, 1.0, -1.0)
    family = GaussianIso()
    kernel = LearnedKernel([Column.make(family, 0.2), Column.make(family, 5.0)], [0.7, 0.3])
    # ∂A/∂s_i = μ_i <∇A, ∂K_i/∂s_i> with ∇A the master's price matrix (eq. 12)
    W = PairwiseAlignmentMaster(y).solve([kernel(X)]).price.dense()
    d2 = cdist(X, X, "sqeuclidean")
    for i, (s, w) in enumerate(zip((0.2, 5.0), (0.7, 0.3))):
        analytic = w * family.price_and_grad(d2, np.array([s]), W)[1][0]
        h = 1e-6 * s
        plus = [0.2, 5.0]
        minus = [0.2, 5.0]
        plus[i], minus[i] = s + h, s - h
        A = [alignment(0.7 * rbf(X, a) + 0.3 * rbf(X, b), y[:, None]) for a, b in (plus, minus)]
        assert analytic == pytest.approx((A[0] - A[1]) / (2 * h), rel=1e-5)
    refined, history = refine_parameters(kernel, X, y, eta=0.5, tol=1e-7)
    assert np.all(np.diff(history) > 0) and len(history) > 1
    assert alignment(refined(X), y[:, None]) == pytest.approx(history[-1], rel=1e-12)


# -- cortes_mohri_rostamizadeh -------------------------------------------------------------
def nkrr_instance(seed=0, n=40, p=5):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, p))
    X -= X.mean(0)
    y = X[:, 0] * X[:, 1] + 0.3 * X[:, 2] + 0.05 * rng.normal(size=n)
    return np.stack([np.outer(X[:, k], X[:, k]) for k in range(p)]), y - y.mean()


def F_reference(mu, grams, y, lam, d, offset):
    S = offset + np.tensordot(mu, grams, axes=1)
    return y @ np.linalg.solve(S ** d + lam * np.eye(len(y)), y)


@pytest.mark.parametrize("degree", [1, 2, 3, 4])
def test_nkrr_gradient_is_finite_differences(degree):
    grams, y = nkrr_instance()
    offset, lam = grams.sum(0), 0.5
    mu = np.random.default_rng(degree).uniform(0.1, 1.0, len(grams))
    F, _, g, W = nkrr_terms(grams, mu, y, lam, degree, offset)
    assert F == pytest.approx(F_reference(mu, grams, y, lam, degree, offset), rel=1e-10)
    h = 1e-5
    fd = np.array([(F_reference(mu + h * e, grams, y, lam, degree, offset)
                    - F_reference(mu - h * e, grams, y, lam, degree, offset)) / (2 * h)
                   for e in np.eye(len(mu))])
    np.testing.assert_allclose(-g, fd, rtol=1e-5, atol=1e-8 * np.abs(fd).max())
    assert np.all(g >= 0)  # Proposition 1: ∇F ≤ 0
    np.testing.assert_allclose(g, np.tensordot(grams, W, axes=([1, 2], [0, 1])))


def reference_projection(z, radius, norm):
    """argmin_{v ≥ 0, ‖v‖ ≤ Λ} ‖v − z‖ from its KKT conditions, the multiplier found by brentq:
    v = max(z, 0)/(1 + ν) (ℓ2) or v = max(z − τ, 0) (ℓ1), with ‖v‖ = Λ when z₊ is outside."""
    zp = np.clip(z, 0, None)
    if np.linalg.norm(zp, 1 if norm == "l1" else 2) <= radius:
        return zp
    if norm == "l2":
        nu = brentq(lambda nu: np.linalg.norm(zp) / (1 + nu) - radius, 0, 1e12, xtol=1e-15)
        return zp / (1 + nu)
    tau = brentq(lambda t: np.clip(z - t, 0, None).sum() - radius, 0, zp.max(), xtol=1e-15)
    return np.clip(z - tau, 0, None)


@pytest.mark.parametrize("norm", ["l1", "l2"])
@pytest.mark.parametrize("degree", [1, 2, 3])
def test_nkrr_returned_mu_is_a_fixed_point_of_the_projected_step(norm, degree):
    grams, y = nkrr_instance(seed=degree)
    offset, lam, radius, tol = grams.sum(0), 0.1, 0.5, 1e-6
    master = NonlinearKRRMaster(y, lam, radius, degree, norm, offset=offset, tol=tol,
                                gap_tol=0.0)  # Algorithm 1's rule alone
    sol = master.solve(list(grams))
    delta = sol.weights
    assert sol.status.value == "optimal"
    h = 1e-6
    grad = np.array([(F_reference(delta + h * e, grams, y, lam, degree, offset)
                      - F_reference(delta - h * e, grams, y, lam, degree, offset)) / (2 * h)
                     for e in np.eye(len(delta))])
    step = reference_projection(delta - grad, radius, norm) - delta  # the full step, η = 1
    assert np.linalg.norm(step) < tol + 1e-6 * radius  # + the accuracy of the references
    assert sol.objective == pytest.approx(F_reference(delta, grams, y, lam, degree, offset),
                                          rel=1e-10)
    # Propositions 2–3: the optimum lies on the boundary ‖µ − µ₀‖ = Λ
    assert np.linalg.norm(delta, 1 if norm == "l1" else 2) == pytest.approx(radius, rel=1e-6)


@pytest.mark.parametrize("norm", ["l1", "l2"])
@pytest.mark.parametrize("y_units", [1.0, 1e3])
def test_nkrr_gap_stop_is_a_relative_accuracy_in_F(norm, y_units):
    """d = 1: F(µ) = yᵀ(K₀ + Σ δ_k K_k + λI)⁻¹y is convex, and the first-order gap bounds
    F(δ) − min F. A master stopped by the gap rule (Algorithm 1's ε rule out of reach) is
    within gap_tol·F of the minimum that cvxpy's matrix_frac finds (an independent
    formulation and solver), with y in two units."""
    import cvxpy as cp
    from conic_reference import certified_solve
    grams, y = nkrr_instance(seed=7)
    y = y * y_units
    offset, lam, radius, gap_tol = grams.sum(0), 0.1, 0.5, 1e-4
    master = NonlinearKRRMaster(y, lam, radius, 1, norm, offset=offset, tol=1e-300,
                                gap_tol=gap_tol)
    sol = master.solve(list(grams))
    assert sol.status.value == "optimal" and sol.gap <= gap_tol * sol.objective
    # the reference in the units where ‖y‖ = 1 (F is quadratic in y: F(δ; y) = ‖y‖² F(δ; y/‖y‖)),
    # where the conic form [[P, y], [yᵀ, t]] ⪰ 0 is well scaled
    delta = cp.Variable(len(grams))
    P = offset + lam * np.eye(len(y)) + sum(delta[k] * grams[k] for k in range(len(grams)))
    ball = cp.sum(delta) if norm == "l1" else cp.norm(delta, 2)  # ‖δ‖₁ = Σ δ where δ ≥ 0
    unit = np.linalg.norm(y)
    ref = cp.Problem(cp.Minimize(cp.matrix_frac(y / unit, (P + P.T) / 2)),
                     [delta >= 0, ball <= radius])
    certified_solve(ref)
    opt = ref.value * unit ** 2
    assert sol.objective == pytest.approx(F_reference(sol.weights, grams, y, lam, 1, offset),
                                          rel=1e-10)
    assert opt - 1e-6 * abs(opt) <= sol.objective <= opt * (1 + gap_tol)


def test_nkrr_objective_decreases_when_columns_enter():
    grams, y = nkrr_instance(seed=5, p=8)
    family = Precomputed(list(grams))
    idx = np.arange(len(y))[:, None]
    master = NonlinearKRRMaster(y, 0.1, 1.0, 2, "l1", offset=grams[:2].sum(0))
    res = ColumnGeneration(master, GridOracle(), n_price=1).run(
        KernelSpace(idx, family), [Column.make(family, 0)])
    assert res.status == "stationary_point"  # degree 2: F is not convex, a KKT point
    assert len(res.history["objective"]) > 1
    assert np.all(np.diff(res.history["objective"]) < 0)


# -- estimators ------------------------------------------------------------------------------
ESTIMATORS = [GreedyKernelRidge(oracle="grid", max_iter=3, n_start=4),
              GreedyKernelRidgeClassifier(oracle="grid", max_iter=3, n_start=4),
              PairwiseAlignmentClassifier(max_iter=3),
              NonlinearKernelRidge(degree=1, max_iter=3),
              NonlinearKernelRidge(degree=2, max_iter=3)]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: repr(e))
def test_check_estimator(estimator):
    check_estimator(estimator)


def test_estimators_on_moons():
    X, y = make_moons(80, noise=0.25, random_state=0)
    greedy = GreedyKernelRidgeClassifier(random_state=0).fit(X, y)
    assert greedy.score(X, y) > 0.9 and isinstance(greedy.kernel_, LearnedKernel)
    pair = PairwiseAlignmentClassifier(refine=True).fit(X, y)
    assert pair.score(X, y) > 0.9
    assert pair.alignment_ >= -pair.result_.objective
    assert pair.alignment_ == pytest.approx(alignment(pair.kernel_(X), np.where(y == 1, 1.0, -1.0)[:, None]))
    reg = GreedyKernelRidge(alpha=1e-2, random_state=0).fit(X, y.astype(float))
    # prediction is kernel ridge regression with the learned kernel and ridge μ
    K = reg.kernel_(X)
    np.testing.assert_allclose(reg.predict(X), K @ np.linalg.solve(K + 1e-2 * np.eye(80), y),
                               rtol=1e-6, atol=1e-8)


BAD = [
    (GreedyKernelRidge, {"alpha": 0}, "alpha"), (GreedyKernelRidge, {"tol": -1.0}, "tol"),
    (GreedyKernelRidge, {"max_iter": 0}, "max_iter"), (GreedyKernelRidge, {"n_start": 0}, "n_start"),
    (GreedyKernelRidgeClassifier, {"n_price": 0}, "n_price"),
    (GreedyKernelRidgeClassifier, {"family": "nope"}, "family"),
    (GreedyKernelRidgeClassifier, {"oracle": "nope"}, "oracle"),
    (PairwiseAlignmentClassifier, {"C": -1.0}, "C"), (PairwiseAlignmentClassifier, {"eta": 0}, "eta"),
    (PairwiseAlignmentClassifier, {"refine_tol": np.nan}, "refine_tol"),
    (PairwiseAlignmentClassifier, {"time_limit": -1.0}, "time_limit"),
    (NonlinearKernelRidge, {"degree": 5}, "degree"), (NonlinearKernelRidge, {"degree": 1.5}, "degree"),
    (NonlinearKernelRidge, {"norm": "l3"}, "norm"), (NonlinearKernelRidge, {"mu0": -1.0}, "mu0"),
    (NonlinearKernelRidge, {"radius": 0.0}, "radius"), (NonlinearKernelRidge, {"alpha": -1}, "alpha"),
    (NonlinearKernelRidge, {"step_tol": 0}, "step_tol"),
]


@pytest.mark.parametrize("cls, params, name", BAD)
def test_bad_parameters_name_the_argument(cls, params, name):
    X, y = make_moons(30, random_state=0)
    with pytest.raises(ValueError, match=name):
        cls(**params).fit(X, y)


@pytest.mark.parametrize("cls, params, name", [
    (GreedyKernelRidge, {"family": 3}, "family"), (NonlinearKernelRidge, {"oracle": object()}, "oracle"),
    (PairwiseAlignmentClassifier, {"centered": "yes"}, "centered"),
    (GreedyKernelRidgeClassifier, {"callback": 1}, "callback")])
def test_bad_types_name_the_argument(cls, params, name):
    X, y = make_moons(30, random_state=0)
    with pytest.raises(TypeError, match=name):
        cls(**params).fit(X, y)


@pytest.mark.parametrize("master, args", [
    (GreedySquareLossMaster, ([1.0, np.nan], 1.0)), (GreedySquareLossMaster, ([1.0, 2.0], 0.0)),
    (PairwiseAlignmentMaster, ([1.0, 1.0],)), (NonlinearKRRMaster, ([1.0, 2.0], 1.0, -1.0)),
    (NonlinearKRRMaster, ([1.0, 2.0], 1.0, 1.0, 0)), (NonlinearKRRMaster, ([1.0, 2.0], 1.0, 1.0, 2, "l0"))])
def test_bad_master_input(master, args):
    with pytest.raises(ValueError):
        master(*args)


def test_nkrr_master_rejects_a_negative_gap_tol():
    with pytest.raises(ValueError, match="gap_tol"):
        NonlinearKRRMaster([1.0, 2.0], gap_tol=-1e-4)
