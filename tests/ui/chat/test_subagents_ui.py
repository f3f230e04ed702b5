"""Sub-agents in the app: the spawn dialog, a sub-agent's own approvals, the nested transcript.

Everything runs through the real ``DelegateTool``, dispatcher and Qt host; only the models
(parent and child) are scripted.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from echo_desk.agent.model import ToolCall
from echo_desk.store.conversations import ConversationStore
from echo_desk.ui.app.services import Services, wire_delegation
from echo_desk.ui.approval.approval_dialog import ApprovalDialog
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.chat.card_facts import SubCall, SubText
from echo_desk.ui.chat.transcript import TOOL, TranscriptModel
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.core.backend import CatalogBackend
from tests.agent.fake_model import ScriptedModel, calls, say
from tests.ui.conftest import attached_window, next_emission, within

GOAL = "Summarise notes.txt for the weekly report"
CJK = re.compile(r"[\u4e00-\u9fff]")


class Children:
    """The sub-agents' models, one script each, in the order they are started."""

    def __init__(self, *scripts: list) -> None:
        self.scripts = list(scripts)
        self.started: list[ScriptedModel] = []

    def __call__(self) -> ScriptedModel:
        model = ScriptedModel(self.scripts.pop(0) if self.scripts else [say("nothing to do")])
        self.started.append(model)
        return model


def _host(runtime) -> QtHost:
    """A Qt host whose dialogs name tools as the app does (localized titles from the registry)."""
    transcript = TranscriptModel()
    transcript.title_for = CatalogBackend(runtime.settings, runtime).title_for
    return QtHost(transcript=transcript)


def _delegate(call_id: str = "d1", **manifest: object) -> ToolCall:
    return ToolCall(id=call_id, name="delegate", arguments=json.dumps({"goal": GOAL, **manifest}))


async def _dialogs(host: QtHost, run, answer) -> tuple[list[ApprovalDialog], object]:
    """Run ``run()``; each approval dialog that opens is recorded and answered by ``answer``."""
    seen: list[ApprovalDialog] = []

    def on_open(dialog: ApprovalDialog) -> None:
        seen.append(dialog)
        # Answer after the dialog has been shown, as a person would.
        asyncio.get_running_loop().call_soon(answer, dialog, len(seen))

    host.dialog_opened.connect(on_open)
    result = await within(run())
    return seen, result


def test_spawn_dialog_shows_goal_granted_tools_and_refused(qloop, runtime, scope, qtbot):
    children = Children()
    runtime.enable_delegation(children)
    host = _host(runtime)
    call = _delegate(tools=["read_note", "write_note", "no_such_tool"], read_only=True, max_turns=4)
    texts: dict[str, str] = {}

    def answer(dialog: ApprovalDialog, _n: int) -> None:
        assert dialog.manifest is not None and dialog.isVisible()
        texts["manifest"] = dialog.manifest.text()
        texts["heading"] = dialog.heading.text()
        texts["banner_visible"] = str(dialog.subagent_banner.isVisible())
        texts["targets_visible"] = str(dialog.targets.isVisible())
        dialog.message.setText("not now")
        dialog.deny.click()

    (_dialog,), envelope = qloop.run_until_complete(
        _dialogs(host, lambda: runtime.dispatcher.execute_tool(call, scope, host), answer))
    manifest = texts["manifest"]
    assert texts["heading"] == "Echo Desk wants to start a sub-agent"
    assert GOAL in manifest
    assert "Tools granted: Read note (read_note)" in manifest
    assert "Read-only" in manifest and "at most 4 turns" in manifest
    # The refused list names each refused item with its reason, in words.
    assert "write_note: a “Write” tool, above what this sub-agent may do (“Read”)" in manifest
    assert "no_such_tool: there is no such tool" in manifest
    # The manifest replaces the raw target lines; the conversation's agent asks, so no banner.
    assert texts["targets_visible"] == "False" and texts["banner_visible"] == "False"
    assert not envelope.ok and envelope.error_kind.value == "rejected"
    assert children.started == []  # denied: nothing started


def test_spawn_dialog_in_chinese_has_no_english_labels(qloop, runtime, scope, workspace):
    runtime.enable_delegation(Children())
    host = _host(runtime)
    call = _delegate(tools=["read_note", "write_note"], read_only=False, write_roots=[str(workspace), "/etc"])
    shown: dict[str, str] = {}

    def answer(dialog: ApprovalDialog, _n: int) -> None:
        i18n_qt.apply_language("zh_CN")
        assert dialog.manifest is not None
        shown["manifest"] = dialog.manifest.text()
        shown["heading"] = dialog.heading.text()
        dialog.deny.click()

    qloop.run_until_complete(_dialogs(host, lambda: runtime.dispatcher.execute_tool(call, scope, host), answer))
    manifest = shown["manifest"]
    assert CJK.search(shown["heading"]) and GOAL in manifest
    assert str(workspace.resolve()) in manifest and "/etc" in manifest
    for english in ("Tools granted", "Refused", "not inside the parent", "Limits", "turns"):
        assert english not in manifest, english


def test_a_sub_agents_approval_names_the_sub_agent_and_its_goal(qloop, runtime, scope, workspace):
    child_script = [calls(("w1", "write_note", json.dumps({"path": "report.txt", "text": "draft"}))),
                    say("I could not write the report.")]
    children = Children(child_script)
    runtime.enable_delegation(children)
    host = _host(runtime)
    call = _delegate(tools=["write_note"], read_only=False, write_roots=[str(workspace)])
    seen: list[dict[str, str]] = []

    def answer(dialog: ApprovalDialog, n: int) -> None:
        seen.append({"banner": dialog.subagent_banner.text() if dialog.subagent_banner.isVisible() else "",
                     "asked_by": dialog.scope_value.text(), "tool": dialog.request.tool_name})
        (dialog.allow_once if n == 1 else dialog.deny).click()  # allow the spawn, deny its write

    _dialogs_seen, envelope = qloop.run_until_complete(
        _dialogs(host, lambda: runtime.dispatcher.execute_tool(call, scope, host), answer))
    assert [s["tool"] for s in seen] == ["delegate", "write_note"]
    assert seen[0]["banner"] == ""  # the spawn itself is asked by the conversation's agent
    banner = seen[1]["banner"]
    assert "A sub-agent is asking" in banner and GOAL in banner
    assert seen[1]["asked_by"] == f"This conversation › Sub-agent: {GOAL}"
    assert not (workspace / "report.txt").exists()
    assert envelope.ok and envelope.content == "I could not write the report."


@pytest.fixture
def window(qtbot, qloop, runtime, tmp_path):
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    win = attached_window(qtbot, runtime, store)
    win.resize(900, 700)
    win.show()
    yield win
    win.session.stop()
    store.close()


def test_the_delegate_card_nests_the_sub_agents_transcript(window, qloop, runtime, workspace: Path):
    (workspace / "notes.txt").write_text("milk, eggs")
    children = Children([calls(("r1", "read_note", json.dumps({"path": "notes.txt"}))),
                         say("The notes list milk and eggs.")])
    runtime.enable_delegation(children)
    window.set_workspace(str(workspace))
    parent = ScriptedModel([calls(("d1", "delegate", json.dumps({"goal": GOAL, "tools": ["read_note"]}))),
                            say("Done: milk and eggs.")])
    window.services.model = parent
    window.set_model(parent)
    window.host.dialog_opened.connect(lambda dialog: asyncio.get_running_loop().call_soon(dialog.allow_once.click))

    async def scenario():
        window.composer.setPlainText("What do my notes say?")
        window.send()  # busy_changed(True) is emitted synchronously
        assert await within(next_emission(window.session.busy_changed)) is False

    qloop.run_until_complete(scenario())
    transcript = window.session.transcript
    card = next(i for i in transcript.items() if i.kind == TOOL and i.tool_name == "delegate")
    assert card.status == "done" and card.result == "The notes list milk and eggs."
    call, said = card.subtranscript.steps  # the call (with its result) and the sub-agent's words
    assert isinstance(call, SubCall) and call.result is not None and isinstance(said, SubText)

    view = window.transcript
    delegate = view.itemDelegate()
    collapsed = delegate.document(card).toPlainText()
    assert "Sub-agent transcript (tool calls: 1)" in collapsed
    assert "Read note (read_note) ● Done" in collapsed
    transcript.toggle_expanded(transcript.row_of(card))
    expanded = delegate.document(card).toPlainText()
    assert "milk, eggs" in expanded  # the nested call's result
    assert "Sub-agent: The notes list milk and eggs." in expanded
    assert "▶ sub-agent started" not in expanded  # the structured steps replace the raw stream

    # Stored with the conversation: reopening shows the same nested steps.
    window.session.flush_writes()
    window.session.open(window.session.conversation)
    again = next(i for i in window.session.transcript.items() if i.tool_name == "delegate")
    assert again.subtranscript == card.subtranscript


def test_wiring_registers_delegate_even_without_a_model(runtime):
    services = Services(settings=runtime.settings, backend=CatalogBackend(runtime.settings, runtime),
                        runtime=runtime, conversations=None)
    wire_delegation(services)
    entry = runtime.registry.get("delegate")
    assert entry is not None and services.backend.title_for("delegate") == "Delegate to a sub-agent"
    with pytest.raises(Exception, match="no model is connected"):
        entry.tool.services.model_factory()


def test_scope_help_is_reachable_from_the_catalog_and_translated(qtbot, runtime):
    from echo_desk.i18n import _
    from echo_desk.ui.settings.catalog_page import ToolsPage
    from echo_desk.ui.settings.scope_help import PARAGRAPHS, TITLE

    runtime.enable_delegation(Children())
    page = ToolsPage(CatalogBackend(runtime.settings, runtime))
    qtbot.addWidget(page)
    page.show()
    assert "delegate" in page.model.tool_names()
    # A read tool that always asks: the catalog must not claim spawns run without asking.
    from echo_desk.ui.settings.catalog_model import COL_POLICY

    row = page.model.tool_index("delegate")
    policy = page.model.itemFromIndex(row.siblingAtColumn(COL_POLICY)).text()
    assert policy == "Default (Ask)"
    page.help_button.click()
    dialog = page.help_dialog
    assert dialog is not None and dialog.isVisible()
    english = dialog.browser.toPlainText()
    assert "About scopes and sub-agents" in english and "can only narrow" in english

    i18n_qt.apply_language("zh_CN")
    chinese = dialog.browser.toPlainText()
    assert CJK.search(chinese) and "can only narrow" not in chinese
    for message in (TITLE, *PARAGRAPHS):
        translated = _(message)
        assert translated != message and CJK.search(translated), message
    assert page.backend.title_for("delegate") == "委派给子智能体"
    page.close_page()


def test_rewiring_for_a_connected_model_gives_each_sub_agent_a_fresh_client(qloop, runtime):
    from echo_desk.store.settings import ProviderKind, ProviderSettings

    services = Services(settings=runtime.settings, backend=CatalogBackend(runtime.settings, runtime),
                        runtime=runtime, conversations=None)
    provider = ProviderSettings(kind=ProviderKind.OLLAMA, base_url="http://127.0.0.1:9/v1", model="tiny")
    services.model = ScriptedModel([])  # the conversation's model (not the built-in local one)
    wire_delegation(services, provider, runtime.settings.current.local_model)
    factory = runtime.registry.get("delegate").tool.services.model_factory
    first, second = factory(), factory()
    try:
        assert first is not second and first is not services.model
        assert type(first).__name__ != "ScriptedModel"  # a real client for the configured provider
    finally:
        qloop.run_until_complete(first.aclose())
        qloop.run_until_complete(second.aclose())


def test_every_refusal_the_engine_gives_is_translated(tmp_path):
    from echo_desk.agent.scope import Scope
    from echo_desk.agent.subagents import Manifest, RefusalReason, narrow
    from echo_desk.tools import RiskLevel
    from echo_desk.ui.approval.spawn_manifest import refused_texts

    risks = {"read_note": RiskLevel.READ, "write_note": RiskLevel.WRITE, "delegate": RiskLevel.READ}
    root = Scope(label="conversation", workspace_roots=(tmp_path,))
    deep = Scope(label="b", parent=Scope(label="a", parent=root, granted_tools=frozenset(risks)),
                 granted_tools=frozenset({"read_note", "delegate"}), workspace_roots=(tmp_path,))
    spawns = []
    for parent, manifest in (
        (root, Manifest(goal="g", tools=("read_note", "write_note", "nope"))),  # ceiling, no such tool
        (root, Manifest(goal="g", tools=("write_note",), read_only=False, write_roots=("/etc",))),
        (deep, Manifest(goal="g", tools=("write_note", "delegate"))),  # not granted, too deep
    ):
        spawns.append(narrow(parent, manifest, tool_risks=risks).for_approval(manifest.goal))
    refusals = [r for spawn in spawns for r in spawn.refused]
    assert len(refusals) == 6  # case 2 refuses the root, then write_note for the read-only ceiling
    assert {r.reason for r in refusals} == set(RefusalReason)
    i18n_qt.apply_language("zh_CN")
    for spawn in spawns:
        for refusal, shown in zip(spawn.refused, refused_texts(spawn), strict=True):
            assert shown != str(refusal) and CJK.search(shown), refusal


def test_a_write_folder_with_a_comma_in_its_name_stays_one_folder(qloop, runtime, tmp_path):
    from echo_desk.agent.scope import Scope

    folder = tmp_path / "Smith, John"
    (folder / "reports, 2026").mkdir(parents=True)
    scope = Scope(label="conversation", workspace_roots=(folder,), write_roots=(folder,))
    runtime.enable_delegation(Children())
    host = _host(runtime)
    call = _delegate(tools=["read_note", "write_note"], read_only=False,
                     write_roots=[str(folder), str(folder / "reports, 2026")])
    shown: dict[str, object] = {}

    def answer(dialog: ApprovalDialog, _n: int) -> None:
        assert dialog.manifest is not None
        shown["roots"] = dialog.manifest.roots.text().split("\n")
        shown["spawn"] = dialog.request.spawn
        dialog.deny.click()

    qloop.run_until_complete(_dialogs(host, lambda: runtime.dispatcher.execute_tool(call, scope, host), answer))
    assert shown["roots"] == [str(folder.resolve()), str((folder / "reports, 2026").resolve())]
    assert shown["spawn"].write_roots == (folder.resolve(), (folder / "reports, 2026").resolve())


def test_a_sub_agents_failed_call_shows_in_the_persons_language_live_and_reopened(window, qloop, runtime,
                                                                                  workspace: Path):
    # The sub-agent leaves out read_note's path: the dispatcher refuses, in English for the model.
    children = Children([calls(("r1", "read_note", json.dumps({}))), say("I could not read it.")])
    runtime.enable_delegation(children)
    window.set_workspace(str(workspace))
    parent = ScriptedModel([calls(("d1", "delegate", json.dumps({"goal": GOAL, "tools": ["read_note"]}))),
                            say("Done.")])
    window.services.model = parent
    window.set_model(parent)
    window.host.dialog_opened.connect(lambda dialog: asyncio.get_running_loop().call_soon(dialog.allow_once.click))

    async def scenario():
        window.composer.setPlainText("What do my notes say?")
        window.send()
        assert await within(next_emission(window.session.busy_changed)) is False

    qloop.run_until_complete(scenario())
    card = next(i for i in window.session.transcript.items() if i.kind == TOOL and i.tool_name == "delegate")
    window.session.transcript.toggle_expanded(window.session.transcript.row_of(card))
    i18n_qt.apply_language("zh_CN")
    live = window.transcript.itemDelegate().document(card).toPlainText()
    assert "缺少参数" in live and "missing required argument" not in live, live

    window.session.flush_writes()
    window.session.open(window.session.conversation)
    again = next(i for i in window.session.transcript.items() if i.tool_name == "delegate")
    window.session.transcript.toggle_expanded(window.session.transcript.row_of(again))
    reopened = window.transcript.itemDelegate().document(again).toPlainText()
    assert "缺少参数" in reopened and "missing required argument" not in reopened, reopened
