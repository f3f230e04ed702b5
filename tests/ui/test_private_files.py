"""Every file Echo Desk makes in its settings, data and cache folders is 0600 and every folder
0700, whatever the umask: a run of the real app (window offscreen) that uses every store —
settings, conversations, audit log, change journal, grants, blobs, trash, put-aside, window
state, model cache — then a walk of the three folders."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import stat
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from echo_desk import sandbox
from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.chat_messages import ChatMessage
from echo_desk.providers.local.default_model import models_dir
from echo_desk.providers.local.manager import download_model
from echo_desk.store.grants import GrantScope
from echo_desk.ui.app import main as app_module

MODEL = b"GGUF" + bytes(range(256)) * 64


class GrantingHost(ScriptedHost):
    """Allows every call, remembering the first rule suggested (a grant for the conversation)."""

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        suggestion = request.rules.suggestions[0] if request.rules and request.rules.suggestions else None
        return ApprovalDecision(call_id=request.call_id, choice=ApprovalChoice.ALLOW_ONCE, binding=request.binding,
                                suggestion=suggestion, grant_scope=GrantScope.CONVERSATION if suggestion else None)


@pytest.fixture
def model_server() -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(len(MODEL)))
            self.end_headers()
            self.wfile.write(MODEL)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/model.gguf"
    server.shutdown()
    server.server_close()


@pytest.fixture
def loose_umask() -> Iterator[None]:
    old = os.umask(0o022)  # what most desktops start programs with
    yield
    os.umask(old)


def _not_private(*roots: Path) -> list[str]:
    found: list[str] = []
    for root in roots:
        for path in (root, *root.rglob("*")):
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                continue
            want = 0o700 if stat.S_ISDIR(st.st_mode) else 0o600
            if stat.S_IMODE(st.st_mode) & 0o077 or stat.S_IMODE(st.st_mode) & 0o700 != want & 0o700:
                found.append(f"{oct(stat.S_IMODE(st.st_mode))} {path}")
    return found


def _call(name: str, cid: str, **args: object) -> ToolCall:
    return ToolCall(id=cid, name=name, arguments=json.dumps(args))


def test_a_run_of_the_app_leaves_only_private_files(qapp: QApplication, monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path, model_server: str, loose_umask: None) -> None:
    roots = (tmp_path / "home" / "config", tmp_path / "home" / "data", tmp_path / "home" / "cache")
    for env, root in zip(("ECHO_DESK_CONFIG_DIR", "ECHO_DESK_DATA_DIR", "ECHO_DESK_CACHE_DIR"), roots, strict=True):
        monkeypatch.setenv(env, str(root))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    workspace = tmp_path / "ws"
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "notes.txt").write_text("one\ntwo\n")
    seen: dict[str, object] = {}
    original_load = app_module.App.load

    async def load_use_and_close(self: app_module.App) -> None:
        await original_load(self)
        services = self.services
        assert services is not None and services.runtime is not None
        services.settings.update(lambda s: setattr(s, "theme", "dark"))  # settings.json
        conversation = services.conversations.create("private files", workspace=str(workspace))
        services.conversations.append(conversation.id, ChatMessage(role="user", content="hello"))
        scope = Scope(id="s", workspace_roots=(workspace,), conversation_id=conversation.id)
        host = GrantingHost()
        calls = [_call("edit_file", "c1", path="notes.txt", edits=[{"old": "two", "new": "2"}]),  # journal, blobs
                 _call("write_file", "c2", path="new.txt", content="new\n"),
                 _call("delete_path", "c3", path="new.txt")]  # trash
        if sandbox.probe().available:  # a planted hook goes to the put-aside folder
            calls.append(_call("run_command", "c4", command="git init -q sub && echo x > sub/.git/hooks/pre-commit"))
        results = [await services.runtime.dispatcher.execute_tool(call, scope, host) for call in calls]
        seen["results"] = [(r.ok, r.error) for r in results]
        seen["grants"] = len(services.runtime.permissions.grants.active()) if services.runtime.permissions else 0
        # The model cache: a model downloaded (resumable .partial, then the verified marker).
        await download_model(model_server, models_dir() / "tiny.gguf", sha256=hashlib.sha256(MODEL).hexdigest())
        # While the databases are open, their -wal and -shm files are there too.
        seen["during"] = _not_private(*roots)
        seen["companions"] = sorted(p.name for root in roots for p in root.rglob("*-wal"))
        self.window.close()  # window.json

    monkeypatch.setattr(app_module.App, "load", load_use_and_close)
    assert app_module.run_gui(["echo-desk"]) == 0

    assert all(ok for ok, _ in seen["results"]), seen["results"]  # type: ignore[attr-defined]
    assert seen["grants"]
    names = {p.name for root in roots for p in root.rglob("*")}
    for expected in ("settings.json", "window.json", "conversations.sqlite3", "audit.sqlite3", "audit.sqlite3.calls",
                     "grants.sqlite3", "tiny.gguf", "tiny.gguf.verified"):
        assert expected in names, (expected, sorted(names))
    assert seen["during"] == []
    assert {"grants.sqlite3-wal", "conversations.sqlite3-wal"} <= set(seen["companions"]), seen["companions"]  # type: ignore[arg-type]
    offenders = _not_private(*roots)
    assert offenders == [], "\n".join(offenders)
