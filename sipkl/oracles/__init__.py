"""Pricing oracles: each has ``price(pricing_round) -> OracleResult`` (see :mod:`sipkl.contracts`).

An oracle maximizes ``<W, K(θ)>`` over the box of every concrete family in the round and
returns its best distinct candidates, best first, that are not already columns. Oracles by
name: :data:`sipkl.registry.ORACLES` (:func:`sipkl.registry.make_oracle`).
"""
from .chain import OracleChain
from ..contracts import proves_bound
from .common import best_distinct
from .dc import DCGaussianOracle
from .grid import GridOracle
from .multistart import MultiStartOracle

#: the name scripts written against earlier versions of sipkl import (the registry's and the
#: saved models' name of this oracle stays ``"ipopt"``)
IpoptOracle = MultiStartOracle

__all__ = ["GridOracle", "MultiStartOracle", "IpoptOracle", "DCGaussianOracle", "OracleChain",
           "best_distinct", "proves_bound"]
