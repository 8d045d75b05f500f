# arborist: `make demo` runs the main job on the embedded defaults; `make test` runs every test.
# Needs python3 (>= 3.10) with venv, node >= 20 and npm. Everything else is installed here.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
BUNDLE := arborist_nb/static/arborist.js
JS_DEPS := js/node_modules/.package-lock.json
DEMO_HOME ?= .demo-home

.PHONY: all install js test lint typecheck test-js test-py demo bench clean

all: install

# The JS toolchain first, so the wheel's build hook finds node_modules ready.
$(JS_DEPS): js/package.json js/package-lock.json
	cd js && npm ci --no-audit --no-fund

$(BUNDLE): $(JS_DEPS) $(wildcard js/src/*.js)
	cd js && npm run build --silent

js: $(BUNDLE)

$(STAMP): pyproject.toml hatch_build.py $(JS_DEPS)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

install: $(STAMP) $(BUNDLE)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

test-js: $(BUNDLE)
	cd js && npm test --silent

test-py: install
	$(BIN)/pytest

test: lint typecheck test-js test-py

# For now the main job shows the version and checks a fresh home's chains;
# later issues grow it into ingest + the quickstart notebook.
demo: install
	rm -rf $(DEMO_HOME)
	$(BIN)/arborist --version
	$(BIN)/arborist --home $(DEMO_HOME) chain-check

bench: install
	$(BIN)/python bench/hashing.py

clean:
	rm -rf $(VENV) js/node_modules arborist_nb/static $(DEMO_HOME) dist build .pytest_cache .mypy_cache .ruff_cache .hypothesis
