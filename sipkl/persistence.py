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
    from .workspace import Column
    if not isinstance(items, list):
        raise ValueError("columns must be a list")
    return [Column.make(family_from_dict(item["family"]), _finite(item["theta"], "theta"))
            for item in items]


def _finite(values, name) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite numbers")
    return array


def document(schema: str, **content) -> dict:
    return {"schema": schema, "version": VERSION, **content}


def check_document(data, schema: str) -> dict:
    """Validate the header of a loaded document."""
    if not isinstance(data, dict) or data.get("schema") != schema:
        raise ValueError(f"not a {schema} document")
    if data.get("version") != VERSION:
        raise ValueError(f"unsupported {schema} version {data.get('version')!r} "
                         f"(this sipkl reads version {VERSION})")
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


def save_model(estimator, path) -> None:
    """Save a fitted sipkl estimator as ``path`` (JSON) and ``path + ".npz"`` (its arrays).

    What is saved: the estimator's class and JSON-representable parameters (a family by
    name and parameters; callbacks and custom oracle objects are not saved), ``classes_``,
    ``n_features_in_`` and the prediction model ``expansions_``; the SHA-256 of the NPZ file
    is kept in the JSON so that a modified array file is rejected. ``result_`` (the run's
    history) is not saved.
    """
    arrays, models = {}, []
    for k, expansion in enumerate(estimator.expansions_):
        arrays.update(expansion.arrays(f"e{k}_"))
        models.append(expansion.to_dict())
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
        "sipkl.model", estimator=type(estimator).__name__, params=params,
        classes=None if classes is None else classes.tolist(),
        n_features_in=int(estimator.n_features_in_), expansions=models, npz_sha256=_sha256(npz)))


def load_model(path):
    """Load an estimator saved by :func:`save_model`; it predicts as the saved one did."""
    import sipkl
    from .expansion import KernelExpansion
    data = check_document(read_json(path), "sipkl.model")
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
    if data.get("classes") is not None:
        estimator.classes_ = np.asarray(data["classes"])
    estimator.n_features_in_ = int(data["n_features_in"])
    kernels = [e.kernel for e in estimator.expansions_]
    estimator.kernel_ = kernels[0] if len(kernels) == 1 else kernels
    return estimator


def _sha256(path) -> str:
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()
