"""MCP prompts in the message box against real servers: ``/ev:`` completes to the server's
prompts, the arguments form marks required ones and shows descriptions as plain visible text,
and the result fills the box without sending anything."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QDialogButtonBox

from echo_desk.mcp import McpManager
from echo_desk.mcp.config import parse_server
from tests.mcp.conftest import everything_config, needs_everything
from tests.mcp.helpers import TINY_SERVER
from tests.ui.conftest import until


def _manager(runtime, servers):  # type: ignore[no-untyped-def]
    manager = McpManager(runtime.settings, registry=runtime.registry, servers=servers)
    for name in servers:
        request = manager.start_request(name)
        assert request is not None and manager.approve_start(name, request.fingerprint)
    runtime.mcp = manager
    return manager


@needs_everything
def test_a_prompt_with_arguments_fills_the_box(window, qloop, runtime) -> None:
    manager = _manager(runtime, {"ev": everything_config()})
    completer = window.prompt_completer

    async def scenario() -> None:
        await manager.start_all()
        window.composer.setPlainText("/ev:args")
        await until(lambda: "/ev:args-prompt" in completer.model.stringList(), 20)
        popup = completer.completer.popup()
        assert popup is not None and popup.isVisible()
        assert completer.completer.currentCompletion() == "/ev:args-prompt"
        completer.choose("/ev:args-prompt")
        form = completer.form
        assert form is not None
        ok = form.buttons.button(QDialogButtonBox.StandardButton.Ok)
        assert not ok.isEnabled()  # city is required
        labels = [w.text() for w in form.findChildren(type(form.note))]
        assert any(text.startswith("city") and "(required)" in text for text in labels)
        assert not any(text.startswith("state") and "(required)" in text for text in labels)
        form.fields["city"].setText("Oslo")
        form.fields["state"].setText("Viken")
        assert ok.isEnabled()
        ok.click()
        await until(lambda: "Oslo" in window.composer.toPlainText(), 20)

    try:
        qloop.run_until_complete(scenario())
        assert "Viken" in window.composer.toPlainText()
        assert window.session.history == []  # filled, not sent
    finally:
        qloop.run_until_complete(manager.aclose())


def test_hidden_characters_are_visible_in_the_form_and_removed_from_the_text(window, qloop, runtime) -> None:
    tiny = parse_server("t", {"command": sys.executable, "args": ["-S", str(TINY_SERVER)],
                              "env": {"TINY_RESOURCES": "big"}})
    manager = _manager(runtime, {"t": tiny})
    completer = window.prompt_completer

    async def scenario() -> None:
        await manager.start_all()
        window.composer.setPlainText("/t:")
        await until(lambda: "/t:summarise" in completer.model.stringList(), 20)
        # A prompt's name is the server's text: offered with its bidi override and ESC visible
        # (they drew "/t:okexe.png" in the list), and what is offered is what can be chosen.
        assert "/t:ok⟨U+202E⟩gnp.exe⟨ESC⟩[2J" in completer.model.stringList()
        assert not any("\u202e" in command or "\x1b" in command for command in completer.model.stringList())
        completer.choose("/t:summarise")
        form = completer.form
        assert form is not None
        assert "⟨U+200B⟩" in form.description.text()  # shown, not hidden
        form.fields["topic"].setText("the tests")
        form.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
        await until(lambda: "the tests" in window.composer.toPlainText(), 20)

    try:
        qloop.run_until_complete(scenario())
        text = window.composer.toPlainText()
        assert "\u200b" not in text and "\u202e" not in text
        assert "U+200B" in window.attachment_tray.problem.text() and "U+202E" in window.attachment_tray.problem.text()
        assert window.session.history == []
    finally:
        qloop.run_until_complete(manager.aclose())
