"""A fake home folder with every client's config file, in each client's documented format.

Written for these tests after the examples in each client's own documentation (Claude Code's
``claude mcp add`` scopes, Cursor's and Windsurf's mcp.json pages, VS Code's MCP configuration
reference, the MCP quickstart for Claude Desktop, goose's config-files guide, Zed's MCP page):
the same keys, nesting, comments and trailing commas those clients write or accept.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CURSOR = """{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_cursor_token"}
    },
    "remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${env:EXAMPLE_TOKEN}"}}
  }
}
"""

CLAUDE_DESKTOP = """{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/Users/username/Desktop",
        "/Users/username/Downloads"
      ]
    }
  },
  "globalShortcut": "Ctrl+Space"
}
"""

VSCODE_MCP = """{
  // Servers for Copilot's agent mode (VS Code writes this file; comments allowed)
  "inputs": [
    {
      "type": "promptString",
      "id": "perplexity-key",
      "description": "Perplexity API Key",
      "password": true
    }
  ],
  "servers": {
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": {
        "PERPLEXITY_API_KEY": "${input:perplexity-key}"
      }
    },
    /* a remote server */
    "fetch": {"type": "http", "url": "https://example.com/mcp",},
    "workspace": {"type": "stdio", "command": "node", "args": ["${workspaceFolder}/server.js"]},
  },
}
"""

VSCODE_SETTINGS = """{
    "editor.fontSize": 14, // bigger
    "files.autoSave": "afterDelay",
    "mcp": {
        "servers": {
            "time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"]}
        }
    },
}
"""

GOOSE = """# goose configuration
active_provider: anthropic
providers:
  anthropic:
    enabled: true
    model: claude-sonnet-4-5-20250929
    configured: true
GOOSE_MODE: smart_approve
extensions:
  developer:
    bundled: true
    enabled: true
    name: developer
    timeout: 300
    type: builtin
  filesystem:
    type: stdio
    name: filesystem
    enabled: true
    cmd: npx
    args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
    env_keys: []
    envs: {}
    timeout: 300
  # a remote one
  remote-tools:
    type: streamable_http
    name: remote-tools
    enabled: true
    uri: "https://example.com/mcp"
    headers: {}
    env_keys: []
    envs: {}
    timeout: 300
  secret-one:
    type: stdio
    name: secret-one
    enabled: true
    cmd: uvx
    args: [secret-server]
    env_keys: [SECRET_API_KEY]
    envs: {}
GOOSE_CLI_MIN_PRIORITY: 0.2
"""

WINDSURF = """{
  "mcpServers": {
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_windsurf_token"}
    },
    "figma": {"serverUrl": "https://mcp.figma.example/mcp", "disabled": true}
  }
}
"""

ZED = """// Zed settings
//
// For information on how to configure Zed, see the Zed
// documentation: https://zed.dev/docs/configuring-zed
{
  "theme": "One Dark",
  "ui_font_size": 16,
  "context_servers": {
    // my own server
    "local-mcp-server": {
      "source": "custom",
      "command": "some-command",
      "args": ["arg-1", "arg-2"],
      "env": {}
    },
    "postgres-context-server": {
      "source": "extension",
      "settings": {"database_url": "postgresql://localhost/db"}
    },
  },
  "vim_mode": false,
}
"""


def claude_code(home: Path) -> str:
    project = home / "app"
    return json.dumps({
        "numStartups": 12,
        "theme": "dark",
        "mcpServers": {
            "airtable": {"type": "stdio", "command": "npx", "args": ["-y", "airtable-mcp-server"],
                         "env": {"AIRTABLE_API_KEY": "YOUR_KEY"}},
            "notion": {"type": "http", "url": "https://mcp.notion.com/mcp"},
        },
        "projects": {str(project): {"allowedTools": [], "mcpServers": {
            "stripe": {"type": "http", "url": "https://mcp.stripe.com"}}}},
    }, indent=2) + "\n"


def paths(home: Path) -> dict[str, Path]:
    return {
        "claude-code": home / ".claude.json",
        "cursor": home / ".cursor" / "mcp.json",
        "vscode": home / ".config" / "Code" / "User" / "mcp.json",
        "vscode-settings": home / ".config" / "Code" / "User" / "settings.json",
        "claude-desktop": home / ".config" / "Claude" / "claude_desktop_config.json",
        "goose": home / ".config" / "goose" / "config.yaml",
        "windsurf": home / ".codeium" / "windsurf" / "mcp_config.json",
        "zed": home / ".config" / "zed" / "settings.json",
    }


def make_home(home: Path) -> dict[str, Path]:
    """Every client's file under ``home``; returns where each is."""
    where = paths(home)
    texts = {"claude-code": claude_code(home), "cursor": CURSOR, "vscode": VSCODE_MCP, "vscode-settings": VSCODE_SETTINGS,
             "claude-desktop": CLAUDE_DESKTOP, "goose": GOOSE, "windsurf": WINDSURF, "zed": ZED}
    for key, path in where.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(texts[key], encoding="utf-8")
    (home / ".claude").mkdir(exist_ok=True)
    (home / "app").mkdir(exist_ok=True)
    (home / "app" / ".mcp.json").write_text('{"mcpServers": {"shared": {"command": "npx", "args": ["team-server"]}}}\n')
    return where


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home folder, set as HOME (no XDG_CONFIG_HOME: the clients' Linux defaults)."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return folder
