"""Kernel-agnostic numerical back-ends of :mod:`sipkl`, installed as `sipkl.solvers`.

Nothing in this package imports the rest of :mod:`sipkl`: each function takes arrays and
callables and returns plain results with a normalized status (see
:mod:`sipkl.solvers.status`).

Imported under another name — ``import solvers`` from the repository root, where this folder
lies — it is the package :mod:`sipkl.solvers` itself, module for module: a second copy would
have a second :class:`Status` enum, whose members are not those the code compares by identity.
"""
import importlib
import sys

if __name__ != "sipkl.solvers":
    for _name, _module in list(vars(importlib.import_module("sipkl.solvers")).items()):
        if type(_module) is type(sys) and _module.__name__.startswith("sipkl.solvers."):
            sys.modules[f"{__name__}.{_name}"] = _module
    sys.modules[__name__] = sys.modules["sipkl.solvers"]
from .status import SOLVER_FAILURES, Attempt, SolverError, Status
from .box_nlp import ascend_box, maximize_box, newton_box
from .cvx import solve_cvxpy
from .dc import maximize_exp_sum
from .nlp import minimize_nlp
from .simplex_qp import minimize_simplex_qp
from .svm import (SV_RTOL, SVMSolution, free_support_vectors, solve_bordered, solve_svm_dual,
                  svm_on_active_set, svm_on_sets_of, violating_pair)

__all__ = ["Attempt", "SOLVER_FAILURES", "SolverError", "Status", "ascend_box", "maximize_box",
           "maximize_exp_sum", "minimize_nlp", "minimize_simplex_qp", "newton_box",
           "solve_bordered", "solve_cvxpy", "SVMSolution", "solve_svm_dual", "svm_on_active_set",
           "violating_pair", "SV_RTOL", "free_support_vectors", "svm_on_sets_of"]
