#!/usr/bin/env bash
# Installs the real MCP clients the gateway tests drive (nobody here wrote them): the TypeScript
# SDK's client and the MCP Inspector's command-line mode, project-local in tests/gateway/node
# (gitignored). Idempotent: does nothing when the pinned versions are there.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dest="$here/tests/gateway/node"
SDK_VERSION="${SDK_VERSION:-1.32.2}"
INSPECTOR_VERSION="${INSPECTOR_VERSION:-2.12.0}"
have() { [ -f "$dest/node_modules/$1/package.json" ] && grep -q "\"version\": \"$2\"" "$dest/node_modules/$1/package.json"; }
if have @modelcontextprotocol/sdk "$SDK_VERSION" && have @modelcontextprotocol/inspector "$INSPECTOR_VERSION"; then
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "npm is needed for the gateway's client tests (Node.js >= 18); those tests will be skipped" >&2
  exit 0
fi
mkdir -p "$dest"
cd "$dest"
[ -f package.json ] || echo '{"name": "echo-desk-gateway-test-clients", "private": true, "type": "module"}' > package.json
npm install --no-audit --no-fund --silent --save-exact \
  "@modelcontextprotocol/sdk@$SDK_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
