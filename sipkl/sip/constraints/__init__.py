"""What a user writes: semi-infinite constraints in cvxpy
(:mod:`~sipkl.sip.constraints.semi_infinite`) or NumPy
(:mod:`~sipkl.sip.constraints.nonlinear`), the derivatives in x a NumPy constraint does
not state (:mod:`~sipkl.sip.constraints.derivatives`), and g evaluated in interval
arithmetic, the rigorous bounds of certified pricing
(:mod:`~sipkl.sip.constraints.intervals`)."""
