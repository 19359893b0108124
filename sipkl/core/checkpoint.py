"""Engine checkpoints: the state of a column-generation run, to continue it later.

A checkpoint (``sipkl.core.checkpoint`` document, JSON) holds the iteration to continue at, the
columns — each written by the run's column space (:meth:`~sipkl.core.contracts.ColumnSpace.
column_to_json`, read back by its ``column_from_json``), so that every column space
checkpoints — their weights, the history, the last objective, the random generator's state,
and the state of each party that declares one (:class:`~sipkl.core.contracts.Stateful`: the
master's scales, a drop rule's last value), so that a resumed run is the uninterrupted one,
and the :func:`fingerprint` of its program: a run resumes only its own program's checkpoint,
and a file that is not a whole checkpoint is refused with a ``ValueError`` naming it.
Versions 1 (no states, kernel columns) and 2 (no fingerprint) are still read.
"""
from __future__ import annotations

import json
from typing import Callable, Sequence

import numpy as np

from ..utils.documents import check_document, document, read_json, write_json_atomic
from .contracts import Column, ColumnSpace, Signed

SCHEMA = "sipkl.checkpoint"
VERSION = 3


def fingerprint(space: ColumnSpace, master) -> dict:
    """What identifies the program of a run, which its checkpoints record: the classes of
    its column space, of its master and of each of its families, the shape of its data X,
    and the ``signature()`` of a master that states one (:class:`~sipkl.core.contracts.Signed`;
    a semi-infinite program's: its
    constraints' names and index sets, and its number of variables). A run resumes only a
    checkpoint of its own program (:func:`load_checkpoint`)."""
    return json.loads(json.dumps({  # as the file holds it: lists, not tuples
        "space": type(space).__name__, "master": type(master).__name__,
        "families": [type(family).__name__ for family in space.families],
        "X": None if space.X is None else list(np.shape(space.X)),
        "program": master.signature() if isinstance(master, Signed) else None}))


def save_checkpoint(path, space: ColumnSpace, iteration: int, columns, weights, history,
                    previous_objective, rng: np.random.Generator, states: dict,
                    program: dict) -> None:
    """Write the state needed to continue a run at ``iteration`` (atomically), with the
    :func:`fingerprint` ``program`` of its program."""
    write_json_atomic(path, document(
        SCHEMA, VERSION, iteration=iteration,
        columns=[space.column_to_json(c) for c in columns],
        weights=[float(w) for w in weights], history=history,
        previous_objective=previous_objective, rng_state=rng.bit_generator.state,
        states=states, fingerprint=program))


def load_checkpoint(path, column_from_json: Callable[[object], Column], program: dict = None,
                    history: Sequence[str] = ()) -> dict:
    """Read a checkpoint written by :func:`save_checkpoint`, its columns read by
    ``column_from_json`` (the run's :meth:`~sipkl.core.contracts.ColumnSpace.column_from_json`).

    Checked whole, a ``ValueError`` naming the file and what is wrong where it is not a
    checkpoint (not UTF-8 JSON, another schema or version), where an entry is missing or
    not what it must be (the iteration an integer ≥ 0; one finite weight ≥ 0 per column; a
    column its space does not read; the lists of the history, at least those named in
    ``history``, of one number or ``null`` per iteration; the previous objective a number
    or ``null``; a random state that NumPy restores; the states a mapping; the fingerprint
    of its program), and where it was written for another program than the
    :func:`fingerprint` ``program`` (``None``: any, to inspect a checkpoint; versions 1 and
    2 record none).
    """
    try:
        data = check_document(read_json(path), SCHEMA, versions=(1, 2, VERSION))
    except ValueError as exc:  # UnicodeDecodeError included
        raise ValueError(f"checkpoint {path} cannot be read: {exc}") from None
    saved = data.get("fingerprint")
    if data["version"] == VERSION and not isinstance(saved, dict):
        raise ValueError(f"checkpoint {path} is incomplete or damaged: no fingerprint of its "
                         f"program")
    if program is not None and saved is not None and saved != program:
        keys = [key for key in program if saved.get(key) != program[key]]
        raise ValueError(f"checkpoint {path} belongs to another program: it was written for "
                         f"{ {key: saved.get(key) for key in keys} }, this run is "
                         f"{ {key: program[key] for key in keys} }")
    try:
        state = {"iteration": _count(data["iteration"]),
                 "columns": [column_from_json(item) for item in data["columns"]],
                 "weights": np.asarray(data["weights"], dtype=float),
                 "history": {k: list(v) for k, v in data["history"].items()},
                 "previous_objective": _number(data["previous_objective"]),
                 "rng_state": data["rng_state"], "states": dict(data.get("states", {}))}
        _random_generator(state["rng_state"])
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise ValueError(f"checkpoint {path} is incomplete or damaged: {exc!r}") from None
    weights = state["weights"]
    if weights.shape != (len(state["columns"]),) or not np.all(np.isfinite(weights)) \
            or np.any(weights < 0):
        raise ValueError(f"checkpoint {path}: weights do not match the columns (one finite "
                         f"weight ≥ 0 per column)")
    lists = state["history"]
    if any(name not in lists for name in history) or not all(
            len(v) == state["iteration"] and all(x is None or _is_number(x) for x in v)
            for v in lists.values()):
        raise ValueError(f"checkpoint {path}: the history must hold the lists {list(history)} "
                         f"of one number per iteration ({state['iteration']})")
    return state


def restore(path, state: dict, rng: np.random.Generator, parties: dict) -> None:
    """Give ``rng`` the random state of the checkpoint ``path`` (``state``, read by
    :func:`load_checkpoint`) and each of the ``parties`` (:class:`~sipkl.core.contracts.Stateful`,
    by role) its saved state, if any: a ``ValueError`` naming the file where one does not fit
    (a random state of another generator, a state its party refuses)."""
    try:
        rng.bit_generator.state = state["rng_state"]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"checkpoint {path}: its random state does not fit this run's "
                         f"generator: {exc}") from None
    for role, party in parties.items():
        if role in state["states"]:
            try:
                party.set_state(state["states"][role])
            except (KeyError, TypeError, ValueError, IndexError) as exc:
                raise ValueError(f"checkpoint {path}: the {role}'s state is damaged: "
                                 f"{exc!r}") from exc


def _count(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"the iteration must be an integer ≥ 0, got {value!r}")
    return value


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(value):
    if value is not None and not _is_number(value):
        raise ValueError(f"the previous objective must be a number or null, got {value!r}")
    return value


def _random_generator(state) -> None:
    """Check that ``state`` is a random state that NumPy restores (its bit generator's)."""
    kind = getattr(np.random, state["bit_generator"], None)
    if not (isinstance(kind, type) and issubclass(kind, np.random.BitGenerator)):
        raise ValueError(f"unknown bit generator {state['bit_generator']!r}")
    kind().state = state
