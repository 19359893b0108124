"""JSON documents with a schema name and a version, written atomically.

Every file sipkl writes (models, learned kernels, runs, engine checkpoints) is one such
document: ``{"schema": name, "version": v, …content}``. A reader checks both
(:func:`check_document`) and rejects an unknown schema or version with a ``ValueError``.
"""
from __future__ import annotations

import json
import os
import tempfile

VERSION = 1


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
