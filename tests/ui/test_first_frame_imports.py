"""The window's first frame pays only for what it shows: no built-in tool, no HTTP client, no MCP
SDK, no settings model, no runtime — and no engine: no agent session, no conversation store,
no approval machinery, no sandbox launcher, not even asyncio or SQLite — are loaded before it
is painted (a fresh interpreter). They load right after, while the window is already on screen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ("echo_desk.builtins", "echo_desk.runtime", "echo_desk.agent.dispatcher", "echo_desk.mcp", "echo_desk.providers",
         "echo_desk.store.settings", "httpx", "mcp", "pydantic", "qasync", "pygments",
         # the engine behind the window
         "echo_desk.agent.session", "echo_desk.agent.host", "echo_desk.agent.model", "echo_desk.agent.undo",
         "echo_desk.store.conversations", "echo_desk.sandbox.detect", "echo_desk.sandbox.guard",
         "echo_desk.sandbox.launch", "echo_desk.tools.base", "echo_desk.tools.context", "echo_desk.agent.attachments",
         "echo_desk.agent.runaway", "echo_desk.agent.envelope", "echo_desk.tools.results",
         "echo_desk.ui.chat.tool_card", "echo_desk.ui.chat.card_facts", "echo_desk.ui.chat.card_parse",
         "echo_desk.store.first_workspace", "asyncio", "sqlite3",
         # hidden until asked for: the find bar, search results, bringing a window forward
         "echo_desk.ui.chat.find_bar", "echo_desk.ui.chat.transcript_find", "echo_desk.ui.chat.search_results",
         "echo_desk.ui.core.desktop_notify", "PySide6.QtNetwork",  # (the single-instance check is a file lock)
         # hidden at the start, built right after the first frame (MainWindow.build_extras)
         "echo_desk.ui.chat.attachment_flow", "echo_desk.ui.chat.attachment_tray", "echo_desk.ui.chat.resource_flow",
         "echo_desk.ui.chat.prompt_completer", "echo_desk.ui.chat.retry_card", "echo_desk.ui.chat.workspace_prompt")

CODE = """
import json, sys
from echo_desk.ui.app.main import run_gui
assert run_gui(["echo-desk"]) == 0
print("MODULES " + json.dumps(sorted(sys.modules)))
"""


def test_the_first_frame_loads_no_tool_no_http_client_no_mcp(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "ECHO_DESK_EXIT_AFTER_FIRST_FRAME": "1",
           "ECHO_DESK_CONFIG_DIR": str(tmp_path / "c"), "ECHO_DESK_DATA_DIR": str(tmp_path / "d"),
           "ECHO_DESK_CACHE_DIR": str(tmp_path / "k")}
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120, env=env,
                          check=False)
    assert "FIRST_FRAME " in done.stdout, done.stdout + done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("MODULES "))
    modules: list[str] = json.loads(line[len("MODULES "):])
    assert "echo_desk.ui.chat.chat_window" in modules  # the window was really built
    assert sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)) == []
