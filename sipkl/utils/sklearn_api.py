"""The one module that imports scikit-learn's private API: the estimators' fit context
(``sklearn.base._fit_context``: parameter validation before ``fit``) and the constraints of
their ``_parameter_constraints``. A scikit-learn release that moves them changes this file
only."""
from sklearn.base import _fit_context as fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

__all__ = ["HasMethods", "Interval", "StrOptions", "fit_context"]
