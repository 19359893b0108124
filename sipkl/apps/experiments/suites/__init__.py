"""The benchmark suites of ``sipkl bench``, by name."""
from .afkanpour import Afkanpour50d, AfkanpourTable2
from .argyriou import ArgyriouTable1
from .base import Suite
from .gehler import IKLTable1
from .peers import Peers
from .performance import Performance

SUITES: dict[str, Suite] = {s.name: s for s in (
    IKLTable1(), AfkanpourTable2(), Afkanpour50d(), ArgyriouTable1(), Peers(), Performance())}

__all__ = ["SUITES", "Suite"]
