"""Pricing oracles: each has ``price(pricing_round) -> OracleResult`` (see :mod:`sipkl.contracts`).

An oracle maximizes ``<W, K(θ)>`` over the box of every concrete family in the round and
returns its best distinct candidates, best first, that are not already columns.
"""
from .grid import GridOracle
from .ipopt import IpoptOracle
from .dc import DCGaussianOracle
from .chain import OracleChain
from ..contracts import Oracle
from .common import best_distinct, proves_bound

__all__ = ["GridOracle", "IpoptOracle", "DCGaussianOracle", "OracleChain", "best_distinct",
           "make_oracle", "proves_bound"]


def make_oracle(oracle):
    """An oracle object from a name (``"grid"``, ``"ipopt"``, ``"dc"``) or an oracle instance."""
    if isinstance(oracle, str):
        names = {"grid": GridOracle, "ipopt": IpoptOracle, "dc": DCGaussianOracle}
        if oracle not in names:
            raise ValueError(f"oracle must be one of {sorted(names)} or an object with a "
                             f"price(pricing_round) method, got {oracle!r}")
        return names[oracle]()
    if not isinstance(oracle, Oracle):
        raise TypeError(f"oracle must be a name or an object with a price(pricing_round) method, "
                        f"got {type(oracle).__name__}")
    return oracle
