# The two commands of the README:  `make run`  and  `make test`.
VENV   ?= .venv
PYTHON ?= python3
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.echo-desk-installed

.PHONY: run test setup system-deps translations lint test-only clean mcp-test-servers model

run: setup
	$(VENV)/bin/echo-desk

test: setup
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory test-only

setup: system-deps $(STAMP) translations model

# The default local model (Qwen2.5-Coder-0.5B Q4_K_M, pinned version and sha256), into the
# user cache folder; idempotent, so a second run costs nothing.
model: $(STAMP)
	$(PY) -m echo_desk.providers.local.fetch_default

system-deps:
	@bash scripts/install-system-deps.sh

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	$(PY) -m pip install -q -e examples/weather-plugin
	touch $(STAMP)

translations: $(STAMP)
	$(PY) -m echo_desk.i18n_build compile

lint: $(STAMP)
	$(VENV)/bin/ruff check echo_desk tests bench examples scripts
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# The real npm MCP server the MCP tests talk to (project-local, gitignored; needs npm).
mcp-test-servers:
	@bash scripts/install-mcp-test-servers.sh

# The engine's suite once more with PySide6 made unimportable: proves the core needs no Qt.
test-only: $(STAMP) mcp-test-servers
	ECHO_DESK_REQUIRE_LLM=1 QT_QPA_PLATFORM=offscreen timeout -k 15 3000 $(PY) -m pytest -q -p no:cacheprovider
	ECHO_DESK_BLOCK_QT=1 QT_QPA_PLATFORM=offscreen timeout -k 15 600 $(PY) -m pytest -q -p no:cacheprovider -p no:pytest-qt tests/agent tests/store tests/tools_builtin

clean:
	rm -rf $(VENV) build dist echo_desk/locale
