"""Contracts every public estimator keeps: determinism, persistence (JSON + NPZ and pickle),
non-negative kernel weights. The list is discovered from ``sipkl.__all__``, so estimators
added later are covered without editing this file."""
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, is_classifier
from sklearn.exceptions import ConvergenceWarning

import sipkl
from sipkl.persistence import load_model, save_model

ESTIMATORS = [getattr(sipkl, name) for name in sipkl.__all__
              if isinstance(getattr(sipkl, name), type)
              and issubclass(getattr(sipkl, name), BaseEstimator)]

rng = np.random.default_rng(1)
X = rng.normal(size=(40, 3))
Y_CLASS = np.where(X[:, 0] * X[:, 1] + 0.2 * rng.normal(size=40) > 0, 1, 0)
Y_REG = np.sin(X[:, 0]) + 0.1 * X[:, 2]


def fitted(cls, seed=0):
    estimator = cls(random_state=seed)
    if "max_iter" in estimator.get_params():
        estimator.set_params(max_iter=4)
    with warnings.catch_warnings():  # runs cut short by max_iter=4 warn, as they should
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, Y_CLASS if is_classifier(estimator) else Y_REG)


def outputs(estimator):
    if hasattr(estimator, "decision_function"):
        return estimator.decision_function(X)
    return estimator.predict(X)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_same_random_state_same_model(cls):
    a, b = fitted(cls), fitted(cls)
    kernels_a = a.kernel_ if isinstance(a.kernel_, list) else [a.kernel_]
    kernels_b = b.kernel_ if isinstance(b.kernel_, list) else [b.kernel_]
    for ka, kb in zip(kernels_a, kernels_b):
        assert [c.theta for c in ka.columns] == [c.theta for c in kb.columns]
        np.testing.assert_array_equal(ka.weights, kb.weights)
        assert np.all(ka.weights >= 0)
    np.testing.assert_array_equal(outputs(a), outputs(b))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_save_load_and_pickle_predict_the_same(cls, tmp_path):
    estimator = fitted(cls)
    save_model(estimator, tmp_path / "model.json")
    for again in (load_model(tmp_path / "model.json"), pickle.loads(pickle.dumps(estimator))):
        assert type(again) is cls
        # equal up to round-off: the loaded points are a copy of X, and squared_distances
        # zeroes the diagonal exactly only when both arguments are the same array
        np.testing.assert_allclose(outputs(again), outputs(estimator), rtol=1e-12, atol=1e-12)
        if is_classifier(estimator):
            np.testing.assert_array_equal(again.predict(X), estimator.predict(X))
