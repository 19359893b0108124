"""Pricing oracles that work on any column family: each has
``price(pricing_round) -> OracleResult`` (see :mod:`sipkl.core.contracts`).

An oracle maximizes the price of a column over the parameter box of every family in the
round (kernel parameters θ, or the index points t of a semi-infinite constraint) and returns
its best distinct candidates, best first, that are not already columns: by enumeration
(:class:`GridOracle`), by local searches from many starts (:class:`MultiStartOracle`), or by
a chain of oracles (:class:`OracleChain`). The oracles that know their instance live with
it: the DC branch and bound for Gaussian kernels in :mod:`sipkl.kernel_learning.dc_oracle`,
the semi-infinite programs' oracles in :mod:`sipkl.sip.pricing`.
"""
from ..core.contracts import proves_bound
from ..core.selection import best_distinct
from .chain import OracleChain
from .grid import GridOracle
from .multistart import MultiStartOracle

#: the name scripts written against earlier versions of sipkl import (the registry's and the
#: saved models' name of this oracle stays ``"ipopt"``)
IpoptOracle = MultiStartOracle

__all__ = ["GridOracle", "MultiStartOracle", "IpoptOracle", "OracleChain", "best_distinct",
           "proves_bound"]
