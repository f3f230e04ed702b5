# The two commands of the README:  `make run`  and  `make test`.
VENV   ?= .venv
PYTHON ?= python3
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.echo-desk-installed

.PHONY: run test setup system-deps translations lint test-only clean mcp-test-servers gateway-test-clients model package package-test package-sizes

run: setup
	$(VENV)/bin/echo-desk

# package-test last: builds the wheel, sdist and desktop bundle and smoke-tests them (~2 min here).
test: setup
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory test-only
	$(MAKE) --no-print-directory package-test

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
	$(VENV)/bin/ruff check echo_desk tests bench examples scripts packaging hatch_build.py
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# The real npm MCP server the MCP tests talk to (project-local, gitignored; needs npm).
mcp-test-servers:
	@bash scripts/install-mcp-test-servers.sh

# The real MCP clients the gateway tests drive: the TypeScript SDK and the MCP Inspector (npm).
gateway-test-clients:
	@bash scripts/install-gateway-test-clients.sh

# The suite runs in two parts, each test once. The engine's folders run with PySide6 made
# unimportable, which proves the core needs no Qt while it tests it; everything else runs with Qt.
# The timeouts stop a hang, not a slow machine: the whole suite took 1583 s and ~270 s here on one
# day and 2950 s and 431 s on the next, so they sit well above both (CI's own limit is 90 minutes).
CORE_TESTS := tests/agent tests/store tests/builtins tests/common tests/tools tests/cli tests/cards
test-only: $(STAMP) mcp-test-servers gateway-test-clients
	ECHO_DESK_REQUIRE_LLM=1 QT_QPA_PLATFORM=offscreen timeout -k 15 4200 $(PY) -m pytest -q -p no:cacheprovider $(addprefix --ignore=,$(CORE_TESTS))
	ECHO_DESK_REQUIRE_LLM=1 ECHO_DESK_BLOCK_QT=1 QT_QPA_PLATFORM=offscreen timeout -k 15 2400 $(PY) -m pytest -q -p no:cacheprovider -p no:pytest-qt $(CORE_TESTS)

# A wheel + sdist (python -m build, isolated: fetches hatchling and Babel like any user's build)
# and the one-folder desktop bundle dist/echo-desk/ (+ a .tar.gz of it to hand out).
PKG_STAMP := $(VENV)/.echo-desk-package-tools
BUNDLE    := dist/echo-desk
APP_ID    := io.github.echodesk.EchoDesk

$(PKG_STAMP): $(STAMP)
	$(PY) -m pip install -q -e '.[test,package]'
	touch $(PKG_STAMP)

package: setup $(PKG_STAMP)
	rm -rf dist/echo_desk-* dist/echo-desk-*.tar.gz $(BUNDLE) build/pyinstaller
	$(PY) -m build --outdir dist .
	$(VENV)/bin/pyinstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller packaging/echo-desk.spec
	cp packaging/$(APP_ID).desktop packaging/$(APP_ID).metainfo.xml packaging/install-desktop-entry.sh $(BUNDLE)/
	tar -C dist -czf dist/echo-desk-$$($(PY) -c 'import echo_desk; print(echo_desk.__version__)')-linux-$$(uname -m).tar.gz echo-desk
	@$(MAKE) --no-print-directory package-sizes

package-sizes:
	@echo "Sizes:"; du -h dist/echo_desk-*.whl dist/echo_desk-*.tar.gz dist/echo-desk-*.tar.gz | sed 's/^/  /'; \
	 du -sh $(BUNDLE) | sed 's/^/  /'

# Smoke tests of what `make package` built: the wheel in a fresh venv, and the bundle.
package-test: package
	ECHO_DESK_REQUIRE_LLM=1 ECHO_DESK_DIST_DIR=dist ECHO_DESK_BUNDLE_DIR=$(BUNDLE) QT_QPA_PLATFORM=offscreen timeout -k 15 900 \
	  $(PY) -m pytest -q -p no:cacheprovider tests/packaging

clean:
	rm -rf $(VENV) build dist echo_desk/locale
