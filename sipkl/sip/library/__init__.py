"""Semi-infinite programs from the literature, with their reference values: convex ones in
cvxpy (:mod:`~sipkl.sip.library.convex`) and nonconvex ones in NumPy
(:mod:`~sipkl.sip.library.nonlinear`)."""
