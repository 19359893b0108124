"""One name registry: every family, oracle, master and estimator the package exports has a
name; the estimators, the command line and persistence read the same tables; families compare,
hash and serialize by their constructor arguments."""
import json

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.datasets import make_moons
from sklearn.model_selection import cross_val_score

import sipkl
import sipkl.kernel_learning.masters
import sipkl.pricing
from sipkl.kernel_learning.dc_oracle import DCGaussianOracle
from sipkl.apps import cli
from sipkl.kernel_learning import names as registry
from sipkl.kernel_learning.estimators.alignment import AlignmentKernelEstimator
from sipkl.kernel_learning.estimators.ikl import IKLClassifier
from sipkl.kernel_learning.families import GaussianIso, KernelUnion, Polynomial
from sipkl.persistence import family_from_dict, family_to_dict, load_model, save_model


def _exported(module, base):
    return {getattr(module, name) for name in module.__all__
            if isinstance(getattr(module, name), type) and issubclass(getattr(module, name), base)}


def test_every_exported_family_oracle_master_and_estimator_has_a_name():
    families = _exported(sipkl, sipkl.KernelFamily) - {sipkl.KernelFamily}
    assert families <= set(registry.FAMILIES.values())
    oracles = {cls for cls in _exported(sipkl.pricing, object) if hasattr(cls, "price")}
    oracles.add(DCGaussianOracle)
    assert oracles == set(registry.ORACLES.values())
    assert _exported(sipkl.kernel_learning.masters, object) == set(registry.MASTERS.values())
    estimators = _exported(sipkl, BaseEstimator)
    assert {cls.__name__: cls for cls in estimators} == registry.ESTIMATORS


def test_cli_choices_are_the_registry_names():
    parser = cli.build_parser()
    fit = parser._subparsers._group_actions[0].choices["fit"]
    choices = {action.dest: action.choices for action in fit._actions}
    assert choices["family"] == registry.buildable(registry.FAMILIES)
    assert choices["oracle"] == registry.buildable(registry.ORACLES)
    assert set(registry.buildable(registry.FAMILIES)) == set(registry.FAMILIES) - {
        "precomputed", "union"}
    for (classifier, regressor), _ in cli.METHODS.values():
        assert {classifier, regressor} - {None} <= set(registry.ESTIMATORS)


def test_estimators_accept_every_name_of_the_registry():
    for cls in registry.ESTIMATORS.values():
        constraints = cls._parameter_constraints
        names = [c for c in constraints["family"] if hasattr(c, "options")][0].options
        assert names == set(registry.FAMILIES)
        names = [c for c in constraints["oracle"] if hasattr(c, "options")][0].options
        assert names == set(registry.ORACLES)
    for cls in (IKLClassifier, AlignmentKernelEstimator):
        assert cls._parameter_constraints["master"][0].options <= set(registry.MASTERS)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", ["dirichlet", "laplacian", "gaussian_separate"])
def test_a_family_by_name_is_the_family_object(name):
    X, y = make_moons(30, noise=0.2, random_state=0)
    by_name = IKLClassifier(family=name, oracle="grid", max_iter=2).fit(X, y)
    by_object = IKLClassifier(family=registry.FAMILIES[name](), oracle="grid", max_iter=2)
    by_object.fit(X, y)
    assert by_name.kernel_.columns == by_object.kernel_.columns
    np.testing.assert_array_equal(by_name.decision_function(X), by_object.decision_function(X))


@pytest.mark.parametrize("make, kind, table", [
    (registry.make_family, "family", registry.FAMILIES),
    (registry.make_oracle, "oracle", registry.ORACLES)])
def test_unknown_names_list_the_valid_ones(make, kind, table):
    with pytest.raises(ValueError, match=kind) as error:
        make("nope")
    assert all(repr(name) in str(error.value) for name in table)


@pytest.mark.parametrize("kind, name, needs", [
    ("family", "precomputed", "kernels"), ("family", "union", "families"),
    ("oracle", "chain", "oracles")])
def test_names_that_need_arguments_say_which(kind, name, needs):
    make = {"family": registry.make_family, "oracle": registry.make_oracle}[kind]
    with pytest.raises(ValueError, match=f"{kind} '{name}'.*needs {needs}"):
        make(name)
    X, y = make_moons(20, random_state=0)
    with pytest.raises(ValueError, match=needs):
        IKLClassifier(**{kind: name}).fit(X, y)


@pytest.mark.parametrize("name", registry.buildable(registry.FAMILIES))
def test_families_compare_hash_and_serialize_by_their_arguments(name):
    family = registry.make_family(name)
    again = type(family)(**family.get_params())
    assert again == family and hash(again) == hash(family) and again is not family
    assert family_from_dict(json.loads(json.dumps(family_to_dict(family)))) == family
    assert {family: 1}[again] == 1


def test_family_equality_is_by_value_of_the_arguments():
    assert GaussianIso((0, 900)) == GaussianIso([0.0, 900.0])
    assert hash(GaussianIso((0, 900))) == hash(GaussianIso(np.array([0.0, 900.0])))
    assert GaussianIso((0.0, 1.0)) != GaussianIso((0.0, 2.0))
    assert GaussianIso(features=(0,)) != GaussianIso(features=(1,))
    assert Polynomial(degree=2) != Polynomial(degree=3)
    assert GaussianIso() != sipkl.Laplacian()
    union = KernelUnion([GaussianIso(), Polynomial(3)])
    assert union == KernelUnion([GaussianIso(), Polynomial(3)])
    assert union != KernelUnion([GaussianIso(), Polynomial(2)])
    assert family_from_dict(family_to_dict(union)) == union


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_model_saved_under_an_earlier_class_name_loads(tmp_path, edit_model):
    X, y = make_moons(30, noise=0.2, random_state=0)
    model = sipkl.AlignmentKernelClassifier(oracle="grid", max_iter=2).fit(X, y)
    path = tmp_path / "model.json"
    save_model(model, path)
    edit_model(path, estimator="FSAMAlignmentClassifier")
    again = load_model(path)
    assert type(again) is sipkl.AlignmentKernelClassifier
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    edit_model(path, estimator="Nope")
    with pytest.raises(ValueError, match="unknown estimator 'Nope'.*IKLClassifier"):
        load_model(path)


class Narrow(GaussianIso):
    """A family of one's own: a Gaussian over a box given by two numbers."""

    def __init__(self, low=0.5, high=2.0):
        super().__init__(bounds=(low, high))
        self.low, self.high = low, high


def test_a_family_of_ones_own_is_read_back_once_it_has_a_name(monkeypatch):
    document = json.loads(json.dumps(family_to_dict(Narrow(1.0, 3.0))))
    assert document == {"type": "Narrow", "params": {"low": 1.0, "high": 3.0}}
    with pytest.raises(ValueError, match="unknown kernel family 'Narrow'"):
        family_from_dict(document)
    monkeypatch.setitem(registry.FAMILIES, "narrow", Narrow)
    again = family_from_dict(document)
    assert again == Narrow(1.0, 3.0) and again != Narrow(1.0, 4.0)
    assert again.param_bounds(1)[1][0] == 3.0


@pytest.mark.parametrize("name", registry.buildable(registry.FAMILIES) + ["union"])
def test_an_estimator_holding_any_family_clones(name):
    """scikit-learn's ``clone`` (GridSearchCV, cross_val_score) calls the family's
    ``get_params(deep=False)`` and rebuilds it from those arguments."""
    family = (KernelUnion([GaussianIso(), Polynomial(3)]) if name == "union"
              else registry.make_family(name))
    estimator = IKLClassifier(family=family, C=3.0)
    copy = clone(estimator)
    assert copy.family == family and copy.family is not family and copy.C == 3.0


def test_cross_validation_over_an_estimator_with_a_family_instance():
    X, y = make_moons(60, noise=0.2, random_state=0)
    scores = cross_val_score(IKLClassifier(family=GaussianIso(), oracle="grid", max_iter=3), X,
                             y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.5)
