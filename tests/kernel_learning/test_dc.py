"""DC branch and bound and certified pricing, against dense grids and independent IKL runs."""
import numpy as np
import pytest
from sklearn.datasets import make_moons

from sipkl import (Column, GaussianARD, GaussianIso, GaussianSeparate, IKLClassifier, Laplacian,
                   OracleResult, PriceMatrix, PricingRound)
from sipkl.kernel_learning.dc_oracle import DCGaussianOracle
from sipkl.pricing import GridOracle, MultiStartOracle, OracleChain
from sipkl.kernel_learning.names import make_oracle
from sipkl.kernel_learning.space import KernelSpace
from sipkl.solvers import Status
from sipkl.solvers.dc import maximize_exp_sum


def _grid(lo, hi, n):
    """n points covering [lo, hi]: half linear, half log-spaced (from 1e-9·hi when lo = 0)."""
    return np.unique(np.concatenate([np.linspace(lo, hi, n // 2),
                                     np.geomspace(max(lo, 1e-9 * hi), hi, n // 2)]))


def _pairwise(X):
    """(n, n, p) squared coordinate differences."""
    return (X[:, None, :] - X[None, :, :]) ** 2


def _prices(W, diff, S):
    """Σ_ij W_ij exp(−Σ_d s_d diff_ijd) at every row of S, from the full matrices."""
    flat = diff.reshape(-1, diff.shape[-1])
    return np.concatenate([np.exp(-(chunk @ flat.T)) @ W.ravel()
                           for chunk in np.array_split(S, max(1, len(S) // 2000))])


def _price_matrix(kind, n, rng):
    if kind == "rank_one":       # IKL: ½ w wᵀ, w = α∘y of both signs
        return 0.5 * np.outer(*[rng.normal(size=n)] * 2)
    if kind == "signed_rank_two":
        U = rng.normal(size=(n, 2))
        return U @ np.diag([1.0, -1.5]) @ U.T
    A = rng.normal(size=(n, n))  # a full symmetric matrix of both signs (alignment masters)
    return A + A.T


def _terms(W, diff):
    iu = np.triu_indices(len(W), 1)
    return np.r_[np.trace(W), 2 * W[iu]], np.vstack([np.zeros(diff.shape[-1]), diff[iu]])


def _check_against_grid(res, values, W):
    best = values.max()
    assert res.upper_bound >= best                       # the bound is proven
    assert res.fun[0] >= best - res.tol                  # the best point is within tolerance
    assert res.tol <= 1e-6 * abs(res.fun[0]) + 1e-10 * np.abs(W).sum()
    assert res.status is Status.OPTIMAL


@pytest.mark.parametrize("seed, kind, box", [
    (0, "rank_one", (0.0, 900.0)), (1, "rank_one", (0.0, 5.0)),
    (2, "signed_rank_two", (0.0, 900.0)), (3, "full", (0.0, 50.0)), (4, "full", (0.5, 900.0)),
    (5, "signed_rank_two", (1e-3, 2.0))])
def test_one_scale_against_a_dense_grid(seed, kind, box):
    rng = np.random.default_rng(seed)
    n = 20
    X = rng.normal(size=(n, 3)) * rng.uniform(0.2, 3.0)
    W = _price_matrix(kind, n, rng)
    diff = _pairwise(X).sum(-1, keepdims=True)
    res = maximize_exp_sum(*_terms(W, diff), *box, rtol=1e-6, n_best=3)
    grid = _grid(*box, 100_000)
    _check_against_grid(res, _prices(W, diff, grid[:, None]), W)
    assert np.all(np.diff(res.fun) <= 0) and np.all((res.x >= box[0]) & (res.x <= box[1]))


def _two_peaks():
    """Points in far-apart pairs, W non-zero only within pairs, so that

        <W, K(s)> = (e^{−s} − e^{−2s}) + 1.2 (e^{−0.01 s} − e^{−0.02 s}):

    two bumps, at s ≈ ln 2 (height ≈ 0.26) and s = 100 ln 2 (height 0.3).
    """
    sq, weight = [1.0, 2.0, 0.01, 0.02], [1.0, -1.0, 1.2, -1.2]
    X = np.zeros((8, 1))
    W = np.zeros((8, 8))
    for k, (d2, w) in enumerate(zip(sq, weight)):
        X[2 * k], X[2 * k + 1] = 100.0 * k, 100.0 * k + np.sqrt(d2)
        W[2 * k, 2 * k + 1] = W[2 * k + 1, 2 * k] = w / 2
    return X, W


def test_two_well_separated_peaks():
    X, W = _two_peaks()
    diff = _pairwise(X)
    res = maximize_exp_sum(*_terms(W, diff), 0.0, 900.0, rtol=1e-6, n_best=2)
    grid = _grid(0.0, 900.0, 100_000)
    values = _prices(W, diff, grid[:, None])
    _check_against_grid(res, values, W)
    np.testing.assert_allclose(res.x[0], [100 * np.log(2)], rtol=1e-3)
    peaks = np.flatnonzero((values[1:-1] > values[:-2]) & (values[1:-1] > values[2:])) + 1
    np.testing.assert_allclose(res.x[1], grid[peaks[0]], rtol=1e-3)  # the lower peak too


@pytest.mark.parametrize("seed, p, kind, hi", [
    (0, 2, "rank_one", 20.0), (1, 2, "full", 2.0), (2, 3, "rank_one", 2.0), (3, 3, "full", 20.0)])
def test_several_scales_against_a_dense_grid(seed, p, kind, hi):
    rng = np.random.default_rng(seed)
    n = 14
    X = rng.normal(size=(n, p)) * rng.uniform(0.3, 3.0, size=p)
    W = _price_matrix(kind, n, rng)
    diff = _pairwise(X)
    res = maximize_exp_sum(*_terms(W, diff), np.zeros(p), np.full(p, hi), rtol=1e-6, n_best=2)
    axis = _grid(0.0, hi, 400 if p == 2 else 60)
    S = np.stack([g.ravel() for g in np.meshgrid(*[axis] * p, indexing="ij")], axis=1)
    _check_against_grid(res, _prices(W, diff, S), W)


def test_dimension_above_three_is_refused():
    with pytest.raises(ValueError, match="at most 3"):
        maximize_exp_sum(np.ones(3), np.ones((3, 4)), 0.0, 1.0)
    X = np.random.default_rng(0).normal(size=(10, 4))
    with pytest.raises(ValueError, match="at most 3"):
        DCGaussianOracle().price(_round(GaussianARD(), X, PriceMatrix.rank_one(np.ones(10))))


def _round(family, X, W, n_price=3, columns=(), regularizer=None):
    problems = [KernelSpace(X).pricing_problem(f, W, regularizer) for f in family.members(X.shape[1])]
    return PricingRound(problems, X, list(columns), 0.0, n_price, np.random.default_rng(0))


@pytest.mark.parametrize("family", [GaussianIso(), GaussianIso(features=(1, 2)),
                                    GaussianSeparate(), GaussianARD(features=(0, 2))])
def test_oracle_bounds_every_member_and_skips_columns(family):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 3))
    U = rng.normal(size=(25, 2))
    U[::4] = 0.0  # rows outside the support
    W = PriceMatrix(factor=U, signs=[1.0, -1.0])
    first = DCGaussianOracle().price(_round(family, X, W))
    rest = DCGaussianOracle().price(_round(family, X, W, columns=first.columns[:1]))
    # independent: every member's Gram matrix on a grid of parameters, full W
    best = -np.inf
    for member in family.members(3):
        lo, hi = member.param_bounds(3)
        axis = _grid(lo[0], hi[0], 200 if len(lo) == 2 else 2000)
        thetas = np.stack([g.ravel() for g in np.meshgrid(*[axis] * len(lo), indexing="ij")], 1)
        best = max(best, max(W.inner(member.gram(t, X)) for t in thetas[::7]))
    assert first.upper_bound >= best and first.scores[0] >= best - 1e-6 * abs(best)
    assert first.status is Status.OPTIMAL and first.n_evals > 0
    assert len(first.columns) == len(set(first.columns)) <= 3
    assert first.columns[0] not in rest.columns and rest.upper_bound == pytest.approx(
        first.upper_bound, rel=1e-6)


def test_oracle_refuses_other_families_and_regularizers():
    X = np.random.default_rng(0).normal(size=(10, 2))
    W = PriceMatrix.rank_one(np.ones(10))
    with pytest.raises(TypeError, match="Laplacian"):
        DCGaussianOracle().price(_round(Laplacian(), X, W))
    with pytest.raises(ValueError, match="regularizer"):
        DCGaussianOracle().price(_round(GaussianIso(), X, W,
                                        regularizer=lambda t: (0.0, np.zeros(1))))
    assert isinstance(make_oracle("dc"), DCGaussianOracle)


class _Fixed:
    """A stub oracle returning one candidate with a given score (and optional bound)."""

    def __init__(self, score, bound=None):
        self.score, self.bound, self.calls = score, bound, 0

    def price(self, pricing_round):
        self.calls += 1
        return OracleResult([Column.make(GaussianIso(), self.score)], np.array([self.score]),
                            n_evals=10, upper_bound=self.bound)


def test_chain_stops_at_the_first_violator_above_the_cut():
    X = np.zeros((3, 1))
    round_ = _round(GaussianIso(), X, PriceMatrix.rank_one(np.ones(3)))
    round_.threshold, round_.cut = 1.0, 1.1
    cheap, middle, exact = _Fixed(1.05), _Fixed(1.2), _Fixed(0.9, bound=1.05)
    result = OracleChain([cheap, middle, exact]).price(round_)
    # 1.05 > λ but not above the cut: not a violator for the engine, so the chain goes on
    assert (cheap.calls, middle.calls, exact.calls) == (1, 1, 0)
    assert result.scores[0] == 1.2 and result.n_evals == 20 and result.upper_bound is None
    cheap, exact = _Fixed(1.05), _Fixed(1.08, bound=1.09)
    result = OracleChain([cheap, exact]).price(round_)
    assert result.scores[0] == 1.08 and result.upper_bound == 1.09 and result.n_evals == 20


@pytest.fixture(scope="module")
def small_moons():
    X, y = make_moons(50, noise=0.25, random_state=0)
    return X, np.where(y == 1, 1, -1)


def test_ikl_with_a_staged_oracle_is_certified_and_matches_a_fine_grid(small_moons):
    X, y = small_moons
    common = dict(family=GaussianIso(), C=10.0, obj_tol=0.0, tol=1e-5, random_state=0)
    chain = OracleChain([MultiStartOracle(), DCGaussianOracle(rtol=1e-7)])
    certified = IKLClassifier(oracle=chain, **common).fit(X, y).result_
    assert certified.status == "certified_optimal", certified.message
    cut = certified.threshold * (1 + 1e-5)
    assert certified.best_price <= certified.upper_bound <= cut
    assert 0 <= certified.gap <= 1e-5 * abs(certified.objective)
    grid = GridOracle(candidates=np.geomspace(1e-4, 900.0, 20_000)[:, None])
    gridded = IKLClassifier(oracle=grid, **common).fit(X, y).result_
    assert gridded.status in ("converged_local", "certified_optimal")
    np.testing.assert_allclose(certified.objective, gridded.objective, rtol=1e-4)


def test_ikl_ard_with_the_batched_local_oracle_reaches_the_certified_objective(small_moons):
    """The default MultiStartOracle (single-precision batched ascent, one IPOPT polish) reaches
    the objective that the DC oracle certifies, on a two-scale ARD family."""
    X, y = small_moons
    common = dict(family=GaussianARD(), C=10.0, obj_tol=0.0, tol=1e-5, random_state=0)
    local = IKLClassifier(oracle=MultiStartOracle(), **common).fit(X, y).result_
    assert local.status == "converged_local", local.message
    chain = OracleChain([MultiStartOracle(), DCGaussianOracle(rtol=1e-7)])
    certified = IKLClassifier(oracle=chain, **common).fit(X, y).result_
    assert certified.status == "certified_optimal", certified.message
    np.testing.assert_allclose(local.objective, certified.objective, rtol=1e-4)
