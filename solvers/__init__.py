"""Kernel-agnostic numerical back-ends of :mod:`sipkl`, installed as `sipkl.solvers`.

Nothing in this package imports the rest of :mod:`sipkl`: each function takes arrays and
callables and returns plain results with a normalized status (see
:mod:`sipkl.solvers.status`).

This folder is installed as the package :mod:`sipkl.solvers` (``package_dir`` in
``setup.cfg``) and is that package only: imported under another name (``import solvers`` from
the repository root) it refuses, so that there is one :class:`Status` enum, whose members the
code compares by identity.
"""
if __name__ != "sipkl.solvers":
    raise ImportError(f"{__name__}: this folder is the package sipkl.solvers; import it as "
                      "sipkl.solvers")

from .status import SOLVER_FAILURES, Attempt, SolverError, Status
from .box_nlp import ascend_box, maximize_box, newton_box
from .cvx import solve_cvxpy, solve_tightly
from .dc import maximize_exp_sum
from .nlp import minimize_nlp
from .simplex_qp import minimize_simplex_qp
from .svm import (SV_RTOL, SVMSolution, free_support_vectors, solve_bordered, solve_svm_dual,
                  svm_on_active_set, svm_on_sets_of, violating_pair)

__all__ = ["Attempt", "SOLVER_FAILURES", "SolverError", "Status", "ascend_box", "maximize_box",
           "maximize_exp_sum", "minimize_nlp", "minimize_simplex_qp", "newton_box",
           "solve_bordered", "solve_cvxpy", "solve_tightly", "SVMSolution", "solve_svm_dual",
           "svm_on_active_set", "violating_pair", "SV_RTOL", "free_support_vectors",
           "svm_on_sets_of"]
