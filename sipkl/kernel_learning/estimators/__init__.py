"""scikit-learn estimators built on the column-generation engine, one module per method:

* :mod:`~sipkl.kernel_learning.estimators.ikl` — :class:`IKLClassifier` (hinge-loss IKL and MKL);
* :mod:`~sipkl.kernel_learning.estimators.alignment` — :class:`AlignmentKernelClassifier`,
  :class:`AlignmentKernelRegressor` (centred alignment: FSAM, alignf, uniform; two stages);
* :mod:`~sipkl.kernel_learning.estimators.greedy` — :class:`GreedyKernelRidge`,
  :class:`GreedyKernelRidgeClassifier` (argyriou's greedy square loss);
* :mod:`~sipkl.kernel_learning.estimators.pairwise` — :class:`PairwiseAlignmentClassifier` (pothin_richard);
* :mod:`~sipkl.kernel_learning.estimators.nonlinear` — :class:`NonlinearKernelRidge` (NKRR, cortes et al.);

and :mod:`~sipkl.kernel_learning.estimators.base`, what they share.
"""
from .alignment import AlignmentKernelClassifier, AlignmentKernelRegressor
from .greedy import GreedyKernelRidge, GreedyKernelRidgeClassifier
from .ikl import IKLClassifier
from .nonlinear import NonlinearKernelRidge
from .pairwise import PairwiseAlignmentClassifier

__all__ = ["IKLClassifier", "AlignmentKernelClassifier", "AlignmentKernelRegressor",
           "GreedyKernelRidge", "GreedyKernelRidgeClassifier", "PairwiseAlignmentClassifier",
           "NonlinearKernelRidge"]
