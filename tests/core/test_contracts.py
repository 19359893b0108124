"""The bases of masters and oracles: required hooks said so, optional ones at their defaults,
each a declared capability the engine reads."""
import numpy as np
import pytest
from sklearn.datasets import make_moons

from sipkl import Column, ColumnGeneration, GaussianIso
from sipkl.core.contracts import (MasterBase, OracleBase, ProvesBound, StartsEmpty, Stateful,
                                  TimeLimited, proves_bound)
from sipkl.kernel_learning.masters import HingeMKLNewton
from sipkl.kernel_learning.dc_oracle import DCGaussianOracle
from sipkl.pricing import GridOracle, MultiStartOracle
from sipkl.kernel_learning.space import KernelSpace


def test_required_hooks_are_abstract():
    class NoSolve(MasterBase):
        pass

    class NoPrice(OracleBase):
        pass

    for cls in (NoSolve, NoPrice):
        with pytest.raises(TypeError, match="abstract"):
            cls()


def test_optional_hooks_have_their_defaults():
    class Plain(MasterBase):
        def solve(self, inputs, warm_start=None):
            raise AssertionError

    master = Plain()
    assert isinstance(master, (StartsEmpty, TimeLimited, Stateful))
    assert master.empty_start is False and master.deadline is None and master.get_state() == {}
    assert isinstance(MultiStartOracle(), ProvesBound)
    assert not proves_bound(MultiStartOracle(), GaussianIso(), 2)
    assert proves_bound(DCGaussianOracle(), GaussianIso(), 2)
    assert not proves_bound(object(), GaussianIso(), 2)  # an oracle that declares nothing


def test_a_master_without_empty_start_needs_a_column_and_gets_the_deadline():
    X, y = make_moons(40, noise=0.2, random_state=0)
    y = np.where(y == 1, 1.0, -1.0)
    master = HingeMKLNewton(y, 1.0)
    with pytest.raises(ValueError, match="empty_start"):
        ColumnGeneration(master, GridOracle()).run(KernelSpace(X, GaussianIso()), [])
    ColumnGeneration(master, GridOracle(), time_limit=60.0, max_iter=1).run(
        KernelSpace(X, GaussianIso()), [Column.make(GaussianIso(), 1.0)])
    assert master.deadline is not None


def test_the_multistart_oracle_keeps_its_old_names():
    """Saved models and the registry name it "ipopt"; scripts may import IpoptOracle."""
    from sipkl import make_oracle
    from sipkl.pricing import IpoptOracle, MultiStartOracle
    assert IpoptOracle is MultiStartOracle
    assert type(make_oracle("ipopt")) is MultiStartOracle
