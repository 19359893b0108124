"""Infrastructure with no optimization meaning: budgets (:mod:`~sipkl.utils.config`), BLAS
threads and pools (:mod:`~sipkl.utils.threads`, :mod:`~sipkl.utils.blas`), a small cache
(:mod:`~sipkl.utils.cache`), JSON documents (:mod:`~sipkl.utils.documents`) and the old
import paths (:mod:`~sipkl.utils.deprecation`)."""
