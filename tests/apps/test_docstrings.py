"""The Examples of the docstrings run as shown (doctest), in every module of sipkl."""
import doctest
import importlib
import pkgutil

import pytest

import sipkl

#: the public API's front: every estimator and kernel family, the engine, the semi-infinite
#: program and its index sets have runnable examples in their docstrings
DOCUMENTED = ("IKLClassifier", "AlignmentKernelClassifier", "AlignmentKernelRegressor",
              "GreedyKernelRidge", "GreedyKernelRidgeClassifier", "PairwiseAlignmentClassifier",
              "NonlinearKernelRidge", "GaussianIso", "GaussianSeparate", "GaussianARD",
              "Dirichlet", "Polynomial", "Laplacian", "Precomputed", "KernelUnion",
              "LinearPerFeature", "LearnedKernel", "ColumnGeneration")


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
    import sipkl.sip
    front = [getattr(sipkl, name) for name in DOCUMENTED] + [
        sipkl.sip.SemiInfiniteProgram, sipkl.sip.Box, sipkl.sip.FiniteSet]
    missing = [obj.__name__ for obj in front if "Examples\n    --------" not in obj.__doc__]
    assert not missing, missing
    assert "sipkl.utils.config" in WITH_EXAMPLES
