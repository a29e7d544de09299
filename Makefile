# Two entry points for a fresh machine: `make lab` and `make test`.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: lab test test-unit typecheck notebooks notebooks-check fuzz-long bench venv clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[lab,test,dev]'
	touch $(STAMP)

venv: $(STAMP)

## Launch JupyterLab on the notebooks (embedded simulator + demo scenario).
lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=notebooks

## The whole suite: unit tests, notebooks under nbval, browser test.
test: $(STAMP)
	$(BIN)/python -m pytest tests --nbval-lax notebooks --nbval-sanitize-with notebooks/sanitize.cfg -p no:cacheprovider

test-unit: $(STAMP)
	$(BIN)/python -m pytest tests -m "not browser"

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
