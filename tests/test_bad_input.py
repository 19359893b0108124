"""Bad input ends in a clear ValueError/TypeError (or a documented warning) naming the
argument: families, price matrices, oracles, masters, the engine, and every public estimator."""
import cvxpy as cp
import numpy as np
import pytest
from sklearn.base import BaseEstimator, is_classifier

import sipkl
from sipkl import Column, ColumnGeneration, GaussianARD, GaussianIso, PriceMatrix
from sipkl.kernel_learning.estimators.base import initial_column
from sipkl.kernel_learning.families import KernelUnion, Precomputed
from sipkl.kernel_learning.masters import AlignfMaster, HingeMKLNewton, HingeMKLQCQP
from sipkl.pricing import GridOracle, MultiStartOracle
from sipkl.kernel_learning.names import make_oracle
from sipkl.sip import Box, DiscretizedMaster, SemiInfiniteConstraint, SemiInfiniteProgram
from sipkl.solvers import maximize_box, solve_cvxpy
from sipkl.kernel_learning.space import KernelSpace

rng = np.random.default_rng(0)
X = rng.normal(size=(30, 2))
y = np.where(X[:, 0] + 0.3 * rng.normal(size=30) > 0, 1.0, -1.0)
PSD = X @ X.T
INDEFINITE = np.diag([1.0, 1.0, -1.0])
SLIGHTLY = np.diag([1.0, 1.0, -1e-9])


class NaNMaster:
    def solve(self, grams, warm_start):
        sol = HingeMKLNewton(y, 1.0).solve(grams, warm_start)
        sol.objective = float("nan")
        return sol


def _run(master=None, oracle=None, columns="default", weights=None):
    engine = ColumnGeneration(master or HingeMKLNewton(y, 1.0), oracle or GridOracle())
    start = [initial_column(GaussianIso(), X)] if columns == "default" else columns
    return engine.run(KernelSpace(X, GaussianIso()), start, weights=weights)


TWO = [Column.make(GaussianIso(), 1.0), Column.make(GaussianIso(), 4.0)]

_v = cp.Variable()
SIP_PARTS = (cp.Minimize(_v), [SemiInfiniteConstraint(lambda v, t: t[0] - v, _v,
                                                      Box([0.0], [1.0]))])

#: every place that takes a list of cvxpy solvers, called with ``solvers``
TAKE_SOLVERS = {
    "solve_cvxpy": lambda solvers: solve_cvxpy(cp.Problem(cp.Minimize(_v), [_v >= 0]), solvers),
    "HingeMKLQCQP": lambda solvers: HingeMKLQCQP(y, 1.0, solvers=solvers),
    "AlignfMaster": lambda solvers: AlignfMaster(y, solvers=solvers),
    "DiscretizedMaster": lambda solvers: DiscretizedMaster(*SIP_PARTS, solvers=solvers),
    "SemiInfiniteProgram.solve": lambda solvers: SemiInfiniteProgram(*SIP_PARTS).solve(
        solvers=solvers),
    "SemiInfiniteProgram.solve_discretized": lambda solvers: SemiInfiniteProgram(
        *SIP_PARTS).solve_discretized(solvers=solvers),
}


@pytest.mark.parametrize("call", TAKE_SOLVERS.values(), ids=TAKE_SOLVERS.keys())
def test_solvers_is_a_list_of_known_names(call):
    """A string is refused (one solver is a list of one name), and so is a name cvxpy does
    not know, the error naming the argument and the solvers it knows."""
    with pytest.raises(TypeError, match=r"solvers must be a list .*got 'CLARABEL'"):
        call("CLARABEL")
    with pytest.raises(ValueError, match=r"solvers: unknown \['CLARABLE'\]; cvxpy knows "
                                         r"\[.*'CLARABEL'.*\]"):
        call(["CLARABLE"])


FAMILY_AND_ENGINE = [
    (lambda: GaussianIso(bounds=(1.0, 0.0)).param_bounds(2), ValueError, "bounds"),
    (lambda: GaussianIso(bounds=(-1.0, 1.0)).param_bounds(2), ValueError, "bounds"),
    (lambda: GaussianIso(bounds=(0.0, np.nan)).param_bounds(2), ValueError, "bounds"),
    (lambda: GaussianIso(bounds="ab").param_bounds(2), TypeError, "bounds"),
    (lambda: GaussianARD(n_features=3).gram(np.ones(3), X), ValueError, "n_features"),
    (lambda: GaussianIso().gram([1.0, 2.0], X), ValueError, "theta"),
    (lambda: GaussianIso().gram([np.nan], X), ValueError, "theta"),
    (lambda: Precomputed([]), ValueError, "kernels"),
    (lambda: Precomputed(np.ones((2, 3, 4))), ValueError, "kernels"),
    (lambda: Precomputed([np.ones((3, 2))]), ValueError, "kernels"),
    (lambda: Precomputed([PSD, PSD[:5, :5]]), ValueError, "kernels"),
    (lambda: Precomputed([np.triu(PSD)]), ValueError, "kernels"),
    (lambda: Precomputed([INDEFINITE]), ValueError, "kernels"),
    (lambda: Precomputed([PSD, lambda A, B: A @ B.T]), TypeError, "kernels"),
    (lambda: Precomputed([lambda A, B: np.ones((2, 2))]).gram([0], X), ValueError, "kernels"),
    (lambda: Precomputed([lambda A, B: np.full((len(A), len(B)), np.nan)]).gram([0], X),
     ValueError, "kernels"),
    (lambda: Precomputed([PSD]).gram([0], X), ValueError, "X"),
    (lambda: Precomputed([PSD]).gram([0], np.array([[0.5], [1.0]])), ValueError, "X"),
    (lambda: KernelUnion([]), TypeError, "families"),
    (lambda: PriceMatrix(dense=np.triu(np.ones((3, 3)))), ValueError, "symmetric"),
    (lambda: PriceMatrix(factor=np.ones((3, 2)), signs=[1.0]), ValueError, "signs"),
    (lambda: PriceMatrix(), ValueError, "factor"),
    (lambda: HingeMKLNewton(np.where(y > 0, 1.0, 0.0), 1.0), ValueError, "y"),
    (lambda: HingeMKLNewton(np.ones(30), 1.0), ValueError, "y"),
    (lambda: HingeMKLNewton(y, 0.0), ValueError, "C"),
    (lambda: maximize_box(lambda x: (0.0, x), [[0.0]], [0.0], [1.0], method="nope"),
     ValueError, "method"),
    (lambda: make_oracle("nope"), ValueError, "oracle"),
    (lambda: make_oracle(object()), TypeError, "oracle"),
    (lambda: ColumnGeneration(object(), GridOracle()), TypeError, "master"),
    (lambda: ColumnGeneration(HingeMKLNewton(y, 1.0), object()), TypeError, "oracle"),
    (lambda: _run(columns=[]), ValueError, "columns"),
    (lambda: _run(columns=TWO, weights=[1.0]), ValueError, "weights"),
    (lambda: _run(columns=TWO, weights=[1.0, -0.5]), ValueError, "weights"),
    (lambda: _run(columns=TWO, weights=[np.nan, 1.0]), ValueError, "weights"),
    (lambda: _run(columns=TWO[:1] * 2, weights=[0.5, 0.5]), ValueError, "weights"),
    (lambda: ColumnGeneration(HingeMKLNewton(y, 1.0), MultiStartOracle()).run(
        KernelSpace(np.arange(30.0)[:, None], Precomputed([PSD])),
        [initial_column(Precomputed([PSD]), np.arange(30.0)[:, None])]), ValueError, "grid"),
    (lambda: _run(master=NaNMaster()), RuntimeError, "master"),
]


@pytest.mark.parametrize("call, error, match", FAMILY_AND_ENGINE)
def test_family_engine_and_solver_inputs(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_slightly_indefinite_matrix_warns_with_its_eigenvalue():
    with pytest.warns(UserWarning, match="-1e-09"):
        Precomputed([SLIGHTLY])


def test_master_returning_nan_later_stops_with_the_best_iterate():
    class NaNSecond:
        calls = 0

        def solve(self, grams, warm_start):
            self.calls += 1
            sol = HingeMKLNewton(y, 1.0).solve(grams, warm_start)
            if self.calls == 2:
                sol.weights = np.full_like(sol.weights, np.nan)
            return sol

    res = ColumnGeneration(NaNSecond(), MultiStartOracle(), random_state=0).run(
        KernelSpace(X, GaussianARD()), [initial_column(GaussianARD(), X)])
    assert res.status == "master_failed" and np.all(np.isfinite(res.weights))


ESTIMATORS = [getattr(sipkl, name) for name in sipkl.__all__
              if isinstance(getattr(sipkl, name), type)
              and issubclass(getattr(sipkl, name), BaseEstimator)]


def _data(estimator):
    return (X, y.astype(int)) if is_classifier(estimator) else (X, X[:, 0] + 0.1 * X[:, 1])


BAD_DATA = [
    ("NaN", lambda X, y: (np.where(np.eye(*X.shape) > 0, np.nan, X), y), ValueError, "NaN"),
    ("inf", lambda X, y: (np.where(np.eye(*X.shape) > 0, np.inf, X), y), ValueError, "infinity"),
    ("lengths", lambda X, y: (X[:-3], y), ValueError, "inconsistent"),
    ("empty", lambda X, y: (X[:0], y[:0]), ValueError, "0 sample"),
    ("strings", lambda X, y: (np.full(X.shape, "a"), y), ValueError, "convert"),
    ("3-D X", lambda X, y: (X[:, :, None], y), ValueError, "dim"),
]


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("name, corrupt, error, match", BAD_DATA, ids=[b[0] for b in BAD_DATA])
def test_estimators_reject_bad_data(est, name, corrupt, error, match):
    estimator = est()
    Xb, yb = corrupt(*_data(estimator))
    with pytest.raises(error, match=match):
        estimator.fit(Xb, yb)


@pytest.mark.parametrize("est", [e for e in ESTIMATORS if is_classifier(e())],
                         ids=lambda c: c.__name__)
def test_classifiers_reject_one_class_and_mixed_labels(est):
    with pytest.raises(ValueError, match="class"):
        est().fit(X, np.ones(len(X), dtype=int))
    with pytest.raises((ValueError, TypeError), match="(?i)mix|label|type"):
        est().fit(X[:4], np.array(["a", 1, "b", 2], dtype=object))


COMMON_PARAMS = [("C", 0.0), ("C", -1.0), ("tol", 0.0), ("tol", -1.0), ("time_limit", 0.0),
                 ("max_iter", 0), ("family", 3), ("family", "nope"), ("oracle", object()),
                 ("oracle", "nope")]


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("param, value", COMMON_PARAMS)
def test_estimators_name_the_bad_parameter(est, param, value):
    estimator = est()
    if param not in estimator.get_params():
        pytest.skip(f"{est.__name__} has no parameter {param}")
    with pytest.raises((ValueError, TypeError), match=param):
        estimator.set_params(**{param: value}).fit(*_data(estimator))


def _assert_unchanged(estimator, before, predictions):
    """``estimator`` holds the very attributes ``before`` and predicts ``predictions`` on X."""
    assert vars(estimator).keys() == before.keys()
    assert all(vars(estimator)[name] is value for name, value in before.items())
    np.testing.assert_array_equal(estimator.predict(X), predictions)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_rejected_warm_start_leaves_the_fitted_estimator_as_it_was():
    clf = sipkl.IKLClassifier(family=GaussianARD(), oracle="grid", max_iter=2, warm_start=True,
                              random_state=0).fit(X, y)
    before, predictions = dict(vars(clf)), clf.predict(X)
    with pytest.raises(ValueError, match="warm_start"):  # ARD scales of 2 features, not 3
        clf.fit(np.column_stack([X, X[:, 0]]), y)
    _assert_unchanged(clf, before, predictions)
    with pytest.raises(ValueError, match="warm_start: the classes"):
        clf.fit(X, np.arange(len(X)) % 3)
    _assert_unchanged(clf, before, predictions)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("est", [e for e in ESTIMATORS if is_classifier(e())],
                         ids=lambda c: c.__name__)
def test_a_rejected_fit_leaves_the_fitted_classifier_as_it_was(est):
    """Rejected after its data passed validation: one class on 3 features."""
    estimator = est(max_iter=2, oracle="grid").fit(X, y.astype(int))
    before, predictions = dict(vars(estimator)), estimator.predict(X)
    with pytest.raises(ValueError, match="1 class"):
        estimator.fit(np.ones((5, 3)), np.zeros(5, dtype=int))
    _assert_unchanged(estimator, before, predictions)
