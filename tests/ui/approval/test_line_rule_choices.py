"""The rule choices say what each covers when that is less than the line (s337). A choice is one
rule for one command: for ``ls | wc -l`` the caption said "Or allow this and similar calls from
now on" and each choice looked like it allowed the line. Now a line of several commands says
each choice is for the command it names, and under the choices whether all of them would let the
whole line run next time (or what it would still ask for: s329's ``still_asks``). A wrapper's
rule (``nice **``) names the rule offered beside it that its command also needs (``make test **``),
and that one names the wrapper's. In English and Chinese, through the real dispatcher, engine
and run_command."""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from echo_desk.agent.model import ToolCall
from echo_desk.ui.approval.approval_dialog import ApprovalDialog
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.core import i18n_qt
from tests.ui.conftest import next_emission, within

SHOTS = os.environ.get("S337_SCREENSHOTS")  # a file prefix: screenshots of the dialog

CAPTION = {"en": "Or allow one command of this line from now on:", "zh_CN": "或者从现在起允许这一行中的某条命令："}
ONE_CALL_CAPTION = {"en": "Or allow this and similar calls from now on:", "zh_CN": "或者从现在起允许此类调用："}
ONLY = {"en": "Only for “{}”, not the other commands of this line", "zh_CN": "只针对“{}”，不包括这一行的其他命令"}
NEEDS = {"en": "Not enough alone: “{}” also needs “{}”, offered here too",
         "zh_CN": "仅靠这条规则还不够：“{}”还需要“{}”，这里同样可以选择"}
WHOLE_LINE = {"en": "With all the rules offered here, this whole line will run without asking next time. Each "
                    "choice adds only its own rule: the line asks again until every one is chosen.",
              "zh_CN": "加上这里提供的全部规则后，下次整行都会直接运行、不再询问。每个选项只添加它自己的规则：在全部选过之前，"
                       "这一行仍会询问。"}
STILL_ASKS = {"en": "Even with the rules offered here, this line will ask again next time: none of them allows {}.",
              "zh_CN": "即使加上这里提供的规则，下次运行这一行时仍会询问：它们都不允许{}。"}


@dataclass
class Shown:
    language: str
    caption: str
    radios: list[str]
    covers: list[str]  # the note under each choice ('' where hidden)
    line_note: str  # '' where hidden
    described: list[str]  # each choice's accessible description


def _shown(qloop, runtime, scope, command: str, name: str) -> list[Shown]:  # type: ignore[no-untyped-def]
    """In each language: what the rule choices say; then denied."""

    async def ask() -> list[Shown]:
        host = QtHost()
        opened = next_emission(host.dialog_opened)
        call = ToolCall(id="c1", name="run_command", arguments=json.dumps({"command": command}))
        task = asyncio.ensure_future(runtime.dispatcher.execute_tool(call, scope, host))
        dialog: ApprovalDialog = await within(opened)
        panel = dialog.grant_choices
        assert panel is not None
        seen = []
        for language in ("en", "zh_CN"):
            i18n_qt.apply_language(language)
            dialog.resize(760, 640)
            await asyncio.sleep(0)
            seen.append(Shown(language, panel.remember_caption.text(), [r.text() for r in panel.radios],
                              [n.text() if not n.isHidden() else "" for n in getattr(panel, "covers", ())],
                              panel.still_asks.text() if not panel.still_asks.isHidden() else "",
                              [r.accessibleDescription() for r in panel.radios]))
            if SHOTS:
                _save_shots(dialog, f"{SHOTS}-{name}-{language}")
        i18n_qt.apply_language("en")
        dialog.deny.click()
        envelope = await within(task)
        assert not envelope.ok
        return seen

    try:
        seen: list[Shown] = qloop.run_until_complete(ask())
        return seen
    finally:
        i18n_qt.apply_language("en")


def _save_shots(dialog: ApprovalDialog, prefix: str) -> None:
    """The dialog as shown, in the light theme and the dark one."""
    from echo_desk.ui.core import theme

    dialog.show()
    for variant in ("light", "dark"):
        theme.apply_theme(variant)
        QApplication.processEvents()
        dialog.grab().save(f"{prefix}-{variant}.png")
    theme.apply_theme("light")


@pytest.fixture
def makefile(workspace: Path) -> None:
    (workspace / "src").mkdir()
    for folder in (workspace, workspace / "src"):
        (folder / "Makefile").write_text("test:\n\ttrue\n", encoding="utf-8")


def test_each_choice_of_a_pipeline_names_its_command_and_all_of_them_allow_the_line(  # type: ignore[no-untyped-def]
        qloop, builtin_runtime, scope) -> None:
    for shown in _shown(qloop, builtin_runtime, scope, "ls | wc -l", "pipeline"):
        lang = shown.language
        assert shown.caption == CAPTION[lang]
        assert ["ls **" in shown.radios[0], "wc **" in shown.radios[1]] == [True, True], shown
        assert shown.covers == [ONLY[lang].format("ls"), ONLY[lang].format("wc -l")]
        assert shown.described == shown.covers  # (read with each choice, for the keyboard)
        assert shown.line_note == WHOLE_LINE[lang]  # (nothing still asks)
    assert builtin_runtime.permissions.active_grants() == []


@pytest.mark.usefixtures("makefile")
def test_a_line_that_would_still_ask_says_so_under_choices_that_name_their_commands(  # type: ignore[no-untyped-def]
        qloop, builtin_runtime, scope) -> None:
    for shown in _shown(qloop, builtin_runtime, scope, "cd src && make test | tee log", "still-asks"):
        lang = shown.language
        assert shown.caption == CAPTION[lang]
        assert len(shown.radios) == 2 and "cd **" in shown.radios[0] and "make test **" in shown.radios[1]
        assert shown.covers == [ONLY[lang].format("cd src"), ONLY[lang].format("make test")]
        # (tee writes a file no rule allows: said once, not promised away)
        quoted = "“tee log”"
        assert shown.line_note == STILL_ASKS[lang].format(quoted), shown.line_note


@pytest.mark.usefixtures("makefile")
def test_a_wrappers_rule_names_the_rule_its_program_needs_beside_it(  # type: ignore[no-untyped-def]
        qloop, builtin_runtime, scope) -> None:
    command = "nice -n 5 make test"
    for shown in _shown(qloop, builtin_runtime, scope, command, "wrapper"):
        lang = shown.language
        assert shown.caption == ONE_CALL_CAPTION[lang]  # (one command: a choice may cover it)
        assert len(shown.radios) == 2 and "nice **" in shown.radios[0] and "make test **" in shown.radios[1]
        assert shown.covers == [NEEDS[lang].format(command, "make test **"), NEEDS[lang].format(command, "nice **")]
        assert shown.described == shown.covers
        assert shown.line_note == WHOLE_LINE[lang]


def test_a_single_command_keeps_its_one_choice_without_notes(  # type: ignore[no-untyped-def]
        qloop, builtin_runtime, scope) -> None:
    for shown in _shown(qloop, builtin_runtime, scope, "ls -la", "single"):
        assert shown.caption == ONE_CALL_CAPTION[shown.language]
        assert len(shown.radios) == 1 and not any(shown.covers) and shown.line_note == ""


@pytest.mark.usefixtures("makefile")
def test_the_keyboard_moves_between_paired_choices_and_the_allow_button_names_the_one_chosen(  # type: ignore[no-untyped-def]
        qloop, builtin_runtime, scope, qtbot) -> None:

    async def ask() -> None:
        host = QtHost()
        opened = next_emission(host.dialog_opened)
        call = ToolCall(id="c1", name="run_command", arguments=json.dumps({"command": "nice -n 5 make test"}))
        task = asyncio.ensure_future(builtin_runtime.dispatcher.execute_tool(call, scope, host))
        dialog: ApprovalDialog = await within(opened)
        panel = dialog.grant_choices
        assert panel is not None
        dialog.show()
        panel.radios[0].setFocus()
        qtbot.waitUntil(panel.radios[0].hasFocus)
        qtbot.keyClick(panel.radios[0], Qt.Key.Key_Down)
        qtbot.waitUntil(panel.radios[1].isChecked)
        assert "make test **" in panel.allow.text() and "nice" not in panel.allow.text()
        dialog.deny.click()
        envelope = await within(task)
        assert not envelope.ok

    qloop.run_until_complete(ask())
