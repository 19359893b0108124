"""The centre: a semi-infinite program solved by column generation.

:mod:`~sipkl.core.contracts` states what a master, an oracle, a column family and a column
space are; :mod:`~sipkl.core.engine` is the one loop (:class:`ColumnGeneration`) with its stop
rule, statuses (:mod:`~sipkl.core.run_status`), checkpoints (:mod:`~sipkl.core.checkpoint`)
and progress line (:mod:`~sipkl.core.progress`); :mod:`~sipkl.core.selection` keeps the best
distinct candidates of a pricing round. Nothing here knows kernels or index sets.
"""
from .contracts import Column, MasterSolution, OracleResult, PricingRound
from .engine import CGResult, ColumnGeneration
from .run_status import RunStatus

__all__ = ["CGResult", "Column", "ColumnGeneration", "MasterSolution", "OracleResult",
           "PricingRound", "RunStatus"]
