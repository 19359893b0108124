"""Restricted masters over index points: the convex master in cvxpy
(:mod:`~sipkl.sip.masters.discretized`), the nonlinear one in NumPy
(:mod:`~sipkl.sip.masters.nonlinear`), with their scales, drop rule and diagnosis of
infeasible or unbounded masters."""
