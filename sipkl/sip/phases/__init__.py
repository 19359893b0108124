"""What runs beside the exchange method: the certified feasible point of a restricted
right-hand side (:mod:`~sipkl.sip.phases.feasible_point`), the certificate at the answer
(:mod:`~sipkl.sip.phases.certification`), the local reduction phases
(:mod:`~sipkl.sip.phases.reduction`, :mod:`~sipkl.sip.phases.nonlinear_reduction`) and the
escape from saddle points (:mod:`~sipkl.sip.phases.saddle`)."""
