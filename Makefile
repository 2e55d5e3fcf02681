# `make run` and `make test` work on a fresh machine: each creates or refreshes the
# virtual environment in .venv first (again whenever pyproject.toml changes); `make test`
# also installs the web client's type checker into node_modules (npm ci, again whenever
# package.json or package-lock.json changes).

PYTHON ?= python3
# Where `make run` listens and what it stores in: `make run PORT=8080 HOST=0.0.0.0`.
HOST   ?= 127.0.0.1
PORT   ?= 8000
DB     ?= sqlite+aiosqlite:///./var/romme.db
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
# The web client's JavaScript against its JSDoc types (tsconfig.json); nothing is emitted.
TSC    := npx tsc --noEmit -p tsconfig.json

.DEFAULT_GOAL := help
.PHONY: help run cluster test quick lint typecheck typecheck-js pytest bench venv clean

help:
	@echo "make run    start the server on http://$(HOST):$(PORT) (SQLite in ./var);"
	@echo "            make run PORT=8080 HOST=0.0.0.0 DB=postgresql+asyncpg://..."
	@echo "make cluster  three nodes on http://127.0.0.1:8001 to :8003 with redis-server and the"
	@echo "            local PostgreSQL database romme (docs/cluster.md); Ctrl-C stops them"
	@echo "make test   ruff, mypy, the JavaScript type check and pytest: the one gate"
	@echo "make quick  the inner loop (about a minute): ruff, mypy, tsc and the fast tests"
	@echo "            (engine, bots, store on SQLite, CLI, layering; not those marked slow)"
	@echo "make lint   ruff (lint and format check) only"
	@echo "make typecheck-js   tsc --noEmit over romme/web/js (JSDoc types) only"
	@echo "make bench  run every benchmark in bench/"
	@echo "make clean  remove .venv, caches and build output"

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

# The web client's development tools (TypeScript, for the type check), exactly as
# package-lock.json pins them.
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

run: $(STAMP)
	$(BIN)/romme serve --host $(HOST) --port $(PORT) --db $(DB)

# A local cluster to try out (docs/cluster.md): redis-server on REDIS_PORT and three
# nodes on ports 8001 to 8003, all on the local PostgreSQL database `romme` (user and
# database as .ci/run creates them). Logs in var/; Ctrl-C stops everything.
CLUSTER_DB ?= postgresql+asyncpg://romme:romme@127.0.0.1:5432/romme
REDIS_PORT ?= 6390

cluster: $(STAMP)
	@mkdir -p -m 700 var; pids=; \
	trap 'kill $$pids 2>/dev/null; wait' EXIT INT TERM; \
	redis-server --port $(REDIS_PORT) --bind 127.0.0.1 --save '' --appendonly no \
		>var/redis.log 2>&1 & pids="$$pids $$!"; \
	until redis-cli -p $(REDIS_PORT) ping >/dev/null 2>&1; do sleep 0.1; done; \
	for port in 8001 8002 8003; do \
		$(BIN)/romme serve --host $(HOST) --port $$port --db $(CLUSTER_DB) \
			--redis redis://127.0.0.1:$(REDIS_PORT)/0 --node-id node-$$port \
			>var/node-$$port.log 2>&1 & pids="$$pids $$!"; \
		until curl -sf http://$(HOST):$$port/healthz >/dev/null; do sleep 0.2; done; \
		echo "node-$$port: http://$(HOST):$$port/ (log: var/node-$$port.log)"; \
	done; \
	echo "redis: redis://127.0.0.1:$(REDIS_PORT)/0; Ctrl-C stops the cluster"; \
	wait

# The checks of `make test` and `make quick`: each runs even when one before it fails,
# so that one run shows every problem.
STATIC_CHECKS = \
	echo "== ruff"; $(BIN)/ruff check . || status=1; \
	echo "== ruff format"; $(BIN)/ruff format --check . || status=1; \
	echo "== mypy"; $(BIN)/mypy || status=1; \
	echo "== mypy tests"; $(BIN)/mypy tests || status=1; \
	echo "== tsc"; $(TSC) || status=1

# The fast part of the suite: no server subprocess, no browser, SQLite only (the table
# tests drive a table actor in-process on a manual clock).
QUICK_TESTS := tests/engine tests/bots tests/store tests/server/table tests/test_cli.py \
	tests/test_layering.py romme/engine README.md

# `make test` runs the suite in three worker processes (pytest-xdist): most of its
# time is spent waiting on servers, browsers and timers, not computing, so three
# share two cores well. Each test module runs whole in one worker (its shared
# server and browser are started once). `make test PARALLEL=` runs it in one process.
PARALLEL ?= -n 3 --dist loadfile

# pytest comes last so that its summary closes the output.
test: $(STAMP) $(NODE_STAMP)
	@status=0; $(STATIC_CHECKS); \
	echo "== pytest"; $(BIN)/pytest $(PARALLEL) || status=1; \
	exit $$status

quick: $(STAMP) $(NODE_STAMP)
	@status=0; $(STATIC_CHECKS); \
	echo "== pytest (quick)"; $(BIN)/pytest -m "not slow" -k "not postgresql" $(QUICK_TESTS) \
		|| status=1; \
	exit $$status

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy
	$(BIN)/mypy tests

typecheck-js: $(NODE_STAMP)
	$(TSC)

pytest: $(STAMP)
	$(BIN)/pytest

bench: $(STAMP)
	@set -e; found=0; \
	for script in bench/*.py; do \
		[ -e "$$script" ] || continue; \
		found=1; echo "== $$script"; $(BIN)/python "$$script"; \
	done; \
	[ $$found = 1 ] || echo "no benchmarks in bench/ yet"

clean:
	rm -rf $(VENV) node_modules build dist *.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
