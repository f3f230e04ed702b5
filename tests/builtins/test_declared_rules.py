"""Every registered built-in declares which rules judge it and which of its arguments are paths
(``echo_desk.tools.rules``); the write rules then cover every tool that changes files, at each
path argument, both ends of a move or a copy. A new built-in that is not listed here fails the
first test until its declaration is written down and checked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import BaseTool, PathAccess, RiskLevel, RuleFamily, Tool, declared_family

READ, WRITE = PathAccess.READ, PathAccess.WRITE

#: Every built-in the runtime registers: its family and its path arguments.
EXPECTED: dict[str, tuple[RuleFamily, dict[str, PathAccess]]] = {
    "echo_text": (RuleFamily.NAMED, {}),
    "read_file": (RuleFamily.FILES, {"path": READ}),
    "list_dir": (RuleFamily.FILES, {"path": READ}),
    "search_files": (RuleFamily.FILES, {"path": READ}),
    "write_file": (RuleFamily.FILES, {"path": WRITE}),
    "edit_file": (RuleFamily.FILES, {"path": WRITE}),
    "append_to_file": (RuleFamily.FILES, {"path": WRITE}),
    "move_path": (RuleFamily.FILES, {"source": WRITE, "destination": WRITE}),  # the source goes away
    "copy_path": (RuleFamily.FILES, {"source": READ, "destination": WRITE}),
    "delete_path": (RuleFamily.FILES, {"path": WRITE}),
    "create_folder": (RuleFamily.FILES, {"path": WRITE}),
    "run_command": (RuleFamily.SHELL, {}),
    "fetch_url": (RuleFamily.FETCH, {}),
    "ask_user": (RuleFamily.NAMED, {}),
    "update_todos": (RuleFamily.NAMED, {}),
    "db_query": (RuleFamily.DATABASE, {}),
    "db_schema": (RuleFamily.DATABASE, {}),
    "db_execute": (RuleFamily.DATABASE, {}),
    "delegate": (RuleFamily.NAMED, {}),
}

DENY_SECRET = """
[[rule]]
effect = "deny"
tool = "write"
pattern = "@workspace/secret/**"
"""


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    config = tmp_path / "config"
    config.mkdir()
    (config / "permissions.toml").write_text(DENY_SECRET)
    rt = Runtime.create(settings_store=SettingsStore.in_dir(config), data_dir=tmp_path / "data", with_plugins=False)
    yield rt
    rt.close()


@pytest.fixture
def scope(tmp_path: Path) -> Scope:
    ws = tmp_path / "ws"
    (ws / "secret").mkdir(parents=True)
    (ws / "secret" / "key.txt").write_text("hunter2\n")
    (ws / "notes.txt").write_text("notes\n")
    return Scope(label="chat", workspace_roots=(ws.resolve(),))


def _builtins(runtime: Runtime) -> dict[str, Tool]:
    return {e.name: e.tool for e in runtime.registry.entries() if e.source == "builtin"}


def test_every_registered_builtin_declares_its_family_and_path_arguments(runtime: Runtime) -> None:
    tools = _builtins(runtime)
    assert sorted(tools) == sorted(EXPECTED), "a built-in was added or removed: write down its declaration here"
    for name, tool in tools.items():
        family, paths = EXPECTED[name]
        assert declared_family(tool.rule_family, tool.path_arguments) is family, name
        assert dict(tool.path_arguments) == paths, name
        for argument in paths:  # a declared path is an argument the model sees, as a string
            assert tool.parameters["properties"][argument]["type"] == "string", (name, argument)


def test_a_tool_that_changes_or_reads_files_declares_such_a_path(runtime: Runtime) -> None:
    for name, tool in _builtins(runtime).items():
        accesses = set(tool.path_arguments.values())
        if "files.write" in tool.capabilities:
            assert WRITE in accesses, f"{name} changes files but declares no written path argument"
        if "files.read" in tool.capabilities:
            assert READ in accesses, f"{name} reads files but declares no read path argument"
        if tool.risk_level is RiskLevel.READ:
            assert WRITE not in accesses, f"{name} is a read tool that declares a written path"


#: A call per file-changing tool; what it changes must lie at one of its WRITE path arguments.
CALLS: dict[str, dict[str, Any]] = {
    "write_file": {"path": "new.txt", "content": "x\n"},
    "edit_file": {"path": "notes.txt", "edits": [{"old": "notes", "new": "more"}]},
    "append_to_file": {"path": "notes.txt", "text": "tail"},
    "move_path": {"source": "notes.txt", "destination": "moved.txt"},
    "copy_path": {"source": "notes.txt", "destination": "copied.txt"},
    "delete_path": {"path": "notes.txt"},
}


@pytest.mark.parametrize("name", sorted(CALLS))
async def test_what_a_preview_changes_lies_at_a_declared_written_path(runtime: Runtime, scope: Scope,
                                                                       name: str) -> None:
    from echo_desk.tools import ToolExecutionContext

    tool = _builtins(runtime)[name]
    ws = scope.workspace_roots[0]
    ctx = ToolExecutionContext(call_id="p", tool_name=name, scope_id="s", workspace_roots=(ws,), write_roots=(ws,))
    preview = await tool.preview(CALLS[name], ctx)
    assert preview is not None and preview.file_changes
    written = {str(ws / CALLS[name][a]) for a, access in tool.path_arguments.items() if access is WRITE}
    for change in preview.file_changes:
        assert change.path in written, (name, change.path, written)


def _call(name: str, args: dict[str, Any], cid: str) -> ToolCall:
    return ToolCall(id=cid, name=name, arguments=json.dumps(args))


@pytest.mark.parametrize(("name", "args"), [
    ("delete_path", {"path": "secret/key.txt"}),
    ("delete_path", {"path": "secret"}),
    ("move_path", {"source": "secret/key.txt", "destination": "out.txt"}),  # the source is written (removed)
    ("move_path", {"source": "notes.txt", "destination": "secret/notes.txt"}),
    ("copy_path", {"source": "notes.txt", "destination": "secret/copy.txt"}),
    ("create_folder", {"path": "secret/new"}),
    ("write_file", {"path": "secret/other.txt", "content": "x"}),
])
async def test_a_write_deny_stops_every_tool_that_changes_files(runtime: Runtime, scope: Scope, name: str,
                                                                 args: dict[str, Any]) -> None:
    ws = scope.workspace_roots[0]
    before = sorted(str(p.relative_to(ws)) for p in ws.rglob("*"))
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)  # the person would allow: the rule must refuse first
    envelope = await runtime.dispatcher.execute_tool(_call(name, args, "d1"), scope, host)
    assert not envelope.ok and envelope.error_kind is not None and envelope.error_kind.value == "rejected", envelope
    assert host.requests == []  # refused, not asked
    assert sorted(str(p.relative_to(ws)) for p in ws.rglob("*")) == before
    record = next(r for r in runtime.audit.query(tool=name) if r["call_id"] == "d1")
    assert record["rule_source"].endswith("permissions.toml line 2")


async def test_the_source_of_a_copy_is_a_read(runtime: Runtime, scope: Scope, tmp_path: Path) -> None:
    # Copying out of the write-denied folder writes nothing there: the write rule does not speak.
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
    copied = await runtime.dispatcher.execute_tool(
        _call("copy_path", {"source": "secret/key.txt", "destination": "key-copy.txt"}, "c1"), scope, host)
    assert copied.ok and len(host.requests) == 1
    # A read deny does.
    (tmp_path / "config" / "permissions.toml").write_text(
        DENY_SECRET + '\n[[rule]]\neffect = "deny"\ntool = "read"\npattern = "@workspace/secret/**"\n')
    runtime.permissions.refresh()  # type: ignore[union-attr]
    refused = await runtime.dispatcher.execute_tool(
        _call("copy_path", {"source": "secret/key.txt", "destination": "key-2.txt"}, "c2"), scope, host)
    assert not refused.ok and len(host.requests) == 1
    assert not (scope.workspace_roots[0] / "key-2.txt").exists()


async def test_a_write_allow_must_cover_both_ends_of_a_move(tmp_path: Path, scope: Scope) -> None:
    config = tmp_path / "config-allow"
    config.mkdir()
    (config / "permissions.toml").write_text('[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/*.txt"\n')
    rt = Runtime.create(settings_store=SettingsStore.in_dir(config), data_dir=tmp_path / "data3", with_plugins=False)
    try:
        host = ScriptedHost(choice=ApprovalChoice.DENY)
        inside = await rt.dispatcher.execute_tool(
            _call("move_path", {"source": "notes.txt", "destination": "renamed.txt"}, "m1"), scope, host)
        assert inside.ok and host.requests == []  # both ends allowed: no question
        across = await rt.dispatcher.execute_tool(
            _call("move_path", {"source": "renamed.txt", "destination": "sub.md"}, "m2"), scope, host)
        assert not across.ok and len(host.requests) == 1  # the destination is not covered: asks
    finally:
        rt.close()


class Archive(BaseTool):
    """A plugin's tool that declares where it writes: the same rules judge it."""

    name = "archive_folder"
    description = "Pack a folder into an archive."
    risk_level = RiskLevel.WRITE
    path_arguments: ClassVar[dict[str, PathAccess]] = {"folder": READ, "archive": WRITE}
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object", "properties": {"folder": {"type": "string"}, "archive": {"type": "string"}},
        "required": ["folder", "archive"]}

    async def run(self, folder: str, archive: str) -> str:
        return f"packed {folder} into {archive}"


async def test_a_plugin_tool_that_declares_its_paths_is_judged_by_the_same_rules(tmp_path: Path, scope: Scope) -> None:
    config = tmp_path / "config-plugin"
    config.mkdir()
    (config / "permissions.toml").write_text(DENY_SECRET)
    rt = Runtime.create(settings_store=SettingsStore.in_dir(config), data_dir=tmp_path / "data4", with_plugins=False,
                        extra_tools=[Archive()])
    try:
        host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
        refused = await rt.dispatcher.execute_tool(
            _call("archive_folder", {"folder": ".", "archive": "secret/all.zip"}, "a1"), scope, host)
        assert not refused.ok and host.requests == []
        asked = await rt.dispatcher.execute_tool(
            _call("archive_folder", {"folder": ".", "archive": "all.zip"}, "a2"), scope, host)
        assert asked.ok and len(host.requests) == 1
    finally:
        rt.close()


def test_a_path_declaration_the_rules_could_not_see_is_refused_at_registration() -> None:
    from echo_desk.agent.registry import ToolRegistry

    class Unseen(Archive):
        name = "archive_unseen"
        path_arguments: ClassVar[dict[str, PathAccess]] = {"folder": READ, "target": WRITE}  # no "target"

    class NotText(Archive):
        name = "archive_count"
        path_arguments: ClassVar[dict[str, PathAccess]] = {"count": WRITE}
        input_schema: ClassVar[dict[str, Any]] = {"type": "object", "properties": {"count": {"type": "integer"}}}

    registry = ToolRegistry()
    unseen = registry.register(Unseen(), source="plugin")
    assert not unseen.ok and "'target' is not in the parameters schema" in unseen.message
    not_text = registry.register(NotText(), source="plugin")
    assert not not_text.ok and "must be a string" in not_text.message
    assert registry.register(Archive(), source="plugin").ok
