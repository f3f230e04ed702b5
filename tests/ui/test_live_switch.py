"""After a live switch to Chinese, nothing on screen is left in English.

Every window is built in English first (as a person who switches later has it), with requests,
cards and notices made by the real engine before the switch; then the language is switched and
every visible widget is walked: labels, buttons, group boxes, placeholders, combo boxes, tabs,
lists, trees, tables, text boxes, window titles, the status bar and the transcript's cards.
What may stay in Latin letters: names (products, protocols, file formats), paths, code, tool
identifiers, numbers and the test's own data.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
    QWidget,
)

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.agent.status import ToolStatus
from echo_desk.i18n import N_, deferred
from echo_desk.providers.local.profiles import ModelProfile
from echo_desk.providers.local.provider import LocalModel
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.settings import DatabaseConnection, ToolPolicy
from echo_desk.tools import FileChange, FileChangeKind
from echo_desk.tools.host import Question
from echo_desk.ui.app.services import Services
from echo_desk.ui.approval.approval_dialog import ApprovalDialog
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.approval.question_dialog import QuestionDialog
from echo_desk.ui.chat.card_facts import SandboxFacts
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.chat.transcript import TranscriptModel
from echo_desk.ui.chat.transcript_view import TranscriptView
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.activity_tab import COL_VERDICT, ActivityTab
from echo_desk.ui.settings.models_page import ModelsPage
from echo_desk.ui.settings.settings_dialog import SettingsDialog
from tests.ui.conftest import until, within

#: Names that are the same in both languages: products, protocols, formats, commands, units.
PHRASES = ("Echo Desk", "VS Code", "Claude Desktop", "Claude Code", "JSON Lines", "Streamable HTTP", "Google Gemini",
           "git status && npm test", "python -m", "rm -r", "site-packages", "PATH", "Dev Containers",
           "D-Bus", "GNOME Shell", "xdg-user-dir")
NAMES = {
    "mcp", "json", "sql", "api", "http", "https", "url", "id", "dsn", "sqlite", "postgresql", "ollama", "openai",
    "anthropic", "gemini", "gguf", "markdown", "llama", "cpp", "sha", "ctrl", "enter", "cursor", "stdio", "sse",
    "bubblewrap", "bwrap", "token", "toml", "ai", "llm", "qwen", "kib", "mib", "gib", "ms", "utf", "ssh", "gnupg",
    "aws", "kube", "docker", "gcloud", "azure", "localhost", "npx", "uvx", "wsl", "apparmor", "sudo", "sysctl",
    "systemctl", "eval", "exec", "english", "windsurf", "zed", "goose", "git", "direnv", "ide",
    "direnvrc", "initializecommand",  # a file's and a setting's own names
    # programs, systems and a key named in the protected list's reasons, and mise's "path:" syntax
    "bash", "completion", "debian", "ubuntu", "less", "lesspipe", "cli", "psql", "readline", "tab", "mvn", "mutt",
    "asdf", "vimrc", "path",
    # more programs, settings and commands named in the protected list's reasons (less's #env
    # section, LESSOPEN, git log, man, npm's script-shell and Node, Python's debugger, rustup's files)
    "env", "lessopen", "log", "man", "script", "node", "python", "breakpoint", "pdb", "pytest", "cargo", "rustc",
    "rustfmt", "rust", "toolchain", "rustup",
    # cargo's commands that build nothing (cargo metadata, cargo tree)
    "metadata", "tree",
    # Maven and the Java it passes options to (.mvn/jvm.config)
    "maven", "java",
    # the session's and make's (systemd's tmpfiles, make's stand-in names)
    "systemd", "make", "makefile", "gnumakefile",
    # version managers and what their version files run (.ruby-version, .nvmrc, ...)
    "rbenv", "ruby", "mise",
    # Vim and its exrc option (a project .exrc run by Vim)
    "vim", "exrc", "shell",
    # the prompts that run a start-up file of the folder they start in (Perl's debugger, Ruby's irb)
    "perl", "irb", "irbrc",
    # RubyGems and its gems (~/.gemrc)
    "rubygems", "gem",
    # more prompts, debuggers and package managers of the protected list (pry, GHCi, Octave,
    # lldb's platform shell, Gradle, Maven's JDK, yarn's yarnPath, conda, uv, Bundler, go's GOFLAGS)
    "pry", "ghci", "octave", "lldb", "platform", "system", "gradle", "jdk", "yarn", "yarnpath", "conda", "uv",
    "bundler", "go", "goflags", "toolexec", "org", "jvmargs",
    # the package caches of the protected list: Python's installer and the package formats kept
    # there (a jar, a wheel), named so in Chinese too
    "pip", "jar", "wheel",
    # build tools and package managers whose settings the protected list names (CMake's package
    # registry, CPAN's MyConfig.pm, Terraform's providers and its init, plan and apply commands)
    "cmake", "cpan", "terraform", "init", "plan", "apply",
}
#: The test's own data (a provider's name, a file, a command, a question's choices).
DATA = {"local", "hello", "main", "dev", "ls", "la"}
#: Tool identifiers in a rule's Tool column (the family names of permissions.toml).
TOOL_IDS = {"shell"}
#: Views of file content (diffs): code, not interface text.
CONTENT_VIEWS = {"DiffTextView"}
_CODE = re.compile(r"`[^`]*`|\{[^}]*\}|\S*[/\\~]\S*|\S*[._]\w\S*|https?://\S+|\b\w*\d\w*\b|⟨[^⟩]*⟩|[$@]\w+|(?<!\w)--?[\w-]+")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_WORD = re.compile(r"[A-Za-z]{2,}")


def english_left(text: str, also_allowed: set[str] = frozenset()) -> list[str]:
    """The English words in ``text`` once names, paths, code, identifiers and numbers are set aside."""
    for phrase in PHRASES:
        text = text.replace(phrase, " ")
    words = _WORD.findall(_CODE.sub(" ", text))
    allowed = NAMES | DATA | TOOL_IDS | {a.lower() for a in also_allowed}
    return [w for w in words if w.lower() not in allowed]


def _plain(text: str) -> str:
    if "<" in text and ">" in text:
        doc = QTextDocument()
        doc.setHtml(text)
        return doc.toPlainText()
    return text


def _model_texts(view: QAbstractItemView) -> Iterator[str]:
    model = view.model()
    if model is None:
        return
    header = getattr(view, "header", None) or getattr(view, "horizontalHeader", None)
    if header is not None and header() is not None and not header().isHidden():
        for column in range(model.columnCount()):
            yield str(model.headerData(column, Qt.Orientation.Horizontal) or "")
    pending = [QModelIndex()]
    while pending:
        parent = pending.pop()
        for row in range(model.rowCount(parent)):
            for column in range(model.columnCount(parent)):
                index = model.index(row, column, parent)
                value = model.data(index, Qt.ItemDataRole.DisplayRole)
                if isinstance(value, str):
                    yield value
            pending.append(model.index(row, 0, parent))


def visible_texts(root: QWidget) -> Iterator[tuple[str, str]]:
    """(widget class, text) for everything ``root`` shows."""
    yield type(root).__name__, root.windowTitle()
    for widget in [root, *root.findChildren(QWidget)]:
        if widget is not root and not widget.isVisibleTo(root):
            continue
        kind = type(widget).__name__
        if kind in CONTENT_VIEWS:
            continue
        if isinstance(widget, QLabel):
            yield kind, _plain(widget.text())
        elif isinstance(widget, QAbstractButton):
            yield kind, widget.text()
        elif isinstance(widget, QGroupBox):
            yield kind, widget.title()
        elif isinstance(widget, QLineEdit):
            yield kind, widget.placeholderText()
        elif isinstance(widget, (QPlainTextEdit, QTextEdit)):
            yield kind, widget.placeholderText()
            yield kind, widget.toPlainText()
        elif isinstance(widget, QComboBox):
            yield from ((kind, widget.itemText(i)) for i in range(widget.count()))
        elif isinstance(widget, QTabWidget):
            yield from ((kind, widget.tabText(i)) for i in range(widget.count()))
        if isinstance(widget, TranscriptView):
            delegate = widget.itemDelegate()
            for item in widget.model().items():
                yield from ((kind, doc.toPlainText()) for doc in delegate.documents(item))
        elif isinstance(widget, QAbstractItemView) and not isinstance(widget, QListWidget | QComboBox):
            yield from ((kind, text) for text in _model_texts(widget))
        elif isinstance(widget, QListWidget):
            yield from ((kind, widget.item(i).text()) for i in range(widget.count()))


def untranslated(root: QWidget, also_allowed: set[str] = frozenset()) -> list[str]:
    return sorted({f"{kind}: {text!r} → {left}" for kind, text in visible_texts(root)
                   if (left := english_left(text, also_allowed))})


def _switch(language: str) -> None:
    i18n_qt.apply_language(language)
    QApplication.processEvents()  # Qt delivers its LanguageChange events queued


def test_the_checker_sees_english_and_lets_names_paths_and_code_pass() -> None:
    assert english_left("Allow once") == ["Allow", "once"]
    assert english_left("已修改：/home/me/shop.py") == []
    assert english_left("在 /tmp/ws 中运行（最长 120 秒）") == []
    assert english_left("write_file · run_command · files.read · `git status` · MCP · JSON · $HOME") == []
    assert english_left("Echo Desk 自己的设置文件夹") == []
    assert english_left("Server") == ["Server"]
    assert english_left("正在校验 sha256…") == []


def _test_tools(runtime) -> set[str]:
    # A test plugin's own titles and descriptions have no Chinese: a plugin's words, not ours.
    backend = CatalogBackend(runtime.settings, runtime)
    return {w for e in backend.entries() if e.source.kind.value != "builtin"
            for text in (backend.title(e.tool), backend.description(e.tool)) for w in _WORD.findall(text)}


def _calls_in_the_audit_log(qloop, runtime, workspace: Path) -> None:
    """Calls decided each way no rule decides (the risk default, the person once, the person's
    no, a grant for the conversation), run by the real engine so the audit keeps what it says."""
    workspace.mkdir()
    (workspace / "shop.py").write_text("a\n")
    scope = Scope(label="Test chat", workspace_roots=(workspace,))
    answers = [(ApprovalChoice.ALLOW_ONCE, "write_note"), (ApprovalChoice.DENY, "write_note"),
               (ApprovalChoice.ALLOW_CONVERSATION, "write_note"), (ApprovalChoice.DENY, "read_note")]
    for number, (choice, tool) in enumerate(answers):
        arguments = {"path": "shop.py", "text": "b\n"} if tool == "write_note" else {"path": "shop.py"}
        call = ToolCall(id=f"a{number}", name=tool, arguments=json.dumps(arguments))
        qloop.run_until_complete(within(runtime.dispatcher.execute_tool(call, scope, ScriptedHost(choice=choice))))
    runtime.audit.flush()


def _walk_every_tab(dialog: QWidget) -> Iterator[str]:
    """The tabs inside the shown page, each shown in turn (the walk reads visible widgets only)."""
    for tabs in [t for t in dialog.findChildren(QTabWidget) if t.isVisibleTo(dialog)]:
        for index in range(tabs.count()):
            tabs.setCurrentIndex(index)
            QApplication.processEvents()
            yield tabs.tabText(index)


def test_main_window_settings_and_a_transcript_of_every_status_follow_a_switch(qtbot, qloop, runtime, tmp_path):
    _calls_in_the_audit_log(qloop, runtime, tmp_path / "audited")
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    services = Services(settings=runtime.settings, backend=CatalogBackend(runtime.settings, runtime),
                        runtime=runtime, conversations=store, providers_available=True)
    window = MainWindow()
    qtbot.addWidget(window)
    window.attach(services)
    window.set_banner(services.banner)
    # A connected model names itself in the picker ("Local (built-in) · …"), in the language of the moment.
    window.set_model(LocalModel(tmp_path / "qwen2.5-coder-0.5b.gguf", ModelProfile(name="test")))
    window.resize(1200, 800)
    window.show()
    transcript = window.session.transcript
    transcript.add_user("hello")
    for number, status in enumerate(ToolStatus):
        transcript.add_tool_call(f"c{number}", "write_note", json.dumps({"path": "shop.py"}), status)
    # A finished card with everything a card can show: a file change and what the sandbox refused.
    done = transcript.add_tool_call("full", "write_note", json.dumps({"path": "shop.py"}), ToolStatus.DONE)
    done.file_changes = (FileChange(path=str(tmp_path / "shop.py"), kind=FileChangeKind.MODIFY, before_sha256="a",
                                    after_sha256="b", diff="@@ -1 +1 @@\n-a\n+b\n"),)
    done.sandbox = SandboxFacts(sandboxed=True, domains=("pypi.org",), blocked=("network",),
                                refused_hosts=("example.com",), mode="sandboxed")
    done.expanded = True
    done.touch()
    transcript.add_notice(deferred(N_("Stopped. Anything still running was cancelled.")))
    window.host.file_changed.emit(str(tmp_path / "shop.py"))
    settings = SettingsDialog(services.backend, window, models_page=ModelsPage(runtime.settings, lambda *a, **k: None))
    qtbot.addWidget(settings)
    settings.show()

    _switch("zh_CN")
    try:
        allowed = _test_tools(runtime) | {"hello"}
        left = untranslated(window, allowed)
        shown = "\n".join(text for _kind, text in visible_texts(window))
        # The walk reached the cards: their statuses, the change and the sandbox lines, the notice.
        for chinese in ("已拒绝", "已取消", "（已修改）", "网络访问未获准", "已停止，仍在运行的操作都已取消"):
            assert chinese in shown, chinese
        assert window.statusBar().currentMessage().startswith("已修改")
        assert "本地（内置）" in window.model_picker.currentText()
        for page in settings.PAGES:
            settings.show_page(page)
            QApplication.processEvents()
            left += [f"{page}: {line}" for line in untranslated(settings, allowed)]
            for tab in _walk_every_tab(settings):
                left += [f"{page} › {tab}: {line}" for line in untranslated(settings, allowed)]
        # The Activity tab had rows to show: the calls decided by the risk default and by the person.
        activity = settings.findChild(ActivityTab)
        assert activity is not None and activity.calls.topLevelItemCount() == 4
        activity.calls.setCurrentItem(activity.calls.topLevelItem(0))
        left += [f"activity detail: {line}" for line in untranslated(activity, allowed)]
        assert left == [], "\n".join(left)
        _switch("en")  # …and back: the picker names the model in English again
        assert window.model_picker.currentText().startswith("Local (built-in)")
    finally:
        _switch("en")
        settings.close()
        window.session.stop()
        store.close()


def _dialog_after_switch(qloop, runtime, scope, call: ToolCall, shown: list[str] | None = None) -> list[str]:
    host = QtHost(transcript=TranscriptModel())
    left: list[str] = []
    opened: list[ApprovalDialog] = []

    def on_open(dialog: ApprovalDialog) -> None:
        # Opened (and its request built by the engine) in English; read after the switch.
        opened.append(dialog)

        def read() -> None:
            _switch("zh_CN")
            # The call's own arguments (a folder named "notes") are data the dialog shows as given.
            data = {w for value in json.loads(call.arguments).values() for w in _WORD.findall(str(value))}
            left.extend(untranslated(dialog, _test_tools(runtime) | data))
            if shown is not None:
                shown.extend(text for _kind, text in visible_texts(dialog))
            # The summary line was built by the engine in English; it is shown in Chinese now.
            if dialog.summary.isVisibleTo(dialog) and not _CJK.search(dialog.summary.text()):
                left.append(f"summary: {dialog.summary.text()!r}")
            _switch("en")
            dialog.deny.click()
        qloop.call_soon(read)

    host.dialog_opened.connect(on_open)
    qloop.run_until_complete(within(runtime.dispatcher.execute_tool(call, scope, host)))
    assert len(opened) == 1, f"{call.name} asked for no approval"
    return left


def test_approval_dialogs_built_in_english_read_in_chinese_after_a_switch(qloop, builtin_runtime, scope,
                                                                           workspace: Path):
    (workspace / "shop.py").write_text("print('hi')\n")
    calls = [
        ToolCall(id="r1", name="run_command", arguments=json.dumps({"command": "ls -la"})),
        ToolCall(id="w1", name="write_file", arguments=json.dumps({"path": "shop.py", "content": "print(1)\n"})),
        ToolCall(id="d1", name="delete_path", arguments=json.dumps({"path": "shop.py"})),
        ToolCall(id="f1", name="create_folder", arguments=json.dumps({"path": "notes"})),
    ]
    left = [line for call in calls for line in _dialog_after_switch(qloop, builtin_runtime, scope, call)]
    assert left == [], "\n".join(left)


def test_a_question_and_a_file_change_tab_read_in_chinese_after_a_switch(qtbot) -> None:
    question = QuestionDialog(Question(prompt="main?", choices=("main", "dev"), asked_by="agent"))
    qtbot.addWidget(question)
    question.show()
    change = FileChange(path="/home/me/ws/shop.py", kind=FileChangeKind.MODIFY, before_sha256="a",
                        after_sha256="b", diff="@@ -1 +1 @@\n-a\n+b\n")
    from tests.ui.test_language import _request

    request = _request()
    approval = ApprovalDialog(type(request)(**{**request.__dict__, "file_changes": (change,),
                                               "summary": deferred(N_("Change {path}"), path=change.path)}))
    qtbot.addWidget(approval)
    approval.show()
    _switch("zh_CN")
    try:
        left = untranslated(question) + untranslated(approval, {"Write", "note"})
        assert approval.summary.text() == "修改 /home/me/ws/shop.py"
        assert approval.tabs.tabText(0) == "shop.py（已修改）"
        assert left == [], "\n".join(left)
    finally:
        _switch("en")


def test_a_deferred_notice_and_error_are_read_and_copied_in_the_language_of_the_moment() -> None:
    """The rows' DisplayRole and Copy say a ``deferred`` text again, as the view paints it; they
    kept the translation made when the row was added."""
    transcript = TranscriptModel()
    error = transcript.add_notice(deferred(N_("This message could not be saved: {error}"), error="disk full"),
                                  error=True)
    notice = transcript.add_notice(deferred(N_("Stopped. Anything still running was cancelled.")))
    card = transcript.add_tool_call("c1", "write_note", "{}", ToolStatus.FAILED)
    card.error = deferred(N_("This message could not be saved: {error}"), error="disk full")

    def said() -> list[object]:
        rows = [transcript.index(transcript.row_of(item)) for item in (error, notice, card)]
        return [transcript.data(row, Qt.ItemDataRole.DisplayRole) for row in rows] + [
            TranscriptView.item_text(error), TranscriptView.item_text(notice)]

    _switch("zh_CN")
    try:
        assert said() == ["无法保存此消息：disk full", "已停止，仍在运行的操作都已取消。", "无法保存此消息：disk full",
                          "无法保存此消息：disk full", "已停止，仍在运行的操作都已取消。"]
    finally:
        _switch("en")
    assert said()[:2] == ["This message could not be saved: disk full", "Stopped. Anything still running was cancelled."]


def test_mcp_page_and_a_server_start_read_in_chinese_after_a_switch(qtbot, qloop, runtime) -> None:
    from echo_desk.mcp import McpManager
    from echo_desk.mcp.approvals import start_request
    from echo_desk.mcp.config import parse_server
    from echo_desk.ui.approval.server_start_dialog import ServerStartDialog
    from echo_desk.ui.settings.mcp_page import McpPage

    servers = {
        "github": parse_server("github", {"command": "docker", "args": ["run", "-i", "--rm", "ghcr.io/github/server"],
                                          "env": {"GITHUB_TOOLSETS": "repos"}}),
        "remote": parse_server("remote", {"type": "http", "url": "https://mcp.example.com/mcp", "enabled": False}),
    }
    manager = McpManager(runtime.settings, servers=servers)  # never started: nothing is approved
    page = McpPage(manager, QtHost(transcript=TranscriptModel()), "/home/me/.config/echo-desk/mcp.json")
    settings = SettingsDialog(CatalogBackend(runtime.settings, runtime), mcp_page=page)
    qtbot.addWidget(settings)
    settings.show_page("mcp")
    settings.show()
    request = start_request(servers["github"], runtime.settings.current)
    assert request is not None
    start = ServerStartDialog(request)
    qtbot.addWidget(start)
    start.show()
    _switch("zh_CN")
    try:
        left = untranslated(settings, {"github", "remote", "repos", "run"}) + untranslated(start, {"github", "repos", "run"})
        assert left == [], "\n".join(left)
        assert "启动" in start.windowTitle() and "启动" in start.allow.text()
    finally:
        _switch("en")
        settings.close()
        qloop.run_until_complete(manager.aclose())


def test_a_folder_target_is_shown_in_the_language_of_the_moment(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # "move folder from; folder with 2 files and 1 sub-folders", built once by the engine in English.
    from echo_desk.builtins.files import trees
    from echo_desk.builtins.files.operations import _folder_target
    from echo_desk.common import fs
    from echo_desk.ui.approval.protection_text import shown_detail

    folder = tmp_path / "proj"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("a")
    (folder / "sub" / "b.txt").write_text("b")
    i18n_qt.apply_language("en")
    target = _folder_target(trees.read_tree(fs.resolve(str(folder), [tmp_path]), "path"), "move folder from", ())
    assert shown_detail(target) == "move folder from; folder with 2 files and 1 sub-folders"
    i18n_qt.apply_language("zh_CN")
    try:
        chinese = shown_detail(target)
        assert "2 个文件" in chinese and "move" not in chinese and "folder" not in chinese
    finally:
        i18n_qt.apply_language("en")


def test_a_protected_folder_target_is_shown_in_the_language_of_the_moment(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Typed protections keep the role and count re-translatable too (they were English text before).
    from echo_desk.builtins.files import trees
    from echo_desk.builtins.files.operations import _folder_target
    from echo_desk.common import fs
    from echo_desk.ui.approval.protection_text import shown_detail

    folder = tmp_path / "proj"
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "HEAD").write_text("ref")
    i18n_qt.apply_language("en")
    target = _folder_target(trees.read_tree(fs.resolve(str(folder), [tmp_path]), "path"), "move folder from", ())
    assert shown_detail(target) == ("move folder from; folder with 1 files and 1 sub-folders; Protected: inside a "
                                    f".git folder (repository internals) ({folder / '.git' / 'HEAD'})")
    i18n_qt.apply_language("zh_CN")
    try:
        chinese = shown_detail(target)
        assert "1 个文件" in chinese and "受保护：位于 .git 文件夹内" in chinese and "move" not in chinese
    finally:
        i18n_qt.apply_language("en")


def test_a_database_approval_built_in_english_reads_in_chinese_after_a_switch(qloop, builtin_runtime, scope,
                                                                             workspace: Path):
    # A write-mode SQLite connection: the statement's class and the connection's kind are shown in words.
    sqlite3.connect(workspace / "shop.db").close()
    builtin_runtime.settings.update(lambda s: s.databases.append(
        DatabaseConnection(name="shop", kind="sqlite", dsn=str(workspace / "shop.db"), write_mode=True)))
    call = ToolCall(id="db1", name="db_execute",
                    arguments=json.dumps({"connection": "shop", "sql": "DELETE FROM orders WHERE id = 1"}))
    shown: list[str] = []
    left = _dialog_after_switch(qloop, builtin_runtime, scope, call, shown)
    assert left == [], "\n".join(left)
    # Ids are not words: the statement class (`write`), the connection's kind (sqlite) and a
    # label glued to the connection's name ("shop: /…") were shown as such.
    text = "\n".join(shown)
    assert "写入" in text and "SQLite" in text
    for id_shown in ("`write`", "（sqlite", "shop: "):
        assert id_shown not in text, text


def _editor_errors_after_switch(qloop, runtime, scope, call: ToolCall, edits: list[dict[str, object]]) -> list[str]:
    """Each edit is refused in English, then read after a switch: the reason follows the language."""
    host = QtHost(transcript=TranscriptModel())
    seen: list[str] = []

    async def edit(dialog: ApprovalDialog) -> None:
        dialog.edit.click()
        editor = dialog.editor
        editor.tabs.setCurrentWidget(editor.raw)
        for arguments in edits:
            editor.error.setVisible(False)
            editor.raw.setPlainText(json.dumps(arguments))
            editor.apply_button.click()
            await until(lambda: editor.error.isVisibleTo(editor))
            english = editor.error.text()
            _switch("zh_CN")
            try:
                chinese = editor.error.text()
                seen.append(f"{english} → {chinese}")
                seen.extend(f"LEFT: {line}" for line in untranslated(editor, {"oops", "src", "ls", "rm", "rf"}))
                if english == chinese or english_left(chinese, {"oops", "src"}):
                    seen.append(f"LEFT: {chinese!r} → {english_left(chinese, {'oops', 'src'})}")
            finally:
                _switch("en")
        editor.reject()
        dialog.deny.click()

    host.dialog_opened.connect(lambda dialog: qloop.create_task(edit(dialog)))
    qloop.run_until_complete(within(runtime.dispatcher.execute_tool(call, scope, host)))
    return seen


def test_the_argument_editor_s_errors_follow_a_switch(qloop, builtin_runtime, scope, workspace: Path):
    # Refused edits: a working folder that does not exist, an argument the tool does not take, and
    # an edit the rules refuse (the built-in deny rule on rm -rf /).
    call = ToolCall(id="e1", name="run_command", arguments=json.dumps({"command": "ls"}))
    builtin_runtime.settings.set_tool("run_command", policy=ToolPolicy.ASK)
    seen = _editor_errors_after_switch(qloop, builtin_runtime, scope, call, [
        {"command": "ls", "cwd": "src"},
        {"command": "ls", "oops": 1},
        {"command": "rm -rf /"},
    ])
    left = [line for line in seen if line.startswith("LEFT")]
    assert len(seen) == 3 + len(left)
    assert left == [], "\n".join(seen)


def test_the_activity_tab_opens_on_a_full_disk_and_says_what_is_not_written(qtbot, tmp_path: Path) -> None:
    """Reading the log no longer fails when the disk refused records: the tab opens, lists what
    is written, and says how many calls wait in memory, and why."""
    from tests.store.full_audit import FullAuditLog
    from tests.store.test_audit_full import _record

    audit = FullAuditLog(tmp_path / "audit.sqlite3")
    try:
        audit.append(_record(0))
        audit.wait_tried()
        tab = ActivityTab(audit)
        qtbot.addWidget(tab)
        tab.show()
        assert tab.not_written.isVisible() and "the disk is full. Calls kept in memory until it can: 1." in tab.not_written.text()
        audit.room()
        audit.append(_record(1))
        # Live: the writer's recovery reaches the open tab without Refresh.
        qtbot.waitUntil(lambda: not tab.not_written.isVisible() and len(tab.rows) == 2, timeout=5000)
    finally:
        audit.close()


def test_the_activity_tab_says_at_once_when_the_log_starts_failing(qtbot, tmp_path: Path) -> None:
    """An open tab learns of a full disk from the log's writer thread, and stops listening when
    it is closed (a later failure must not reach a deleted widget)."""
    from tests.store.full_audit import FullAuditLog
    from tests.store.test_audit_full import _record

    audit = FullAuditLog(tmp_path / "audit.sqlite3")
    audit.full = False
    try:
        tab = ActivityTab(audit)
        qtbot.addWidget(tab)
        tab.show()
        assert not tab.not_written.isVisible() and len(audit._failure_watchers) == 1
        audit.full = True
        audit.append(_record(0))
        qtbot.waitUntil(lambda: tab.not_written.isVisible(), timeout=5000)
        assert "the disk is full" in tab.not_written.text()
        tab.deleteLater()
        qtbot.waitUntil(lambda: not audit._failure_watchers, timeout=5000)
    finally:
        audit.close()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_activity_tabs_verdicts_are_shown_whole_in_each_language(qtbot, tmp_path: Path, language: str) -> None:
    """The verdict's words ("withdrawn while you were asked") are not cut to "withdrawn while you …"."""
    from echo_desk.agent.pipeline.call import Decision
    from echo_desk.store.audit import AuditLog
    from tests.store.test_audit_full import _record

    i18n_qt.apply_language(language)
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        for n, decision in enumerate(Decision):
            audit.append(replace(_record(n), decision=decision.value))
        audit.wait_tried()
        tab = ActivityTab(audit)
        qtbot.addWidget(tab)
        tab.resize(700, 300)
        tab.show()
        shown = [tab.calls.topLevelItem(i).text(COL_VERDICT) for i in range(tab.calls.topLevelItemCount())]
        assert len(shown) == len(Decision)
        metrics = tab.calls.fontMetrics()
        widest = max(metrics.horizontalAdvance(text) for text in shown)
        assert tab.calls.columnWidth(COL_VERDICT) >= widest, (tab.calls.columnWidth(COL_VERDICT), widest, shown)
    finally:
        i18n_qt.apply_language("en")
        audit.close()
