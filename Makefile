# Two entry points for a fresh machine: `make lab` and `make test`.
#
# The interpreter: the newest supported CPython found (3.13, 3.12, 3.11; see
# scripts/find-python), or the one named with PYTHON=..., e.g.
# `make test PYTHON=python3.12 VENV=.venv-3.12`.
ifndef PYTHON
PYTHON := $(shell scripts/find-python)
endif
VENV   ?= .venv
BIN    := $(VENV)/bin
PYVER  := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
# The stamp names the version, so switching PYTHON rebuilds the venv.
STAMP  := $(VENV)/.installed-$(PYVER)

.PHONY: lab test test-unit test-compat test-notebooks test-browser typecheck lock notebooks notebooks-check fuzz-long bench venv clean

# Every package version is pinned by constraints.txt (compiled from pyproject.toml by
# `make lock`), so every machine and CI install the same versions and mypy sees the
# same stubs. A changed pin or pyproject.toml rebuilds the venv. pip installs uv (pinned
# too), and uv the rest: the same packages, in seconds rather than minutes.
CONSTRAINTS := constraints.txt

$(STAMP): pyproject.toml $(CONSTRAINTS)
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "promolab needs CPython 3.11 or newer; PYTHON='$(PYTHON)' is not one." >&2; \
	  echo "Install one, or name it: make $(or $(MAKECMDGOALS),venv) PYTHON=/path/to/python3.12" >&2; exit 1; }
	@echo "== 1/3 a fresh virtualenv in $(VENV) (Python $(PYVER): $(PYTHON))"
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	@echo "== 2/3 uv, the installer (pinned in $(CONSTRAINTS))"
	$(BIN)/python -m pip install --quiet --constraint $(CONSTRAINTS) uv
	@echo "== 3/3 promolab with its lab, test and dev extras, every version pinned (uv lists each package)"
	$(BIN)/uv pip install --python $(BIN)/python --constraint $(CONSTRAINTS) -e '.[lab,test,dev]'
	touch $(STAMP)

venv: $(STAMP)

## Launch JupyterLab on the notebooks (embedded simulator + demo scenario).
## As root it adds --allow-root (containers and CI machines run as root); with no
## display it opens no browser and prints the address to open. LAB_PORT picks the
## port (default 8888; the next free one if taken); LAB_ARGS passes anything else.
## No notebook_shim: that server extension (there for extensions of the classic
## Notebook, which promolab has none of) reads every ServerApp setting on start, the
## deprecated ServerApp.token included, and so printed jupyter-server 2's
## DeprecationWarning (shown because Voila turns traitlets' warnings on). The token
## is the IdentityProvider's own, as jupyter-server 2 wants: we set none.
LAB_PORT ?= 8888
LAB_ARGS ?=
lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=notebooks --port=$(LAB_PORT) \
	  --ServerApp.jpserver_extensions=notebook_shim=False \
	  $(if $(filter 0,$(shell id -u)),--allow-root) \
	  $(if $(DISPLAY)$(WAYLAND_DISPLAY),,--no-browser) $(LAB_ARGS)

## The whole suite, in stages, each timed: static checks (mypy strict, ruff), the unit
## tests with the README's and docs' examples, the notebooks under nbval, the browser
## test. The pytest stages run on every core (pytest-xdist; PYTEST_WORKERS=1 runs them
## in one process), a file at a time: a document's examples share one namespace and a
## notebook's cells one kernel, in order. The last line adds up every stage's tests.
PYTEST_WORKERS ?= auto
PYTEST  := $(BIN)/python -m pytest -p no:cacheprovider
XDIST   := -n $(PYTEST_WORKERS) --dist loadfile
REPORTS := $(VENV)/reports
STAGE   := STAGE_LOG=$(REPORTS)/stages.log scripts/stage
test: $(STAMP)
	@rm -rf $(REPORTS) && mkdir -p $(REPORTS)
	@$(STAGE) typecheck $(MAKE) --no-print-directory typecheck
	@$(STAGE) unit $(MAKE) --no-print-directory test-unit JUNIT=--junitxml=$(REPORTS)/unit.xml
	@$(STAGE) notebooks $(MAKE) --no-print-directory test-notebooks JUNIT=--junitxml=$(REPORTS)/notebooks.xml
	@$(STAGE) browser $(MAKE) --no-print-directory test-browser JUNIT=--junitxml=$(REPORTS)/browser.xml
	@cat $(REPORTS)/stages.log
	@$(PYTHON) scripts/test-summary $(REPORTS)/*.xml

test-unit: $(STAMP)
	$(PYTEST) tests README.md docs -m "not browser" $(XDIST) $(JUNIT)

## The unit tests but those marked slow (long differential runs, the wheel, mypy's own
## tests) or served (real servers and processes: crashes, locks, signals): what .ci/run
## runs on the other supported Pythons, whose differences are the language's and the
## pinned packages', not the machine's. The newest Python runs everything (`make test`).
test-compat: $(STAMP)
	$(PYTEST) tests README.md docs -m "not browser and not slow and not served" $(XDIST) $(JUNIT)

test-notebooks: $(STAMP)
	$(PYTEST) --nbval-lax notebooks --nbval-sanitize-with notebooks/sanitize.cfg $(XDIST) $(JUNIT)

test-browser: $(STAMP)
	$(PYTEST) tests/browser -m browser $(JUNIT)

## Static checks: mypy (strict) on the package, ruff on every Python tree.
typecheck: $(STAMP)
	$(BIN)/python -m mypy src
	$(BIN)/python -m ruff check src tests scripts benchmarks

## Refresh constraints.txt: the newest versions pyproject.toml admits, resolved once for
## every supported Python (3.11 to 3.13; markers where they differ). Commit the result.
lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --all-extras --universal --python-version 3.11 \
	  --quiet --output-file $(CONSTRAINTS)

## Rebuild the notebooks from notebooks/sources/ (executes them; outputs are committed).
notebooks: $(STAMP)
	$(BIN)/python scripts/build_notebooks.py

## Run every notebook twice and check both runs equal the committed file.
notebooks-check: $(STAMP)
	$(BIN)/python scripts/build_notebooks.py --check

## A longer contract-fuzzing run against the served simulator.
fuzz-long: $(STAMP)
	PROMOLAB_FUZZ_EXAMPLES=500 PROMOLAB_FUZZ_RANDOM=1 $(BIN)/python -m pytest tests/reliability/test_contract_fuzz.py -p no:cacheprovider

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache build dist
