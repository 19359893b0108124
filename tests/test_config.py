"""The budgets of sipkl: one configuration, set by name, restored by its context."""
import numpy as np
import pytest

import sipkl
from sipkl.config import BUDGETS
from sipkl.workspace import Workspace


def test_config_context_sets_and_restores_even_on_error():
    before = sipkl.get_config()
    assert before == BUDGETS
    with pytest.raises(RuntimeError):
        with sipkl.config_context(gram_cache_bytes=0, point_thetas=3):
            assert sipkl.get_config() == {**BUDGETS, "gram_cache_bytes": 0, "point_thetas": 3}
            assert Workspace(np.zeros((2, 1))).lazy
            raise RuntimeError
    assert sipkl.get_config() == before and not Workspace(np.zeros((2, 1))).lazy


@pytest.mark.parametrize("budgets, message", [({"gram_cache": 1}, "not a budget"),
                                              ({"point_thetas": -1}, "point_thetas"),
                                              ({"pair_elements": 2.5}, "pair_elements"),
                                              ({"pair_elements": True}, "pair_elements")])
def test_bad_budgets_are_refused_by_name(budgets, message):
    with pytest.raises(ValueError, match=message):
        sipkl.set_config(**budgets)
    assert sipkl.get_config() == BUDGETS
