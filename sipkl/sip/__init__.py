"""Semi-infinite programs modelled in cvxpy, solved by the column-generation engine.

    min f(x)  s.t.  finite constraints,   g_j(x, t) ≤ 0  for all t ∈ T_j

See :class:`SemiInfiniteProgram` and the tutorial "Your first semi-infinite program";
smooth programs that are not convex, written in NumPy: :class:`NonlinearSemiInfiniteProgram`;
index sets that depend on x: :class:`GeneralizedSemiInfiniteProgram`.
"""
from .constraints.decision_rules import DecisionRule, decision_rule
from .constraints.integral import integral
from .constraints.nonlinear import FiniteConstraint, NonlinearConstraint
from .constraints.semi_infinite import IndexConstraint, SemiInfiniteConstraint
from .constraints.worst_case import max_over
from .generalized import GeneralizedSemiInfiniteProgram, LowerLevelConstraint
from .masters.discretized import DiscretizedMaster
from .masters.nonlinear import NonlinearMaster
from .nonlinear_program import NonlinearSemiInfiniteProgram
from .pricing.branch_and_bound import IntervalOracle, LipschitzOracle
from .pricing.sets import AffineOracle, SetSearchOracle
from .program import SemiInfiniteProgram, SIPResult
from .robust import robust_counterpart, robust_program
from .sets.box import Box, FiniteSet
from .sets.ellipsoids import Ball, Ellipsoid
from .sets.intersection import Intersection
from .sets.polytopes import Polytope
from .sets.product import Product
from .sets.smooth import SmoothSet

__all__ = ["AffineOracle", "Ball", "Box", "DecisionRule", "DiscretizedMaster", "Ellipsoid",
           "FiniteConstraint", "FiniteSet", "GeneralizedSemiInfiniteProgram", "IndexConstraint",
           "Intersection", "IntervalOracle", "LipschitzOracle", "LowerLevelConstraint",
           "NonlinearConstraint", "NonlinearMaster",
           "NonlinearSemiInfiniteProgram", "Polytope", "Product", "SIPResult",
           "SemiInfiniteConstraint", "SemiInfiniteProgram", "SetSearchOracle", "SmoothSet",
           "decision_rule", "integral", "max_over", "robust_counterpart", "robust_program"]
