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

.PHONY: lab test test-unit typecheck notebooks notebooks-check fuzz-long bench venv clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "promolab needs CPython 3.11 or newer; PYTHON='$(PYTHON)' is not one." >&2; \
	  echo "Install one, or name it: make $(or $(MAKECMDGOALS),venv) PYTHON=/path/to/python3.12" >&2; exit 1; }
	@echo "== 1/3 a fresh virtualenv in $(VENV) (Python $(PYVER): $(PYTHON))"
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	@echo "== 2/3 the newest pip"
	$(BIN)/pip install --quiet --upgrade pip
	@echo "== 3/3 promolab with its lab, test and dev extras (about 2 minutes the first time; pip lists each package)"
	$(BIN)/pip install --progress-bar on -e '.[lab,test,dev]'
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

## The whole suite: unit tests, notebooks under nbval, browser test.
test: $(STAMP)
	$(BIN)/python -m pytest tests README.md docs --nbval-lax notebooks --nbval-sanitize-with notebooks/sanitize.cfg -p no:cacheprovider

test-unit: $(STAMP)
	$(BIN)/python -m pytest tests README.md docs -m "not browser" -p no:cacheprovider

## Static checks: mypy (strict) on the package, ruff on every Python tree.
typecheck: $(STAMP)
	$(BIN)/python -m mypy src
	$(BIN)/python -m ruff check src tests scripts benchmarks

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
