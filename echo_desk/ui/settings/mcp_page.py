"""The MCP servers page: each configured server with its state, last errors and tools;
enable/disable, restart, approve the first start, sign in and out (HTTP servers that ask, with a
button in the server's own row), remove, reload ``mcp.json``.

The manager runs on its own thread; its coroutines may be awaited from our loop, and its
events arrive on its thread, so they are marshalled here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QBrush, QColor, QDesktopServices
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, _, aside, clause_text, labelled, list_text, shown
from echo_desk.mcp.status import (  # a light module: the MCP SDK comes with the manager
    FLAG_LABELS,
    STATE_LABELS,
    FlagKind,
)

if TYPE_CHECKING:  # ServerState is a StrEnum: compared with its values here, the MCP package loads later
    from echo_desk.mcp.importers import ImportPreview
    from echo_desk.mcp.manager import McpManager
    from echo_desk.mcp.status import ServerStartApprover, ServerStartRequest, ServerState, ServerStatus
    from echo_desk.ui.settings.mcp_server_form import ServerFormDialog
from echo_desk.ui.core import i18n_qt, marshal, theme
from echo_desk.ui.core.mnemonics import without_mnemonic
from echo_desk.ui.core.remote_icons import remote_icon

#: The engine's own labels (the command line's too), by the state's value.
_STATE_TEXT = {state.value: label for state, label in STATE_LABELS.items()}
_STATE_ROLE = {"connected": "ok", "error": "danger", "awaiting_approval": "warn", "starting": "accent",
               "restarting": "accent", "needs_sign_in": "warn", "signing_in": "accent"}
#: How a sign-in's client came to be (``SignInSummary.registered_by``).
_REGISTERED_BY = {"pasted": N_("the client ID in the server's settings"),
                  "metadata_document": N_("a client ID metadata document"),
                  "dynamic": N_("dynamic registration")}
_SIGN_IN_COLUMN = 4


def state_text(state: ServerState) -> str:
    return _(_STATE_TEXT.get(state, state))



class McpPage(QWidget):
    def __init__(self, manager: McpManager, host: ServerStartApprover, config_path: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.manager = manager
        self.host = host
        self.config_path = config_path
        self.server_form: ServerFormDialog | None = None
        #: Sign-ins waiting for the browser, by server (Cancel in the row cancels them).
        self.signing_in: dict[str, asyncio.Task[None]] = {}
        #: The last authorization address opened, by server (shown in full in the details).
        self.opened_urls: dict[str, str] = {}
        #: The row buttons (sign in / cancel / sign out), by server.
        self.row_buttons: dict[str, QPushButton] = {}
        layout = QVBoxLayout(self)
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.intro.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.intro)
        splitter = QSplitter(Qt.Orientation.Vertical)
        self.servers = QTreeWidget()
        self.servers.setColumnCount(5)
        self.servers.setRootIsDecorated(False)
        self.servers.header().setMinimumSectionSize(110)
        self.servers.currentItemChanged.connect(lambda *_a: self._show_details())
        splitter.addWidget(self.servers)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        splitter.addWidget(self.details)
        layout.addWidget(splitter, 1)
        buttons = QHBoxLayout()
        self.add_button = QPushButton()
        self.add_button.clicked.connect(lambda: self.open_form(None))
        self.edit_button = QPushButton()
        self.edit_button.clicked.connect(lambda: self.open_form(self.current_name() or None))
        self.toggle_button = QPushButton()
        self.restart_button = QPushButton()
        self.approve_button = QPushButton()
        self.remove_button = QPushButton()
        self.changes_button = QPushButton()
        self.changes_button.clicked.connect(self._review_changes)
        self.import_button = QPushButton()
        self.import_button.clicked.connect(self._choose_import)
        self.reload_button = QPushButton()
        self.toggle_button.clicked.connect(self._toggle)
        self.restart_button.clicked.connect(lambda: self._do(self.manager.restart))
        self.approve_button.clicked.connect(self._approve)
        self.remove_button.clicked.connect(lambda: self._do(self.manager.remove_server))
        self.reload_button.clicked.connect(lambda: marshal.spawn(self._call(self.manager.reload())))
        # Two rows: nine buttons in one made the Settings window at least ~1,100 px wide (it could
        # not be made smaller, and went past the edge of a small screen).
        for b in (self.add_button, self.edit_button, self.remove_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.reload_button)
        running = QHBoxLayout()
        for b in (self.toggle_button, self.restart_button, self.approve_button, self.changes_button):
            running.addWidget(b)
        running.addStretch(1)
        layout.addLayout(buttons)
        layout.addLayout(running)
        self._unsubscribe = manager.subscribe(lambda _event: marshal.run_on_main(self.refresh))
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.intro.setText(_("Servers come from {path} (the same format as Claude Desktop's mcp.json). "
                             "Add or edit servers here, or edit the file and press Reload. A server starts "
                             "only after you approved its exact command line.").format(
                                 path=self.config_path or "mcp.json"))
        self.servers.setHeaderLabels([_("Server"), _("Transport"), _("State"), _("Tools"), _("Sign-in")])
        self.servers.setAccessibleName(_("MCP servers"))
        self.details.setAccessibleName(_("Server details"))
        self.add_button.setText(_("&Add…"))
        self.edit_button.setText(_("&Edit…"))
        self.restart_button.setText(_("Re&start"))
        self.approve_button.setText(_("Review and a&pprove start…"))
        self.remove_button.setText(_("&Remove"))
        self.changes_button.setText(_("Review c&hanged tools…"))
        self.reload_button.setText(_("Re&load mcp.json"))
        self.import_button.setText(_("&Import…"))
        self.add_button.setAccessibleName(_("Add an MCP server"))
        self.edit_button.setAccessibleName(_("Edit the selected MCP server"))
        for b in (self.toggle_button, self.restart_button, self.approve_button, self.remove_button,
                  self.changes_button, self.import_button, self.reload_button):
            b.setAccessibleName(without_mnemonic(b.text()))
        self.refresh()

    def close_page(self) -> None:
        self._unsubscribe()

    # -- showing ----------------------------------------------------------------------------
    def statuses(self) -> list[ServerStatus]:
        return list(self.manager.statuses())

    def refresh(self) -> None:
        current = self.current_name()
        self.row_buttons = {}
        self.servers.clear()
        for status in self.statuses():
            state = status.state
            item = QTreeWidgetItem([visible(status.name, one_line=True), status.transport, state_text(status.state),
                                    str(len(status.tools))])
            item.setData(0, Qt.ItemDataRole.UserRole, status.name)
            icon = remote_icon(status.icon)
            if icon is not None:
                item.setIcon(0, icon)
            if state in _STATE_ROLE:
                item.setForeground(2, QBrush(QColor(theme.colour(_STATE_ROLE[state]))))
            self.servers.addTopLevelItem(item)
            self._row_button(item, status)
            if status.name == current:
                self.servers.setCurrentItem(item)
        first = self.servers.topLevelItem(0)
        if self.servers.currentItem() is None and first is not None:
            self.servers.setCurrentItem(first)
        for column in range(_SIGN_IN_COLUMN + 1):
            self.servers.resizeColumnToContents(column)
        self._show_details()

    def _row_button(self, item: QTreeWidgetItem, status: ServerStatus) -> None:
        """Sign in (the server asks), Cancel (the browser is open), Sign out (signed in)."""
        name = status.name
        if name in self.signing_in or status.state == "signing_in":
            text, action, accessible = _("Cancel"), self._cancel_sign_in, _("Cancel signing in to {name}")
        elif status.state == "needs_sign_in":
            text, action, accessible = _("Sign in…"), self.sign_in, _("Sign in to {name}")
        elif status.sign_in is not None:
            text, action, accessible = _("Sign out"), self.sign_out, _("Sign out of {name}")
        else:
            return
        button = QPushButton(text)
        button.setAccessibleName(accessible.format(name=name))
        button.clicked.connect(lambda _checked=False, n=name: action(n))
        self.row_buttons[name] = button
        holder = QWidget()  # the button at its own width, not stretched over the last column
        row = QHBoxLayout(holder)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(button)
        row.addStretch(1)
        self.servers.setItemWidget(item, _SIGN_IN_COLUMN, holder)

    def current_name(self) -> str:
        item = self.servers.currentItem()
        return str(item.data(0, Qt.ItemDataRole.UserRole)) if item is not None else ""

    def _status(self, name: str) -> ServerStatus | None:
        for status in self.statuses():
            if status.name == name:
                return status
        return None

    def _show_details(self) -> None:
        status = self._status(self.current_name())
        for b in (self.edit_button, self.toggle_button, self.restart_button, self.remove_button):
            b.setEnabled(status is not None)
        state = status.state if status is not None else ""
        self.toggle_button.setText(_("Ena&ble") if state == "disabled" else _("Disa&ble"))
        self.toggle_button.setAccessibleName(without_mnemonic(self.toggle_button.text()))
        self.approve_button.setEnabled(state == "awaiting_approval")
        self.changes_button.setEnabled(bool(self._changed_tools(status)))
        if status is None:
            self.details.setPlainText(_("No MCP servers are configured."))
            return
        # One message, so a language orders and punctuates the name and the state its own way.
        lines = [_("{server} — {state}").format(server=status.name, state=state_text(status.state))]
        if status.detail:
            lines.append(_(shown(status.detail)))  # a message id, or text the engine built (deferred)
        lines.extend(self._sign_in_lines(status))
        if status.server_info:
            lines.append(_("Server: {info}").format(info=status.server_info))
        try:
            target = self.manager.server_target(status.name)
        except Exception:  # an unknown server: nothing more to say  # noqa: BLE001
            target = ""
        if target:
            lines.append(_("Runs: {target}").format(target=target))
        for problem in status.problems:
            lines.append(_("Problem: {problem}").format(problem=problem))
        if status.tools:
            lines.append("")
            lines.append(_("Tools:"))
            for tool in status.tools:
                flags = clause_text(labelled(_(FLAG_LABELS[f.kind]), shown(f.detail))
                                    for f in tool.flags)
                named = aside(tool.registry_name, tool.original_name)
                lines.append("  " + (_("{tool} — {flags}").format(tool=named, flags=flags) if flags else named))
        if status.stderr_tail:
            lines.append("")
            lines.append(_("Last lines of its error output:"))
            lines.extend(f"  {line}" for line in status.stderr_tail)
        # The server's own words are in it (its name and version, its tools' names, its errors and
        # error output): every hidden character is shown as its escape, never obeyed.
        self.details.setPlainText(visible("\n".join(lines)))
        self.details.setToolTip("")

    def _sign_in_lines(self, status: ServerStatus) -> list[str]:
        lines = []
        url = self.opened_urls.get(status.name)
        if url and status.state in ("signing_in", "needs_sign_in"):
            # The address comes from the server's metadata: in full, as plain visible text.
            lines.append(_("The sign-in page opened in your browser: {url}").format(url=visible(url)))
        signed = status.sign_in
        if signed is not None:
            lines.append(_("Signed in with {issuer} (Echo Desk is known there by {how}).").format(
                issuer=visible(signed.issuer, one_line=True), how=_(_REGISTERED_BY.get(signed.registered_by,
                                                                                        signed.registered_by))))
            if signed.scope:
                lines.append(_("Permissions: {scope}").format(scope=visible(signed.scope, one_line=True)))
            if signed.expires_at is not None:
                lines.append(_("The access token is renewed before {time}.").format(
                    time=time.strftime("%H:%M", time.localtime(signed.expires_at))))
            lines.append(_("The access tokens are kept in the system keyring."))
        return lines

    @staticmethod
    def _changed_tools(status: ServerStatus | None) -> list[tuple[str, list[str]]]:
        """Tools blocked because the server changed their definition since it was pinned."""
        if status is None:
            return []
        found = []
        for tool in status.tools:
            changes = [f.detail for f in tool.flags if f.kind is FlagKind.CHANGED]
            if changes:
                found.append((tool.registry_name, changes))
        return found

    # -- acting -----------------------------------------------------------------------------
    async def _call(self, awaitable: Awaitable[object]) -> None:
        try:
            await awaitable
        except Exception as exc:  # said in the person's words; the developer's in the tooltip  # noqa: BLE001
            self.refresh()
            self._say_failure(_("Not done; mcp.json was not changed ({reason})"), exc, append=True)
            return
        self.refresh()

    def _say_failure(self, message: str, exc: BaseException, *, append: bool = False, **fields: str) -> None:
        """``message`` with ``{reason}``: why ``exc`` happened, in the person's language
        (``explain``); the exception's own English only in the tooltip, for a report."""
        from echo_desk.common.explain import technical_detail
        from echo_desk.mcp.explain import explained

        text = message.format(reason=shown(explained(exc, quote_detail=False)), **fields)
        if append:
            self.details.appendPlainText("\n" + text)
        else:
            self.details.setPlainText(text)
        self.details.setToolTip(visible(technical_detail(exc)))

    def _do(self, action: Callable[[str], Awaitable[object]]) -> None:
        name = self.current_name()
        if name:
            marshal.spawn(self._call(action(name)))

    def open_form(self, name: str | None) -> None:
        """The add (``None``) or edit form; it saves through the manager itself."""
        from echo_desk.ui.settings.mcp_server_form import ServerFormDialog

        config = self.manager.config_of(name) if name else None
        dialog = ServerFormDialog(self.manager, config, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.saved.connect(self._select_saved)
        dialog.destroyed.connect(lambda *_a: setattr(self, "server_form", None))
        self.server_form = dialog
        dialog.open()

    def _select_saved(self, name: str) -> None:
        self.refresh()
        for i in range(self.servers.topLevelItemCount()):
            item = self.servers.topLevelItem(i)
            if item is not None and item.data(0, Qt.ItemDataRole.UserRole) == name:
                self.servers.setCurrentItem(item)

    def _toggle(self) -> None:
        status = self._status(self.current_name())
        if status is not None:
            enable = status.state == "disabled"
            marshal.spawn(self._call(self.manager.set_enabled(status.name, enable)))

    def _review_changes(self) -> None:
        changed = self._changed_tools(self._status(self.current_name()))
        if not changed:
            return
        text = "\n\n".join(f"{name}:\n" + "\n".join(f"  • {shown(c)}" for c in changes) for name, changes in changed)
        box = QMessageBox(QMessageBox.Icon.Warning, _("Changed MCP tools"),
                          _("The server changed these tools since you enabled them. They stay blocked until "
                            "you approve the new definitions."),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.setDetailedText(text)
        box.setInformativeText(text)
        box.button(QMessageBox.StandardButton.Yes).setText(_("Approve the new definitions"))
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def done(result: int) -> None:
            if result == QMessageBox.StandardButton.Yes:
                marshal.spawn(self._approve_changes([name for name, _c in changed]))

        box.finished.connect(done)
        box.open()
        self.review_box = box

    async def _approve_changes(self, names: list[str]) -> None:
        for name in names:
            await self._call(self.manager.approve_tool_change(name))

    def _choose_import(self) -> None:
        dialog = QFileDialog(self, _("Import MCP servers from Claude Desktop, Cursor or VS Code"))
        dialog.setNameFilter(_("MCP configuration (*.json)"))
        dialog.setDirectory(str(Path.home()))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(self.preview_import)
        dialog.open()

    def preview_import(self, path: str) -> None:
        """Read ``path`` (off the UI thread) and show what importing it would do."""
        from echo_desk.mcp import preview_import

        def failed(exc: BaseException) -> None:
            self._say_failure(_("Nothing was imported from {path} ({reason})"), exc, path=path)

        marshal.BackgroundOp(preview_import, Path(path)).on_success(self._show_preview).on_failure(failed).run()

    def _show_preview(self, preview: ImportPreview) -> None:
        from echo_desk.ui.settings.mcp_import import ImportPreviewDialog

        dialog = ImportPreviewDialog(preview, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.chosen.connect(lambda names: names and marshal.spawn(self._import(preview, names)))
        self.import_dialog = dialog
        dialog.open()

    async def _import(self, preview: ImportPreview, names: set[str]) -> None:
        from echo_desk.mcp import apply_import

        try:
            done = await marshal.BackgroundOp(lambda: apply_import(preview, names=names)).run_async()
        except Exception as exc:  # e.g. mcp.json not writable: say so, keep what was there  # noqa: BLE001
            self._say_failure(_("Nothing was imported and mcp.json was not changed ({reason})"), exc)
            return
        await self._call(self.manager.reload())  # new servers wait for their first-start approval
        self.details.appendPlainText("\n" + _("Imported: {names}").format(names=list_text(done)))

    # -- signing in ---------------------------------------------------------------------------
    def sign_in(self, name: str) -> None:
        """Open the server's sign-in page in the browser; the row shows Cancel meanwhile."""
        if name in self.signing_in:
            return
        task = marshal.spawn(self._sign_in(name))
        self.signing_in[name] = task
        self.refresh()

    async def _sign_in(self, name: str) -> None:
        async def open_url(url: str) -> None:  # called on the manager's thread
            marshal.run_on_main(self._open_in_browser, name, url)

        try:
            await self._call(self.manager.sign_in(name, open_url))
        finally:
            self.signing_in.pop(name, None)
            self.refresh()

    def _open_in_browser(self, name: str, url: str) -> None:
        self.opened_urls[name] = url
        QDesktopServices.openUrl(QUrl(url, QUrl.ParsingMode.StrictMode))
        self.refresh()

    def _cancel_sign_in(self, name: str) -> None:
        task = self.signing_in.pop(name, None)
        if task is not None:
            task.cancel()
        self.refresh()

    def sign_out(self, name: str) -> None:
        marshal.spawn(self._call(self.manager.sign_out(name)))

    def _approve(self) -> None:
        name = self.current_name()
        request = self.manager.start_request(name) if name else None
        if request is not None:
            marshal.spawn(self._approve_async(name, request))

    async def _approve_async(self, name: str, request: ServerStartRequest) -> None:
        if await self.host.approve_server_start(request):
            self.manager.approve_start(name, request.fingerprint)
            await self._call(self.manager.start(name))
