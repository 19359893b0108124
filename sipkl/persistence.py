"""JSON persistence without pickle: kernel families, learned kernels, engine checkpoints.

Every document carries a ``schema`` name and a ``version``; an unknown schema or version,
or a document whose content does not validate, is rejected with a ``ValueError``.
"""
from __future__ import annotations

import inspect
import json
import os
import tempfile

import numpy as np

from .kernels.base import KernelFamily

VERSION = 1
#: version of ``sipkl.model`` documents: 2 may carry a standardization (a reader of version 1
#: would ignore it and predict on unscaled data, hence the new number); 1 is still read
MODEL_VERSION = 2
MODEL_VERSIONS = (1, 2)
#: the fitted arrays of a ``StandardScaler`` kept with a model (``None`` ones are skipped)
SCALER_ARRAYS = ("mean_", "var_", "scale_", "n_samples_seen_")


def _family_classes() -> dict:
    classes, todo = {}, [KernelFamily]
    while todo:
        cls = todo.pop()
        classes[cls.__name__] = cls
        todo += cls.__subclasses__()
    return classes


def _encode(value):
    if isinstance(value, KernelFamily):
        return family_to_dict(value)
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


def _decode(value):
    if isinstance(value, dict):
        return family_from_dict(value)
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def family_to_dict(family: KernelFamily) -> dict:
    """``{"type": class name, "params": constructor arguments}`` of a family."""
    if not isinstance(family, KernelFamily):
        raise TypeError(f"family must be a KernelFamily, got {type(family).__name__}")
    names = [p for p in inspect.signature(type(family).__init__).parameters if p != "self"]
    try:
        params = {name: _encode(getattr(family, name)) for name in names}
    except (AttributeError, TypeError) as exc:
        raise TypeError(f"{type(family).__name__} cannot be written to JSON ({exc}); "
                        f"families holding matrices or functions are not serializable") from None
    return {"type": type(family).__name__, "params": params}


def family_from_dict(data: dict) -> KernelFamily:
    """Inverse of :func:`family_to_dict` (the class must be a known KernelFamily)."""
    if not isinstance(data, dict) or set(data) != {"type", "params"}:
        raise ValueError(f"not a kernel family document: {data!r}")
    classes = _family_classes()
    if data["type"] not in classes:
        raise ValueError(f"unknown kernel family {data['type']!r}")
    params = {k: _decode(v) for k, v in data["params"].items()}
    for key in ("bounds", "features"):
        if isinstance(params.get(key), list):
            params[key] = tuple(params[key])
    return classes[data["type"]](**params)


def columns_to_list(columns) -> list:
    return [{"family": family_to_dict(c.family), "theta": list(map(float, c.theta))}
            for c in columns]


def columns_from_list(items) -> list:
    from .contracts import Column
    if not isinstance(items, list):
        raise ValueError("columns must be a list")
    return [Column.make(family_from_dict(item["family"]), _finite(item["theta"], "theta"))
            for item in items]


def _finite(values, name) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite numbers")
    return array


def document(schema: str, version: int = VERSION, **content) -> dict:
    return {"schema": schema, "version": version, **content}


def check_document(data, schema: str, versions=(VERSION,)) -> dict:
    """Validate the header of a loaded document (its version must be one of ``versions``)."""
    if not isinstance(data, dict) or data.get("schema") != schema:
        raise ValueError(f"not a {schema} document")
    if data.get("version") not in versions:
        readable = ", ".join(map(str, versions))
        raise ValueError(f"unsupported {schema} version {data.get('version')!r} "
                         f"(this sipkl reads version {readable}; a newer sipkl wrote it?)")
    return data


def write_json_atomic(path, data: dict) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename (never half-written)."""
    path = os.fspath(path)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_json(path) -> dict:
    with open(path) as f:
        try:
            return json.load(f)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not valid JSON: {exc}") from None


def _split_pipeline(model):
    """``(scaler or None, estimator)`` of a sipkl estimator or of a ``Pipeline`` of a
    ``StandardScaler`` and a sipkl estimator."""
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
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
        arrays.update(expansion.arrays(f"e{k}_"))
        models.append(expansion.to_dict())
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
            params[name] = _encode(value)
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
    import sipkl
    from .expansion import KernelExpansion
    data = check_document(read_json(path), "sipkl.model", MODEL_VERSIONS)
    npz = os.fspath(path) + ".npz"
    if _sha256(npz) != data.get("npz_sha256"):
        raise ValueError(f"{npz} does not match the model file (modified or replaced)")
    cls = getattr(sipkl, str(data.get("estimator")), None)
    if not (isinstance(cls, type) and hasattr(cls, "get_params")):
        raise ValueError(f"unknown estimator {data.get('estimator')!r}")
    params = {k: _decode(v) for k, v in data["params"].items() if v is not None}
    estimator = cls(**params)
    with np.load(npz, allow_pickle=False) as arrays:
        estimator.expansions_ = [KernelExpansion.from_parts(m, arrays, f"e{k}_")
                                 for k, m in enumerate(data["expansions"])]
        scaler = _scaler(data.get("scaler"), arrays, int(data["n_features_in"]))
    if data.get("classes") is not None:
        estimator.classes_ = np.asarray(data["classes"])
    estimator.n_features_in_ = int(data["n_features_in"])
    kernels = [e.kernel for e in estimator.expansions_]
    estimator.kernel_ = kernels[0] if len(kernels) == 1 else kernels
    if scaler is None:
        return estimator
    from sklearn.pipeline import make_pipeline
    return make_pipeline(scaler, estimator)


def _scaler(scaling, arrays, n_features: int):
    """The fitted ``StandardScaler`` of a model document, or ``None`` when it has none."""
    if scaling is None:
        return None
    from sklearn.preprocessing import StandardScaler
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
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()
