"""A cell of an experiment sweep — data set × split × method × hyper-parameters — and the
key of its row in a results CSV."""
from __future__ import annotations

import json
from dataclasses import dataclass


#: CSV columns; the first six are the key of a cell
FIELDS = ("suite", "version", "dataset", "split", "method", "params", "val_error",
          "test_error", "fit_time", "n_kernels", "status", "extra")
KEY = FIELDS[:6]


@dataclass(frozen=True)
class Cell:
    """One unit of work. ``params`` is a tuple of ``(name, value)`` pairs, sorted by name,
    with JSON values."""

    suite: str
    version: str
    dataset: str
    split: int
    method: str
    params: tuple = ()

    @classmethod
    def make(cls, suite, version, dataset, split, method, **params) -> Cell:
        return cls(suite, version, dataset, int(split), method, tuple(sorted(params.items())))

    @property
    def param_dict(self) -> dict:
        return dict(self.params)

    @property
    def key(self) -> tuple[str, ...]:
        return (self.suite, self.version, self.dataset, str(self.split), self.method,
                json.dumps(self.param_dict, sort_keys=True))


def row_key(row: dict) -> tuple[str, ...]:
    return tuple(str(row[k]) for k in KEY)
