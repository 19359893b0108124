"""The pricing of a semi-infinite program: its column space of index points
(:mod:`~sipkl.sip.pricing.space`), its oracles — the dense sample refined by Newton steps
(:mod:`~sipkl.sip.pricing.dense`), the certified branch and bound by a Lipschitz constant or
by interval arithmetic (:mod:`~sipkl.sip.pricing.branch_and_bound`), the oracles over convex sets
(:mod:`~sipkl.sip.pricing.sets`) and their local searches (:mod:`~sipkl.sip.pricing.search`)
— and the final search of every index set at the answer
(:mod:`~sipkl.sip.pricing.verification`)."""
