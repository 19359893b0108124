"""Fixtures shared by the tests."""
import pytest

import sipkl


@pytest.fixture
def budgets():
    """``budgets(name=value, …)`` sets sipkl's speed and memory budgets for one test
    (:func:`sipkl.set_config`); the previous ones come back after it."""
    with sipkl.config_context():
        yield sipkl.set_config
