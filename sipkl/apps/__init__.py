"""The applications on top of the package: the command line (:mod:`~sipkl.apps.cli`), the
demo (:mod:`~sipkl.apps.demo`) and the experiment sweeps (:mod:`~sipkl.apps.experiments`)."""
