# arborist: `make demo` runs the main job on the embedded defaults; `make test` runs every test.
# Needs python3 (>= 3.10) with venv, node >= 20 and npm. Everything else is installed here.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
BUNDLE := arborist_nb/static/arborist.js
JS_DEPS := js/node_modules/.package-lock.json
DEMO_HOME ?= .demo-home

.PHONY: all install js test test-long lint typecheck test-js test-py demo lab notebooks chromium bench clean \
        session session-list session-tree session-find session-chain-check search stats

all: install

# The JS toolchain first, so the wheel's build hook finds node_modules ready.
$(JS_DEPS): js/package.json js/package-lock.json
	cd js && npm ci --no-audit --no-fund

$(BUNDLE): $(JS_DEPS) $(wildcard js/src/*.js js/src/*.css)
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

NBVAL := --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg -p no:cacheprovider

# Browser tests drive Debian's chromium through Playwright's executable_path;
# never `playwright install` (no browser downloads).
CHROMIUM := /usr/bin/chromium
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

$(CHROMIUM):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

chromium: $(CHROMIUM)

test-py: install chromium
	$(BIN)/pytest
	$(BIN)/pytest $(NBVAL) notebooks

test: lint typecheck test-js test-py

# The fault, fuzz and concurrency suites at full size (minutes, not seconds).
test-long: install chromium
	$(BIN)/pytest --long

DEMO_Q ?= What does statistics.median return?
ARB := $(BIN)/arborist --home $(DEMO_HOME)

# The main job on the embedded defaults: the built-in corpus (the stdlib's own
# pydoc text, offline), the offline extractive answerer, and the quickstart
# notebook executed headlessly into $(DEMO_HOME).
demo: install
	rm -rf $(DEMO_HOME)
	mkdir -p $(DEMO_HOME)
	$(BIN)/arborist --version
	$(ARB) ingest --demo | tail -n 1
	$(ARB) ask "$(DEMO_Q)"
	$(ARB) ask "$(DEMO_Q)" | grep '^cache'
	$(BIN)/jupyter nbconvert --to notebook --execute notebooks/01-quickstart.ipynb \
		--output-dir $(DEMO_HOME) --ExecutePreprocessor.timeout=600 --log-level=WARN
	$(ARB) verify
	@echo "executed notebook: $(DEMO_HOME)/01-quickstart.ipynb (open it with: make lab)"

lab: install
	$(BIN)/jupyter lab $(if $(wildcard $(DEMO_HOME)/01-quickstart.ipynb),$(DEMO_HOME)/01-quickstart.ipynb,notebooks/01-quickstart.ipynb)

# Re-execute the example notebooks and store their outputs (commit the result).
notebooks: install
	$(BIN)/python notebooks/build.py

# The forest, as the seed names it (SID=..., LLM=..., Q="...", LIMIT=N, JSON=1).
session: install
	$(BIN)/arborist session $(if $(SID),--sid $(SID)) $(if $(LLM),--llm $(LLM))

session-list: install
	$(BIN)/arborist session --list $(if $(JSON),--json)

session-tree: install
	@test -n "$(SID)" || { echo "usage: make session-tree SID=<sid>"; exit 2; }
	$(BIN)/arborist session --tree --sid $(SID)

session-find: install
	@test -n "$(Q)" || { echo 'usage: make session-find Q="..." [LIMIT=N JSON=1]'; exit 2; }
	$(BIN)/arborist session --find "$(Q)" $(if $(LIMIT),--limit $(LIMIT)) $(if $(JSON),--json)

session-chain-check: install
	$(BIN)/arborist session --chain-check

# The store, as the seed names it (Q="...", LIMIT=N, JSON=1).
search: install
	@test -n "$(Q)" || { echo 'usage: make search Q="..." [LIMIT=N JSON=1]'; exit 2; }
	$(BIN)/arborist search "$(Q)" $(if $(LIMIT),--limit $(LIMIT)) $(if $(JSON),--json)

stats: install
	$(BIN)/arborist stats $(if $(JSON),--json)

# The peers (llm, GPTCache, pymerkle, ipytree, bm25s) come from the `peers` extra, which
# `dev` includes. bench/RESULTS.md has three sections, each written by one script
# (bench/results.py): issue #14's goals by bench/goals.py, the peers by bench/peers/run.py,
# the store's figures (ingest, asks, search, vector search) by bench/store.py;
# bench/quality.py writes bench/QUALITY.md. Every script has --quick (seconds, writes
# nothing): tests/test_bench_smoke.py runs them all in `make test`.
bench: install chromium
	$(BIN)/python bench/hashing.py
	$(BIN)/python bench/store.py
	$(BIN)/python bench/goals.py
	$(BIN)/python bench/quality.py --floor --write
	$(BIN)/python bench/widget.py
	$(BIN)/python bench/coaccess.py
	$(BIN)/python bench/peers/run.py

clean:
	rm -rf $(VENV) js/node_modules arborist_nb/static $(DEMO_HOME) dist build .pytest_cache .mypy_cache .ruff_cache .hypothesis
