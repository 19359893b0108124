"""Progress of long fits: an iteration log through :mod:`logging`, a tqdm bar on request.

Every iteration of :class:`~sipkl.core.engine.ColumnGeneration` is logged at ``DEBUG`` on the
``"sipkl.core.engine"`` logger (a child of ``"sipkl"``: ``logging.getLogger("sipkl")`` controls
it); nothing is printed by default. The engine's ``verbose`` adds a view on the terminal:

* ``verbose=0``: nothing (the log records only);
* ``verbose=1``: the log line printed to stdout, one per iteration — unless logging already
  shows it (:func:`shown_by_logging`), so that a configured log and ``verbose=1`` do not
  print each iteration twice;
* ``verbose≥2``: a tqdm progress bar over the iterations (on stderr), showing the objective,
  λ, the best price and the number of columns.
"""
from __future__ import annotations

import logging

logger = logging.getLogger("sipkl.core.engine")


def shown_by_logging() -> bool:
    """Whether the iteration records reach a handler that emits them: ``DEBUG`` is enabled
    for the logger and a handler on it or on an ancestor it propagates to takes ``DEBUG``."""
    if not logger.isEnabledFor(logging.DEBUG):
        return False
    current = logger
    while current is not None:
        if any(handler.level <= logging.DEBUG for handler in current.handlers):
            return True
        current = current.parent if current.propagate else None
    return False


class IterationLog:
    """The per-iteration report of one column-generation run.

    Parameters
    ----------
    verbose : int
        0, 1 or ≥ 2 as in the module notes.
    total : int
        Iterations at most (the engine's ``max_iter``), the length of the bar.
    initial : int
        First iteration (not 0 when a run resumes from a checkpoint).
    """

    def __init__(self, verbose: int, total: int, initial: int = 0):
        self.verbose = verbose
        self.echo = verbose == 1 and not shown_by_logging()
        self.bar = None
        if verbose >= 2:
            from tqdm import tqdm
            self.bar = tqdm(total=total, initial=initial, desc="column generation",
                            unit="it", dynamic_ncols=True)

    def update(self, it: int, elapsed: float, objective: float, threshold: float,
               best_price: float, n_columns: int, n_new: int) -> None:
        """Record iteration ``it`` (``elapsed`` seconds since the start of the run)."""
        line = (f"iter {it:3d}  t={elapsed:7.2f}s  obj={objective:.6g}  λ={threshold:.6g}  "
                f"best price={best_price:.6g}  columns={n_columns}  new={n_new}")
        logger.debug(line)
        if self.bar is not None:
            self.bar.set_postfix({"obj": f"{objective:.5g}", "λ": f"{threshold:.5g}",
                                  "price": f"{best_price:.5g}", "columns": n_columns},
                                 refresh=False)
            self.bar.update()
        elif self.echo:
            print(line)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def report(verbose: int, line: str) -> None:
    """Log one line of a fit's progress that is not an iteration (a stage begun or ended) at
    ``DEBUG``, and print it where ``verbose`` ≥ 1 and logging does not show it already."""
    logger.debug(line)
    if verbose >= 1 and not shown_by_logging():
        print(line, flush=True)
