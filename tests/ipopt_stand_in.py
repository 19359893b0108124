"""A stand-in for cyipopt's ``Problem`` that ends with a chosen IPOPT return code: what the
tests put in :mod:`sipkl.solvers.ipopt` to see how each code is read."""
import numpy as np


def ending(code: int, message: bytes = b"stand-in", multiplier: float = 1.0) -> type:
    """A ``Problem`` class whose ``solve`` returns its start with IPOPT's ``code``,
    ``message`` and every row's multiplier ``multiplier``."""

    class Ending:
        def __init__(self, m, **_):
            self.m = m

        def add_option(self, key, value):
            pass

        def solve(self, x0):
            return x0, {"status": code, "status_msg": message,
                        "mult_g": np.full(self.m, multiplier)}

    return Ending
