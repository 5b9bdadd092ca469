# Two commands do all the set-up on a fresh machine:
#   make figures   # create .venv, install, regenerate every figure into figures/
#   make test      # create .venv, install, run the test suite
# torch is pinned only here (constraints.txt: torch==2.13.0), never in pyproject.toml.
# On a machine whose pip is not configured for a CPU build, PyPI's torch 2.13.0 for Linux is the
# CUDA build (several GB with its nvidia-* wheels); to take the CPU wheels instead (~200 MB):
#   make test TORCH_INDEX=https://download.pytorch.org/whl/cpu

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TORCH_INDEX ?=
PIP_EXTRA := $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX),)
# pip's flags for the installs below; CI sets --no-compile (.ci/run): pip would byte-compile every module
# of every wheel (torch's thousands), most of which no command imports; the first import compiles and
# writes what is used (which needs PYTHONDONTWRITEBYTECODE unset, as .ci/run makes sure)
INSTALL_FLAGS ?=

.PHONY: figures test compile-loops compile-loops-native compile-loops-portable check-figures check-portable bench lint docs docs-site check-site check-sdist check-citation clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet $(INSTALL_FLAGS) $(PIP_EXTRA) -c constraints.txt -e ".[test,dask,dev,frame]"
	touch $(STAMP)

figures: $(STAMP)
	$(BIN)/gaugecli plot all --cache-dir runs --out-dir figures

# numba's compiled loops into their on-disk cache, on this machine's arithmetic path (compile-loops-native)
# and on the second, check-portable's, one (compile-loops-portable), ~30 CPU-s each into an empty cache.
# CI compiles each on a core another step leaves idle (the native path beside lint, the second beside the
# sdist's tests): otherwise pytest's two workers each compile the loops they meet first, at once.
LOOPS := from gaugecli.core.population import fused, fused_smooth; from gaugecli.core.samples import empirical_fused; \
	from gaugecli.core.integrate import bdf_flow, dop853_flow, odeint_flow, population_loop, sgd_loop; \
	[m.compile_loops() for m in (fused, empirical_fused, odeint_flow, bdf_flow, dop853_flow, fused_smooth, sgd_loop, \
	population_loop)]
compile-loops: compile-loops-native compile-loops-portable
compile-loops-native: $(STAMP)
	$(BIN)/python -c "$(LOOPS)"
compile-loops-portable: $(STAMP)
	$(PORTABLE_ENV) $(BIN)/python -c "$(LOOPS)"

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2

# Regenerate every figure from an empty cache and compare the plotted numbers with the
# committed sidecars (figures/*.json); fails naming the figure and series that moved, or any layout
# offence of the figures drawn (text clipped or colliding, a legend over data, two colours of a panel
# alike: plot --check-layout).
check-figures: $(STAMP)
	rm -rf build/check-figures
	$(BIN)/gaugecli plot all --cache-dir build/check-figures/runs --out-dir build/check-figures/figures --compare figures --check-layout

# The same checks on a second arithmetic path: OpenBLAS's generic SSE3 kernels instead of the
# machine's (Prescott), numpy's SIMD dispatch cut to its x86-64-v2 baseline, torch's default (no
# AVX) kernels, the compiled loops of gaugecli.core.population.fused built for a generic x86-64 (no AVX, no
# FMA), and two BLAS/OpenMP threads. Results must agree with the committed figures and the
# numeric tests within their stated tolerances, not bit for bit; regenerated over a copy of figures/,
# every file must be kept as it is (what `make figures` does on another machine).
PORTABLE_ENV := OPENBLAS_CORETYPE=Prescott NPY_DISABLE_CPU_FEATURES=X86_V3,X86_V4 ATEN_CPU_CAPABILITY=default \
	NUMBA_CPU_NAME=generic OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2
NUMERIC_TESTS := tests/test_fig4.py tests/test_fig6.py tests/test_symmetry.py \
	tests/test_lockin.py tests/test_integrate.py tests/test_kernels.py tests/test_reduced.py tests/test_portability.py \
	tests/test_fused.py tests/test_empirical_fused.py tests/test_fused_smooth.py

check-portable: $(STAMP)
	rm -rf build/check-portable
	$(PORTABLE_ENV) $(BIN)/python -c "from threadpoolctl import threadpool_info; import numpy._core._multiarray_umath as u; \
	print('arithmetic path: BLAS', [i.get('architecture') for i in threadpool_info()], '| numpy X86_V3:', u.__cpu_features__.get('X86_V3'), \
	'| numba CPU:', __import__('numba').config.CPU_NAME)"
	$(PORTABLE_ENV) $(BIN)/python -m pytest -q -n 2 $(NUMERIC_TESTS)
	mkdir -p build/check-portable && cp -R figures build/check-portable/figures
	$(PORTABLE_ENV) $(BIN)/gaugecli plot all --cache-dir build/check-portable/runs --out-dir build/check-portable/figures --compare figures --check-layout
	@# `make figures` on another machine must leave the committed files as they are (kept within tolerance)
	diff -r figures build/check-portable/figures && echo "every committed figure file kept byte for byte"

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

lint: $(STAMP)
	$(BIN)/ruff check gaugecli tests benchmarks tools
	$(BIN)/ruff format --check gaugecli tests benchmarks tools
	$(BIN)/mypy

# The command reference, generated from the Typer app as --help groups it (tools/cli_docs.py; tests/test_docs.py
# checks it is current and grouped as --help is),
# ARCHITECTURE.md's module list, generated from the module docstrings (tests/test_architecture.py), and the
# figure gallery docs/gallery.md, generated from the committed sidecars (tests/test_gallery.py), the API
# reference docs/reference.md and the run functions' type stubs gaugecli/*.pyi, generated from the
# specs and parameter declarations (tests/test_api_types.py), and the numbers the other pages quote,
# printed from their data (tools/doc_numbers.py: figures' sidecars, benchmarks/results.json, docs/data/*.json;
# tests/test_doc_numbers.py).
docs: $(STAMP)
	$(BIN)/python tools/cli_docs.py > docs/cli.md
	$(BIN)/python tools/architecture.py --write
	$(BIN)/python tools/gallery.py --write
	$(BIN)/python tools/api_reference.py --write
	$(BIN)/python -m gaugecli.signatures
	$(BIN)/python tools/doc_numbers.py

# The documentation site (mkdocs.yml) into build/site, strictly: a warning fails the build. Its math is
# typeset by KaTeX, taken from the npm registry at build time (tools/mkdocs_hooks.py); needs npm.
DOCS_STAMP := $(VENV)/.docs-installed
$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet $(INSTALL_FLAGS) $(PIP_EXTRA) -c constraints.txt -e ".[docs]"
	touch $(DOCS_STAMP)

docs-site: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir build/site

# The built site in headless Chromium (Debian: apt-get install chromium chromium-driver): math typeset,
# every local link and anchor resolving, no console error, nothing fetched from another host.
check-site: docs-site
	$(BIN)/python tools/check_site.py build/site

# The sdist, built, installed into a throw-away venv and its whole test suite run from it (CI runs
# `tools/check_sdist.sh --ci`, the subset that reads docs, citation, tools, schemas, CLI and packaging).
check-sdist:
	CHECK_SDIST_PYTEST_ARGS="-n 2" tools/check_sdist.sh

# CITATION.cff validated by cffconvert in a throw-away venv (it needs jsonschema < 4) and its BibTeX
# checked against README.md's.
check-citation:
	tools/check_citation.sh

clean:
	rm -rf $(VENV) build runs .pytest_cache
