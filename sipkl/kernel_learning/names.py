"""The names of sipkl's building blocks: kernel families, pricing oracles, masters, estimators.

One table per kind, shared by the estimators (``family="dirichlet"``, ``oracle="dc"``,
``master="alignf"``), the command line (``sipkl fit --family dirichlet``), the experiments
and the persistence of fitted models (an estimator is saved and found again by its class
name). Names are for convenience only: every estimator also takes family and oracle
*objects*, and a new oracle or family needs no entry here to be used; a family of your own
needs one to be read back from a saved model or checkpoint (``FAMILIES["mine"] = MyFamily``).

A name whose class needs constructor arguments (``"precomputed"``: the Gram matrices,
``"union"``: the families, ``"chain"``: the oracles) is listed, so that it is recognized, but
building it from the name alone is a ``ValueError`` that says which arguments it needs.
"""
from __future__ import annotations

from ..core.contracts import Oracle
from ..pricing import GridOracle, MultiStartOracle, OracleChain
from .dc_oracle import DCGaussianOracle
from .families import (Dirichlet, GaussianARD, GaussianIso, GaussianSeparate, KernelFamily,
                       KernelUnion, Laplacian, LinearPerFeature, Polynomial, Precomputed)
from .masters import (AlignfMaster, FSAMMaster, GreedySquareLossMaster, HingeMKLLpNorm,
                      HingeMKLNewton, HingeMKLQCQP, NonlinearKRRMaster, PairwiseAlignmentMaster,
                      UniformMaster)

FAMILIES = {"gaussian_iso": GaussianIso, "gaussian_separate": GaussianSeparate,
            "gaussian_ard": GaussianARD, "dirichlet": Dirichlet, "polynomial": Polynomial,
            "laplacian": Laplacian, "linear_per_feature": LinearPerFeature,
            "precomputed": Precomputed, "union": KernelUnion}
"""Kernel families by name."""

ORACLES = {"grid": GridOracle, "ipopt": MultiStartOracle, "dc": DCGaussianOracle,
           "chain": OracleChain}
"""Pricing oracles by name."""

MASTERS = {"newton": HingeMKLNewton, "qcqp": HingeMKLQCQP, "lp_norm": HingeMKLLpNorm,
           "fsam": FSAMMaster, "alignf": AlignfMaster, "uniform": UniformMaster,
           "greedy": GreedySquareLossMaster, "pairwise": PairwiseAlignmentMaster,
           "nonlinear": NonlinearKRRMaster}
"""Restricted masters by name (each estimator takes the ones of its loss: see its ``master``)."""

REQUIRED_ARGUMENTS = {Precomputed: "kernels (a list of Gram matrices or of kernel functions)",
                      KernelUnion: "families (a list of kernel families)",
                      OracleChain: "oracles (a list of oracles, cheap ones first)"}
"""The constructor arguments of the named classes that have no default."""

ESTIMATORS: dict[str, type] = {}
"""Fitted estimators by class name, for :mod:`sipkl.persistence`; filled by the decorator
:func:`register_estimator`."""


def register_estimator(cls: type) -> type:
    """Class decorator: register a sipkl estimator under its class name (for persistence)."""
    ESTIMATORS[cls.__name__] = cls
    return cls


def buildable(table: dict) -> list[str]:
    """The names of ``table`` whose class is built without arguments, sorted."""
    return sorted(name for name, cls in table.items() if cls not in REQUIRED_ARGUMENTS)


def build(table: dict, name: str, kind: str):
    """An instance of the class named ``name`` in ``table``, built with its default arguments.
    An unknown name is a ``ValueError`` that lists the valid ones (``kind`` is the argument's
    name, e.g. ``"family"``), as is a name whose class needs arguments."""
    if name not in table:
        raise ValueError(f"{kind} must be one of {sorted(table)}, got {name!r}")
    cls = table[name]
    if cls in REQUIRED_ARGUMENTS:
        raise ValueError(f"{kind} {name!r} cannot be built from its name: {cls.__name__} needs "
                         f"{REQUIRED_ARGUMENTS[cls]}; pass a {cls.__name__}(...) object")
    return cls()


def make_family(family) -> KernelFamily:
    """A family object from ``None`` (:class:`GaussianIso`), a name of :data:`FAMILIES`, or
    a :class:`~sipkl.kernel_learning.families.base.KernelFamily` (returned as it is)."""
    if family is None:
        return GaussianIso()
    if isinstance(family, str):
        return build(FAMILIES, family, "family")
    if not isinstance(family, KernelFamily):
        raise TypeError(f"family must be a KernelFamily or a name, got {type(family).__name__}")
    return family


def make_oracle(oracle):
    """An oracle object from a name of :data:`ORACLES` or an object with a
    ``price(pricing_round)`` method (returned as it is)."""
    if isinstance(oracle, str):
        return build(ORACLES, oracle, "oracle")
    if not isinstance(oracle, Oracle):
        raise TypeError(f"oracle must be a name or an object with a price(pricing_round) "
                        f"method, got {type(oracle).__name__}")
    return oracle
