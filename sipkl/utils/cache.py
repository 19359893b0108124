"""Named caches with explicit invalidation.

A :class:`Cache` keeps values computed from keys until they are dropped by name — ``keep``
what is still needed (the columns left after pruning), or ``clear`` — never implicitly. Its
keys compare by equality (a column, a kernel family), not by object identity, which a
collected object can hand on to a new one.
"""
from __future__ import annotations

from typing import Callable, Hashable, Iterable


class Cache:
    """Values by key, computed once (:meth:`get`) and kept until :meth:`keep` or
    :meth:`clear` drops them; ``name`` says what it holds."""

    def __init__(self, name: str):
        self.name = name
        self._values: dict = {}

    def get(self, key: Hashable, compute: Callable[[], object]):
        """The value of ``key``, from ``compute()`` the first time."""
        if key not in self._values:
            self._values[key] = compute()
        return self._values[key]

    def keep(self, keys: Iterable[Hashable]) -> None:
        """Drop every value whose key is not in ``keys``."""
        keys = set(keys)
        for key in [k for k in self._values if k not in keys]:
            del self._values[key]

    def clear(self) -> None:
        self._values.clear()

    def __contains__(self, key) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)

    def values(self):
        return self._values.values()

    def __repr__(self):
        return f"Cache({self.name!r}, {len(self)} values)"
