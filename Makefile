# Two commands do all the set-up on a fresh machine:
#   make figures   # create .venv, install, regenerate every figure into figures/
#   make test      # create .venv, install, run the test suite
# torch is pinned to the CPU build only here (constraints.txt), never in pyproject.toml.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: figures test check-figures bench lint clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[test,dask]" ruff
	touch $(STAMP)

figures: $(STAMP)
	$(BIN)/gaugecli plot all --cache-dir runs --out-dir figures

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2

# Regenerate every figure from an empty cache and compare the plotted numbers with the
# committed sidecars (figures/*.json); fails naming the figure and series that moved.
check-figures: $(STAMP)
	rm -rf build/check-figures
	$(BIN)/gaugecli plot all --cache-dir build/check-figures/runs --out-dir build/check-figures/figures --compare figures

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

lint: $(STAMP)
	$(BIN)/ruff check gaugecli tests benchmarks
	$(BIN)/ruff format --check gaugecli tests benchmarks

clean:
	rm -rf $(VENV) build runs .pytest_cache
