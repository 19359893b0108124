"""Engine checkpoints: the state of a column-generation run, to continue it later.

A checkpoint (``sipkl.checkpoint`` document, JSON) holds the iteration to continue at, the
columns — each written by the run's column space (:meth:`~sipkl.contracts.ColumnSpace.
column_to_json`, read back by its ``column_from_json``), so that every column space
checkpoints — their weights, the history, the last objective, the random generator's state,
and the state of each party that declares one (:class:`~sipkl.contracts.Stateful`: the
master's scales, a drop rule's last value), so that a resumed run is the uninterrupted one.
Version 1 (no states, kernel columns) is still read.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .contracts import Column, ColumnSpace
from .documents import check_document, document, read_json, write_json_atomic

SCHEMA = "sipkl.checkpoint"
VERSION = 2


def save_checkpoint(path, space: ColumnSpace, iteration: int, columns, weights, history,
                    previous_objective, rng: np.random.Generator, states: dict) -> None:
    """Write the state needed to continue a run at ``iteration`` (atomically)."""
    write_json_atomic(path, document(
        SCHEMA, VERSION, iteration=iteration,
        columns=[space.column_to_json(c) for c in columns],
        weights=[float(w) for w in weights], history=history,
        previous_objective=previous_objective, rng_state=rng.bit_generator.state,
        states=states))


def load_checkpoint(path, column_from_json: Callable[[object], Column]) -> dict:
    """Read a checkpoint written by :func:`save_checkpoint` (validated), its columns read by
    ``column_from_json`` (the run's :meth:`~sipkl.contracts.ColumnSpace.column_from_json`)."""
    data = check_document(read_json(path), SCHEMA, versions=(1, VERSION))
    try:
        state = {"iteration": int(data["iteration"]),
                 "columns": [column_from_json(item) for item in data["columns"]],
                 "weights": np.asarray(data["weights"], dtype=float),
                 "history": {k: list(v) for k, v in data["history"].items()},
                 "previous_objective": data["previous_objective"],
                 "rng_state": data["rng_state"], "states": dict(data.get("states", {}))}
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"checkpoint {path} is incomplete or damaged: {exc!r}") from None
    if len(state["weights"]) != len(state["columns"]) or not np.all(np.isfinite(state["weights"])):
        raise ValueError(f"checkpoint {path}: weights do not match the columns")
    return state
