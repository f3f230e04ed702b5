"""Settings › Connected apps: the MCP clients on this machine and where each stands.

Each client found by its own config files (Claude Code, Cursor, VS Code, Claude Desktop, goose,
Windsurf, Zed), each of its server lists with the file's path, how many servers it has and
whether they are behind Echo Desk; "Protect…" opens the exact diff of the client's file,
"Undo" puts it back in one click. Below, what the selected client sees through the gateway
(``Settings.gateway``: Echo Desk's own tools on or off, database writes, tools it does not see).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _, list_text, shown
from echo_desk.store.settings import GatewayClient, Settings, SettingsStore
from echo_desk.ui.core import i18n_qt, marshal, theme
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.core.file_watch import FileWatch
from echo_desk.ui.settings.http_gateway_row import HttpGatewayRow
from echo_desk.ui.widgets.diff_view import DiffPane

if TYPE_CHECKING:  # the MCP package loads off the UI thread, when the page first looks
    from echo_desk.gateway.service import GatewayService
    from echo_desk.mcp.connected import (
        ClientReport,
        InstallOutcome,
        InstallPlan,
        LocationReport,
        Records,
        UninstallOutcome,
        UninstallPlan,
    )

COL_APP, COL_FILE, COL_SERVERS, COL_STATUS = range(4)
#: An app may write its file in several steps: it is read again once they have settled.
WATCH_SETTLE_MS = 300
#: The tools list is never shorter than this many lines of text.
TOOLS_LINES = 5


class ConnectedAppsPage(QWidget):
    def __init__(self, settings: SettingsStore, backend: CatalogBackend | None = None, *,
                 after_change: Callable[[], Awaitable[object]] | None = None, home: Path | None = None,
                 records: Records | None = None, gateway: GatewayService | None = None,
                 parent: QWidget | None = None) -> None:
        """``after_change``: called once Echo Desk's mcp.json changed (the app reloads its servers).
        ``gateway``: the app's, whose HTTP listener the page switches and says the state of."""
        super().__init__(parent)
        self.settings = settings
        self.backend = backend
        self.after_change = after_change
        self.home = home
        self.records = records
        self.reports: list[ClientReport] = []
        #: Whether a look has finished: before it, an empty list says nothing yet.
        self.looked = False
        self.dialog: QDialog | None = None
        #: What the last protect or undo did, shown above the list's details while it is selected.
        self._outcome: tuple[str, str] = ("", "")
        layout = QVBoxLayout(self)
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        layout.addWidget(self.intro)
        splitter = QSplitter(Qt.Orientation.Vertical)
        self.apps = QTreeWidget()
        self.apps.setColumnCount(4)
        self.apps.currentItemChanged.connect(lambda *_a: self._selected())
        splitter.addWidget(self.apps)
        lower = QWidget()
        lower_layout = QHBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        lower_layout.addWidget(self.details, 3)
        self.profile = QGroupBox()
        profile_layout = QVBoxLayout(self.profile)
        self.builtins = QCheckBox()
        self.builtins.toggled.connect(lambda on: self._set_profile(builtins=on))
        # What they are, wrapped under the check box: as its own text (a check box does not wrap)
        # it held the page ~560 px wide and squeezed the app's details to a column of letters.
        self.builtins_note = QLabel()
        self.builtins_note.setWordWrap(True)
        theme.styled(self.builtins_note, lambda p: f"color: {p.muted}")
        style = self.builtins.style()
        self.builtins_note.setContentsMargins(style.pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth)
                                              + style.pixelMetric(QStyle.PixelMetric.PM_CheckBoxLabelSpacing), 0, 0, 0)
        self.database_writes = QCheckBox()
        self.database_writes.toggled.connect(lambda on: self._set_profile(database_writes=on))
        self.tools_label = QLabel()
        self.tools_label.setWordWrap(True)
        self.tools = QListWidget()
        # Room for a few rows, or for the sentence it shows while empty: in the smallest Settings
        # window it was one line high and cut that sentence to half a line.
        self.tools.setMinimumHeight(TOOLS_LINES * self.tools.fontMetrics().lineSpacing() + 2 * self.tools.frameWidth())
        self.tools.itemChanged.connect(self._tool_toggled)
        for widget in (self.builtins, self.builtins_note, self.database_writes, self.tools_label, self.tools):
            profile_layout.addWidget(widget)
        lower_layout.addWidget(self.profile, 2)
        splitter.addWidget(lower)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout.addWidget(splitter, 1)
        self.http = HttpGatewayRow(settings, gateway)
        layout.addWidget(self.http)
        buttons = QHBoxLayout()
        self.protect_button = QPushButton()
        self.protect_button.clicked.connect(self.protect)
        self.undo_button = QPushButton()
        self.undo_button.clicked.connect(self.undo)
        self.refresh_button = QPushButton()
        self.refresh_button.clicked.connect(self.refresh)
        for button in (self.protect_button, self.undo_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.refresh_button)
        layout.addLayout(buttons)
        self._unsubscribe = settings.subscribe(lambda _s: marshal.run_on_main(self._show_profile))
        #: The apps' own files: an app that adds a server, or ``echo-desk gateway install`` in a
        #: terminal, shows here without "Look again" (watched once the first look found them).
        self._watch = FileWatch((), (), self._files_changed, self, settle_ms=WATCH_SETTLE_MS)
        self._stale = False
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)
        self.refresh()

    def close_page(self) -> None:
        self.http.close_row()
        self._unsubscribe()
        self._watch.stop()

    def retranslate(self, *_args: object) -> None:
        self.intro.setText(_("Other apps that use MCP servers, found on this computer by their own config files. "
                             "Protect one to move its servers behind Echo Desk: the app then reaches them only "
                             "through Echo Desk, with your rules, approvals, sandbox and activity log."))
        self.apps.setHeaderLabels([_("App"), _("Config file"), _("Servers"), _("Status")])
        self.apps.setAccessibleName(_("Connected apps"))
        self.details.setAccessibleName(_("Details of the selected app"))
        self.protect_button.setText(_("&Protect…"))
        self.protect_button.setAccessibleName(_("Protect the selected app: show the diff of its config file"))
        self.undo_button.setText(_("&Undo"))
        self.undo_button.setAccessibleName(_("Undo: put the selected app's servers back"))
        self.refresh_button.setText(_("&Look again"))
        self.refresh_button.setAccessibleName(_("Look for apps again"))
        self.builtins.setText(_("Echo Desk's own &tools"))
        self.builtins_note.setText(_("File edits with review, commands in the sandbox, database reads."))
        self.builtins.setAccessibleDescription(self.builtins_note.text())
        self.database_writes.setText(_("Database &writes too"))
        self.tools_label.setText(_("Tools this app sees (untick to hide one from it):"))
        self.no_tools_text = _("No tools yet: the servers moved behind Echo Desk appear here once you approved "
                               "their start in Settings › MCP servers.")
        self.tools.setAccessibleName(_("Tools this app sees"))
        self._fill()

    # -- finding the apps ------------------------------------------------------------------------
    def refresh(self) -> None:
        """Look for the apps again (their files are read off the UI thread)."""
        from echo_desk.mcp.connected import detect

        home, records = self.home, self.records
        marshal.BackgroundOp(lambda: detect(home=home, records=records)).on_success(self._found).run()

    def _found(self, reports: list[ClientReport]) -> None:
        self.reports = [r for r in reports if r.found]
        self.looked = True
        self._fill()
        self._watch.watch(*self._watched(reports))

    def _watched(self, reports: list[ClientReport]) -> tuple[list[Path], list[Path]]:
        """The folders and files to watch: each app's lists of servers (the file, and its folder
        for a file that is replaced or appears) and the record of what was moved (Undo).
        Never the home folder itself (``~/.claude.json``): it changes all the time; such a file
        is watched alone, once it exists."""
        from echo_desk.mcp.connected import Records

        home = self.home or Path.home()
        files = [found.location.path for report in reports for found in report.locations]
        files.append((self.records or Records()).path)
        folders = {path.parent for path in files if path.parent != home}
        return sorted(folders), files

    def _files_changed(self) -> None:
        if self.isVisible():
            self.refresh()
        else:
            self._stale = True  # looked again when the page is shown

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self._stale = False
            self.refresh()

    def _fill(self) -> None:
        current = self.current()
        self.apps.clear()
        for report in self.reports:
            # A list that does not exist (beside the first) has nothing to say.
            shown_lists = [found for index, found in enumerate(report.locations) if found.inspection.exists or not index]
            top = QTreeWidgetItem([report.client.title, "", "", ""])
            top.setData(COL_APP, Qt.ItemDataRole.UserRole, report.client.name)
            font = top.font(COL_APP)
            font.setBold(True)
            top.setFont(COL_APP, font)
            self.apps.addTopLevelItem(top)
            if len(shown_lists) == 1:
                self._describe_row(top, shown_lists[0])  # one file: on the app's own row
                continue
            for found in shown_lists:
                row = QTreeWidgetItem(["", "", "", ""])
                row.setData(COL_APP, Qt.ItemDataRole.UserRole, report.client.name)
                self._describe_row(row, found)
                top.addChild(row)
            top.setExpanded(True)
        for column in (COL_APP, COL_FILE, COL_SERVERS, COL_STATUS):
            self.apps.resizeColumnToContents(column)
        self._select(current)
        self._selected()

    def _describe_row(self, row: QTreeWidgetItem, found: LocationReport) -> None:
        from echo_desk.mcp.connected import STANDING_LABELS, Standing

        # The theme colour of each standing (the others in the default text colour).
        colours = {Standing.PROTECTED: "ok", Standing.PARTLY: "warn", Standing.NOT_PROTECTED: "warn",
                   Standing.UNREADABLE: "danger"}

        where = self._path_text(found.location.path)
        if found.location.scope != "user":
            where = _("{path} (project {folder})").format(
                path=where, folder=self._path_text(Path(found.location.scope)))
        row.setText(COL_FILE, where)
        row.setText(COL_SERVERS, str(len(found.inspection.servers)))
        row.setText(COL_STATUS, _(STANDING_LABELS[found.standing]))
        row.setData(COL_FILE, Qt.ItemDataRole.UserRole, found.location.id)
        role = colours.get(found.standing)
        if role:
            row.setForeground(COL_STATUS, QBrush(QColor(theme.colour(role))))
        row.setToolTip(COL_FILE, visible(str(found.location.path), one_line=True))

    def _path_text(self, path: Path) -> str:
        """A path as people write it: ``~/.cursor/mcp.json`` under the home folder."""
        home = self.home or Path.home()
        try:
            return visible("~/" + path.relative_to(home).as_posix(), one_line=True)
        except ValueError:
            return visible(str(path), one_line=True)

    def _select(self, location_id: str) -> None:
        rows: list[QTreeWidgetItem] = []
        for i in range(self.apps.topLevelItemCount()):
            top = self.apps.topLevelItem(i)
            if top is not None:
                rows.append(top)
                rows.extend(c for c in (top.child(j) for j in range(top.childCount())) if c is not None)
        with_lists = [row for row in rows if row.data(COL_FILE, Qt.ItemDataRole.UserRole)]
        for row in with_lists:
            if row.data(COL_FILE, Qt.ItemDataRole.UserRole) == location_id:
                self.apps.setCurrentItem(row)
                return
        if with_lists:
            self.apps.setCurrentItem(with_lists[0])

    def current(self) -> str:
        """The selected list's id (``Location.id``), empty when a client row or nothing is selected."""
        item = self.apps.currentItem()
        return str(item.data(COL_FILE, Qt.ItemDataRole.UserRole) or "") if item is not None else ""

    def current_client(self) -> str:
        item = self.apps.currentItem()
        return str(item.data(COL_APP, Qt.ItemDataRole.UserRole) or "") if item is not None else ""

    def current_report(self) -> LocationReport | None:
        wanted = self.current()
        for report in self.reports:
            for found in report.locations:
                if found.location.id == wanted:
                    return found
        return None

    def _title(self, client: str) -> str:
        return next((r.client.title for r in self.reports if r.client.name == client), client)

    def _selected(self) -> None:
        found = self.current_report()  # none before the first look: the MCP package is not loaded yet
        if found is not None:
            from echo_desk.mcp.connected import Standing

            movable = (Standing.NOT_PROTECTED, Standing.PARTLY, Standing.NO_SERVERS, Standing.ABSENT)
            self.protect_button.setEnabled(found.standing in movable)
        else:
            self.protect_button.setEnabled(False)
        self.undo_button.setEnabled(found is not None and found.record is not None)
        text = self._describe(found) if found is not None else self._nothing_selected()
        if found is not None and self._outcome[0] == found.location.id:
            text = self._outcome[1] + "\n\n" + text
        self.details.setPlainText(text)
        self._show_profile()

    def _nothing_selected(self) -> str:
        # An empty list after a look would otherwise be a blank page: say what it means.
        if self.looked and not self.reports:
            return _("No other app that uses MCP servers was found on this computer. Press Look again after "
                     "you set one up.")
        return ""

    def _describe(self, found: LocationReport) -> str:
        lines = [visible(str(found.location.path), one_line=True)]
        inspection = found.inspection
        if inspection.problem:
            lines.append(_("Echo Desk does not change this file: {why}").format(why=shown(inspection.problem)))
        if found.location.read_only:
            lines.append(shown(found.location.read_only))
        if inspection.servers:
            lines.append(_("Servers: {names}").format(names=list_text(visible(n, one_line=True)
                                                                       for n in inspection.servers)))
        record = found.record
        if record is not None:
            lines.append(_("Moved behind Echo Desk on {when}; the file as it was is kept at {backup}").format(
                when=record.when, backup=record.backup or _("(Echo Desk created the file)")))
        return "\n".join(lines)

    # -- protecting and undoing -----------------------------------------------------------------
    def protect(self) -> None:
        """Plan the move (off the UI thread) and show its exact diff."""
        from echo_desk.mcp.connected import plan_install

        found = self.current_report()
        if found is None:
            return
        location = found.location
        title = self._title(location.client)

        def show(plan: InstallPlan) -> None:
            from echo_desk.ui.settings.connected_apps_dialog import ProtectDialog

            dialog = ProtectDialog(location, title, plan, self)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.written.connect(self._protected)
            self.dialog = dialog
            dialog.open()

        marshal.BackgroundOp(plan_install, location).on_success(show).on_failure(self._failed).run()

    def _protected(self, outcome: InstallOutcome) -> None:
        lines = [_("Rewrote {path}.").format(path=visible(outcome.record.path, one_line=True))]
        if outcome.record.backup:
            lines.append(_("The file as it was is kept at {backup}.").format(backup=outcome.record.backup))
        if outcome.added:
            lines.append(_("Added to Echo Desk, waiting for your approval to start: {names}").format(
                names=list_text(visible(n, one_line=True) for n in outcome.added)))
        lines.append(_("Restart the app so it starts Echo Desk's gateway."))
        self._changed(outcome.record.location_id, "\n".join(lines))

    def _changed(self, location_id: str, message: str) -> None:
        self._outcome = (location_id, message)
        self.details.setPlainText(message)
        self.details.setToolTip("")  # a failure's technical detail no longer applies
        self.refresh()
        if self.after_change is not None:
            marshal.spawn(self.after_change())

    def undo(self) -> None:
        """Put the servers back in one click; a file changed since in a way that would lose an
        edit is refused, with its diff."""
        from echo_desk.mcp.connected import Records, apply_uninstall, plan_uninstall

        found = self.current_report()
        if found is None or found.record is None:
            return
        location, record = found.location, found.record
        records = self.records or Records()

        def work() -> tuple[UninstallPlan, UninstallOutcome]:
            plan = plan_uninstall(location, record, others=list(records.all().values()))
            return plan, apply_uninstall(plan, records=records)

        def done(result: tuple[UninstallPlan, UninstallOutcome]) -> None:
            plan, outcome = result
            lines = [_("Put back {path}.").format(path=visible(str(location.path), one_line=True))]
            if plan.remove_from_echo_desk:
                lines.append(_("Removed from Echo Desk: {names}").format(
                    names=list_text(visible(n, one_line=True) for n in plan.remove_from_echo_desk)))
            for name, why in plan.kept_in_echo_desk:
                lines.append(_("Kept in Echo Desk: {name} ({why})").format(name=visible(name, one_line=True),
                                                                           why=shown(why)))
            lines.append(_("The file before the undo is kept at {backup}.").format(backup=outcome.backup))
            self._changed(location.id, "\n".join(lines))

        marshal.BackgroundOp(work).on_success(done).on_failure(self._failed).run()

    def _failed(self, exc: BaseException) -> None:
        from echo_desk.common.explain import technical_detail
        from echo_desk.mcp.explain import explained

        # A ``PlanError`` says why in the person's words; any other failure is named, never
        # quoted: its English is the tooltip's, for a report.
        reason = shown(explained(exc, quote_detail=False))
        diff = getattr(exc, "diff", "")
        message = _("Nothing was changed: {reason}").format(reason=reason)
        self._outcome = (self.current(), message)
        self.details.setPlainText(message)
        self.details.setToolTip(visible(technical_detail(exc)))
        if diff:
            self.dialog = RefusedDialog(reason, diff, self)
            self.dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.dialog.open()

    # -- what the client sees ------------------------------------------------------------------
    def _profile(self) -> GatewayClient:
        return self.settings.current.gateway.client(self.current_client())

    def _show_profile(self) -> None:
        client = self.current_client()
        self.profile.setEnabled(bool(client))
        self.profile.setTitle(_("What {app} sees through Echo Desk").format(app=self._title(client)) if client
                              else _("What the app sees through Echo Desk"))
        profile = self._profile()
        for box, on in ((self.builtins, profile.builtins), (self.database_writes, profile.database_writes)):
            box.blockSignals(True)
            box.setChecked(on)
            box.blockSignals(False)
        self.database_writes.setEnabled(profile.builtins)
        self.tools.blockSignals(True)
        self.tools.clear()
        hidden = set(profile.hidden_tools)
        for name, title, source in self._tool_choices(profile):
            item = QListWidgetItem(_("{title} ({source})").format(title=visible(title, one_line=True), source=source))
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setToolTip(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked if name in hidden else Qt.CheckState.Checked)
            self.tools.addItem(item)
        if not self.tools.count():
            placeholder = QListWidgetItem(self.no_tools_text)
            placeholder.setFlags(Qt.ItemFlag.NoItemFlags)
            self.tools.addItem(placeholder)
        self.tools.setWordWrap(True)
        self.tools.blockSignals(False)

    def _tool_choices(self, profile: GatewayClient) -> list[tuple[str, str, str]]:
        """The tools the gateway could offer this client: MCP servers' tools, and Echo Desk's own
        when they are switched on for it."""
        if self.backend is None:
            return []
        out = []
        for entry in self.backend.entries():
            source = str(entry.source)
            if source.startswith("mcp:") or profile.builtins:
                out.append((entry.tool.name, self.backend.title(entry.tool), source))
        return sorted(out, key=lambda choice: (not choice[2].startswith("mcp:"), choice[0]))

    def _set_profile(self, **changes: bool) -> None:
        client = self.current_client()
        if not client:
            return

        def change(s: Settings) -> None:
            current = s.gateway.client(client)
            s.gateway.clients = {**s.gateway.clients, client: current.model_copy(update=changes)}

        self.settings.update(change)

    def _tool_toggled(self, item: QListWidgetItem) -> None:
        client = self.current_client()
        name = str(item.data(Qt.ItemDataRole.UserRole) or "")
        hide = item.checkState() == Qt.CheckState.Unchecked
        if not client or not name:
            return

        def change(s: Settings) -> None:
            current = s.gateway.client(client)
            hidden = [n for n in current.hidden_tools if n != name] + ([name] if hide else [])
            s.gateway.clients = {**s.gateway.clients, client: current.model_copy(update={"hidden_tools": hidden})}

        self.settings.update(change)


class RefusedDialog(QDialog):
    """Why an undo was refused, with what changed in the file since Echo Desk wrote it."""

    def __init__(self, reason: str, diff: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("Undo refused"))
        self.resize(900, 560)
        layout = QVBoxLayout(self)
        label = QLabel(_("Nothing was changed: {reason}. What changed in the file since Echo Desk wrote it:")
                       .format(reason=reason))
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(label)
        self.diff = DiffPane(diff)
        layout.addWidget(self.diff, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
