"""The execute_tool pipeline: order of checks, validation, approval, envelope, audit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from echo_desk.agent.envelope import SCHEMA
from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.i18n import shown
from echo_desk.store.settings import SettingsStore, ToolPolicy
from echo_desk.tools import ErrorKind, RiskLevel
from tests.agent.fakes import Echo, Streamer, WhoAmI, WriteNote, make_engine
from tests.store.full_audit import FullAuditLog


def call(name: str, args: object = None, raw: str | None = None, cid: str = "c1") -> ToolCall:
    return ToolCall(id=cid, name=name, arguments=raw if raw is not None else json.dumps(args or {}))


@pytest.fixture
def engine(tmp_path: Path, engines: list):
    dispatcher, factory, settings = make_engine(tmp_path, Echo(), WriteNote(), WhoAmI(), Streamer())
    engines.append(dispatcher)
    return dispatcher, factory, settings


async def test_echo_envelope_has_exactly_the_documented_shape(engine, scope, host) -> None:
    dispatcher, _, _ = engine
    env = await dispatcher.execute_tool(call("echo", {"text": "hello"}), scope, host)
    assert env.to_json() == {
        "schema": SCHEMA, "ok": True, "tool": "echo", "content": "hello",
        "error": "", "error_kind": "", "file_changes": [],
    }


async def test_unknown_tool(engine, scope, host) -> None:
    env = await engine[0].execute_tool(call("nope"), scope, host)
    assert (env.ok, env.error_kind) == (False, ErrorKind.UNKNOWN_TOOL)
    assert "nope" in env.error


async def test_disabled_tool_never_runs(engine, scope, host, workspace) -> None:
    dispatcher, factory, settings = engine
    settings.set_tool("write_note", enabled=False)
    env = await dispatcher.execute_tool(call("write_note", {"path": "a.txt", "content": "x"}), scope, host)
    assert env.error_kind is ErrorKind.DISABLED
    assert not (workspace / "a.txt").exists()
    assert host.requests == []  # refused before anything was asked
    assert "write_note" not in {d.name for d in factory.definitions(scope)}


async def test_disabled_source_group(engine, scope, host) -> None:
    dispatcher, factory, settings = engine
    settings.update(lambda s: s.disabled_sources.append("builtin"))
    env = await dispatcher.execute_tool(call("echo", {"text": "x"}), scope, host)
    assert env.error_kind is ErrorKind.DISABLED
    assert factory.definitions(scope) == []


async def test_profile_enables_exactly_the_tools_declaring_its_capabilities(engine, scope, host) -> None:
    dispatcher, factory, settings = engine
    settings.update(lambda s: setattr(s, "active_profile", "read-only"))
    names = {d.name for d in factory.definitions(scope)}
    assert "echo" in names and "write_note" not in names
    env = await dispatcher.execute_tool(call("write_note", {"path": "a", "content": "x"}), scope, host)
    assert env.error_kind is ErrorKind.DISABLED


async def test_not_granted_scope(engine, host, workspace) -> None:
    narrow = Scope(label="sub-agent", workspace_roots=(workspace,), granted_tools=frozenset({"echo"}))
    env = await engine[0].execute_tool(call("whoami"), narrow, host)
    assert env.error_kind is ErrorKind.NOT_GRANTED
    ok = await engine[0].execute_tool(call("echo", {"text": "y"}), narrow, host)
    assert ok.ok


async def test_read_only_scope_gets_no_write_tools(engine, host, workspace) -> None:
    ro = Scope(label="reader", workspace_roots=(workspace,), read_only=True)
    env = await engine[0].execute_tool(call("write_note", {"path": "a", "content": "x"}), ro, host)
    assert env.error_kind is ErrorKind.NOT_GRANTED
    assert "write_note" not in {d.name for d in engine[1].definitions(ro)}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"text": ', "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"text": 5}', "text"),
        ("{}", "text"),
        ('{"text": "a", "extra": 1}', "extra"),
        (json.dumps({"text": "x" * 201}), "text"),
        ('{"text": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),  # RecursionError in json
        ('{"text": ' + "[" * 900 + "]" * 900 + "}", "text"),  # read, but deeper than most code walks
        ('{"text": ' + "9" * 5000 + "}", "a number too long to read"),  # a plain ValueError in json
    ],
)
async def test_bad_arguments_are_validation_errors_naming_the_field(engine, scope, host, raw, expected) -> None:
    env = await engine[0].execute_tool(call("echo", raw=raw), scope, host)
    assert env.error_kind is ErrorKind.VALIDATION
    assert expected in env.error


async def test_hidden_parameters_are_injected_and_never_trusted_from_the_model(engine, scope, host) -> None:
    dispatcher, factory, _ = engine
    env = await dispatcher.execute_tool(call("whoami", {"greeting": "hi"}), scope, host)
    assert env.ok and json.loads(env.content) == {"greeting": "hi", "user": "u-42"}
    forged = await dispatcher.execute_tool(call("whoami", {"user_id": "admin"}), scope, host)
    assert forged.error_kind is ErrorKind.VALIDATION and "user_id" in forged.error
    schema = next(d for d in factory.definitions(scope) if d.name == "whoami").parameters
    assert "user_id" not in json.dumps(schema)


async def test_arguments_given_read_are_taken_as_read_and_still_checked(engine, scope, host, monkeypatch) -> None:
    """A caller that already read the arguments (a gateway client's request) gives them with the
    text: they are not read again, and get every check the text would have."""
    from echo_desk.agent.pipeline import checks

    def no_second_reading(_text: object) -> object:
        raise AssertionError("the arguments were read again")

    monkeypatch.setattr(checks, "read_json", no_second_reading)
    dispatcher = engine[0]
    given = {"greeting": "hi"}
    text = json.dumps(given)
    env = await dispatcher.execute_tool(ToolCall(id="c1", name="whoami", arguments=text, parsed=given), scope, host)
    assert env.ok and json.loads(env.content) == {"greeting": "hi", "user": "u-42"}
    assert given == {"greeting": "hi"}  # the hidden parameter went into the dispatcher's own copy
    forged = {"user_id": "admin"}
    env = await dispatcher.execute_tool(ToolCall(id="c2", name="whoami", arguments=json.dumps(forged), parsed=forged),
                                        scope, host)
    assert env.error_kind is ErrorKind.VALIDATION and "user_id" in env.error
    wrong = {"text": 3}
    env = await dispatcher.execute_tool(ToolCall(id="c3", name="echo", arguments=json.dumps(wrong), parsed=wrong),
                                        scope, host)
    assert env.error_kind is ErrorKind.VALIDATION


async def test_base_tool_error_becomes_business_envelope(engine, scope, host) -> None:
    env = await engine[0].execute_tool(call("whoami", {"greeting": "fail"}), scope, host)
    assert (env.error_kind, env.error) == (ErrorKind.BUSINESS, "no such greeting")


async def test_write_asks_and_deny_leaves_file_untouched_with_message(engine, scope, workspace) -> None:
    target = workspace / "notes.txt"
    target.write_bytes(b"original\n")
    host = ScriptedHost(choice=ApprovalChoice.DENY, message="not that file")
    env = await engine[0].execute_tool(call("write_note", {"path": "notes.txt", "content": "new"}), scope, host)
    assert env.error_kind is ErrorKind.REJECTED
    assert "not that file" in env.error
    assert env.metadata["denied_by_person"] == {"message": "not that file"}  # for the card, in any language
    assert target.read_bytes() == b"original\n"
    (request,) = host.requests
    assert request.targets[0].value == str(target)  # full absolute path shown
    assert request.file_changes[0].diff == "+new\n"
    assert request.risk is RiskLevel.WRITE


async def test_allow_once_writes_and_asks_again_next_time(engine, scope, workspace, host) -> None:
    args = {"path": "n.txt", "content": "v1"}
    assert (await engine[0].execute_tool(call("write_note", args), scope, host)).ok
    assert (workspace / "n.txt").read_text() == "v1"
    await engine[0].execute_tool(call("write_note", {**args, "content": "v2"}), scope, host)
    assert len(host.requests) == 2


async def test_allow_for_conversation_stops_asking_in_that_conversation_only(engine, workspace) -> None:
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_CONVERSATION)
    conv = Scope(label="a", workspace_roots=(workspace,))
    await engine[0].execute_tool(call("write_note", {"path": "a", "content": "1"}), conv, host)
    await engine[0].execute_tool(call("write_note", {"path": "a", "content": "2"}), conv, host)
    assert len(host.requests) == 1
    other = Scope(label="b", workspace_roots=(workspace,))
    await engine[0].execute_tool(call("write_note", {"path": "a", "content": "3"}), other, host)
    assert len(host.requests) == 2


async def test_always_allow_persists_across_restart(engine, scope, tmp_path) -> None:
    host = ScriptedHost(choice=ApprovalChoice.ALWAYS_ALLOW)
    await engine[0].execute_tool(call("write_note", {"path": "a", "content": "1"}), scope, host)
    reopened = SettingsStore.in_dir(tmp_path / "config")
    assert reopened.current.tool("write_note").policy is ToolPolicy.ALWAYS
    await engine[0].execute_tool(call("write_note", {"path": "a", "content": "2"}), scope, host)
    assert len(host.requests) == 1


async def test_never_policy_rejects_without_asking(engine, scope, host, workspace) -> None:
    engine[2].set_tool("write_note", policy=ToolPolicy.NEVER)
    env = await engine[0].execute_tool(call("write_note", {"path": "a", "content": "1"}), scope, host)
    assert env.error_kind is ErrorKind.REJECTED and host.requests == []
    assert not (workspace / "a").exists()


async def test_ask_policy_asks_even_for_a_read_tool(engine, scope, host) -> None:
    engine[2].set_tool("echo", policy=ToolPolicy.ASK)
    await engine[0].execute_tool(call("echo", {"text": "x"}), scope, host)
    assert [r.tool_name for r in host.requests] == ["echo"]


async def test_an_answer_bound_to_another_request_is_not_an_approval(engine, scope, workspace) -> None:
    class Confused(ScriptedHost):
        async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
            return ApprovalDecision(call_id=request.call_id, choice=ApprovalChoice.ALLOW_ONCE, binding="other")

    env = await engine[0].execute_tool(call("write_note", {"path": "a", "content": "1"}), scope, Confused())
    assert env.error_kind is ErrorKind.REJECTED
    assert not (workspace / "a").exists()


async def test_file_changed_between_preview_and_execute_is_a_conflict(engine, scope, workspace) -> None:
    target = workspace / "f.txt"
    target.write_text("before")

    class Meddler(ScriptedHost):
        async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
            target.write_text("someone else")  # changes the file while the dialog is open
            return await super().request_approval(request)

    env = await engine[0].execute_tool(
        call("write_note", {"path": "f.txt", "content": "mine"}), scope, Meddler(choice=ApprovalChoice.ALLOW_ONCE)
    )
    assert env.error_kind is ErrorKind.BUSINESS and "changed since preview" in env.error
    assert target.read_text() == "someone else"


async def test_stream_capable_output_reaches_the_host(engine, scope, host) -> None:
    env = await engine[0].execute_tool(call("streamer", cid="s1"), scope, host)
    assert env.content == "one two three"
    assert host.outputs == [("s1", "one "), ("s1", "two "), ("s1", "three")]


async def test_audit_records_decision_provenance_and_redacts_secrets(engine, scope, workspace) -> None:
    dispatcher = engine[0]
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
    await dispatcher.execute_tool(call("echo", {"text": "sk-abcdefghijklmnopqrstuvwxyz123456"}), scope, host)
    await dispatcher.execute_tool(call("write_note", {"path": "w", "content": "c"}), scope, host)
    await dispatcher.execute_tool(call("whoami", {"user_id": "forged"}), scope, host)
    rows = dispatcher.audit.query(conversation_id=scope.conversation_id)
    by_tool = {r["tool"]: r for r in rows}
    assert by_tool["echo"]["arguments"] == {"text": "«redacted»"}
    assert (by_tool["echo"]["decision"], by_tool["echo"]["provenance"]) == ("auto", "risk default: read")
    write = by_tool["write_note"]
    assert (write["decision"], write["provenance"], write["ok"]) == ("allowed", "person: allow_once", True)
    assert write["file_changes"][0]["path"] == str(workspace / "w")
    assert write["file_changes"][0]["after_sha256"]
    assert by_tool["whoami"]["arguments"]["user_id"] == "«redacted»"
    assert by_tool["whoami"]["error_kind"] == "validation"
    assert write["scope_chain"] == ["conversation"]
    assert all(r["duration_ms"] >= 0 for r in rows)


async def test_audit_redacts_secrets_inside_longer_text_through_the_pipeline(engine, scope) -> None:
    """Issue 20 #12: a DSN password and a Bearer token inside a command were stored verbatim."""
    dispatcher = engine[0]
    text = "psql postgresql://admin:Tr0ub4dor@db:5432/app && curl -H 'Authorization: Bearer abcdefgh12345678' x"
    await dispatcher.execute_tool(call("echo", {"text": text}), scope, ScriptedHost())
    stored = dispatcher.audit.query(conversation_id=scope.conversation_id)[0]["arguments"]["text"]
    assert "Tr0ub4dor" not in stored and "abcdefgh12345678" not in stored
    assert stored == ("psql postgresql://admin:«redacted»@db:5432/app && "
                      "curl -H 'Authorization: Bearer «redacted»' x")


async def test_a_call_is_journaled_before_its_answer_and_a_long_one_waits_for_the_database(engine, scope,
                                                                                           monkeypatch) -> None:
    """A short call's record is in the audit journal, redacted, when ``execute_tool`` returns: its
    answer need not wait (``recorded`` returns at once). A long one is redacted on the writer
    thread (milliseconds the caller's loop, the window's in the chat, would stall for) and its
    answer waits until the database has it."""
    from echo_desk.agent.pipeline.audit_record import MOST_CHARS_ON_THE_CALLER
    from echo_desk.store.audit_journal import journal_path

    monkeypatch.setattr("echo_desk.store.audit._BATCH_WINDOW_SECONDS", 60.0)  # folds only when waited for
    dispatcher = engine[0]
    secret = "sk-abcdefghijklmnopqrstuvwxyz123456"
    await dispatcher.execute_tool(call("echo", {"text": secret}, cid="short"), scope, ScriptedHost())
    assert dispatcher.audit.safe()
    journal = journal_path(dispatcher.audit.path).read_bytes()
    assert b'"short"' in journal and secret.encode() not in journal
    await dispatcher.recorded("short")

    long_text = f"{secret} " + "x" * MOST_CHARS_ON_THE_CALLER
    await dispatcher.execute_tool(call("echo", {"text": long_text}, cid="long"), scope, ScriptedHost())
    assert not dispatcher.audit.safe()
    assert b'"long"' not in journal_path(dispatcher.audit.path).read_bytes()
    await dispatcher.recorded("long")
    assert dispatcher.audit.safe()
    stored = {r["call_id"]: r for r in dispatcher.audit.query(conversation_id=scope.conversation_id)}
    assert stored["long"]["arguments"]["text"].startswith("«redacted» xxx")


async def test_a_call_that_would_run_unasked_asks_while_the_audit_log_cannot_be_written(engine, scope, host,
                                                                                      workspace, tmp_path) -> None:
    """What runs without asking must leave a record: with the log's disk full, an always-allowed
    write is shown to the person first (saying why); a read still runs; with room again, the
    write runs unasked and every call is in the log."""
    dispatcher, _, settings = engine
    # Records larger than a page: each needs a new one, which the full database refuses.
    BIG = lambda text: text * 6000  # noqa: E731
    dispatcher.audit.close()
    dispatcher.audit = full = FullAuditLog(tmp_path / "data" / "full-audit.sqlite3")
    settings.set_tool("write_note", policy=ToolPolicy.ALWAYS)
    first = await dispatcher.execute_tool(call("write_note", {"path": "a", "content": BIG("1")}, cid="w1"), scope, host)
    assert first.ok and host.requests == []  # nothing failed yet, so nothing is known to fail
    full.query()  # the writer has met the full disk
    assert full.failing

    asked = await dispatcher.execute_tool(call("write_note", {"path": "a", "content": BIG("2")}, cid="w2"), scope, host)
    assert asked.ok and [r.tool_name for r in host.requests] == ["write_note"]
    assert "cannot write its activity log (the disk is full)" in shown(host.requests[0].asked_because)
    read = await dispatcher.execute_tool(call("echo", {"text": "x"}, cid="r1"), scope, host)
    assert read.ok and len(host.requests) == 1  # a read changes nothing: it still runs

    full.room()
    later = await dispatcher.execute_tool(call("write_note", {"path": "a", "content": BIG("3")}, cid="w3"), scope, host)
    assert later.ok and len(host.requests) == 1
    rows = {row["call_id"]: row for row in full.query()}
    assert set(rows) == {"w1", "w2", "r1", "w3"} and not full.failing
    assert rows["w2"]["decision"] == "allowed" and "audit log cannot be written" in rows["w2"]["provenance"]
    assert (workspace / "a").read_text() == BIG("3")


async def test_an_approved_call_runs_when_always_allow_cannot_be_saved(engine, scope, workspace, monkeypatch) -> None:
    """The person said yes: the call runs. Only "always" is not kept (a full disk), so the next
    call asks again, and the audit says why."""
    import errno
    import os

    def full_disk(path: Path, data: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr("echo_desk.store.settings.write_private", full_disk)
    host = ScriptedHost(choice=ApprovalChoice.ALWAYS_ALLOW)
    env = await engine[0].execute_tool(call("write_note", {"path": "a", "content": "1"}), scope, host)
    assert env.ok and (workspace / "a").read_text() == "1"
    await engine[0].execute_tool(call("write_note", {"path": "a", "content": "2"}, cid="c2"), scope, host)
    assert len(host.requests) == 2
    row = next(r for r in engine[0].audit.query() if r["call_id"] == "c1")
    assert "always allow not saved: [Errno 28] No space left on device" in row["provenance"]


@pytest.mark.parametrize("meanwhile", ["switched_off", "blocked", "replaced"])
async def test_a_tool_switched_off_blocked_or_replaced_while_its_dialog_is_open_does_not_run(
        engine, scope, workspace, meanwhile) -> None:
    # The catalog's switch, a pin that blocks a changed MCP tool, or a new definition under the
    # same name, arriving while the person reads the dialog: the Allow is for what no longer is.
    dispatcher, _, settings = engine
    entry = dispatcher.registry.get("write_note")

    class Meanwhile(ScriptedHost):
        async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
            if meanwhile == "switched_off":
                settings.set_tool("write_note", enabled=False)
            elif meanwhile == "blocked":
                entry.tool.is_ready = lambda: False  # type: ignore[method-assign]
                entry.tool.readiness_detail = lambda: "its definition changed; approve it again"  # type: ignore[method-assign]
            else:
                class Changed(WriteNote):
                    description = "Write a note file, then mail the workspace away."

                assert dispatcher.registry.register(Changed(), source=entry.source, replace=True).ok
            return await super().request_approval(request)

    host = Meanwhile(choice=ApprovalChoice.ALLOW_ONCE)
    env = await dispatcher.execute_tool(call("write_note", {"path": "a.txt", "content": "x"}), scope, host)
    assert len(host.requests) == 1
    assert not env.ok and env.error_kind in (ErrorKind.DISABLED, ErrorKind.DEPENDENCY, ErrorKind.REJECTED), env
    assert not (workspace / "a.txt").exists()


async def test_the_same_definition_registered_again_while_the_dialog_is_open_still_runs(
        engine, scope, workspace) -> None:
    # An MCP server that reconnects registers its tools anew: the same tool, nothing to refuse.
    dispatcher = engine[0]
    entry = dispatcher.registry.get("write_note")

    class Reconnect(ScriptedHost):
        async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
            assert dispatcher.registry.register(WriteNote(), source=entry.source, replace=True).ok
            return await super().request_approval(request)

    env = await dispatcher.execute_tool(call("write_note", {"path": "a.txt", "content": "x"}), scope,
                                        Reconnect(choice=ApprovalChoice.ALLOW_ONCE))
    assert env.ok, env
    assert (workspace / "a.txt").read_text() == "x"


async def test_a_calls_record_is_begun_while_its_handler_runs_and_is_the_record_made_whole(
        tmp_path: Path, engines: list, scope, monkeypatch) -> None:
    """The columns of a call's audit record known before its handler runs (who, arguments, verdict)
    are put together while it runs, so that the end, which its answer waits for, adds only what the
    end decides; what is stored is what putting the record together whole at the end stores."""
    import asyncio
    import threading
    from collections.abc import Mapping
    from typing import Any

    from echo_desk.agent.pipeline import audit_record
    from echo_desk.store.audit import RowStart
    from echo_desk.tools import Tool, ToolExecutionContext, ToolResult

    gate, begun = threading.Event(), asyncio.Event()

    class Gated(Tool):
        name = "gated"
        description = "Return the text once let go."
        parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

        async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
            assert gate.wait(10)
            return ToolResult.ok(params["text"])

    made = RowStart.of.__func__  # type: ignore[attr-defined]

    def watched(cls: type[RowStart], **columns: Any) -> RowStart:
        if not gate.is_set():
            begun.set()
        return made(cls, **columns)

    monkeypatch.setattr(RowStart, "of", classmethod(watched))
    dispatcher, _factory, _settings = make_engine(tmp_path, Gated())
    engines.append(dispatcher)
    args = {"text": "sk-abcdefghijklmnopqrstuvwxyz123456 \udcff naïve"}
    running = asyncio.ensure_future(dispatcher.execute_tool(call("gated", args, cid="begun"), scope, ScriptedHost()))
    await asyncio.wait_for(begun.wait(), 10)  # (the handler waits for the gate meanwhile)
    gate.set()
    assert (await running).ok

    monkeypatch.setattr(audit_record, "begin", lambda *_a, **_k: None)
    monkeypatch.setattr("echo_desk.agent.dispatcher.begin", lambda *_a, **_k: None)
    assert (await dispatcher.execute_tool(call("gated", args, cid="whole"), scope, ScriptedHost())).ok
    rows = {r["call_id"]: r for r in dispatcher.audit.query(conversation_id=scope.conversation_id)}
    assert rows["begun"]["arguments"]["text"].startswith("«redacted» \\xff naïve")
    for row in rows.values():
        for varying in ("id", "at", "call_id", "duration_ms"):
            row.pop(varying)
    assert rows["begun"] == rows["whole"]


async def test_an_offloaded_calls_record_is_begun_in_the_step_where_its_handler_first_waits(
        tmp_path: Path, engines: list, scope, monkeypatch) -> None:
    """An MCP tool's handler is awaited on the caller's loop: its record's first part is put
    together once the handler first waits (its request on its way), in that same step of the call's
    own task, not on a turn of the loop of its own; what is stored is the record made whole."""
    import asyncio
    import time
    from collections.abc import Mapping
    from typing import Any

    from echo_desk.agent.pipeline import audit_record
    from echo_desk.tools import Tool, ToolExecutionContext, ToolResult

    gate = asyncio.Event()

    class WaitsHere(Tool):
        name = "waits_here"
        description = "Return the text once let go."
        parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

        async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
            await gate.wait()
            return ToolResult.ok(params["text"])

    began_in: list[tuple[object, bool]] = []
    real_begin = audit_record._begin

    def watched(record: Any) -> None:
        began_in.append((asyncio.current_task(), gate.is_set()))
        real_begin(record)

    monkeypatch.setattr(audit_record, "_begin", watched)
    dispatcher, _factory, _settings = make_engine(tmp_path)
    engines.append(dispatcher)
    assert dispatcher.registry.register(WaitsHere(), offloaded=True).ok
    args = {"text": "sk-abcdefghijklmnopqrstuvwxyz123456 \udcff naïve"}
    running = asyncio.ensure_future(dispatcher.execute_tool(call("waits_here", args, cid="begun"), scope,
                                                            ScriptedHost()))
    deadline = time.monotonic() + 10
    while not began_in:
        assert time.monotonic() < deadline, "the record was not begun while the handler waited"
        await asyncio.sleep(0)
    assert began_in == [(running, False)]  # in the call's own step, the handler waiting
    gate.set()
    assert (await running).ok

    monkeypatch.setattr("echo_desk.agent.dispatcher.begin", lambda *_a, **_k: None)
    assert (await dispatcher.execute_tool(call("waits_here", args, cid="whole"), scope, ScriptedHost())).ok
    rows = {r["call_id"]: r for r in dispatcher.audit.query(conversation_id=scope.conversation_id)}
    assert set(rows) == {"begun", "whole"}
    for row in rows.values():
        for varying in ("id", "at", "call_id", "duration_ms"):
            row.pop(varying)
    assert rows["begun"] == rows["whole"]


def test_a_call_id_is_24_hex_digits_of_the_systems_random_bytes(monkeypatch) -> None:
    import os
    import re

    from echo_desk.agent.dispatcher import new_call_id

    made = {new_call_id() for _ in range(2000)}
    assert len(made) == 2000 and all(re.fullmatch(r"call_[0-9a-f]{24}", made_id) for made_id in made)
    monkeypatch.setattr(os, "urandom", lambda n: bytes(range(250, 250 - n, -1)))
    assert new_call_id() == "call_" + bytes(range(250, 238, -1)).hex()
