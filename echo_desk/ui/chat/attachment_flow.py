"""From dropped or picked paths to attachments on the prompt.

Inside the workspace a path becomes a mention at once. Outside it the person chooses (one
dialog at a time): a copy into the workspace, a read grant for this conversation through the
permission engine, or nothing. Problems (missing, too large, …) are shown under the prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFileDialog, QWidget

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _
from echo_desk.ui.chat.outside_choice import OutsideChoice, OutsideChoiceDialog
from echo_desk.ui.core import marshal

if TYPE_CHECKING:
    # The attachment checks load when a first path is dropped or picked, not before the first frame.
    from echo_desk.agent import attachments as att
    from echo_desk.agent.permissions import PermissionEngine
    from echo_desk.ui.chat.attachment_tray import AttachmentTray


def _mib(limit: int) -> str:
    return f"{limit / (1024 * 1024):g} MiB"


def problem_text(error: att.AttachmentError) -> str:
    """The translated reason a path could not be attached."""
    from echo_desk.agent import attachments as att

    name = visible(str(error.path))
    texts = {
        att.Problem.MISSING: _("{name} does not exist (a broken link?). Nothing was attached."),
        att.Problem.NOT_FILE: _("{name} is not a file or folder (a device, pipe or socket). Nothing was attached."),
        att.Problem.UNREADABLE: _("{name} could not be read ({detail}). Nothing was attached."),
        att.Problem.IMAGE_TOO_LARGE: _("{name} is larger than {limit}, the largest image a model takes. "
                                       "Nothing was attached."),
        att.Problem.COPY_TOO_LARGE: _("{name} is larger than {limit} in total; nothing was copied. Let the agent "
                                      "read it in place instead."),
        att.Problem.TOO_MANY_FILES: _("{name} holds more than {count} files; nothing was copied. Let the agent "
                                      "read it in place instead."),
        att.Problem.TOO_MANY_ATTACHMENTS: _("A message takes at most {count} attachments; {name} was not attached."),
        att.Problem.NO_WORKSPACE: _("Choose a workspace folder first; {name} was not attached."),
    }
    return texts[error.problem].format(name=name, detail=error.detail, limit=_mib(error.limit), count=error.limit)


class AttachmentFlow(QObject):
    """Owns the tray's content; ``workspace()``, ``conversation_id()`` and ``engine()`` are asked
    at the moment of each attachment (they change with the open conversation)."""

    def __init__(self, tray: AttachmentTray, parent_widget: QWidget, *, workspace: Callable[[], str],
                 conversation_id: Callable[[], str], engine: Callable[[], PermissionEngine | None]) -> None:
        super().__init__(parent_widget)
        self.tray = tray
        self._parent = parent_widget
        self._workspace = workspace
        self._conversation_id = conversation_id
        self._engine = engine
        self._waiting: list[att.Attachment] = []
        self.dialog: OutsideChoiceDialog | None = None
        #: Copies into the workspace still running.
        self.copying = 0
        self.file_dialog: QFileDialog | None = None

    # -- where paths come from ------------------------------------------------------------------
    def watch(self, *widgets: QWidget) -> None:
        """Accept file drops on these widgets (the window and the prompt)."""
        for widget in widgets:
            widget.setAcceptDrops(True)
            widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            assert isinstance(event, QDragEnterEvent)
            if _local_paths(event.mimeData().urls()):
                event.acceptProposedAction()
                return True
        elif event.type() == QEvent.Type.Drop:
            assert isinstance(event, QDropEvent)
            paths = _local_paths(event.mimeData().urls())
            if paths:
                event.acceptProposedAction()
                self.add_paths(paths)
                return True
        return False

    def pick_files(self) -> None:
        """The paperclip's "Files…": a dialog for one or more files."""
        self._pick(_("Attach files"), QFileDialog.FileMode.ExistingFiles)

    def pick_folder(self) -> None:
        """The paperclip's "Folder…": a dialog for one folder (it becomes one mention, as a drop)."""
        self._pick(_("Attach a folder"), QFileDialog.FileMode.Directory)

    def _pick(self, title: str, mode: QFileDialog.FileMode) -> None:
        dialog = QFileDialog(self._parent, title)
        dialog.setFileMode(mode)
        if mode is QFileDialog.FileMode.Directory:
            dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if self._workspace():
            dialog.setDirectory(self._workspace())
        dialog.filesSelected.connect(lambda chosen: self.add_paths([Path(f) for f in chosen]))
        self.file_dialog = dialog
        dialog.open()  # never exec(): a nested loop would stall qasync

    # -- deciding -------------------------------------------------------------------------------
    def add_paths(self, paths: Sequence[Path]) -> None:
        from echo_desk.agent import attachments as att

        problems: list[str] = []
        for path in paths:
            try:
                if len(self.tray.attachments()) + len(self._waiting) >= att.MAX_ATTACHMENTS:
                    raise att.AttachmentError(att.Problem.TOO_MANY_ATTACHMENTS, path, limit=att.MAX_ATTACHMENTS)
                item = att.inspect(path, self._workspace() or None)
            except att.AttachmentError as error:
                problems.append(problem_text(error))
                continue
            if item.inside:
                self.tray.add(item)
            else:
                self._waiting.append(item)
        self.tray.show_problem("\n".join(problems))
        self._ask_next()

    def _ask_next(self) -> None:
        if self.dialog is not None or self.copying or not self._waiting:
            return
        item = self._waiting.pop(0)
        dialog = OutsideChoiceDialog(item, self._workspace(), self._parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.decided.connect(lambda choice: self._decided(item, choice))
        self.dialog = dialog
        dialog.open()

    def _decided(self, item: att.Attachment, choice: OutsideChoice) -> None:
        from echo_desk.agent import attachments as att

        self.dialog = None
        if choice is OutsideChoice.COPY:
            self.copying += 1  # a folder may take a while: off the UI thread, the next question waits
            marshal.BackgroundOp(att.copy_into, item, self._workspace()).on_success(
                self._copied).on_failure(self._copy_failed).run()
            return
        try:
            if choice is OutsideChoice.GRANT:
                self._grant(item)
        except ValueError as error:  # the engine refused the grant (its text says why)
            self.tray.show_problem(_("The read grant could not be added: {error}").format(error=error))
        self._ask_next()

    def _copied(self, copy: att.Attachment) -> None:
        self.copying -= 1
        self.tray.add(copy)
        self._ask_next()

    def _copy_failed(self, error: BaseException) -> None:
        from echo_desk.agent import attachments as att

        self.copying -= 1
        if isinstance(error, att.AttachmentError):
            self.tray.show_problem(problem_text(error))
        else:
            self.tray.show_problem(_("The copy failed: {error}").format(error=error))
        self._ask_next()

    def _grant(self, item: att.Attachment) -> None:
        engine = self._engine()
        conversation = self._conversation_id()
        if engine is None or not conversation:
            self.tray.show_problem(_("Permission rules are not available, so read access cannot be granted; "
                                     "copy the file into the workspace instead."))
            return
        from echo_desk.agent.attachments.reads import GRANT_CALL_PREFIX, read_grant
        from echo_desk.agent.permissions import GrantScope

        engine.grant(read_grant(item), GrantScope.CONVERSATION, call_id=GRANT_CALL_PREFIX + item.real.name,
                     conversation_id=conversation)
        self.tray.add(item)


def _local_paths(urls: Sequence[QUrl]) -> list[Path]:
    return [Path(u.toLocalFile()) for u in urls if u.isLocalFile() and u.toLocalFile()]
