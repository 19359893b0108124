"""The import paths of sipkl 0.1.0's first layout, kept for one release.

``import sipkl.workspace`` and the like still work: a finder on ``sys.meta_path`` answers
each old path with a module that reads its names from the modules they now live in, and warns
with a ``DeprecationWarning`` naming the new path. The objects are the same (one class, one
enum member, whichever path imported them); only the module object at the old path is a
stand-in. Removed in the next release.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

#: old module -> the modules its names now live in (the first is its successor)
OLD_PATHS = {
    'sipkl.config': ('sipkl.utils.config',),
    'sipkl.threads': ('sipkl.utils.threads',),
    'sipkl.blas': ('sipkl.utils.blas',),
    'sipkl.cache': ('sipkl.utils.cache',),
    'sipkl.documents': ('sipkl.utils.documents',),
    'sipkl.contracts': ('sipkl.core.contracts', 'sipkl.kernel_learning.price_matrix'),
    'sipkl.engine': ('sipkl.core.engine',),
    'sipkl.run_status': ('sipkl.core.run_status',),
    'sipkl.checkpoint': ('sipkl.core.checkpoint',),
    'sipkl.progress': ('sipkl.core.progress',),
    'sipkl.oracles.common': ('sipkl.core.selection',),
    'sipkl.oracles': ('sipkl.pricing', 'sipkl.core.contracts', 'sipkl.core.selection',
                      'sipkl.kernel_learning.dc_oracle'),
    'sipkl.oracles.grid': ('sipkl.pricing.grid',),
    'sipkl.oracles.multistart': ('sipkl.pricing.multistart',),
    'sipkl.oracles.chain': ('sipkl.pricing.chain',),
    'sipkl.kernels.pricers': ('sipkl.compute.exponential',),
    'sipkl.lazy_gram': ('sipkl.compute.lazy_gram',),
    'sipkl.packed_gram': ('sipkl.compute.packed_gram',),
    'sipkl.gram_storage': ('sipkl.compute.gram_storage',),
    'sipkl.torch_backend': ('sipkl.compute.torch_backend',),
    'sipkl.oracles.dc': ('sipkl.kernel_learning.dc_oracle',),
    'sipkl.kernels': ('sipkl.kernel_learning.families',),
    'sipkl.kernels.base': ('sipkl.kernel_learning.families.base',),
    'sipkl.kernels.gaussian': ('sipkl.kernel_learning.families.gaussian',),
    'sipkl.kernels.others': ('sipkl.kernel_learning.families.others',),
    'sipkl.kernels.linear': ('sipkl.kernel_learning.families.linear',),
    'sipkl.kernels.learned': ('sipkl.kernel_learning.families.learned',),
    'sipkl.price': ('sipkl.kernel_learning.price_matrix',),
    'sipkl.workspace': ('sipkl.kernel_learning.space',),
    'sipkl.nystrom': ('sipkl.kernel_learning.nystrom', 'sipkl.compute.arrays',
                      'sipkl.compute.features'),
    'sipkl.registry': ('sipkl.kernel_learning.names',),
    'sipkl.expansion': ('sipkl.kernel_learning.expansion',),
    'sipkl.masters': ('sipkl.kernel_learning.masters',),
    'sipkl.estimators': ('sipkl.kernel_learning.estimators',),
    'sipkl.sip.index_sets': ('sipkl.sip.sets.base', 'sipkl.sip.sets.box',
                             'sipkl.sip.sets.ellipsoids', 'sipkl.sip.sets.geometry',
                             'sipkl.sip.sets.intersection', 'sipkl.sip.sets.polytopes',
                             'sipkl.sip.sets.product'),
    'sipkl.sip.smooth_sets': ('sipkl.sip.sets.smooth',),
    'sipkl.sip.constraint': ('sipkl.sip.constraints.semi_infinite',),
    'sipkl.sip.nonlinear_constraints': ('sipkl.sip.constraints.nonlinear',),
    'sipkl.sip.derivatives': ('sipkl.sip.constraints.derivatives',),
    'sipkl.sip.space': ('sipkl.sip.pricing.space',),
    'sipkl.sip.lipschitz': ('sipkl.sip.pricing.branch_and_bound',),
    'sipkl.sip.pricing.lipschitz': ('sipkl.sip.pricing.branch_and_bound',),
    'sipkl.sip.sampled': ('sipkl.sip.pricing.dense',),
    'sipkl.sip.sets_pricing': ('sipkl.sip.pricing.sets',),
    'sipkl.sip.set_search': ('sipkl.sip.pricing.search',),
    'sipkl.sip.verification': ('sipkl.sip.pricing.verification',),
    'sipkl.sip.master': ('sipkl.sip.masters.discretized',),
    'sipkl.sip.nonlinear_master': ('sipkl.sip.masters.nonlinear',),
    'sipkl.sip.scales': ('sipkl.sip.masters.scales',),
    'sipkl.sip.drop_rule': ('sipkl.sip.masters.drop_rule',),
    'sipkl.sip.diagnosis': ('sipkl.sip.masters.diagnosis',),
    'sipkl.sip.bracket': ('sipkl.sip.phases.feasible_point',),
    'sipkl.sip.reduction': ('sipkl.sip.phases.reduction',),
    'sipkl.sip.nonlinear_reduction': ('sipkl.sip.phases.nonlinear_reduction',),
    'sipkl.sip.saddle': ('sipkl.sip.phases.saddle',),
    'sipkl.sip.problems': ('sipkl.sip.library.convex',),
    'sipkl.sip.nonlinear_problems': ('sipkl.sip.library.nonlinear',),
    'sipkl.cli': ('sipkl.apps.cli',),
    'sipkl.demo': ('sipkl.apps.demo',),
    'sipkl.experiments': ('sipkl.apps.experiments',),
    'sipkl.masters.alignment': ('sipkl.kernel_learning.masters.alignment',),
    'sipkl.masters.common': ('sipkl.kernel_learning.masters.common',),
    'sipkl.masters.greedy': ('sipkl.kernel_learning.masters.greedy',),
    'sipkl.masters.hinge': ('sipkl.kernel_learning.masters.hinge',),
    'sipkl.masters.lp_norm': ('sipkl.kernel_learning.masters.lp_norm',),
    'sipkl.masters.models': ('sipkl.kernel_learning.masters.models',),
    'sipkl.masters.nonlinear': ('sipkl.kernel_learning.masters.nonlinear',),
    'sipkl.masters.pairwise': ('sipkl.kernel_learning.masters.pairwise',),
    'sipkl.masters.working_set': ('sipkl.kernel_learning.masters.working_set',),
    'sipkl.estimators.alignment': ('sipkl.kernel_learning.estimators.alignment',),
    'sipkl.estimators.base': ('sipkl.kernel_learning.estimators.base',),
    'sipkl.estimators.greedy': ('sipkl.kernel_learning.estimators.greedy',),
    'sipkl.estimators.ikl': ('sipkl.kernel_learning.estimators.ikl',),
    'sipkl.estimators.nonlinear': ('sipkl.kernel_learning.estimators.nonlinear',),
    'sipkl.estimators.pairwise': ('sipkl.kernel_learning.estimators.pairwise',),
    'sipkl.experiments.__main__': ('sipkl.apps.experiments.__main__',),
    'sipkl.experiments.bench': ('sipkl.apps.experiments.bench',),
    'sipkl.experiments.methods': ('sipkl.apps.experiments.methods',),
    'sipkl.experiments.runner': ('sipkl.apps.experiments.runner',),
    'sipkl.experiments.suites': ('sipkl.apps.experiments.suites',),
    'sipkl.experiments.suites.afkanpour': ('sipkl.apps.experiments.suites.afkanpour',),
    'sipkl.experiments.suites.argyriou': ('sipkl.apps.experiments.suites.argyriou',),
    'sipkl.experiments.suites.base': ('sipkl.apps.experiments.suites.base',),
    'sipkl.experiments.suites.gehler': ('sipkl.apps.experiments.suites.gehler',),
    'sipkl.experiments.suites.peers': ('sipkl.apps.experiments.suites.peers',),
    'sipkl.experiments.suites.performance': ('sipkl.apps.experiments.suites.performance',),
}

#: the old paths that were packages (their submodules are old paths too)
OLD_PACKAGES = {"sipkl.estimators", "sipkl.experiments", "sipkl.experiments.suites",
                "sipkl.kernels", "sipkl.masters", "sipkl.oracles"}

#: names renamed in the move: (old module, old name) -> new name
RENAMED = {("sipkl.workspace", "Workspace"): "KernelSpace"}


MISSING = object()


class MovedModule(types.ModuleType):
    """The stand-in at an old path: its attributes are read from the new modules."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        new_name = RENAMED.get((self.__name__, name), name)
        for target in OLD_PATHS[self.__name__]:
            found = vars(importlib.import_module(target)).get(new_name, MISSING)
            if found is not MISSING:
                return found
        raise AttributeError(f"module {self.__name__!r} (now {OLD_PATHS[self.__name__][0]}) "
                             f"has no attribute {name!r}")


class OldPathFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old paths of :data:`OLD_PATHS` (and nothing else)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in OLD_PATHS:
            return None
        return importlib.util.spec_from_loader(fullname, self,
                                               is_package=fullname in OLD_PACKAGES)

    def create_module(self, spec):
        return MovedModule(spec.name)

    def exec_module(self, module):
        warnings.warn(f"{module.__name__} is deprecated: import "
                      f"{OLD_PATHS[module.__name__][0]} (sipkl's layout of folders by role)",
                      DeprecationWarning, stacklevel=2)


def install() -> None:
    """Put the finder of the old paths on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, OldPathFinder) for f in sys.meta_path):
        sys.meta_path.append(OldPathFinder())
