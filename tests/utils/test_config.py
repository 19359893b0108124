"""The budgets of sipkl: one configuration per thread, set by name, restored by its context."""
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import sipkl
from sipkl.utils.config import BUDGETS
from sipkl.kernel_learning.space import KernelSpace


def test_config_context_sets_and_restores_even_on_error():
    before = sipkl.get_config()
    assert before == BUDGETS
    with pytest.raises(RuntimeError):
        with sipkl.config_context(gram_cache_bytes=0, point_thetas=3):
            assert sipkl.get_config() == {**BUDGETS, "gram_cache_bytes": 0, "point_thetas": 3}
            assert KernelSpace(np.zeros((2, 1))).lazy
            raise RuntimeError
    assert sipkl.get_config() == before and not KernelSpace(np.zeros((2, 1))).lazy


@pytest.mark.parametrize("budgets, message", [({"gram_cache": 1}, "not a budget"),
                                              ({"point_thetas": -1}, "point_thetas"),
                                              ({"pair_elements": 2.5}, "pair_elements"),
                                              ({"pair_elements": True}, "pair_elements")])
def test_bad_budgets_are_refused_by_name(budgets, message):
    with pytest.raises(ValueError, match=message):
        sipkl.set_config(**budgets)
    assert sipkl.get_config() == BUDGETS


def in_other_thread(fn):
    """The future of ``fn()`` run in a new thread (a plain one: nothing of sipkl's carries
    the budgets over)."""
    executor = ThreadPoolExecutor(1)
    future = executor.submit(fn)
    executor.shutdown(wait=False)
    return future


def test_a_context_in_one_thread_leaves_the_budgets_of_another():
    """Both threads inside their contexts at once: each reads only its own budgets, and each
    gets its previous ones back."""
    inside, read = threading.Barrier(2, timeout=30), threading.Barrier(2, timeout=30)

    def within(**budgets):
        with sipkl.config_context(**budgets):
            inside.wait()
            seen = sipkl.get_config()
            read.wait()
        return seen, sipkl.get_config()
    other = in_other_thread(lambda: within(point_thetas=3))
    mine = within(gram_cache_bytes=0)
    assert mine == ({**BUDGETS, "gram_cache_bytes": 0}, BUDGETS)
    assert other.result() == ({**BUDGETS, "point_thetas": 3}, BUDGETS)


def test_a_new_thread_starts_from_the_defaults(budgets):
    budgets(point_thetas=3)
    assert in_other_thread(sipkl.get_config).result() == BUDGETS
    assert sipkl.get_config() == {**BUDGETS, "point_thetas": 3}


def test_a_context_left_on_an_error_restores_its_own_thread_only():
    """One thread leaves its context on an error while another is inside its own: the first
    gets its budgets back, the second keeps those of its context."""
    entered, failed = threading.Barrier(2, timeout=30), threading.Event()

    def hold():
        with sipkl.config_context(point_thetas=3):
            entered.wait()
            failed.wait(30)
            return sipkl.get_config()
    other = in_other_thread(hold)
    try:
        with pytest.raises(RuntimeError):
            with sipkl.config_context(point_thetas=5, gram_cache_bytes=0):
                entered.wait()
                raise RuntimeError
        assert sipkl.get_config() == BUDGETS
    finally:
        failed.set()
    assert other.result() == {**BUDGETS, "point_thetas": 3}
