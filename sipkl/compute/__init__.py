"""Blocked numerics that know no family: the batched evaluators of exponential sums
(:mod:`~sipkl.compute.exponential`), the Gram storages a master reads (dense, lazy, packed:
:mod:`~sipkl.compute.gram_storage`), Gram matrices held by features
(:mod:`~sipkl.compute.features`) and the array back-ends (NumPy, torch:
:mod:`~sipkl.compute.arrays`). Sizes come from the budgets of :mod:`sipkl.utils.config`."""
