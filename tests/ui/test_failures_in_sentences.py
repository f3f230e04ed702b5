"""Failures a person reads are Echo Desk's own sentences in their language (what failed, what
did and did not happen, what to do), never an exception's ``str()``: the window's banner (the
engine, the model), Settings › MCP when its servers did not start, the gateway's reason, a turn
that failed in the chat, unreadable JSON in the argument editor, a tool's readiness check, and a
local model file that cannot be used. The exception's English stays in the log or a tooltip.

Each was ``str(exc)`` before (s190): "[Errno 98] Address already in use", "Expecting ','
delimiter: line 2 column 3 (char 14)", an engine's "RuntimeError" text, or Echo Desk's own
sentence frozen in the language it was raised in.
"""

from __future__ import annotations

import errno
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import qasync
from PySide6.QtWidgets import QLineEdit

from echo_desk.i18n import shown
from echo_desk.providers.local.manager import ModelFileError, check_chosen_file
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.settings import SettingsStore
from echo_desk.ui.app.services import Services, attach_mcp_servers, load_services, start_gateway
from echo_desk.ui.approval.argument_editor import ArgumentEditor
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.core.backend import CatalogBackend
from tests.ui.conftest import attached_window, next_emission, within
from tests.ui.fake_model import ScriptedModel

#: The developer's words of the exceptions made below: none may reach what a person reads.
TECHNICAL = re.compile(r"Errno|RuntimeError|exploded|Expecting|delimiter|char \d|Address already|socket|"
                       r"mcp\.json is broken|OSError")
#: Latin words left in a Chinese text (file and program names, Echo Desk and JSON taken out first).
LATIN = re.compile(r"[A-Za-z]{3,}")


def _latin_left(text: str, *names: str) -> list[str]:
    for name in (*names, "Echo Desk", "JSON", "MCP", "mcp.json", "Settings", "Ollama", "OpenAI", "Anthropic",
                 "Gemini", "llama.cpp"):
        text = text.replace(name, "")
    return LATIN.findall(re.sub(r"/\S+", "", text))


def test_the_engine_that_did_not_start_is_said_in_sentences_that_follow_a_language_switch(
        qloop: qasync.QEventLoop, monkeypatch) -> None:
    # Before: "The tool engine could not be started (permission probe exploded); …" — the
    # exception's text in the banner, in any language.
    import echo_desk.runtime

    def broken(**_kwargs: object) -> None:
        raise RuntimeError("permission probe exploded")

    monkeypatch.setattr(echo_desk.runtime.Runtime, "create", staticmethod(broken))
    services = qloop.run_until_complete(load_services(SettingsStore.in_memory()))
    try:
        english = services.banner()
        assert "The tool engine could not be started: an error Echo Desk did not expect." in english, english
        assert "Restart Echo Desk" in english and not TECHNICAL.search(english), english
        i18n_qt.apply_language("zh_CN")
        try:
            chinese = services.banner()
        finally:
            i18n_qt.apply_language("en")
        assert "工具引擎无法启动：" in chinese and not TECHNICAL.search(chinese), chinese
        # The model's line names the command that downloads the built-in model: a name, not English.
        assert not _latin_left(chinese, "python -m echo_desk.providers.local.fetch_default"), chinese
    finally:
        qloop.run_until_complete(services.aclose())


def test_the_banner_s_command_is_quoted_and_its_sentence_ends_before_the_next(qloop: qasync.QEventLoop) -> None:
    # Before, in Chinese: "请运行：python -m echo_desk.providers.local.fetch_default要连接模型，请打开…":
    # the sentence after the command ran into it (Chinese sentences are joined with no space).
    services = qloop.run_until_complete(load_services(SettingsStore.in_memory()))
    command = "python -m echo_desk.providers.local.fetch_default"
    try:
        assert f"Download it with “{command}”. To connect one" in services.banner()
        i18n_qt.apply_language("zh_CN")
        try:
            chinese = services.banner()
        finally:
            i18n_qt.apply_language("en")
        assert f"“{command}”下载。要连接" in chinese, chinese
    finally:
        qloop.run_until_complete(services.aclose())


def test_a_model_file_that_cannot_be_used_is_said_in_the_language_of_the_moment(
        qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    # Before: ModelFileError's text was translated when raised, and the banner kept it so: a
    # person who switched to Chinese read "The model file … does not exist." in English.
    store = SettingsStore.in_memory()
    missing = tmp_path / "gone.gguf"

    def local(s) -> None:
        s.local_model.model_path = str(missing)

    store.update(local)
    services = qloop.run_until_complete(load_services(store))
    try:
        english = services.banner()
        assert f"The model file {missing} does not exist." in english, english
        assert "No model is connected, so the agent cannot answer yet." in english
        assert ".." not in english  # before: "No model is connected: … does not exist.. To connect …"
        i18n_qt.apply_language("zh_CN")
        try:
            chinese = services.banner()
        finally:
            i18n_qt.apply_language("en")
        assert f"模型文件 {missing} 不存在" in chinese, chinese
        assert not _latin_left(chinese, str(missing)), chinese
    finally:
        qloop.run_until_complete(services.aclose())


def test_model_file_errors_are_lazy_and_their_str_is_english_for_the_log(chinese, tmp_path: Path) -> None:
    # Raised while Chinese is on: the log and a report still read English; shown, it follows the language.
    with pytest.raises(ModelFileError) as caught:
        check_chosen_file(tmp_path / "nope.gguf")
    assert str(caught.value) == f"The model file {tmp_path / 'nope.gguf'} does not exist."
    assert shown(caught.value.reason).startswith("模型文件")
    i18n_qt.apply_language("en")
    assert shown(caught.value.reason).startswith("The model file")


def test_mcp_servers_that_did_not_start_are_said_with_what_to_do(qloop: qasync.QEventLoop, chinese) -> None:
    # Before: "无法启动 MCP 服务器：mcp.json is broken: Expecting ',' delimiter: line 2 column 3 (char 14)".
    async def attach(*_args: object, **_kwargs: object) -> None:
        try:
            json.loads('{"a": 1\n  "b": 2}')
        except json.JSONDecodeError as exc:
            raise ValueError("mcp.json is broken: " + str(exc)) from exc

    services = Services(settings=SettingsStore.in_memory(), backend=None, runtime=SimpleNamespace(  # type: ignore[arg-type]
        mcp=None, attach_mcp=attach), conversations=None)  # type: ignore[arg-type]
    qloop.run_until_complete(attach_mcp_servers(services, None))
    assert not TECHNICAL.search(services.mcp_error), services.mcp_error
    from echo_desk.ui.app.services import mcp_failed_text

    said = mcp_failed_text(services.mcp_error)
    assert said.startswith("无法启动 MCP 服务器：") and "请检查" in said, said
    assert not TECHNICAL.search(said) and not _latin_left(said), said


def test_a_gateway_that_did_not_start_keeps_a_reason_in_words(monkeypatch) -> None:
    # Before: gateway_error = "[Errno 98] Address already in use".
    class Busy:
        def __init__(self, *_args: object) -> None:
            pass

        def start_in_thread(self) -> None:
            raise OSError(errno.EADDRINUSE, "Address already in use")

    monkeypatch.setattr("echo_desk.gateway.service.GatewayService", Busy)
    services = Services(settings=SettingsStore.in_memory(), backend=None, runtime=SimpleNamespace(mcp=None),  # type: ignore[arg-type]
                        conversations=None)  # type: ignore[arg-type]
    start_gateway(services, None)  # type: ignore[arg-type]
    assert services.gateway is None
    assert services.gateway_error and not TECHNICAL.search(services.gateway_error), services.gateway_error
    assert shown(services.gateway_error).startswith("the system refused it")


def test_a_failed_turn_is_said_in_a_sentence_that_follows_a_language_switch(
        qtbot, qloop: qasync.QEventLoop, runtime, tmp_path: Path) -> None:
    # Before: "The turn failed: socket exploded [Errno 104]" — the exception's text in the chat.
    class Exploding(ScriptedModel):
        async def stream(self, *_args: object, **_kwargs: object):  # type: ignore[override]
            raise RuntimeError("socket exploded [Errno 104]")
            yield  # an async generator, as a model's stream is

    store = ConversationStore(tmp_path / "conversations.sqlite3")
    window = attached_window(qtbot, runtime, store)
    try:
        window.set_model(Exploding([]))

        async def scenario() -> None:
            window.composer.setPlainText("hello")
            window.send()  # busy_changed(True) is emitted synchronously
            assert await within(next_emission(window.session.busy_changed)) is False

        qloop.run_until_complete(scenario())
        failed = window.session.transcript.items()[-1]
        assert failed.kind == "error"
        english = shown(failed.text)
        assert english.startswith("The turn failed: an error Echo Desk did not expect."), english
        assert "Regenerate the last answer" in english and not TECHNICAL.search(english), english
        i18n_qt.apply_language("zh_CN")
        try:
            chinese = shown(failed.text)
        finally:
            i18n_qt.apply_language("en")
        assert chinese.startswith("本轮对话失败：") and not _latin_left(chinese), chinese
    finally:
        window.session.stop()
        store.close()


def test_a_model_s_error_in_the_chat_follows_a_language_switch(
        qtbot, qloop: qasync.QEventLoop, runtime, tmp_path: Path) -> None:
    # Before: the provider translated its ModelError when it raised it, and the chat showed that
    # text: switching to Chinese left "no server at … — is Ollama running?" in English.
    import httpx

    from echo_desk.providers.errors import error_for_transport

    class Unreachable(ScriptedModel):
        async def stream(self, *_args: object, **_kwargs: object):  # type: ignore[override]
            raise error_for_transport(httpx.ConnectError("refused"), base_url="http://127.0.0.1:11434/v1")
            yield  # an async generator, as a model's stream is

    store = ConversationStore(tmp_path / "conversations.sqlite3")
    window = attached_window(qtbot, runtime, store)
    try:
        window.set_model(Unreachable([]))

        async def scenario() -> None:
            window.composer.setPlainText("hello")
            window.send()
            assert await within(next_emission(window.session.busy_changed)) is False

        qloop.run_until_complete(scenario())
        failed = window.session.transcript.items()[-1]
        assert failed.kind == "error"
        assert shown(failed.text) == "no server at http://127.0.0.1:11434 — is Ollama running?"
        i18n_qt.apply_language("zh_CN")
        try:
            chinese = shown(failed.text)
        finally:
            i18n_qt.apply_language("en")
        assert chinese == "http://127.0.0.1:11434 上没有服务器——Ollama 是否已在运行？", chinese
    finally:
        window.session.stop()
        store.close()


def _editor(qtbot, schema: dict, arguments: dict) -> ArgumentEditor:
    editor = ArgumentEditor(schema, arguments, lambda _arguments: None)
    qtbot.addWidget(editor)
    return editor


def test_unreadable_json_says_where_in_plain_words(qtbot, chinese) -> None:
    # Before: "不是有效的 JSON：Expecting ',' delimiter: line 2 column 3 (char 14)".
    editor = _editor(qtbot, {"properties": {"command": {"type": "string"}}}, {"command": "ls"})
    editor.tabs.setCurrentWidget(editor.raw)
    editor.raw.setPlainText('{"command": "ls"\n  "cwd": "src"}')
    editor.apply_button.click()
    said = editor.error.text()
    assert said == "未检查：无法读取 JSON：从第 2 行第 3 个字符起不再是有效的 JSON。请改正后再次选择“检查并预览”。", said
    i18n_qt.apply_language("en")
    said = editor.error.text()
    assert said == ("Not checked: the JSON cannot be read: it stops being valid JSON at line 2, character 3. "
                    "Correct it, then choose Check and preview again."), said


def test_an_unreadable_form_field_is_named(qtbot, chinese) -> None:
    editor = _editor(qtbot, {"properties": {"count": {"type": "integer"}}}, {"count": 1})
    field = next(w for w in editor.findChildren(QLineEdit) if w.accessibleName() == "count")  # the form's tab
    field.setText("12x")
    editor.apply_button.click()
    said = editor.error.text()
    assert said.startswith("未检查：无法读取字段 count：从第 3 个字符起不再是有效的 JSON"), said


def test_json_that_is_not_an_object_says_so_in_the_language_of_the_moment(qtbot) -> None:
    editor = _editor(qtbot, {}, {})
    editor.tabs.setCurrentWidget(editor.raw)
    editor.raw.setPlainText("[1, 2]")
    editor.apply_button.click()
    assert "the arguments must be a JSON object, written { … }" in editor.error.text()
    i18n_qt.apply_language("zh_CN")
    try:
        assert "参数必须是一个 JSON 对象" in editor.error.text(), editor.error.text()
    finally:
        i18n_qt.apply_language("en")


def test_a_readiness_check_missing_its_program_names_it_visibly(qtbot, runtime, monkeypatch) -> None:
    # One helper for the catalog and the settings pages (failure_text): a check runs programs, so a
    # missing one is "command not found", its name with every hidden character shown. Before, the
    # catalog's own copy put the name as it came (an ESC that clears a terminal included).
    from echo_desk.ui.settings.catalog_model import COL_STATUS
    from echo_desk.ui.settings.catalog_page import ToolsPage

    page = ToolsPage(CatalogBackend(runtime.settings, runtime))
    qtbot.addWidget(page)

    def missing() -> bool:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", "rg\x1b[2J")

    monkeypatch.setattr(page.model._tools["read_note"], "is_ready", missing)
    page.model.refresh_status()
    cell = page.model._rows["read_note"][COL_STATUS]
    assert "Readiness check failed: command not found: rg⟨ESC⟩[2J" in cell.text(), cell.text()
    assert "\x1b" not in cell.text()
    assert "FileNotFoundError" in cell.toolTip()


def test_settings_pages_still_say_a_missing_file_as_the_system_s_refusal() -> None:
    from echo_desk.ui.widgets.failure_text import failure_reason

    gone = FileNotFoundError(errno.ENOENT, "No such file or directory", "/tmp/x/permissions.toml")
    assert failure_reason(gone) == "the system refused it: no such file or folder"
    assert failure_reason(gone, running=True) == "command not found: /tmp/x/permissions.toml"


def test_sending_without_the_engine_says_the_engine_not_the_model(qtbot, runtime, tmp_path: Path, workspace) -> None:
    # Before: a model was connected but the engine had not started, and the chat said "No model is
    # connected … open Settings › Models": the person looked for a fault where there was none.
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    window = attached_window(qtbot, runtime, store)
    try:
        window.set_workspace(str(workspace))
        window.set_model(ScriptedModel([]))
        window.session.runtime = None  # what the window holds when Runtime.create failed
        window.composer.setPlainText("hello")
        window.send()
        said = shown(window.session.transcript.items()[-1].text)
        assert said.startswith("The tool engine is not running, so nobody can answer"), said
        assert "No model is connected" not in said
    finally:
        window.session.stop()
        store.close()
