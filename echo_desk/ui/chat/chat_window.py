"""The main window: conversations, transcript, composer, model and workspace, task list.

It is built and painted before any engine module loads; ``attach(services)`` then wires it to
the settings, the engine, the conversation store and the model.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.chat import window_shortcuts
from echo_desk.ui.chat.chat_session import ChatSession
from echo_desk.ui.chat.conversation_list import ConversationList
from echo_desk.ui.chat.message_actions import MessageActions
from echo_desk.ui.chat.progress_text import progress_text
from echo_desk.ui.chat.todo_panel import TodoPanel
from echo_desk.ui.chat.transcript_view import TranscriptView
from echo_desk.ui.core import i18n_qt, theme
from echo_desk.ui.widgets.elided_combo import ElidedComboBox
from echo_desk.ui.widgets.path_button import PathButton

if TYPE_CHECKING:
    from collections.abc import Callable

    from echo_desk.agent.model import ChatModel
    from echo_desk.agent.progress import Progress
    from echo_desk.mcp.manager import McpManager
    from echo_desk.store.conversations import Conversation
    from echo_desk.store.first_workspace import WorkspaceOrigin
    from echo_desk.store.message_search import SearchHit
    from echo_desk.store.settings import Settings
    from echo_desk.ui.chat.find_bar import FindBar
    from echo_desk.ui.chat.revert_flow import RevertFlow
    from echo_desk.ui.chat.shortcuts_sheet import ShortcutsSheet
    from echo_desk.ui.chat.transcript import TranscriptItem
    from echo_desk.ui.chat.window_services import WindowServices

#: The smallest the main window goes (width, height).
SMALLEST = (900, 600)


class MainWindow(QMainWindow):
    settings_requested = Signal()
    model_chosen = Signal(str)
    closing = Signal()

    def __init__(self, *, defer_extras: bool = False) -> None:
        """``defer_extras``: build only what the first frame shows; the caller then calls
        ``build_extras`` once it is painted (the app does). Otherwise the window is whole at once."""
        super().__init__()
        self.extras_built = False
        self.services: WindowServices | None = None
        self.resize(1180, 760)
        # Below this the transcript has no room left to give: the notice above it lost lines and
        # the example requests were squashed (it went down to 764×354). It fits a 1024×768 screen.
        self.setMinimumSize(*SMALLEST)
        self.host = QtHost(lambda: self)
        self.session = ChatSession(self.host, self)
        self.session.busy_changed.connect(self._on_busy)
        self.session.retitled.connect(self._on_retitled)

        self.conversations = ConversationList()
        self.conversations.selected.connect(self._open_conversation)
        self.conversations.new_requested.connect(self.new_conversation)
        self.conversations.export_requested.connect(self._export)
        self.conversations.hit_chosen.connect(self._open_hit)

        middle = QWidget()
        mid = QVBoxLayout(middle)
        mid.setContentsMargins(4, 4, 4, 4)
        mid.addLayout(self._top_bar())
        mid.addWidget(self.workspace_origin)
        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setTextFormat(Qt.TextFormat.PlainText)
        theme.styled(self.banner, lambda p: f"background: {p.warn_bg}; border: 1px solid {p.warn_border}; padding: 6px;")
        mid.addWidget(self.banner)
        self.transcript = TranscriptView()
        self.transcript.setModel(self.session.transcript)
        self.transcript.open_diff.connect(self._open_diff)
        self.transcript.code_copied.connect(lambda _code: self.statusBar().showMessage(_("Code copied"), 3000))
        self._wire_revert()
        self.message_actions = MessageActions(self.transcript, self.session)  # copy, edit, regenerate, versions
        self.message_actions.switched.connect(lambda: self.revert.mark_reverted_cards())
        self._middle = mid
        self._find_bar: FindBar | None = None  # made on the first Ctrl+F (see ``find_bar``)
        mid.addWidget(self.transcript, 1)
        self._cards_slot = QVBoxLayout()  # the retry card and the workspace prompt, with ``build_extras``
        self._cards_slot.setContentsMargins(0, 0, 0, 0)
        mid.addLayout(self._cards_slot)
        self._add_examples(mid)
        self._add_composer(mid)

        self._add_side_and_status()

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.conversations)
        splitter.addWidget(middle)
        splitter.addWidget(self.todos)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([230, 720, 230])
        self.splitter = splitter
        self.setCentralWidget(splitter)
        self._banner_text: Callable[[], str] = lambda: _("Starting…")
        self._workspace = ""
        self._origin: WorkspaceOrigin | None = None
        self.shortcut_actions = window_shortcuts.install(self)
        window_shortcuts.install_list_keys(self)
        self.shortcuts_sheet: ShortcutsSheet | None = None
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)
        if not defer_extras:
            self.build_extras()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self._keep_room_for_the_panes()
        return super().event(event)

    def _keep_room_for_the_panes(self) -> None:
        """Never narrower (or lower) than the panes need: ``SMALLEST`` alone let a larger font or
        the Chinese labels ask more than 900 px, and Qt then squeezed the top bar's widgets over
        each other (the model picker reached under "Workspace:")."""
        layout = self.layout()
        needed = layout.minimumSize() if layout is not None else QSize()
        least = QSize(*SMALLEST).expandedTo(needed)
        if least != self.minimumSize():
            self.setMinimumSize(least)

    def build_extras(self) -> None:
        """What is hidden at the start, in the places kept for it: the attachment tray and its
        flows, the Attach menu, the prompt completer, the retry card and the workspace prompt."""
        if self.extras_built:
            return
        self._wire_attachments()
        self._add_turn_cards()
        self.extras_built = True
        self._retranslate_extras()

    @property
    def find_bar(self) -> FindBar:
        """The find bar above the transcript, made when first asked for: hidden until then."""
        if self._find_bar is None:
            from echo_desk.ui.chat.find_bar import FindBar

            self._find_bar = FindBar(self.transcript)
            self._middle.insertWidget(self._middle.indexOf(self.transcript), self._find_bar)
        return self._find_bar

    def _open_hit(self, hit: SearchHit) -> None:
        from echo_desk.ui.chat.search_jump import open_hit  # a search's first hit, not the first frame

        open_hit(self, hit, self.conversations.results.query)

    def _top_bar(self) -> QHBoxLayout:
        """Model picker, workspace and Settings, above the transcript."""
        bar = QHBoxLayout()
        self.model_label = QLabel()
        self.model_picker = ElidedComboBox()  # a long model name ends in "…", not cut at the arrow
        self.model_picker.setMinimumContentsLength(18)  # and as wide as the longest name, up to:
        self.model_picker.setMaximumWidth(380)
        # Room for 18 characters, and in a narrow window down to 9 (the rest elided, all of it in
        # the tooltip): the workspace beside it keeps its folder's name (``PathButton``).
        self.model_picker.setMinimumWidth(self.model_picker.minimumSizeHint().width()
                                          - 9 * self.model_picker.fontMetrics().averageCharWidth())
        self.model_picker.activated.connect(lambda _i: self.model_chosen.emit(self.model_picker.currentData() or ""))
        self.model_label.setBuddy(self.model_picker)
        self.workspace_label = QLabel()
        self.workspace_button = PathButton()
        self.workspace_button.clicked.connect(self.choose_workspace)
        self.settings_button = QPushButton()
        self.settings_button.clicked.connect(self.settings_requested.emit)
        bar.addWidget(self.model_label)
        bar.addWidget(self.model_picker)
        bar.addSpacing(12)
        bar.addWidget(self.workspace_label)
        bar.addWidget(self.workspace_button, 1)
        # Under the bar, not in it: beside a long path it left the path a few letters.
        self.workspace_origin = QLabel()
        self.workspace_origin.setVisible(False)
        theme.styled(self.workspace_origin, lambda p: f"color: {p.muted};")
        bar.addWidget(self.settings_button)
        return bar

    def _add_composer(self, mid: QVBoxLayout) -> None:
        """The prompt box with Send, Stop and Attach, and the tray of attachments above it."""
        composer = QHBoxLayout()
        self.composer = QPlainTextEdit()
        self.composer.setFixedHeight(84)
        self.send_button = QPushButton()
        self.stop_button = QPushButton()
        self.send_button.clicked.connect(self.send)
        self.stop_button.clicked.connect(self.session.stop)
        self.stop_button.setEnabled(False)
        for seq in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(seq), self.composer, self.send)
        self.attach_button = QPushButton()
        # The menu now (the button looks the same from the first frame); its entries with ``build_extras``.
        self.attach_button.setMenu(QMenu(self.attach_button))
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        buttons.addWidget(self.attach_button)
        composer.addWidget(self.composer, 1)
        composer.addLayout(buttons)
        self._tray_slot = QVBoxLayout()  # the attachment tray, with ``build_extras``
        self._tray_slot.setContentsMargins(0, 0, 0, 0)
        mid.addLayout(self._tray_slot)
        mid.addLayout(composer)

    def _add_side_and_status(self) -> None:
        """The to-do panel on the right and the status bar's activity and progress."""
        self.todos = TodoPanel()
        self.host.todos_changed.connect(lambda _scope, todos: self.todos.set_todos(todos))
        self.host.activity_changed.connect(self._on_activity)
        self.host.file_changed.connect(self._show_changed)
        self._changed_path = ""
        self.activity = QLabel()
        self.statusBar().addPermanentWidget(self.activity)
        self.progress_label = QLabel()
        self.statusBar().addWidget(self.progress_label, 1)
        self.session.progress.connect(self._on_progress)

    # -- text -------------------------------------------------------------------------------
    def retranslate(self, *_args: object) -> None:
        self.setWindowTitle(_("Echo Desk"))
        self.model_label.setText(_("Model:"))
        self.model_picker.setAccessibleName(_("Model"))
        self.workspace_label.setText(_("Workspace:"))
        self._show_origin(self._origin)
        self.settings_button.setText(_("Settings"))
        self.settings_button.setAccessibleName(_("Open settings"))
        self.composer.setPlaceholderText(_("Message the agent (Ctrl+Enter to send)"))
        self.composer.setAccessibleName(_("Message"))
        self.send_button.setText(_("Send"))
        self.send_button.setAccessibleName(_("Send message"))
        self.send_button.setToolTip(_("Send (Ctrl+Enter)"))
        self.stop_button.setText(_("Stop"))
        self.stop_button.setAccessibleName(_("Stop the agent"))
        self.transcript.setAccessibleName(_("Transcript"))
        self.attach_button.setText(_("Attach…"))
        self.attach_button.setToolTip(_("Attach files, a folder or an MCP resource (or drop files on the window)"))
        self.attach_button.setAccessibleName(_("Attach files or a folder"))
        self._retranslate_extras()
        self.banner.setAccessibleName(_("Notice"))
        self._show_workspace()
        self.refresh_banner()
        self.session.transcript.relabel()
        self._show_model_name()
        window_shortcuts.retranslate(self.shortcut_actions)
        self.stop_button.setToolTip(_("Stop the agent ({keys})").format(
            keys=window_shortcuts.key_text(window_shortcuts.ACTIONS["stop"].keys)))
        if self._changed_path and self.statusBar().currentMessage():
            self._show_changed(self._changed_path)  # still on screen: say it in the new language

    def _retranslate_extras(self) -> None:
        if not self.extras_built:
            return
        self.attach_files_action.setText(_("Files…"))
        self.attach_folder_action.setText(_("Folder…"))
        self.attach_resource_action.setText(_("MCP resource…"))
        self.attachment_tray.retranslate()

    def _show_changed(self, path: str) -> None:
        self._changed_path = path
        self.statusBar().showMessage(_("Changed: {path}").format(path=visible(path, one_line=True)), 8000)

    def _show_workspace(self) -> None:
        path = self._workspace
        self.workspace_button.set_full_text(path if path else _("Choose a folder…"))
        self.workspace_button.setToolTip(path or _("The folder the agent may read and change"))
        self.workspace_button.setAccessibleName(_("Workspace folder: {path}").format(path=path or _("none")))

    def set_banner(self, text_fn: Callable[[], str]) -> None:
        """``text_fn`` returns the (translated) notice, or an empty string for none."""
        self._banner_text = text_fn
        self.refresh_banner()

    def refresh_banner(self) -> None:
        text = self._banner_text()
        self.banner.setText(text)
        self.banner.setVisible(bool(text))

    # -- wiring -----------------------------------------------------------------------------
    def attach(self, services: WindowServices) -> None:
        self.build_extras()  # (the app built them right after the first frame)
        self.services = services
        self.session.store = services.conversations
        self.session.runtime = services.runtime
        self.session.transcript.title_for = services.backend.title_for
        self.session.transcript.source_for = services.backend.source_for
        self.conversations.store = services.conversations
        from echo_desk.ui.chat import window_memory

        state = window_memory.remembered(self)
        window_memory.restore_layout(self, state)
        self.conversations.reload(state.last_conversation or None)  # selects it when it still exists
        if self.conversations.row_count() == 0:
            self.new_conversation()
        elif self.conversations.current_id() is None:
            self.conversations.view.setCurrentIndex(self.conversations.model.index(0, 0))
        self.fill_models()

    def fill_models(self) -> None:
        if self.services is None:
            return
        settings = self.services.settings.current
        self.model_picker.clear()
        for name, provider in settings.providers.items():
            label = f"{name} · {provider.model}" if provider.model else name
            self.model_picker.addItem(label, name)
        self.model_picker.setCurrentIndex(max(0, self.model_picker.findData(settings.active_provider)))

    def set_model(self, model: ChatModel | None) -> None:
        self.session.model = model
        if self.services is not None:  # the catalog asks it which tools it hides
            self.services.backend.model = model
        self._show_model_name()

    def _show_model_name(self) -> None:
        # Asked again after a language switch: a model's name may be words ("Local (built-in) · …").
        model = self.session.model
        index = self.model_picker.currentIndex()
        name = model.display_name if model is not None else ""
        if index >= 0 and name:
            # Show what is really connected (e.g. "Local (built-in) · qwen2.5-coder...").
            self.model_picker.setItemText(index, name)
            self.model_picker.setItemData(index, f"{self.model_picker.itemData(index)}: {name}",
                                          Qt.ItemDataRole.ToolTipRole)

    # -- conversations ------------------------------------------------------------------------
    def new_conversation(self, workspace: str | None = None) -> None:
        if self.services is None:
            return
        store = self.services.conversations
        recent = self.services.settings.current.recent_workspaces
        folder = workspace if workspace is not None else (self._workspace or (recent[0] if recent else ""))
        origin = None
        if not folder and workspace is None:  # first run: a folder to work in, and say which
            from echo_desk.store.first_workspace import default_workspace, ensure

            default = default_workspace()
            folder, origin = str(ensure(default)), default.origin
        self._show_origin(origin)
        # Untitled in the data: the list shows the placeholder in the current language.
        conv = store.create("", folder, self.model_picker.currentData() or "")
        self.conversations.search.clear()
        self.conversations.reload(str(conv.id))
        self._open_conversation(conv)

    def _open_conversation(self, conversation: Conversation | None) -> None:
        if conversation is None:
            return
        self.conversations.mark_shown(str(conversation.id))
        self.session.open(conversation)
        self.retry_card.dismiss()
        self.workspace_prompt.setVisible(False)
        self.revert.mark_reverted_cards()
        self.attachment_tray.clear()  # grants and mentions belong to the conversation they were made in
        self.todos.set_todos(())
        self._workspace = conversation.workspace
        self._show_workspace()

    def _show_origin(self, origin: WorkspaceOrigin | None) -> None:
        self._origin = origin
        text = ""
        if origin is not None:  # only once a first conversation was made: after the first frame
            from echo_desk.store.first_workspace import WorkspaceOrigin

            text = {
                WorkspaceOrigin.START_FOLDER: _("(the folder Echo Desk was started from)"),
                WorkspaceOrigin.DOCUMENTS: _("(a new folder in your Documents)"),
            }.get(origin, "")
        self.workspace_origin.setText(text or "")
        self.workspace_origin.setVisible(bool(text))

    def workspace_folder(self) -> str:
        """The conversation's workspace folder ("" when none is chosen)."""
        return self._workspace

    def choose_workspace(self) -> None:
        dialog = QFileDialog(self, _("Choose the workspace folder"))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if self._workspace:
            dialog.setDirectory(self._workspace)
        dialog.fileSelected.connect(self.set_workspace)
        dialog.open()

    def set_workspace(self, folder: str) -> None:
        """The workspace belongs to the conversation: a used conversation keeps its own, and the new
        folder starts a new conversation."""
        folder = str(Path(folder).resolve()) if folder else ""
        self._show_origin(None)  # the person chose: no longer a default
        if self.services is not None and folder:
            def remember(s: Settings) -> None:
                s.recent_workspaces = [folder, *[w for w in s.recent_workspaces if w != folder][:9]]

            self.services.settings.update(remember)
        conversation = self.session.conversation
        if conversation is not None and not self.session.history and self.services is not None:
            # Nothing said yet: the open conversation simply moves to the new folder.
            self.services.conversations.update(conversation.id, workspace=folder)
            self.conversations.reload(str(conversation.id))
            self._open_conversation(self.services.conversations.get(conversation.id))
            return
        self._workspace = folder
        self.new_conversation(folder)
        self.statusBar().showMessage(_("New conversation in {path}").format(path=folder), 6000)

    def _export(self, conversation: Conversation | None) -> None:
        if conversation is None or self.services is None:
            return
        dialog = QFileDialog(self, _("Export conversation"))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter(_("Markdown (*.md)"))
        dialog.selectFile(f"{conversation.title or _('New conversation')}.md")  # not prose: a file name
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        store = self.services.conversations

        def save(path: str) -> None:
            try:
                Path(path).write_text(store.export_markdown(conversation.id), encoding="utf-8")
                self.statusBar().showMessage(_("Exported to {path}").format(path=path), 6000)
            except OSError as exc:
                self.statusBar().showMessage(_("Export failed: {error}").format(error=exc), 10000)

        dialog.fileSelected.connect(save)
        dialog.open()

    def _on_retitled(self, conversation_id: str) -> None:
        self.conversations.reload(conversation_id)
        if self.services is not None:
            renamed = self.services.conversations.get(conversation_id)
            if renamed is not None:
                self.session.refresh(renamed)

    def _open_diff(self, item: TranscriptItem) -> None:
        from echo_desk.ui.chat.diff_dialog import DiffDialog

        DiffDialog(self.session.transcript.title_for(item.tool_name), item.file_changes, self).show()

    def _wire_revert(self) -> None:
        # The revert flow (and the engine's reverter behind it) loads when first asked for: there
        # is nothing to revert before the engine is attached, so the first frame does not wait.
        self._revert: RevertFlow | None = None
        self.transcript.revert_call.connect(lambda call_id: self.revert.revert_call(call_id))
        self.transcript.revert_turn.connect(lambda row: self.revert.revert_turn(row))
        self.transcript.revert_since.connect(self._revert_since)
        self.session.transcript.late_records_possible.connect(lambda: self.revert.mark_reverted_cards())

    @property
    def revert(self) -> RevertFlow:
        if self._revert is None:
            from echo_desk.ui.chat.revert_flow import RevertFlow

            self._revert = RevertFlow(lambda: self.session.runtime.reverter if self.session.runtime else None,
                                      self.session.transcript, self)
        return self._revert

    def _revert_since(self, row: int) -> None:
        if self.session.conversation is not None:
            self.revert.revert_since(row, str(self.session.conversation.id))

    def _wire_attachments(self) -> None:
        from echo_desk.ui.chat.attachment_flow import AttachmentFlow
        from echo_desk.ui.chat.attachment_tray import AttachmentTray

        self.attachment_tray = AttachmentTray()
        self._tray_slot.addWidget(self.attachment_tray)
        conversation_id = lambda: str(self.session.conversation.id) if self.session.conversation else ""  # noqa: E731
        self.attachments = AttachmentFlow(self.attachment_tray, self, workspace=lambda: self._workspace,
                                          conversation_id=conversation_id,
                                          engine=lambda: self.session.runtime.permissions if self.session.runtime else None)
        # A menu rather than one dialog: a native file dialog picks files or a folder, not both.
        menu = self.attach_button.menu()
        self.attach_files_action = menu.addAction("")
        self.attach_files_action.triggered.connect(self.attachments.pick_files)
        self.attach_folder_action = menu.addAction("")
        self.attach_folder_action.triggered.connect(self.attachments.pick_folder)
        from echo_desk.ui.chat.resource_flow import ResourceFlow

        self.resources = ResourceFlow(self.attachment_tray, self, manager=self._mcp)
        self.attach_resource_action = menu.addAction("")
        self.attach_resource_action.triggered.connect(self.resources.open_panel)
        from echo_desk.ui.chat.prompt_completer import PromptCompleter

        self.prompt_completer = PromptCompleter(self.composer, self._mcp, self.attachment_tray.show_problem)
        self.attachments.watch(self, self.composer.viewport())
    def show_shortcuts(self) -> None:
        """The keyboard shortcuts sheet (one, raised when already open)."""
        if self.shortcuts_sheet is None:
            from echo_desk.ui.chat.shortcuts_sheet import ShortcutsSheet

            self.shortcuts_sheet = ShortcutsSheet(self)
        self.shortcuts_sheet.show()
        self.shortcuts_sheet.raise_()
        self.shortcuts_sheet.activateWindow()

    # -- turns --------------------------------------------------------------------------------
    def _add_turn_cards(self) -> None:
        from echo_desk.ui.chat.retry_card import RetryCard

        self.retry_card = RetryCard(lambda name: self.session.transcript.title_for(name))
        self.session.stopped_early.connect(self.retry_card.show_runaway)
        self.retry_card.retry_requested.connect(self.session.retry)

        def on_busy(busy: bool) -> None:
            if busy:  # a new turn: the old cut answer is no longer the one to retry
                self.retry_card.dismiss()

        self.session.busy_changed.connect(on_busy)
        self._cards_slot.addWidget(self.retry_card)

        from echo_desk.ui.chat.workspace_prompt import WorkspacePrompt

        self.workspace_prompt = WorkspacePrompt()
        self.workspace_prompt.chosen.connect(self._workspace_chosen_to_send)
        self._cards_slot.addWidget(self.workspace_prompt)

    def _add_examples(self, layout: QVBoxLayout) -> None:
        """Example requests, shown while the conversation is empty (so on the first frame)."""
        from echo_desk.ui.chat.example_prompts import ExamplePrompts

        self.examples = ExamplePrompts()
        self.examples.follow(self.session.transcript)
        self.examples.picked.connect(self._send_example)
        layout.addWidget(self.examples)

    def _send_example(self, text: str) -> None:
        if not self.session.busy:
            self.composer.setPlainText(text)
            self.send()

    def _workspace_chosen_to_send(self, folder: str) -> None:
        self.set_workspace(folder)
        self.send()

    def _mcp(self) -> McpManager | None:
        runtime = self.session.runtime
        return runtime.mcp if runtime is not None else None

    def send(self) -> None:
        if not self.extras_built:  # the first frame is on screen, the rest a moment away
            return
        text = self.composer.toPlainText()
        attached = self.attachment_tray.attachments()
        resources, resource_images = self.resources.parts()
        if not (text.strip() or attached or resources) or self.session.busy:
            return
        if self.session.conversation is None:
            self.new_conversation()
        if not self._workspace and self.services is not None:
            # Ask which folder instead of letting the engine refuse every file tool; the text stays.
            from echo_desk.store.first_workspace import default_workspace

            self.workspace_prompt.offer(default_workspace(), self.services.settings.current.recent_workspaces)
            return
        self.workspace_prompt.setVisible(False)
        images = tuple(a.image for a in attached if a.image is not None) + resource_images
        said = len(self.session.history)
        self.session.send(text, images, tuple(a.ref() for a in attached), resources)
        if len(self.session.history) > said:  # recorded (a refused image keeps the prompt as it was)
            self.composer.clear()
            self.attachment_tray.clear()

    def _on_busy(self, busy: bool) -> None:
        self.send_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        if not busy:
            self._on_activity("")
            self.progress_label.setText("")

    def _on_progress(self, progress: Progress) -> None:
        if self.session.busy:  # a report still queued when the turn ended is stale
            self.progress_label.setText(progress_text(progress, self.session.transcript.title_for))

    def _on_activity(self, text: str) -> None:
        self.activity.setText(text)

    def closeEvent(self, event: QCloseEvent) -> None:
        from echo_desk.ui.chat import window_memory

        window_memory.remember(self)
        self.session.stop()
        self.closing.emit()
        super().closeEvent(event)
