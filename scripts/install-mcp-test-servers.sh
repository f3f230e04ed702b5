#!/usr/bin/env bash
# Installs the real MCP servers the MCP tests talk to, into a project-local folder
# (tests/mcp/node_modules, gitignored). Idempotent: does nothing when the pinned version is there.
# The Python one (mcp-server-time) is a test dependency in pyproject.toml ([test] extra).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dest="$here/tests/mcp/servers"
EVERYTHING_VERSION="${EVERYTHING_VERSION:-2026.8.31}"
pkg="$dest/node_modules/@modelcontextprotocol/server-everything/package.json"
if [ -f "$pkg" ] && grep -q "\"version\": \"$EVERYTHING_VERSION\"" "$pkg"; then
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "npm is needed for the MCP tests (Node.js >= 18); MCP tests that need it will be skipped" >&2
  exit 0
fi
mkdir -p "$dest"
cd "$dest"
[ -f package.json ] || echo '{"name": "echo-desk-mcp-test-servers", "private": true}' > package.json
npm install --no-audit --no-fund --silent --save-exact "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION"
