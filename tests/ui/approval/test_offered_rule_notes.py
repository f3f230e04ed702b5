"""The approval dialog never offers a rule as if it allowed the line next time when it does not:
``git commit`` without ``-m`` starts an editor (s314) that ``git commit **`` does not cover, so
the choice says so, by name, under it; a line whose redirection no rule offered allows says the
line will ask again. In English and Chinese, through the real dispatcher, engine and
run_command. Before, the dialog offered "Allow “git commit **”" and the next ``git commit``
asked again."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from echo_desk.agent.model import ToolCall
from echo_desk.ui.approval.approval_dialog import ApprovalDialog
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.core import i18n_qt
from tests.ui.conftest import next_emission, within

SHOTS = os.environ.get("S329_SCREENSHOTS")  # a file prefix: screenshots of the dialog

EDITOR = {"en": "Not enough alone: this command also runs “editor”, “vi”, which your rules do not allow, "
                "so it will ask again",
          "zh_CN": "仅靠这条规则还不够：该命令还会运行“editor”、“vi”，而你的规则并未允许，所以下次仍会询问"}
STILL_ASKS = {"en": "Even with the rules offered here, this line will ask again next time: none of them allows "
                    "“> tmp/log.txt”.",
              "zh_CN": "即使加上这里提供的规则，下次运行这一行时仍会询问：它们都不允许“> tmp/log.txt”。"}


@pytest.fixture(autouse=True)
def _no_editor_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("EDITOR", "VISUAL", "GIT_EDITOR", "HGEDITOR"):
        monkeypatch.delenv(name, raising=False)


def _shown(qloop, runtime, scope, command: str, name: str) -> list[tuple[str, list[str], list[str], str]]:  # type: ignore[no-untyped-def]
    """In each language: the choices, the notes shown under them and the line's note; denied."""

    async def ask() -> list[tuple[str, list[str], list[str], str]]:
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
            seen.append((language, [r.text() for r in panel.radios],
                         [n.text() for n in panel.falls_short if n.isVisible()],
                         panel.still_asks.text() if panel.still_asks.isVisible() else ""))
            if SHOTS:
                dialog.grab().save(f"{SHOTS}-{name}-{language}.png")
        i18n_qt.apply_language("en")
        dialog.deny.click()
        envelope = await within(task)
        assert not envelope.ok
        return seen

    try:
        seen: list[tuple[str, list[str], list[str], str]] = qloop.run_until_complete(ask())
        return seen
    finally:
        i18n_qt.apply_language("en")


def test_the_rule_offered_for_a_commit_without_a_message_says_it_also_runs_the_editor(  # type: ignore[no-untyped-def]
        qloop, builtin_runtime, scope, workspace: Path) -> None:
    (workspace / ".git").mkdir()
    seen = _shown(qloop, builtin_runtime, scope, "git commit", "editor")
    for language, radios, notes, line_note in seen:
        assert len(radios) == 1 and "git commit **" in radios[0], (language, radios)
        assert notes == [EDITOR[language]], (language, notes)
        assert line_note == ""  # (told under the choice, not twice)
    assert builtin_runtime.permissions.active_grants() == []


def test_a_commit_with_its_message_is_offered_the_rule_with_no_caveat(  # type: ignore[no-untyped-def]
        qloop, builtin_runtime, scope, workspace: Path) -> None:
    (workspace / ".git").mkdir()
    for _language, radios, notes, line_note in _shown(qloop, builtin_runtime, scope, "git commit -m fix", "message"):
        assert len(radios) == 1 and "git commit **" in radios[0]
        assert notes == [] and line_note == ""


def test_a_redirection_no_offered_rule_allows_is_said_under_the_choices(  # type: ignore[no-untyped-def]
        qloop, builtin_runtime, scope) -> None:
    for language, radios, notes, line_note in _shown(qloop, builtin_runtime, scope, "git log > tmp/log.txt",
                                                     "redirect"):
        assert len(radios) == 1 and "git log **" in radios[0] and notes == []
        assert line_note == STILL_ASKS[language], (language, line_note)
