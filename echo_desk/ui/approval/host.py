"""The Qt implementation of the engine's ``Host``.

Any thread may call it (the agent loop on the main loop, tool handlers on the tool worker
thread with its own loop). Everything hops to the UI thread through ``marshal``; async
methods hand their answer back on the caller's own loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

from PySide6.QtCore import QObject, Qt, QUrl, Signal, SignalInstance
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QWidget

from echo_desk.ui.core import marshal

if TYPE_CHECKING:
    # Loaded when a dialog first opens, not before the window's first frame.
    import asyncio

    from echo_desk.agent.host import ApprovalDecision, ApprovalRequest
    from echo_desk.mcp.status import ServerStartRequest
    from echo_desk.tools.host import Answer, Question, TodoItem

T = TypeVar("T")


class LiveTranscript(Protocol):
    """The part of the chat's transcript the host feeds: tool titles for the dialogs, live output."""

    title_for: Callable[[str], str]

    def append_output(self, call_id: str, text: str) -> None: ...


class QtHost(QObject):
    """Approvals and questions open dialogs; activity, output, todos and file changes become signals."""

    activity_changed = Signal(str)
    file_changed = Signal(str)
    todos_changed = Signal(str, object)
    dialog_opened = Signal(object)

    def __init__(self, parent_widget: Callable[[], QWidget | None] = lambda: None,
                 transcript: LiveTranscript | None = None) -> None:
        super().__init__()
        self._parent_widget = parent_widget
        self.transcript = transcript
        self.open_dialogs: list[QDialog] = []

    # -- Host: approvals and questions --------------------------------------------------------
    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        return await marshal.await_on_main(self._show_approval, request)

    async def ask(self, question: Question) -> Answer:
        return await marshal.await_on_main(self._show_question, question)

    async def _show_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        from echo_desk.agent.host import ApprovalDecision
        from echo_desk.ui.approval.approval_dialog import ApprovalDialog  # loaded by warm_up_approvals

        # Localized tool titles (a spawn manifest lists the tools it grants) come from the registry.
        title_for = self.transcript.title_for if self.transcript is not None else None
        if request.client:
            # Another program's agent asks (through the gateway): a window of its own, not modal
            # over the chat, brought to the front with a desktop notification. Withdrawn by the
            # client, it stays and says so.
            dialog = ApprovalDialog(request, None, title_for=title_for)
            dialog.setWindowModality(Qt.WindowModality.NonModal)
            return await self._run_dialog(dialog, dialog.decided, ApprovalDecision, on_abandon=dialog.withdraw,
                                          on_open=lambda: self._announce(dialog))
        dialog = ApprovalDialog(request, self._parent_widget(), title_for=title_for)
        return await self._run_dialog(dialog, dialog.decided, ApprovalDecision)

    def _announce(self, dialog: QDialog) -> None:
        from echo_desk.ui.core.desktop_notify import bring_forward, notify

        bring_forward(dialog)
        notify(dialog.windowTitle(), self._parent_widget())

    async def _show_question(self, question: Question) -> Answer:
        from echo_desk.tools.host import Answer
        from echo_desk.ui.approval.question_dialog import QuestionDialog

        if question.client:
            # Asked during another app's call (through the gateway): like that app's approvals,
            # a window of its own brought to the front, not modal over the chat.
            dialog = QuestionDialog(question, None)
            dialog.setWindowModality(Qt.WindowModality.NonModal)
            answer = await self._run_dialog(dialog, dialog.answered, Answer, on_open=lambda: self._announce(dialog))
        else:
            dialog = QuestionDialog(question, self._parent_widget())
            answer = await self._run_dialog(dialog, dialog.answered, Answer)
        if question.url and answer.accepted:
            # Opened only now that the person agreed, exactly as shown (no re-encoding).
            QDesktopServices.openUrl(QUrl(question.url, QUrl.ParsingMode.StrictMode))
        return answer

    async def approve_server_start(self, request: ServerStartRequest) -> bool:
        """MCP: may this server start (first time, or after its configuration changed)?"""
        return await marshal.await_on_main(self._show_server_start, request)

    async def _show_server_start(self, request: ServerStartRequest) -> bool:
        from echo_desk.ui.approval.server_start_dialog import ServerStartDialog

        dialog = ServerStartDialog(request, self._parent_widget())
        return await self._run_dialog(dialog, dialog.decided, bool)

    async def _run_dialog(self, dialog: QDialog, signal: SignalInstance, answer: type[T], *,
                          on_abandon: Callable[[], None] | None = None,
                          on_open: Callable[[], None] | None = None) -> T:
        """Open ``dialog`` and wait for the ``answer`` its ``signal`` carries. When the caller
        gives up first, ``on_abandon`` runs (by default the dialog answers no and closes)."""
        import asyncio

        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()

        def resolve(value: object) -> None:
            if future.done():
                return
            if isinstance(value, answer):
                future.set_result(value)
            else:  # a wiring mistake: fail the caller rather than answer wrongly
                future.set_exception(TypeError(f"{type(dialog).__name__} answered {value!r}, not {answer.__name__}"))

        signal.connect(resolve)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.open_dialogs.append(dialog)
        dialog.open()  # never exec(): a nested loop would stall qasync
        if on_open is not None:
            on_open()
        self.dialog_opened.emit(dialog)
        try:
            return await future
        finally:
            if dialog in self.open_dialogs:
                self.open_dialogs.remove(dialog)
            if not future.done() or future.cancelled():
                # The turn was stopped while asking: the dialog answers "deny"/"cancel" and goes
                # (or, for a client's request, says it was withdrawn).
                (on_abandon or dialog.reject)()

    def cancel_dialogs(self) -> None:
        """Stop pressed: every open question/approval is answered negatively and closed."""
        for dialog in list(self.open_dialogs):
            dialog.reject()

    # -- Host: editor ownership (no built-in editor yet: nobody holds a file) ----------------
    async def acquire_editor(self, path: str) -> bool:
        return True

    def release_editor(self, path: str) -> None:
        return None

    # -- Host: notifications ------------------------------------------------------------------
    def file_mutated(self, path: str) -> None:
        marshal.run_on_main(self.file_changed.emit, path)

    def set_activity(self, text: str | None) -> None:
        marshal.run_on_main(self.activity_changed.emit, text or "")

    def tool_output(self, call_id: str, text: str) -> None:
        marshal.run_on_main(self._output, call_id, text)

    def _output(self, call_id: str, text: str) -> None:
        if self.transcript is not None:
            self.transcript.append_output(call_id, text)

    def todos_updated(self, scope_id: str, todos: tuple[TodoItem, ...]) -> None:
        marshal.run_on_main(self.todos_changed.emit, scope_id, tuple(todos))


def warm_up_approvals() -> None:
    """Import the approval dialog's modules (~40 ms) while the app loads, after the first frame:
    paid then, they would otherwise stall the window when the first approval opens."""
    import echo_desk.ui.approval.approval_dialog  # noqa: F401
