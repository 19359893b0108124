"""IKLClassifier end to end: termination certificate on a dense grid, scikit-learn contract."""
import numpy as np
import pytest
from sklearn.datasets import load_iris, make_moons
from sklearn.utils.estimator_checks import check_estimator

from sipkl import GaussianARD, GaussianIso, IKLClassifier
from sipkl.kernel_learning.estimators.base import OBJ_TOL, resolve_obj_tol
from sipkl.kernel_learning.families.others import Precomputed
from sipkl.kernel_learning.masters.hinge import HingeMKLNewton, HingeMKLQCQP
from sipkl.kernel_learning.dc_oracle import DCGaussianOracle
from sipkl.pricing import GridOracle, MultiStartOracle, OracleChain


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(120, noise=0.25, random_state=0)
    return X, np.where(y == 1, 1, -1)


@pytest.mark.parametrize("master", ["newton", pytest.param("qcqp", marks=pytest.mark.slow)])
def test_ikl_terminates_with_no_violated_column_on_a_dense_grid(moons, master):
    X, y = moons
    clf = IKLClassifier(family=GaussianIso(), C=10.0, obj_tol=0.0, tol=1e-4, master=master,
                        random_state=0).fit(X, y)
    res = clf.result_
    assert res.status == "converged_local", res.message
    # Independent check: evaluate T(s; α) = ½ Σ α_i α_j y_i y_j exp(−s ‖x_i − x_j‖²) on a
    # dense grid over the whole box, from α alone.
    w = res.master.model.alpha * y
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    grid = np.concatenate([[0.0], np.geomspace(1e-4, 900.0, 20000)])
    T = np.array([0.5 * w @ np.exp(-s * d2) @ w for s in grid])
    assert T.max() <= res.threshold * (1 + 1e-4)
    # and the master is optimal for its columns: complementary slackness d_m (λ − T_m) = 0 to
    # the accuracy of an interior-point master (whose zero weights are ~1e-6), and every
    # column of a clearly positive weight prices at λ
    slack = res.weights * (res.threshold - res.master.column_prices)
    assert np.all(np.abs(slack) <= 1e-6 * res.threshold), slack
    positive = res.weights > 1e-3 * res.weights.max()
    np.testing.assert_allclose(res.master.column_prices[positive], res.threshold, rtol=1e-3)


def test_the_certified_oracle_certifies_by_default():
    """The getting-started example with oracle="dc": obj_tol="auto" turns the objective-stall
    rule off, so the run ends on the DC bound; an explicit obj_tol=1e-4 stops it earlier."""
    X, y = make_moons(200, noise=0.2, random_state=0)
    clf = IKLClassifier(family=GaussianIso(), C=10.0, oracle="dc", random_state=0).fit(X, y)
    res = clf.result_
    assert res.status == "certified_optimal", res.message
    w = res.master.model.alpha * np.where(y == 1, 1.0, -1.0)
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    grid = np.concatenate([[0.0], np.geomspace(1e-4, 900.0, 4000)])
    assert max(0.5 * w @ np.exp(-s * d2) @ w for s in grid) <= res.threshold * (1 + 1e-4)
    stalled = IKLClassifier(family=GaussianIso(), C=10.0, oracle="dc", obj_tol=1e-4,
                            random_state=0).fit(X, y)
    assert stalled.result_.status == "objective_stalled"


@pytest.mark.parametrize("oracle, family, expected", [
    (MultiStartOracle(), GaussianIso(), OBJ_TOL), (DCGaussianOracle(), GaussianIso(), 0.0),
    (OracleChain([MultiStartOracle(), DCGaussianOracle()]), GaussianIso(), 0.0),
    (OracleChain([DCGaussianOracle(), MultiStartOracle()]), GaussianIso(), OBJ_TOL),
    (GridOracle(), GaussianIso(), OBJ_TOL),
    (GridOracle(), Precomputed([np.eye(3)]), 0.0),
    (GridOracle(candidates=[[0]]), Precomputed([np.eye(3)]), OBJ_TOL)])
def test_obj_tol_auto_is_off_exactly_for_oracles_that_prove_their_bound(oracle, family,
                                                                        expected):
    assert resolve_obj_tol("auto", oracle, family, 2) == expected
    assert resolve_obj_tol(0.05, oracle, family, 2) == 0.05


def test_ikl_history_and_learned_kernel(moons):
    X, y = moons
    clf = IKLClassifier(C=1.0, random_state=0).fit(X, y)
    h = clf.result_.history
    assert len(h["objective"]) == clf.n_iter_
    assert np.all(np.diff(h["objective"]) <= 1e-6 * abs(h["objective"][0]))  # totally corrective
    K = clf.kernel_(X)
    assert K.shape == (len(X), len(X))
    np.testing.assert_allclose(K, K.T)
    assert np.isclose(clf.kernel_.weights.sum(), 1.0) and np.all(clf.kernel_.weights > 0)
    # the learned kernel is usable by scikit-learn and reproduces the decision function
    from sklearn.svm import SVC
    svc = SVC(kernel="precomputed", C=1.0, tol=1e-8).fit(K, y)
    agree = np.mean(svc.predict(clf.kernel_(X[:40], X)) == clf.predict(X[:40]))
    assert agree >= 0.95


def test_multiclass_iris():
    X, y = load_iris(return_X_y=True)
    clf = IKLClassifier(C=10.0, random_state=0).fit(X, y)
    assert clf.score(X, y) > 0.95
    assert len(clf.kernel_) == 3 and len(clf.result_) == 3
    assert clf.decision_function(X).shape == (150, 3)


def test_warm_start_from_a_certified_fit_certifies_in_one_round():
    """The fit of the test above, continued: started from its own columns, the first master
    has its objective and the DC bound proves it at once."""
    X, y = make_moons(200, noise=0.2, random_state=0)
    clf = IKLClassifier(family=GaussianIso(), C=10.0, oracle="dc", random_state=0).fit(X, y)
    first = clf.result_
    clf.set_params(warm_start=True).fit(X, y)
    assert clf.result_.status == "certified_optimal" and clf.n_iter_ == 1
    assert clf.result_.objective == pytest.approx(first.objective, rel=1e-6)
    assert set(clf.kernel_.columns) <= set(first.columns)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_warm_start_continues_from_a_subsample_fit(moons):
    """Fitted on a subsample, then on all points: the first master is the MKL SVM of all
    points over the subsample's columns, solved here by the QCQP master on dense matrices."""
    X, y = moons
    part = IKLClassifier(family=GaussianARD(), C=10.0, max_iter=3, random_state=0).fit(
        X[::3], y[::3])
    columns = list(part.kernel_.columns)
    whole = part.set_params(warm_start=True, max_iter=2).fit(X, y)
    grams = [np.exp(-(((X[:, None, :] - X[None, :, :]) ** 2) * np.asarray(c.theta)).sum(-1))
             for c in columns]
    reference = HingeMKLQCQP(y, 10.0).solve(grams)
    assert whole.result_.history["objective"][0] == pytest.approx(reference.objective,
                                                                   rel=1e-5)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_warm_start_begins_at_the_learned_weights(moons, monkeypatch):
    """The first master of a continued fit starts from the previous fit's columns and their
    weights (as the engine's ``weights``), a fresh fit from the default point alone."""
    X, y = moons
    clf = IKLClassifier(family=GaussianARD(), C=10.0, max_iter=3, random_state=0).fit(X, y)
    starts = []
    solve = HingeMKLNewton.solve

    def recorded(self, grams, warm_start=None):
        starts.append(warm_start)
        return solve(self, grams, warm_start)
    monkeypatch.setattr(HingeMKLNewton, "solve", recorded)
    learned = np.asarray(clf.kernel_.weights)
    clf.set_params(warm_start=True, max_iter=1).fit(X, y)
    np.testing.assert_array_equal(starts[0], learned)
    starts.clear()
    clf.set_params(warm_start=False).fit(X, y)
    assert starts[0] is None


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("change, match", [
    (lambda X, y: (X, np.where(y > 0, 2, -1)), "classes"),
    (lambda X, y: (np.column_stack([X, X[:, :1]]), y), "features")])
def test_warm_start_refuses_another_problem(moons, change, match):
    X, y = moons
    clf = IKLClassifier(family=GaussianARD(), C=1.0, max_iter=1, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=f"warm_start.*{match}"):
        clf.set_params(warm_start=True).fit(*change(X, y))


def test_callback_stop_iteration_keeps_best_iterate(moons):
    X, y = moons
    seen = []

    def stop_after_two(intermediate):
        seen.append(intermediate.objective)
        if len(seen) == 2:
            raise StopIteration

    clf = IKLClassifier(C=10.0, callback=stop_after_two, obj_tol=0.0, random_state=0).fit(X, y)
    assert clf.result_.status == "callback" and clf.n_iter_ == 2
    assert clf.result_.objective == seen[-1]
    assert clf.predict(X).shape == (len(X),)


def test_max_iter_status(moons):
    X, y = moons
    clf = IKLClassifier(C=10.0, max_iter=1, obj_tol=0.0, random_state=0).fit(X, y)
    assert clf.result_.status in ("iteration_limit", "converged_local")
    assert clf.n_iter_ == 1


def test_verbose_prints_one_line_per_iteration(moons, capsys):
    X, y = moons
    clf = IKLClassifier(C=1.0, verbose=1, random_state=0).fit(X, y)
    lines = [l for l in capsys.readouterr().out.splitlines() if l.startswith("iter")]
    assert len(lines) == clf.n_iter_
    clf.set_params(verbose=0).fit(X, y)
    assert capsys.readouterr().out == ""


def test_same_random_state_same_model(moons):
    X, y = moons
    a = IKLClassifier(family=GaussianARD(), random_state=3).fit(X, y)
    b = IKLClassifier(family=GaussianARD(), random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.kernel_.weights, b.kernel_.weights)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_precomputed_family_with_indices(moons):
    X, y = moons
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    family = Precomputed([np.exp(-g * d2) for g in (0.1, 1.0, 10.0)])
    idx = np.arange(len(X))[:, None]
    clf = IKLClassifier(family=family, oracle="grid", C=1.0, obj_tol=0.0).fit(idx[:80], y[:80])
    assert clf.result_.status == "certified_optimal"  # the whole finite family was enumerated
    assert clf.result_.upper_bound <= clf.result_.threshold * (1 + clf.tol)
    assert clf.score(idx[80:], y[80:]) > 0.8


def test_check_estimator():
    check_estimator(IKLClassifier(max_iter=5))


BAD = [
    ({"C": 0}, "C"), ({"C": -1.0}, "C"), ({"C": np.nan}, "C"), ({"tol": 0}, "tol"),
    ({"tol": -1e-3}, "tol"), ({"max_iter": 0}, "max_iter"), ({"n_price": 0}, "n_price"),
    ({"time_limit": -1.0}, "time_limit"), ({"obj_tol": 2.0}, "obj_tol"),
    ({"obj_tol": "off"}, "obj_tol"),
    ({"oracle": "nope"}, "oracle"), ({"master": "nope"}, "master"), ({"family": "nope"}, "family"),
    ({"family": GaussianIso(bounds=(2.0, 1.0))}, "bounds"),
    ({"family": GaussianIso(bounds=(-1.0, 1.0))}, "bounds"),
]


@pytest.mark.parametrize("params, name", BAD)
def test_bad_parameters_name_the_argument(moons, params, name):
    X, y = moons
    with pytest.raises(ValueError, match=name):
        IKLClassifier(**params).fit(X, y)


def test_bad_types_name_the_argument(moons):
    X, y = moons
    with pytest.raises(TypeError, match="family"):
        IKLClassifier(family=3).fit(X, y)
    with pytest.raises(TypeError, match="oracle"):
        IKLClassifier(oracle=object()).fit(X, y)


@pytest.mark.parametrize("X, y, match", [
    (np.array([[0.0, np.nan], [1.0, 0.0]]), [0, 1], "NaN"),
    (np.array([[0.0, np.inf], [1.0, 0.0]]), [0, 1], "infinity"),
    (np.zeros((3, 2)), [0, 1], "inconsistent"),
    (np.zeros((0, 2)), [], "0 sample"),
    (np.random.default_rng(0).normal(size=(6, 2)), [1] * 6, "1 class"),
    (np.array([["a", "b"], ["c", "d"]]), [0, 1], "convert"),
])
def test_bad_data(X, y, match):
    with pytest.raises(ValueError, match=match):
        IKLClassifier().fit(X, y)
