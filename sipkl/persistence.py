"""Persistence without pickle: kernel families, learned kernels, fitted models (JSON + NPZ)
and engine checkpoints (JSON).

Every document carries a ``schema`` name and a ``version``; an unknown schema or version,
or a document whose content does not validate, is rejected with a ``ValueError``. A family
is written as its class name and constructor arguments
(:meth:`~sipkl.kernels.base.KernelFamily.get_params`), a model as its estimator's class name;
both classes are found again through :mod:`sipkl.registry`.
"""
from __future__ import annotations

import hashlib
import json
import os

import numpy as np
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from .contracts import Column
from .documents import check_document, document, read_json, write_json_atomic
from .expansion import KernelExpansion, LandmarkExpansion
from .kernels import KernelFamily, LearnedKernel
from . import checkpoint
from .kernels.base import column_to_dict, family_to_dict, json_value  # noqa: F401 (re-export)
from .registry import ESTIMATORS, FAMILIES

#: version of ``sipkl.model`` documents: 2 may carry a standardization (a reader of version 1
#: would ignore it and predict on unscaled data, hence the new number); 1 is still read
MODEL_VERSION = 2
MODEL_VERSIONS = (1, 2)
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
    :data:`sipkl.registry.FAMILIES`; a family class of your own is read once it is added
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
    """Inverse of :func:`~sipkl.kernels.base.column_to_dict`: its family found through
    :mod:`sipkl.registry`."""
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


def _expansion_from_parts(data: dict, arrays, prefix: str):
    points, coef = arrays[f"{prefix}points"], arrays[f"{prefix}coef"]
    kernel = kernel_from_json(data["kernel"])
    landmarks = data.get("landmarks", False)
    shape = (len(points), len(kernel.columns)) if landmarks else (len(points),)
    if points.ndim != 2 or coef.shape != shape:
        raise ValueError("model arrays have inconsistent shapes")
    kind = LandmarkExpansion if landmarks else KernelExpansion
    return kind(kernel, points, coef, float(data["bias"]))


def _split_pipeline(model):
    """``(scaler or None, estimator)`` of a sipkl estimator or of a ``Pipeline`` of a
    ``StandardScaler`` and a sipkl estimator."""
    if not isinstance(model, Pipeline):
        return None, model
    steps = [step for _, step in model.steps]
    if len(steps) != 2 or not isinstance(steps[0], StandardScaler):
        raise TypeError(f"model: a Pipeline is saved when it is a StandardScaler followed by "
                        f"a sipkl estimator, got steps {[type(s).__name__ for s in steps]}")
    return steps[0], steps[1]


def save_model(model, path, training_data: dict | None = None) -> None:
    """Save a fitted sipkl estimator as ``path`` (JSON) and ``path + ".npz"`` (its arrays).

    ``model`` is the estimator, or a fitted ``Pipeline`` of a ``StandardScaler`` and the
    estimator (``make_pipeline(StandardScaler(), IKLClassifier())``); :func:`load_model`
    gives back the same kind. What is saved: the estimator's class and JSON-representable
    parameters (a family by name and parameters; callbacks and custom oracle objects are not
    saved), ``classes_``, ``n_features_in_``, the prediction model ``expansions_``, the
    scaler's ``with_mean``/``with_std`` and fitted arrays, and ``training_data`` (any
    JSON-representable description of the data, e.g. the command line's target column); the
    SHA-256 of the NPZ file is kept in the JSON so that a modified array file is rejected.
    ``result_`` (the run's history) is not saved.
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
    npz = os.fspath(path) + ".npz"
    with open(npz, "wb") as f:
        np.savez(f, **arrays)
    params = {}
    for name, value in estimator.get_params(deep=False).items():
        try:
            params[name] = json_value(value)
        except TypeError:
            params[name] = None  # not representable (callback, custom oracle): not saved
    classes = getattr(estimator, "classes_", None)
    write_json_atomic(path, document(
        "sipkl.model", MODEL_VERSION, estimator=type(estimator).__name__, params=params,
        classes=None if classes is None else classes.tolist(),
        n_features_in=int(estimator.n_features_in_), expansions=models, scaler=scaling,
        training_data=training_data, npz_sha256=_sha256(npz)))


def load_model(path):
    """Load a model saved by :func:`save_model` (the estimator, or the ``Pipeline`` of its
    ``StandardScaler`` and the estimator); it predicts as the saved one did. Files of
    version 1 (no scaler) still load."""
    data = check_document(read_json(path), "sipkl.model", MODEL_VERSIONS)
    npz = os.fspath(path) + ".npz"
    if _sha256(npz) != data.get("npz_sha256"):
        raise ValueError(f"{npz} does not match the model file (modified or replaced)")
    name = data.get("estimator")
    cls = ESTIMATORS.get(RENAMED.get(name, name)) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"unknown estimator {name!r} (known: {sorted(ESTIMATORS)})")
    params = {k: _decode(v) for k, v in data["params"].items() if v is not None}
    estimator = cls(**params)
    with np.load(npz, allow_pickle=False) as arrays:
        estimator.expansions_ = [_expansion_from_parts(m, arrays, f"e{k}_")
                                 for k, m in enumerate(data["expansions"])]
        scaler = _scaler(data.get("scaler"), arrays, int(data["n_features_in"]))
    if data.get("classes") is not None:
        estimator.classes_ = np.asarray(data["classes"])
    estimator.n_features_in_ = int(data["n_features_in"])
    kernels = [e.kernel for e in estimator.expansions_]
    estimator.kernel_ = kernels[0] if len(kernels) == 1 else kernels
    if scaler is None:
        return estimator
    return make_pipeline(scaler, estimator)


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


def load_checkpoint(path) -> dict:
    """Read an engine checkpoint of kernel learning without its run (to inspect or plot it):
    its kernel columns are read back through :mod:`sipkl.registry`
    (:func:`sipkl.checkpoint.load_checkpoint` with :func:`column_from_dict`)."""
    return checkpoint.load_checkpoint(path, column_from_dict)
