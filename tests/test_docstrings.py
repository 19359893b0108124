"""The Examples of the docstrings run as shown (doctest), in every module of sipkl."""
import doctest
import importlib
import pkgutil

import pytest

import sipkl

#: the modules of the public API's front: each has runnable examples
DOCUMENTED = ("sipkl.config", "sipkl.engine", "sipkl.estimators.ikl", "sipkl.kernels.gaussian",
              "sipkl.sip.index_sets", "sipkl.sip.program")


def n_examples(name: str) -> int:
    return sum(len(test.examples)
               for test in doctest.DocTestFinder().find(importlib.import_module(name)))


WITH_EXAMPLES = [m.name for m in pkgutil.walk_packages(sipkl.__path__, "sipkl.")
                 if not m.name.endswith("__main__") and n_examples(m.name)]


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_examples_run_as_shown(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted == n_examples(name)


def test_the_public_api_has_examples():
    assert set(DOCUMENTED) <= set(WITH_EXAMPLES), set(DOCUMENTED) - set(WITH_EXAMPLES)
