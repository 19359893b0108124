"""IKL / MKL hinge-loss masters against independent computations.

Every reference below is written here, from the formulas of gehler_nowozin §2, and solved
with cvxpy directly, its answer proved by its own KKT certificate
(:func:`conic_reference.certified_solve`) — nothing is read back from :mod:`sipkl` to build it:

* the MKL dual QCQP (eq. 3 with the bias constraint yᵀα = 0, T_m of eq. 4)

      OPT = max_{α, λ} 1ᵀα − λ  s.t.  0 ≤ α ≤ C,  yᵀα = 0,  ½ (α∘y)ᵀ K_m (α∘y) ≤ λ  ∀m,

* the SVM dual value for a fixed kernel, J(K) = max {1ᵀα − ½ (α∘y)ᵀ K (α∘y) : same box},
  so that OPT = min_{d ∈ simplex} J(Σ_m d_m K_m),

* RBF Gram matrices exp(−γ‖x − x′‖²) from scipy's pairwise distances.
"""
import functools
from pathlib import Path

import numpy as np
import cvxpy as cp
import pytest
from scipy.spatial.distance import cdist
from sklearn.datasets import load_breast_cancer

from conic_reference import certified_solve
from sipkl import Column, ColumnGeneration, GaussianIso
from sipkl.core.engine import PRUNE_RTOL
from sipkl.kernel_learning.masters import HingeMKLNewton, HingeMKLQCQP
from sipkl.kernel_learning.masters.hinge import STALLED_GAP_RTOL, CombinedSVM, combined_svm
from sipkl.pricing import GridOracle
from sipkl.kernel_learning.space import KernelSpace
from sipkl.solvers import minimize_simplex_qp, solve_svm_dual

REL = 1e-4  # objectives: fast master / column generation vs the cvxpy references


# -- independent references ----------------------------------------------------------
def rbf(X, gamma):
    return np.exp(-gamma * cdist(X, X, "sqeuclidean"))


def psd_factor(K):
    """F with FᵀF = K (symmetric eigen-decomposition; round-off negative eigenvalues are set to
    0 and their rows left out: all-zero rows only make the conic solver less accurate)."""
    vals, vecs = np.linalg.eigh(0.5 * (K + K.T))
    keep = vals > 0
    return np.sqrt(vals[keep])[:, None] * vecs[:, keep].T


def reference_mkl(grams, y, C):
    """The full MKL dual QCQP solved once; returns (OPT, α, λ, d) with d its duals, normalized."""
    n = len(y)
    alpha, lam = cp.Variable(n), cp.Variable()
    w = cp.multiply(alpha, y)
    quad = [0.5 * cp.sum_squares(psd_factor(K) @ w) <= lam for K in grams]
    problem = cp.Problem(cp.Maximize(cp.sum(alpha) - lam),
                         [alpha >= 0, alpha <= C, y @ alpha == 0] + quad)
    certified_solve(problem)
    d = np.array([np.ravel(q.dual_value)[0] for q in quad])
    return problem.value, alpha.value, float(lam.value), d / d.sum()


def reference_svm(K, y, C):
    """SVM dual value J(K) for one Gram matrix."""
    n = len(y)
    alpha = cp.Variable(n)
    problem = cp.Problem(
        cp.Maximize(cp.sum(alpha) - 0.5 * cp.sum_squares(psd_factor(K) @ cp.multiply(alpha, y))),
        [alpha >= 0, alpha <= C, y @ alpha == 0])
    certified_solve(problem)
    return problem.value


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


def qcqp_not_started(y, C):
    """A Newton master's ``fallback`` that fails the test where it is started."""
    pytest.fail("QCQP master started")


# GaussianIso's parameter is the scale s of exp(−s‖x − x′‖²), i.e. scikit-learn's gamma
# (test_grid_columns_are_the_reference_kernels guards this convention).
def iso_param(gamma):
    return float(gamma)


# -- instances -----------------------------------------------------------------------
def breast_cancer_subsample(seed=1, per_class=40):
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(seed)
    idx = np.concatenate([rng.choice(np.flatnonzero(y == c), per_class, replace=False)
                          for c in (0, 1)])
    X = X[idx]
    X = (X - X.mean(0)) / X.std(0)
    return X, np.where(y[idx] == 1, 1.0, -1.0)


def ard_round(name: str, units: float = 1.0):
    """The third round of IKL over ``GaussianARD`` saved in ``tests/data/{name}.npz`` (the
    standardized training set X, y, C, the columns' scales and the warm start): the npz data,
    X in ``units`` (X·units), its squared differences per dimension and the columns' Gram
    matrices (the scales /units², the same matrices in any units)."""
    data = np.load(Path(__file__).resolve().parents[1] / "data" / f"{name}.npz")
    X = data["X"] * units
    diff2 = (X[:, None, :] - X[None, :, :]) ** 2
    return data, X, diff2, [np.exp(-diff2 @ (theta / units ** 2)) for theta in data["thetas"]]


def random_binary(seed, n=70, dim=4):
    """A noisy problem with structure at two length scales (a coarse and a fine one), so that
    optimal kernel combinations often mix several widths."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, dim))
    score = X[:, 0] + np.sin(4.0 * X[:, 1]) + 0.3 * rng.normal(size=n)
    y = np.where(score > 0, 1.0, -1.0)
    assert 0 < (y > 0).sum() < n
    return X, y


FINITE_INSTANCES = {
    "breast_cancer80": (breast_cancer_subsample, np.logspace(-3, 1, 8), 10.0),
    "random70": (lambda: random_binary(7), np.logspace(-2.5, 1, 8), 1.0),
}


@pytest.fixture(scope="module", params=sorted(FINITE_INSTANCES))
def finite_mkl(request):
    """An instance, its grid of RBF widths, C, the reference grams and the reference optimum."""
    make, gammas, C = FINITE_INSTANCES[request.param]
    X, y = make()
    grams = [rbf(X, g) for g in gammas]
    opt, alpha, lam, d = reference_mkl(grams, y, C)
    return dict(X=X, y=y, gammas=gammas, C=C, grams=grams, opt=opt, d=d)


def run_cg(master, inst):
    family = GaussianIso()
    oracle = GridOracle(candidates=[iso_param(g) for g in inst["gammas"]])
    start = [Column.make(family, iso_param(inst["gammas"][0]))]
    return ColumnGeneration(master, oracle, tol=1e-6).run(KernelSpace(inst["X"], family), start)


def grid_index(column, gammas):
    hits = np.flatnonzero(np.isclose(column.theta[0], [iso_param(g) for g in gammas],
                                     rtol=1e-9, atol=0))
    assert len(hits) == 1, f"{column} is not one of the grid kernels"
    return int(hits[0])


# -- (a) finite MKL through column generation = the full QCQP solved once -------------
def test_grid_columns_are_the_reference_kernels():
    X, _ = random_binary(0, n=20)
    family = GaussianIso()
    space = KernelSpace(X)
    for gamma in (1e-3, 0.1, 1.0, 7.5):
        np.testing.assert_allclose(space.gram(Column.make(family, iso_param(gamma))),
                                   rbf(X, gamma), rtol=1e-12, atol=1e-12)


def test_reference_formulation_is_consistent(finite_mkl):
    """Sanity of the references themselves: min_d J(K(d)) = OPT at the QCQP's own duals d,
    and the instance is not trivial (the optimum mixes several kernels)."""
    inst = finite_mkl
    d = inst["d"]
    assert (d > 1e-6).sum() >= 2
    Kd = sum(dm * K for dm, K in zip(d, inst["grams"]))
    assert rel(reference_svm(Kd, inst["y"], inst["C"]), inst["opt"]) < REL


@pytest.mark.parametrize("master_cls", [HingeMKLNewton, HingeMKLQCQP])
def test_column_generation_reaches_full_mkl_optimum(finite_mkl, master_cls):
    inst = finite_mkl
    y, C = inst["y"], inst["C"]
    res = run_cg(master_cls(y, C), inst)
    # the grid is exhaustive over the candidate list, not over the Gaussian family
    assert res.status == "converged_local", res.message
    assert rel(res.objective, inst["opt"]) < REL

    # the learned weights: a point of the simplex over grid kernels ... up to the weights that
    # the engine prunes as zero (≤ PRUNE_RTOL·max each) without renormalizing the others
    w = np.asarray(res.weights)
    assert np.all(w > 0)
    assert -1e-9 <= 1 - w.sum() <= len(inst["gammas"]) * PRUNE_RTOL * w.max() + 1e-9
    idx = [grid_index(c, inst["gammas"]) for c in res.columns]
    assert len(set(idx)) == len(idx)
    # ... whose combined kernel has SVM dual value = the objective = the full optimum
    Kd = sum(wm * inst["grams"][i] for wm, i in zip(w, idx))
    J = reference_svm(Kd, y, C)
    assert rel(J, res.objective) < REL
    assert rel(J, inst["opt"]) < REL


# -- (b) fast master = cvxpy master on random instances --------------------------------
SEEDS = range(6)
CS = (0.1, 1.0, 10.0)


@functools.lru_cache(maxsize=None)
def random_grams(seed):
    """2–5 RBF Gram matrices, each on a random subset of the features with a random width
    (10^±1.5 around the median heuristic): optimal combinations then often mix kernels."""
    rng = np.random.default_rng(100 + seed)
    X, y = random_binary(seed, n=int(rng.integers(35, 60)), dim=int(rng.integers(2, 6)))
    grams = []
    for _ in range(int(rng.integers(2, 6))):
        feats = rng.choice(X.shape[1], int(rng.integers(1, X.shape[1] + 1)), replace=False)
        Z = X[:, np.sort(feats)]
        median = np.median(cdist(Z, Z, "sqeuclidean")[np.triu_indices(len(Z), 1)])
        grams.append(rbf(Z, 10.0 ** rng.uniform(-1.5, 1.5) / median))
    return grams, y


@functools.lru_cache(maxsize=None)
def random_reference(seed, C):
    grams, y = random_grams(seed)
    return reference_mkl(grams, y, C)


def test_random_instances_mix_kernels():
    """The instances below are not all single-kernel optima (which a vertex would solve)."""
    mixed = [(random_reference(s, C)[3] > 1e-4).sum() >= 2 for s in SEEDS for C in CS]
    assert sum(mixed) >= len(mixed) // 3


@pytest.mark.parametrize("C", CS)
@pytest.mark.parametrize("seed", SEEDS)
def test_newton_master_matches_qcqp_master(seed, C):
    grams, y = random_grams(seed)
    fast = HingeMKLNewton(y, C).solve(grams)
    ref = HingeMKLQCQP(y, C).solve(grams)
    opt = random_reference(seed, C)[0]
    for sol in (fast, ref):
        assert sol.status.value == "optimal"
        assert rel(sol.objective, opt) < REL
        assert np.all(sol.weights >= 0) and abs(sol.weights.sum() - 1) < 1e-9
        assert -1e-9 <= sol.gap <= 1e-5 * max(1.0, abs(sol.objective))
    assert rel(fast.objective, ref.objective) < REL
    assert rel(fast.threshold, ref.threshold) < 1e-3


# -- (c) the gap of the fast master is a true duality gap ------------------------------
@pytest.mark.parametrize("max_steps", [0, 50], ids=["at_start", "converged"])
@pytest.mark.parametrize("seed", [1, 2])
def test_newton_gap_is_a_duality_gap(seed, max_steps):
    """With ``max_steps=0`` the master stops at its starting weights (uniform): the gap is then
    large, and must still bound the distance to the optimum from both sides."""
    grams, y = random_grams(seed)
    C = 1.0
    opt = random_reference(seed, C)[0]
    sol = HingeMKLNewton(y, C, max_steps=max_steps).solve(grams)
    d, alpha = sol.weights, sol.model.alpha

    # α is dual feasible, so (α, λ) with λ = max_m T_m(α) is feasible for the QCQP ...
    assert np.all(alpha >= 0) and np.all(alpha <= C)
    assert abs(y @ alpha) <= 1e-9 * C * len(y)
    w = alpha * y
    lam = max(0.5 * w @ K @ w for K in grams)
    lower = alpha.sum() - lam
    # ... and the objective is J(d), the SVM dual value for K(d) (a primal upper bound)
    Kd = sum(dm * K for dm, K in zip(d, grams))
    assert rel(sol.objective, reference_svm(Kd, y, C)) < 1e-6

    scale = max(1.0, abs(opt))
    assert abs(sol.threshold - lam) <= 1e-9 * scale
    assert abs((sol.objective - lower) - sol.gap) <= 1e-9 * scale
    assert sol.gap >= -1e-9
    # weak duality brackets the true optimum (slack: accuracy of the reference solver)
    assert lower <= opt + 1e-7 * scale
    assert opt <= sol.objective + 1e-7 * scale
    if max_steps == 0:
        assert sol.status.value == "iteration_limit"
        assert sol.gap > 1e-3 * scale  # an informative bound, not just ≈ 0


# -- (d) bad input -----------------------------------------------------------------------
HINGE_MASTERS = [HingeMKLNewton, HingeMKLQCQP]


@pytest.mark.parametrize("master_cls", HINGE_MASTERS)
@pytest.mark.parametrize("y", [[0.0, 1.0, 0.0, 1.0], [1.0, 2.0, 1.0, 2.0], [1.0, -1.0, np.nan, 1.0],
                               [[1.0, -1.0], [1.0, -1.0]]],
                         ids=["zero_one", "one_two", "nan", "2d"])
def test_bad_labels(master_cls, y):
    with pytest.raises(ValueError, match=r"\by\b"):
        master_cls(np.array(y), 1.0)


@pytest.mark.parametrize("master_cls", HINGE_MASTERS)
@pytest.mark.parametrize("label", [1.0, -1.0])
def test_one_class_only(master_cls, label):
    with pytest.raises(ValueError, match=r"\by\b"):
        master_cls(np.full(5, label), 1.0)


@pytest.mark.parametrize("master_cls", HINGE_MASTERS)
@pytest.mark.parametrize("C", [0.0, -1.0, np.nan, np.inf, -np.inf])
def test_bad_C(master_cls, C):
    with pytest.raises(ValueError, match=r"\bC\b"):
        master_cls(np.array([1.0, -1.0, 1.0, -1.0]), C)


# -- the Newton step's quadratic model over the simplex -------------------------------------
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e6])
def test_simplex_qp_matches_cvxpy(seed, scale):
    """The active-set solution equals cvxpy's on the unscaled data, for the data in any units
    (the minimizer does not depend on a common scale of H and b), from a start inside the
    simplex and from a vertex."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 30))
    A = rng.normal(size=(m, m // 2 + 1))
    H = A @ A.T + 1e-3 * np.eye(m)
    b = rng.normal(size=m) * 3
    x = cp.Variable(m)
    problem = cp.Problem(cp.Minimize(0.5 * cp.quad_form(x, cp.psd_wrap(H)) - b @ x),
                         [x >= 0, cp.sum(x) == 1])
    certified_solve(problem)
    for start in (np.full(m, 1.0 / m), np.eye(m)[0]):
        res = minimize_simplex_qp(scale * H, scale * b, start)
        assert res.success
        assert res.x.min() >= 0 and res.x.sum() == pytest.approx(1.0, abs=1e-12)
        assert res.fun <= scale * (problem.value + 1e-7 * abs(problem.value))
        np.testing.assert_allclose(res.x, x.value, atol=1e-5)


@pytest.mark.parametrize("seed", [1, 3, 23])
def test_newton_master_closes_the_gap_on_block_constant_kernels(seed):
    """Kernels 1[b_i = b_j] of binary features make K(d) singular, the SVM dual not unique,
    and −T(α) at libsvm's α one subgradient among many: the Newton steps stall with the gap
    open (up to 24 here) and hand the columns to the QCQP master. The result is certified by
    its own duality gap, recomputed from (α, d), and its objective is J(d) by libsvm."""
    from sipkl.solvers import solve_svm_dual
    rng = np.random.default_rng(seed)
    B = rng.integers(0, 2, (40, 4)).astype(float)
    y = np.where(B[:, 0] + B[:, 1] + rng.normal(0, 0.7, 40) > 1, 1.0, -1.0)
    grams = [np.equal.outer(b, b).astype(float) for b in B.T]
    grams.append(np.exp(-0.5 * cdist(B, B, "sqeuclidean")))
    sol = HingeMKLNewton(y, 1.0).solve(grams)
    assert sol.status.value == "optimal"
    assert any("solved by the QCQP master" in a.message for a in sol.attempts)
    T = 0.5 * np.array([(sol.model.alpha * y) @ K @ (sol.model.alpha * y) for K in grams])
    assert T.max() - sol.weights @ T <= 1e-5 * abs(sol.objective)
    J = solve_svm_dual(sum(d * K for d, K in zip(sol.weights, grams)), y, 1.0, tol=1e-10)
    np.testing.assert_allclose(sol.objective, J.objective, rtol=1e-6)


def test_newton_master_restarts_from_its_last_svm():
    """A round of column generation solves again from the last weights with the new columns
    at 0: the master starts from its last SVM instead of calling libsvm for the same K(d),
    and ends where a fresh master (and the QCQP master) ends."""
    grams, y = random_grams(5)  # 5 Gram matrices
    calls = []
    svm = CombinedSVM(dual=lambda K, *a, **k: calls.append(K) or solve_svm_dual(K, *a, **k))
    master = HingeMKLNewton(y, 1.0, svm=svm)
    k = len(grams) - 2
    first = master.solve(grams[:k])
    calls.clear()
    warm = np.append(first.weights, np.zeros(2))
    again = master.solve(grams, warm)
    again_calls = len(calls)
    fresh = HingeMKLNewton(y, 1.0, svm=svm).solve(grams, warm)
    assert len(calls) - again_calls == again_calls + 1  # one libsvm call fewer
    ref = HingeMKLQCQP(y, 1.0).solve(grams)
    for sol in (again, fresh):
        assert sol.status.value == "optimal"
        assert rel(sol.objective, ref.objective) < REL


def test_newton_master_on_repeated_samples_and_equal_columns():
    """breast-cancer, split 5 of ``ikl_table1`` (standardized training set, 11 repeated
    rows; ``tests/data/breast_cancer_split5.npz``), at the columns where IKL with C = 1 had
    added five Gaussians so narrow that each is the identity on distinct points and 1 on the
    repeated pairs: K(d) on the free support vectors is singular, LAPACK answered the KKT
    system of the Hessian with NaN and the master raised LinAlgError. It must reach the
    QCQP master's optimum from the same start."""
    from sipkl.compute.exponential import squared_distances
    data = np.load(Path(__file__).resolve().parents[1] / "data" / "breast_cancer_split5.npz")
    X, y = data["X"], data["y"]
    D = squared_distances(X, X)
    thetas = (0.05751348473151928, 186.02004557739576, 203.11725022845494, 125.0093772179066,
              117.25580169443967, 101.34113410806765)
    grams = [np.exp(-t * D) for t in thetas]
    start = np.eye(len(grams))[0]
    master = HingeMKLNewton(y, 1.0)
    master.solve(grams[:1])  # the round before: its SVM is the next solve's start
    fast = master.solve(grams, start)
    ref = HingeMKLQCQP(y, 1.0).solve(grams, start)
    assert fast.status.value == "optimal" and ref.status.value == "optimal"
    assert rel(fast.objective, ref.objective) < REL


@pytest.mark.parametrize("units", [1.0, 1e3])
def test_newton_master_backtracks_only_to_what_its_stop_resolves(units):
    """breast-cancer, split 0 of ``ikl_table1`` with C = 0.1, the third round of IKL over
    ``GaussianARD`` (``tests/data/breast_cancer_split0_ard.npz``: standardized training set,
    the 8 columns' scales, the warm start). The SVM dual is not unique there, no Newton step
    descends, and each line search halved t down to 10⁻¹⁰: hundreds of libsvm solves (459
    with the tolerance tightened once; the master tightened it twice, where it says once, to
    10⁻¹⁰, at up to 37 s a solve), and a sweep cell that ran for hours. Backtracking now
    stops where the step's first-order gain is below the stop's resolution, the tolerance is
    tightened once, one exact search runs along the Frank–Wolfe edge (J′ jumps there: it
    ends where what is left to gain is far below the stop's resolution, see
    ``EXACT_GAIN_RTOL``), and the QCQP master (the reference) answers: 30–33 libsvm solves (60
    before the exact search; 77 while it bisected the jump down to 10⁻¹² of its bracket). The
    same with X in other units (·10³, the scales /10⁶).

    Each Armijo search solves at most 1 + ⌈log₂(−slope/resolution)⌉ SVMs (t halves from 1
    while −t·slope exceeds the resolution). The total: the start, five accepted searches
    (1, 3, 1, 3, 1 solves), a failed one (15 of its 16), the tightening, the last failed
    search and the exact search — 27 solves and the last search's, which libsvm's iteration
    cap at the tightened tolerance ends after a number of steps that the rounding decides:
    measured 30–33 solves with X in units 10⁻³, 0.1, 3, 7, 10³, 10⁶ (3, 4 or 6 of 16), at
    most 27 + 16 = 43. (While the Hessian was solved through a factor of the singular K(d)
    on the free support vectors, rounding also changed the steps: 30–44 solves.)"""
    data, _, _, grams = ard_round("breast_cancer_split0_ard", units)
    y, C = data["y"], float(data["C"])
    tolerances, searches = [], []
    svm = CombinedSVM(dual=lambda K, y_, C_, tol, **k: tolerances.append(tol) or solve_svm_dual(
        K, y_, C_, tol, **k))

    class CountedSearches(HingeMKLNewton):
        """Records each line search's libsvm solves and log₂(−slope/resolution)."""

        def _line_search(self, grams, steps, direction, slope, J, resolution):
            solved = len(tolerances)
            accepted = super()._line_search(grams, steps, direction, slope, J, resolution)
            searches.append((len(tolerances) - solved, np.log2(-slope / resolution)))
            return accepted
    fast = CountedSearches(y, C, svm=svm).solve(grams, data["weights"])
    assert all(solves <= 1 + max(0, np.ceil(ratio)) for solves, ratio in searches)
    assert len(tolerances) <= 43
    assert min(tolerances) == 1e-2 * HingeMKLNewton(y, C).svm_tol
    ref = HingeMKLQCQP(y, C).solve(grams, data["weights"])
    assert fast.status.value == "optimal" and ref.status.value == "optimal"
    assert rel(fast.objective, ref.objective) < REL


@pytest.mark.parametrize("units", [1.0, 1e3])
def test_newton_steps_stalled_at_a_small_gap_are_optimal_without_the_qcqp(units, budgets):
    """Asked for a gap of 10⁻¹⁰·|J|, beyond what libsvm resolves, the Newton steps on
    libsvm's SVMs (the exact active-set solves turned off: with them J is exact and the
    steps reach that gap) stall (the line search fails also at the tightened SVM
    tolerance) at a gap far below STALLED_GAP_RTOL of the scale: the solve ends optimal,
    the stall recorded, without starting the QCQP master, and its J is the QCQP master's
    (solved afterwards); the same with X in other units (·10³, the scales /10⁶)."""
    X, y = breast_cancer_subsample()
    d2 = cdist(X * units, X * units, "sqeuclidean") / X.shape[1]
    grams = [np.exp(-s / units ** 2 * d2) for s in (0.1, 0.3, 1.0, 3.0, 10.0)]
    libsvm_only = functools.partial(HingeMKLNewton, svm=CombinedSVM(on_sets=lambda *args: None),
                                    fallback=qcqp_not_started)
    sol = libsvm_only(y, 10.0, gap_tol=1e-10).solve(grams)
    assert sol.status.value == "optimal"
    assert any("line search failed" in a.message for a in sol.attempts)
    assert "no QCQP fallback" in sol.attempts[-1].message
    scale = max(abs(sol.objective), abs(sol.threshold))
    assert 1e-10 * scale < sol.gap <= STALLED_GAP_RTOL * scale
    budgets(qcqp_fallback_max_n=10)  # above it, the same answer
    assert libsvm_only(y, 10.0, gap_tol=1e-10).solve(grams).status.value == "optimal"
    ref = HingeMKLQCQP(y, 10.0).solve(grams)
    assert ref.status.value == "optimal"
    assert rel(sol.objective, ref.objective) < REL


def test_no_qcqp_fallback_past_the_deadline():
    """On the titanic instance (below) the Newton steps stall and the QCQP master answers;
    when the deadline passes during those steps (at the deadline check the stall comes
    after, counted on a first run), the stalled weights are returned with status
    ``iteration_limit`` and the QCQP master is not started."""
    data, _, _, grams = ard_round("titanic_split1_ard")
    y, C = data["y"], float(data["C"])
    checks = []

    class Checked(HingeMKLNewton):
        """Counts its deadline checks; past from the check after ``passes_after`` on."""
        passes_after = np.inf

        def _past_deadline(self):
            checks.append(None)
            return len(checks) > self.passes_after

    answered = Checked(y, C).solve(grams, data["weights"])
    assert answered.status.value == "optimal"
    assert any("QCQP" in a.message for a in answered.attempts)
    master = Checked(y, C, fallback=qcqp_not_started)
    master.passes_after, checks[:] = len(checks) - 1, []  # the steps' checks: past at the last
    stopped = master.solve(grams, data["weights"])
    assert stopped.status.value == "iteration_limit"
    assert "no QCQP fallback" in stopped.attempts[-1].message
    assert stopped.objective >= answered.objective * (1 - 1e-9)


@pytest.mark.parametrize("passes_at", [3, 20])
def test_no_svm_solved_past_the_deadline(passes_at):
    """On the breast-cancer instance (above) the Newton steps take 26 SVMs: Armijo trials
    (the 2nd to the 5th SVM accept a step; the last line search fails from the 6th to the
    23rd), the tightened SVM and an exact search. When the deadline passes during the SVM
    number ``passes_at``, within a line search, no further SVM is solved (the line search
    does not finish: 5 and 24 SVMs when it did), and the solve ends with status
    ``iteration_limit``, no QCQP master started."""
    data, _, _, grams = ard_round("breast_cancer_split0_ard")
    y, C = data["y"], float(data["C"])
    solved = []

    def counted(*args, **kwargs):
        solved.append(None)
        if len(solved) == passes_at:
            master.deadline = -np.inf
        return combined_svm(*args, **kwargs)
    master = HingeMKLNewton(y, C, svm=counted, fallback=qcqp_not_started)
    stopped = master.solve(grams, data["weights"])
    assert len(solved) == passes_at
    assert stopped.status.value == "iteration_limit"
    assert any("time limit reached" in a.message for a in stopped.attempts)


def test_newton_master_bounds_libsvm_at_the_tightened_tolerance():
    """titanic, split 1 of ``ikl_table1`` with C = 10, the third round of IKL over
    ``GaussianARD`` (``tests/data/titanic_split1_ard.npz``, as above). 150 training points,
    13 distinct ones, several with both labels: the dual is not unique, and libsvm at the
    tightened tolerance 10⁻⁸ ran 2.8·10⁸ iterations in 22 solves (3 min for 150 points),
    where at 10⁻⁶ a solve takes at most 8·10⁴. The tightened solves now get a bounded number
    of iterations; one that runs out of them ends the steps, and the QCQP master (the
    reference) answers."""
    data, X, _, grams = ard_round("titanic_split1_ard")
    y, C = data["y"], float(data["C"])
    assert len(np.unique(X, axis=0)) < 15
    iterations = {}  # libsvm's, by tolerance

    def counted(K, y_, C_, tol, **kwargs):
        svm = solve_svm_dual(K, y_, C_, tol, **kwargs)
        iterations.setdefault(tol, []).append(svm.iterations)
        return svm

    master = HingeMKLNewton(y, C, svm=CombinedSVM(dual=counted))
    fast = master.solve(grams, data["weights"])
    tightened = iterations[1e-2 * master.svm_tol]
    assert sum(tightened) <= 100 * max(iterations[master.svm_tol])
    ref = HingeMKLQCQP(y, C).solve(grams, data["weights"])
    assert fast.status.value == "optimal" and ref.status.value == "optimal"
    assert rel(fast.objective, ref.objective) < REL


def test_newton_master_starts_from_its_last_svm_after_tightening():
    """On the titanic instance (above) the master tightens the SVM tolerance. The next round
    of column generation (a new column at weight 0) still starts from that solve's SVM (its
    sets, or on lazy Gram matrices its support as the working set: at 10 000 points a
    working set grown from scratch took 40 s a round), not from scratch, and ends at the
    QCQP master's optimum."""
    data, _, diff2, grams = ard_round("titanic_split1_ard")
    y, C = data["y"], float(data["C"])
    starts = []
    master = HingeMKLNewton(y, C, svm=lambda *a, start=None, **k: starts.append(
        start) or combined_svm(*a, start=start, **k))
    first = master.solve(grams, data["weights"])
    assert any("tightened" in a.message for a in first.attempts)
    starts.clear()
    grams.append(np.exp(-diff2 @ data["thetas"].mean(0)))
    warm = np.append(first.weights, 0.0)
    again = master.solve(grams, warm)
    assert starts[0] is not None
    ref = HingeMKLQCQP(y, C).solve(grams, warm)
    assert again.status.value == "optimal" and ref.status.value == "optimal"
    assert rel(again.objective, ref.objective) < REL


@pytest.mark.parametrize("seed", range(4))
def test_newton_master_on_active_set_svms_is_the_libsvm_master(seed):
    """The Newton master's SVMs after the first come from the active sets of the SVM before
    where they settle (libsvm answers the others: fewer libsvm calls); its J and weights are
    those of the same master on libsvm's SVMs alone (the active-set solves turned off), to
    libsvm's tolerance, and J is the QCQP master's."""
    grams, y = random_grams(seed)
    calls = []

    def counted(*args, **kwargs):
        calls.append(1)
        return solve_svm_dual(*args, **kwargs)
    fast = HingeMKLNewton(y, 10.0, svm=CombinedSVM(dual=counted)).solve(grams)
    fast_calls = len(calls)
    libsvm_only = CombinedSVM(dual=counted, on_sets=lambda *args: None)
    plain = HingeMKLNewton(y, 10.0, svm=libsvm_only).solve(grams)
    assert fast.status.value == plain.status.value == "optimal"
    assert fast_calls < len(calls) - fast_calls
    assert any(a.solver == "active_set" for a in fast.attempts)
    assert rel(fast.objective, plain.objective) < 1e-6
    np.testing.assert_allclose(fast.weights, plain.weights, atol=1e-3)
    ref = HingeMKLQCQP(y, 10.0).solve(grams)
    assert rel(fast.objective, ref.objective) < REL


@pytest.mark.parametrize("seed", [0, 3])
def test_newton_hessian_on_the_svms_factor_is_the_one_factored_again(seed):
    """The Hessian of J from the factor that the active-set SVM formed of K(d) on its free
    points (signs changed for Q = Y K Y) is the one from factoring Q_FF again, to the bit:
    the master's run is the same with the factor withheld."""
    grams, y = random_grams(seed)
    hessians = {"factors": [], "reused": [], "again": []}

    class Reusing(HingeMKLNewton):
        """Records each Hessian and whether the SVM's factor came with it."""

        def _hessian(self, K_free, Kw, d, alpha, free_factor=None):
            hessians["factors"].append(free_factor is not None)
            H = super()._hessian(K_free, Kw, d, alpha, free_factor)
            hessians["reused"].append(H)
            return H

    class FactoringAgain(HingeMKLNewton):
        """Records each Hessian, formed with the SVM's factor withheld."""

        def _hessian(self, K_free, Kw, d, alpha, free_factor=None):
            H = super()._hessian(K_free, Kw, d, alpha, None)
            hessians["again"].append(H)
            return H
    reused = Reusing(y, 10.0).solve(grams)
    again = FactoringAgain(y, 10.0).solve(grams)
    assert any(hessians["factors"])
    assert len(hessians["reused"]) == len(hessians["again"])
    for a, b in zip(hessians["reused"], hessians["again"]):
        np.testing.assert_array_equal(a, b)
    assert reused.objective == again.objective
    np.testing.assert_array_equal(reused.weights, again.weights)
