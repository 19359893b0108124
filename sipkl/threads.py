"""One BLAS thread for the thin products of column generation.

The products inside a fit are small or thin (Gram matrices of a few hundred points, pairs ×
dimensions times dimensions × starts, matrix-vector products): extra BLAS threads only add
synchronization to them, which on a two-core machine made a chessboard fit 2× slower and
single products up to 20× slower. The oracle, the Newton master and the workspace run their
products inside :func:`one_blas_thread` (threadpoolctl, a dependency of scikit-learn).
The loaded libraries are found once, on the first call: looking them up again costs a scan of
the process's shared objects (milliseconds, hundreds of times per fit).
"""
from __future__ import annotations

from functools import lru_cache

from threadpoolctl import ThreadpoolController


@lru_cache(maxsize=None)
def _controller() -> ThreadpoolController:
    return ThreadpoolController()


def one_blas_thread():
    """Context manager limiting BLAS libraries to one thread (restored on exit)."""
    return _controller().limit(limits=1, user_api="blas")
