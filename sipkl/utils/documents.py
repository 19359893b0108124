"""JSON documents with a schema name and a version, written atomically.

Every file sipkl writes (models, learned kernels, runs, engine checkpoints) is one such
document: ``{"schema": name, "version": v, …content}``. A reader checks both
(:func:`check_document`) and rejects an unknown schema or version with a ``ValueError``.
"""
from __future__ import annotations

import json
import os
import secrets
from contextlib import contextmanager

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


@contextmanager
def atomic_write(path, mode: str = "w"):
    """A file (``open`` mode ``"w"`` or ``"wb"``) to write ``path`` through: a new file in the
    same directory, flushed to disk and renamed to ``path`` when the block ends, removed when
    it raises. ``path`` is thus the old file or the whole new one, never a half-written one.
    The file gets the permissions ``open`` gives a new file (``0o666`` less the umask)."""
    path = os.fspath(path)
    tmp = f"{path}.{secrets.token_hex(8)}.tmp"
    try:
        with open(tmp, mode.replace("w", "x")) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_json_atomic(path, data: dict) -> None:
    """Write ``data`` to ``path`` through :func:`atomic_write` (never half-written)."""
    with atomic_write(path) as f:
        json.dump(data, f)


def read_json(path) -> dict:
    with open(path) as f:
        try:
            return json.load(f)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not valid JSON: {exc}") from None
