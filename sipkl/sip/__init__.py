"""Semi-infinite programs modelled in cvxpy, solved by the column-generation engine.

    min f(x)  s.t.  finite constraints,   g_j(x, t) ≤ 0  for all t ∈ T_j

See :class:`SemiInfiniteProgram` and the tutorial "Your first semi-infinite program";
smooth programs that are not convex, written in NumPy: :class:`NonlinearSemiInfiniteProgram`.
"""
from .constraint import IndexConstraint, SemiInfiniteConstraint
from .index_sets import Ball, Box, Ellipsoid, FiniteSet, Intersection, Polytope, Product
from .lipschitz import LipschitzOracle
from .master import DiscretizedMaster
from .nonlinear_constraints import FiniteConstraint, NonlinearConstraint
from .nonlinear_master import NonlinearMaster
from .nonlinear_program import NonlinearSemiInfiniteProgram
from .program import SemiInfiniteProgram, SIPResult
from .robust import robust_counterpart, robust_program
from .sets_pricing import AffineOracle, SetSearchOracle
from .smooth_sets import SmoothSet

__all__ = ["AffineOracle", "Ball", "Box", "DiscretizedMaster", "Ellipsoid", "FiniteConstraint",
           "FiniteSet", "IndexConstraint", "Intersection", "LipschitzOracle",
           "NonlinearConstraint", "NonlinearMaster", "NonlinearSemiInfiniteProgram", "Polytope",
           "Product", "SIPResult", "SemiInfiniteConstraint", "SemiInfiniteProgram",
           "SetSearchOracle", "SmoothSet", "robust_counterpart", "robust_program"]
