"""What a user writes: semi-infinite constraints in cvxpy
(:mod:`~sipkl.sip.constraints.semi_infinite`) or NumPy
(:mod:`~sipkl.sip.constraints.nonlinear`), and the derivatives in x a NumPy constraint does
not state (:mod:`~sipkl.sip.constraints.derivatives`)."""
