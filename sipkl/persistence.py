"""Persistence without pickle: kernel families, learned kernels, fitted models (JSON + NPZ)
and engine checkpoints (JSON).

Every document carries a ``schema`` name and a ``version``; an unknown schema or version,
or a document whose content does not validate, is rejected with a ``ValueError``. A family
is written as its class name and constructor arguments
(:meth:`~sipkl.kernel_learning.families.base.KernelFamily.get_params`), a model as its estimator's class name;
both classes are found again through :mod:`sipkl.kernel_learning.names`. Files are written through a
temporary file and a rename (:func:`~sipkl.utils.documents.atomic_write`), with the permissions
``open`` gives a new file.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import warnings

import numpy as np
from sklearn.base import is_classifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_is_fitted

from .core import checkpoint
from .core.contracts import Column
from .kernel_learning.expansion import KernelExpansion, LandmarkExpansion
from .kernel_learning.families import KernelFamily, LearnedKernel
from .kernel_learning.families.base import column_to_dict, family_to_dict, json_value  # noqa: F401 (re-export)
from .kernel_learning.names import ESTIMATORS, FAMILIES
from .utils.documents import atomic_write, check_document, document, read_json, write_json_atomic

#: version of ``sipkl.model`` documents: 3 names its array file (named by its content) and
#: carries the SHA-256 of its own content; 2 may carry a standardization (a reader of version
#: 1 would ignore it and predict on unscaled data, hence the new number); 1 and 2 are still
#: read (their array file is the model file's name + ``.npz``, their JSON has no checksum)
MODEL_VERSION = 3
MODEL_VERSIONS = (1, 2, 3)
#: the fitted arrays of a ``StandardScaler`` kept with a model (``None`` ones are skipped)
SCALER_ARRAYS = ("mean_", "var_", "scale_", "n_samples_seen_")
#: estimators saved under an earlier class name -> their class name now
RENAMED = {"FSAMAlignmentClassifier": "AlignmentKernelClassifier",
           "FSAMAlignmentRegressor": "AlignmentKernelRegressor"}


def _decode(value):
    if isinstance(value, dict):
        return family_from_dict(value)
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def family_from_dict(data: dict) -> KernelFamily:
    """Inverse of :func:`family_to_dict`. The class must be one of
    :data:`sipkl.kernel_learning.names.FAMILIES`; a family class of your own is read once it is added
    there under a name (``FAMILIES["mine"] = MyFamily``)."""
    if not isinstance(data, dict) or set(data) != {"type", "params"}:
        raise ValueError(f"not a kernel family document: {data!r}")
    classes = {cls.__name__: cls for cls in FAMILIES.values()}
    if data["type"] not in classes:
        raise ValueError(f"unknown kernel family {data['type']!r} (known: {sorted(classes)})")
    params = {k: _decode(v) for k, v in data["params"].items()}
    for key in ("bounds", "features"):
        if isinstance(params.get(key), list):
            params[key] = tuple(params[key])
    return classes[data["type"]](**params)


def columns_to_list(columns) -> list:
    return [column_to_dict(c) for c in columns]


def columns_from_list(items) -> list:
    if not isinstance(items, list):
        raise ValueError("columns must be a list")
    return [column_from_dict(item) for item in items]


def column_from_dict(item: dict) -> Column:
    """Inverse of :func:`~sipkl.kernel_learning.families.base.column_to_dict`: its family found through
    :mod:`sipkl.kernel_learning.names`."""
    return Column.make(family_from_dict(item["family"]), _finite(item["theta"], "theta"))


def _finite(values, name) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite numbers")
    return array


def kernel_to_json(kernel: LearnedKernel) -> str:
    """A learned kernel as a JSON document (family names, parameters, weights, degree)."""
    return json.dumps(document("sipkl.learned_kernel", columns=columns_to_list(kernel.columns),
                               weights=kernel.weights.tolist(), degree=kernel.degree))


def kernel_from_json(text: str) -> LearnedKernel:
    """Inverse of :func:`kernel_to_json`; a tampered or unknown document raises ``ValueError``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a JSON document: {exc}") from None
    data = check_document(data, "sipkl.learned_kernel")
    weights = np.asarray(data.get("weights"), dtype=float)
    if weights.ndim != 1 or not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("weights must be a list of finite non-negative numbers")
    return LearnedKernel(columns_from_list(data.get("columns")), weights, data.get("degree"))


def _expansion_arrays(expansion: KernelExpansion, prefix: str) -> dict:
    return {f"{prefix}points": expansion.points, f"{prefix}coef": expansion.coef}


def _expansion_to_dict(expansion) -> dict:
    """The JSON part of a :class:`KernelExpansion` or (``"landmarks": true``) a
    :class:`LandmarkExpansion`."""
    data = {"kernel": kernel_to_json(expansion.kernel), "bias": float(expansion.bias)}
    if isinstance(expansion, LandmarkExpansion):
        data["landmarks"] = True
    return data


def _expansion_from_parts(data: dict, arrays, prefix: str, n_features: int):
    """The expansion of JSON part ``data`` and arrays ``prefix…``: finite points of
    ``n_features`` coordinates, finite coefficients of their shape, a finite bias."""
    points = _finite(arrays[f"{prefix}points"], f"{prefix}points")
    coef = _finite(arrays[f"{prefix}coef"], f"{prefix}coef")
    kernel = kernel_from_json(data["kernel"])
    landmarks = data.get("landmarks", False)
    if points.ndim != 2 or points.shape[1] != n_features:
        raise ValueError(f"{prefix}points has shape {points.shape}, not (m, {n_features}) "
                         f"for n_features_in = {n_features}")
    shape = (len(points), len(kernel.columns)) if landmarks else (len(points),)
    if coef.shape != shape:
        raise ValueError(f"{prefix}coef has shape {coef.shape}, expected {shape}")
    kind = LandmarkExpansion if landmarks else KernelExpansion
    return kind(kernel, points, coef, float(_finite(data["bias"], "bias")))


def _split_pipeline(model):
    """``(scaler or None, estimator)`` of a fitted sipkl estimator (a class of
    :data:`sipkl.kernel_learning.names.ESTIMATORS`) or of a ``Pipeline`` of a ``StandardScaler`` and one; a
    ``TypeError`` for anything else, scikit-learn's ``NotFittedError`` for an estimator not
    fitted."""
    scaler, estimator = None, model
    if isinstance(model, Pipeline):
        steps = [step for _, step in model.steps]
        if len(steps) != 2 or not isinstance(steps[0], StandardScaler):
            raise TypeError(f"model: a Pipeline is saved when it is a StandardScaler followed "
                            f"by a sipkl estimator, got steps {[type(s).__name__ for s in steps]}")
        scaler, estimator = steps
    name = type(estimator).__name__
    if ESTIMATORS.get(name) is not type(estimator):
        hint = " (save its best_estimator_)" if hasattr(estimator, "best_estimator_") else ""
        raise TypeError(f"model: save_model saves a sipkl estimator ({', '.join(ESTIMATORS)}) "
                        f"or a Pipeline of a StandardScaler and one, not a {name}{hint}")
    check_is_fitted(estimator)
    return scaler, estimator


def save_model(model, path, training_data: dict | None = None) -> str:
    """Save a fitted sipkl estimator as ``path`` (JSON) and an array file (NPZ) beside it;
    returns the array file's path.

    ``model`` is the estimator (a class of :data:`sipkl.kernel_learning.names.ESTIMATORS`), or a fitted
    ``Pipeline`` of a ``StandardScaler`` and the estimator
    (``make_pipeline(StandardScaler(), IKLClassifier())``); :func:`load_model` gives back the
    same kind. Anything else is a ``TypeError`` (of a ``GridSearchCV``, save its
    ``best_estimator_``). What is saved: the estimator's class and parameters (a family by
    name and parameters), ``classes_``, ``n_features_in_``, the prediction model
    ``expansions_``, the scaler's ``with_mean``/``with_std`` and fitted arrays, and
    ``training_data`` (any JSON-representable description of the data, e.g. the command
    line's target column). A parameter that JSON cannot hold (a callback, an oracle object of
    one's own) is recorded by name and type only: :func:`load_model` warns that the loaded
    estimator has its default instead. ``result_`` (the run's history) is not saved.

    The array file is named by its content, ``path`` + ``.<16 hex digits>.npz``. The JSON
    names it and keeps its SHA-256 and the SHA-256 of the JSON's own content, so that a
    modified file of either is rejected. ``path`` is written last, by a rename: a save
    interrupted before it leaves the previous model's files as they were, and after it the
    previous model's array file is removed. Both files get the permissions of a new file
    (``0o666`` less the umask).
    """
    scaler, estimator = _split_pipeline(model)
    arrays, models = {}, []
    for k, expansion in enumerate(estimator.expansions_):
        arrays.update(_expansion_arrays(expansion, f"e{k}_"))
        models.append(_expansion_to_dict(expansion))
    scaling = None
    if scaler is not None:
        fitted = {name: getattr(scaler, name) for name in SCALER_ARRAYS}
        arrays.update({f"scaler_{name}": np.asarray(value) for name, value in fitted.items()
                       if value is not None})
        scaling = {"with_mean": bool(scaler.with_mean), "with_std": bool(scaler.with_std)}
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    npz_sha256 = hashlib.sha256(buffer.getvalue()).hexdigest()
    params, unsaved = {}, {}
    for name, value in estimator.get_params(deep=False).items():
        try:
            params[name] = json_value(value)
        except TypeError:
            unsaved[name] = type(value).__name__
    classes = getattr(estimator, "classes_", None)
    data = document(
        "sipkl.model", MODEL_VERSION, estimator=type(estimator).__name__, params=params,
        unsaved=unsaved, classes=None if classes is None else classes.tolist(),
        n_features_in=int(estimator.n_features_in_), expansions=models, scaler=scaling,
        training_data=training_data, arrays=f"{os.path.basename(path)}.{npz_sha256[:16]}.npz",
        npz_sha256=npz_sha256)
    data["sha256"] = _content_sha256(data)
    previous, npz = _arrays_of(path), _arrays_path(path, data)
    with atomic_write(npz, "wb") as f:
        f.write(buffer.getvalue())
    write_json_atomic(path, data)
    if previous not in (None, npz) and os.path.exists(previous):
        os.unlink(previous)
    return npz


def load_model(path):
    """Load a model saved by :func:`save_model` (the estimator, or the ``Pipeline`` of its
    ``StandardScaler`` and the estimator); it predicts as the saved one did. Files of
    versions 1 and 2 still load.

    A ``ValueError`` naming the file rejects a JSON or array file modified since it was
    saved, and a model that does not hold together: arrays or a bias that are not finite,
    points or scaler arrays of another number of features than ``n_features_in``, classes
    that are not distinct labels, or another number of kernel expansions than the classes
    call for (one for two classes, one per class for more; one for a regressor). A
    ``UserWarning`` names each parameter that was not saved (see :func:`save_model`).
    """
    data = check_document(read_json(path), "sipkl.model", MODEL_VERSIONS)
    if data["version"] >= 3 and data.get("sha256") != _content_sha256(data):
        raise ValueError(f"{path} was modified after it was saved (its content does not "
                         "match its sha256)")
    npz = _arrays_path(path, data)
    if _sha256(npz) != data.get("npz_sha256"):
        raise ValueError(f"{npz} does not match the model file {path} (modified or replaced)")
    try:
        return _model(data, npz, path)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: not a valid model: {exc}") from None


def _model(data: dict, npz, path):
    """The estimator (or ``Pipeline``) of the model document ``data`` and its arrays."""
    name = data.get("estimator")
    cls = ESTIMATORS.get(RENAMED.get(name, name)) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"unknown estimator {name!r} (known: {sorted(ESTIMATORS)})")
    params = {k: _decode(v) for k, v in data["params"].items() if v is not None}
    estimator = cls(**params)
    n_features = data["n_features_in"]
    if type(n_features) is not int or n_features < 1:
        raise ValueError(f"n_features_in must be a positive integer, got {n_features!r}")
    with np.load(npz, allow_pickle=False) as arrays:
        estimator.expansions_ = [_expansion_from_parts(m, arrays, f"e{k}_", n_features)
                                 for k, m in enumerate(data["expansions"])]
        scaler = _scaler(data.get("scaler"), arrays, n_features)
    classes = _classes(data.get("classes"), estimator)
    if classes is not None:
        estimator.classes_ = classes
    estimator.n_features_in_ = n_features
    kernels = [e.kernel for e in estimator.expansions_]
    estimator.kernel_ = kernels[0] if len(kernels) == 1 else kernels
    _warn_unsaved(path, data.get("unsaved", {}), estimator)
    if scaler is None:
        return estimator
    return make_pipeline(scaler, estimator)


def _classes(classes, estimator):
    """``classes_`` of a loaded estimator with its ``expansions_``: for a classifier, two or
    more distinct labels and one expansion for two classes, one per class for more; for a
    regressor, ``None`` and one expansion."""
    n_expansions = len(estimator.expansions_)
    if not is_classifier(estimator):
        if classes is not None or n_expansions != 1:
            raise ValueError(f"a regressor has no classes and one kernel expansion, got "
                             f"classes {classes!r} and {n_expansions} expansion(s)")
        return None
    labels = np.asarray(classes)
    if labels.ndim != 1 or len(labels) < 2 or len(np.unique(labels)) != len(labels):
        raise ValueError(f"classes must be two or more distinct labels, got {classes!r}")
    expected = 1 if len(labels) == 2 else len(labels)
    if n_expansions != expected:
        raise ValueError(f"{n_expansions} kernel expansion(s) for {len(labels)} classes "
                         f"(expected {expected})")
    return labels


def _warn_unsaved(path, unsaved: dict, estimator) -> None:
    """A ``UserWarning`` naming the parameters ``save_model`` could not write (name -> type),
    which the loaded ``estimator`` has at their defaults."""
    if not isinstance(unsaved, dict):
        raise ValueError(f"unsaved must map parameter names to types, got {unsaved!r}")
    if unsaved:
        defaults = estimator.get_params(deep=False)
        listed = ", ".join(f"{name} (a {kind} object, now {defaults[name]!r})"
                           for name, kind in unsaved.items())
        warnings.warn(f"{path}: parameters not saved, left at their defaults: {listed}; the "
                      "model predicts as the saved one did, but a new fit would use these "
                      "defaults", UserWarning, stacklevel=4)


def _scaler(scaling, arrays, n_features: int):
    """The fitted ``StandardScaler`` of a model document, or ``None`` when it has none."""
    if scaling is None:
        return None
    if not isinstance(scaling, dict) or set(scaling) != {"with_mean", "with_std"}:
        raise ValueError(f"not a scaler description: {scaling!r}")
    scaler = StandardScaler(with_mean=bool(scaling["with_mean"]),
                            with_std=bool(scaling["with_std"]))
    for name in SCALER_ARRAYS:
        key = f"scaler_{name}"
        value = arrays[key] if key in arrays.files else None
        if name != "n_samples_seen_" and value is not None:
            value = _finite(value, key)
            if value.shape != (n_features,):
                raise ValueError(f"{key} has shape {value.shape}, expected ({n_features},)")
        setattr(scaler, name, value)
    scaler.n_features_in_ = n_features
    return scaler


def _sha256(path) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _content_sha256(data: dict) -> str:
    """The SHA-256 of a model document without its ``sha256`` entry, as
    ``json.dumps(…, sort_keys=True)`` writes it."""
    content = {key: value for key, value in data.items() if key != "sha256"}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def _arrays_path(path, data: dict) -> str:
    """The array file of the model document ``data`` at ``path``: the file of the same
    directory its ``arrays`` entry names (version 3), or ``path + ".npz"`` (versions 1, 2)."""
    if data["version"] < 3:
        return os.fspath(path) + ".npz"
    name = data.get("arrays")
    if not isinstance(name, str) or os.path.basename(name) != name or not name.endswith(".npz"):
        raise ValueError(f"{path}: arrays must name an .npz file beside it, got {name!r}")
    return os.path.join(os.path.dirname(os.fspath(path)), name)


def _arrays_of(path) -> str | None:
    """The array file of the model saved at ``path``, or ``None`` where no model is there."""
    try:
        return _arrays_path(path, check_document(read_json(path), "sipkl.model",
                                                 MODEL_VERSIONS))
    except (OSError, ValueError):
        return None


def load_checkpoint(path) -> dict:
    """Read an engine checkpoint of kernel learning without its run (to inspect or plot it):
    its kernel columns are read back through :mod:`sipkl.kernel_learning.names`
    (:func:`sipkl.core.checkpoint.load_checkpoint` with :func:`column_from_dict`)."""
    return checkpoint.load_checkpoint(path, column_from_dict)
