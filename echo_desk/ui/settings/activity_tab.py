"""The Permissions page's Activity tab: the audit log of tool calls with filters (tool, verdict,
conversation, time), "why was this allowed?" pointing at the deciding rule or grant, and an
export as JSON Lines. A connected app's session handed back to it when Echo Desk quit is a row
of its own, in time order among the calls."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from echo_desk.agent.permissions import Rule
from echo_desk.agent.pipeline.call import Decision
from echo_desk.agent.sources import SourceKind, ToolSource
from echo_desk.common.visible_text import visible
from echo_desk.gateway.clients import display_name
from echo_desk.gateway.hand_back_failure import HandBackFailure
from echo_desk.i18n import N_, _, list_text, ngettext, shown
from echo_desk.store.audit import AuditLog, Event
from echo_desk.tools.planted import Planted, more_of, planted_of
from echo_desk.tools.results import JsonObject
from echo_desk.tools.sandbox_kept import count_of
from echo_desk.ui.core import i18n_qt, marshal, theme
from echo_desk.ui.core.audit_text import provenance_phrase
from echo_desk.ui.core.checked_after_restart_text import command_lines
from echo_desk.ui.core.planted_text import (
    folders_checked_line,
    planted_label,
    planted_tooltip,
    put_aside_lines,
)
from echo_desk.ui.core.rules_text import plain_tooltip, rule_phrase, when
from echo_desk.ui.widgets.failure_text import say_failure
from echo_desk.ui.widgets.warning_note import warning_note

DECISION_LABELS = {
    Decision.AUTO: N_("ran without asking"),
    Decision.ALLOWED: N_("allowed by you"),
    Decision.DENIED: N_("refused or denied"),
    Decision.NOT_ASKED: N_("stopped before approval"),
    Decision.WITHDRAWN: N_("withdrawn while you were asked"),
}
#: The Verdict column of a row that is no call.
EVENT_LABELS = {
    Event.SESSION_HANDED_BACK: N_("session handed back on quit"),
    Event.SESSION_NOT_HANDED_BACK: N_("session closed on quit"),
    Event.TOOLS_LISTED_WITHOUT: N_("tools listed without servers still starting"),
    Event.SERVER_LEFT: N_("left by the server outside its calls"),
    Event.CHECKED_AFTER_RESTART: N_("checked after a restart"),
}
#: Why a session could not be handed back (the row's ``error_kind``), as the detail says it.
HAND_BACK_FAILURES = {
    HandBackFailure.NOT_BEGUN: N_("it had not begun its session yet"),
    HandBackFailure.INPUT_CUT: N_("it was in the middle of sending a request that could not be passed on whole"),
    HandBackFailure.GATEWAY_NOT_READY: N_("its echo-desk gateway did not answer"),
    HandBackFailure.GATEWAY_DID_NOT_TAKE: N_("its echo-desk gateway did not take the connection back"),
    HandBackFailure.TOO_SLOW: N_("its echo-desk gateway took too long to take it back"),
    HandBackFailure.CONNECTION_FAILED: N_("the connection to its echo-desk gateway failed"),
}
#: (seconds back, label); 0 = any time.
PERIODS = ((0, N_("Any time")), (3600, N_("Last hour")), (86400, N_("Last day")), (7 * 86400, N_("Last week")))
MOST_ROWS = 1000
#: The columns: when, who asked (a connected app, or the chat's conversation), the tool and what
#: came of it stay in view whole; what decided it (the longest) takes what is left, elided.
COL_TIME, COL_WHO, COL_TOOL, COL_VERDICT, COL_DECIDER = range(5)
#: The widest a name column grows before it elides (its whole text is its tooltip), and the least
#: it is given, and what decided a call, when the window is narrow: a tool's or an app's long name
#: must not push the verdict out of view.
MOST_NAME_WIDTH = 220
LEAST_NAME_WIDTH = 90
LEAST_DECIDER_WIDTH = 120
#: The verdict filter is this many characters wide ("Any verdict"); its list shows each whole.
VERDICT_CHARS = 12


class ActivityTab(QWidget):
    #: (rule_source, grant_id) of the selected call: the page shows that rule or grant.
    why = Signal(str, str)

    def __init__(self, audit: AuditLog, rule_for: Callable[[str], Rule | None] = lambda _source: None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.audit = audit
        self.rule_for = rule_for
        self.rows: list[JsonObject] = []
        #: The name columns' widths as their longest names need (``_fit_columns``).
        self._natural: dict[int, int] = {}
        layout = QVBoxLayout(self)
        # While the disk refuses the log (full), the calls it holds in memory are not listed yet.
        self.not_written = warning_note(shown=False)
        layout.addWidget(self.not_written)
        filters = QHBoxLayout()
        self.tool = QLineEdit()
        self.conversation = QLineEdit()
        self.decision = QComboBox()
        self.decision.addItem("", "")
        for decision in Decision:
            self.decision.addItem("", decision.value)
        for event in EVENT_LABELS:  # a row that is no call is found by what it records
            self.decision.addItem("", event.value)
        # The verdicts' longest words take the list that drops down, not the row: the filters
        # beside it keep room for their hints in the narrowest Settings window.
        self.decision.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.decision.setMinimumContentsLength(VERDICT_CHARS)
        self.period = QComboBox()
        for seconds, _label in PERIODS:
            self.period.addItem("", seconds)
        for widget in (self.tool, self.decision, self.conversation, self.period):
            filters.addWidget(widget)
        self.tool.textChanged.connect(self.reload)
        self.conversation.textChanged.connect(self.reload)
        self.decision.currentIndexChanged.connect(self.reload)
        self.period.currentIndexChanged.connect(self.reload)
        layout.addLayout(filters)
        self.calls = QTreeWidget()
        self.calls.setColumnCount(5)
        self.calls.setRootIsDecorated(False)
        self.calls.setUniformRowHeights(True)
        # Never sideways: the last column takes the width left and elides; each cell's tooltip is whole.
        self.calls.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.calls.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.calls.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(COL_DECIDER, QHeaderView.ResizeMode.Stretch)
        self.calls.currentItemChanged.connect(lambda *_: self._update_why())
        layout.addWidget(self.calls, 1)
        # An empty table says why it is empty and what will fill it.
        self.empty = QLabel()
        self.empty.setTextFormat(Qt.TextFormat.PlainText)
        self.empty.setWordWrap(True)
        layout.addWidget(self.empty)
        self.detail = QLabel()
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.detail)
        row = QHBoxLayout()
        self.refresh = QPushButton()
        self.refresh.clicked.connect(self.reload)
        self.why_button = QPushButton()
        self.why_button.clicked.connect(self._why)
        self.export = QPushButton()
        self.export.clicked.connect(self._ask_export)
        row.addWidget(self.refresh)
        row.addStretch(1)
        row.addWidget(self.why_button)
        row.addWidget(self.export)
        layout.addLayout(row)
        self.retranslate()
        self.reload()
        i18n_qt.bus().language_changed.connect(self.retranslate)
        # The log starts or stops refusing writes on its writer thread: the note follows at once,
        # and the calls it held back are listed as soon as they are written.
        stop_watching = audit.watch_failure(lambda _reason: marshal.run_on_main(self.reload))
        self.destroyed.connect(lambda *_: stop_watching())

    def filtered(self) -> list[JsonObject]:
        """The audit records matching the filters, newest first."""
        tool = self.tool.text().strip() or None
        conversation = self.conversation.text().strip()
        rows = self.audit.query(tool=tool, limit=MOST_ROWS)
        if conversation:  # the table shows the first characters of an id: they are enough
            rows = [r for r in rows if str(r["conversation_id"]).startswith(conversation)]
        decision = self.decision.currentData()
        if decision in EVENT_LABELS:
            rows = [r for r in rows if r.get("event") == decision]
        elif decision:
            rows = [r for r in rows if r["decision"] == decision]
        seconds = int(self.period.currentData() or 0)
        if seconds:
            since = time.time() - seconds
            rows = [r for r in rows if r["at"] >= since]
        return rows

    def reload(self, *_args: object) -> None:
        """Read the audit log again with the filters."""
        self.rows = self.filtered()
        self._render()
        self._say_what_is_not_written()

    def _say_what_is_not_written(self) -> None:
        failing = self.audit.failing
        self.not_written.setVisible(bool(failing))
        if failing:
            self.not_written.setText(_("The activity log cannot be written: {cause}. Calls kept in memory until "
                                       "it can: {n}. Until then, a call that would run without asking asks "
                                       "first.").format(cause=shown(failing), n=self.audit.held))

    def _render(self) -> None:
        self.calls.clear()
        for r in self.rows:
            decision = r["decision"]
            event = _event(r)
            if event is not None:
                label = _(EVENT_LABELS[event])
            elif decision in Decision._value2member_map_:
                label = _(DECISION_LABELS[Decision(decision)])
            else:
                label = decision
            asked_by, asked_by_whole = _from(r, event)
            decider = "" if event is not None else self._decider(r)
            # A call that planted something says so beside its verdict, as its card in the chat does.
            planted, more = _planted(r), more_of(r.get("planted"))  # (a row keeps a bounded few: ``more``)
            if planted:
                label = _("{verdict} · {mark}").format(verdict=label, mark=planted_label(len(planted) + more))
            cells = [""] * 5
            cells[COL_TIME], cells[COL_WHO], cells[COL_TOOL] = when(r["at"]), asked_by, r["tool"]
            cells[COL_VERDICT], cells[COL_DECIDER] = label, decider
            item = QTreeWidgetItem(cells)
            for column, whole in ((COL_TOOL, r["tool"]), (COL_VERDICT, label), (COL_DECIDER, decider),
                                  (COL_WHO, asked_by_whole)):
                if whole:
                    item.setToolTip(column, plain_tooltip(str(whole)))
            if planted:
                tip = planted_tooltip(planted, server=_by_a_server(r), more=more)
                item.setToolTip(COL_VERDICT, plain_tooltip(f"{label}\n{tip}"))
                item.setForeground(COL_VERDICT, QBrush(QColor(theme.colour("warn"))))
            self.calls.addTopLevelItem(item)
        self._fit_columns()
        self._say_why_empty()
        self._update_why()

    def _say_why_empty(self) -> None:
        self.empty.setVisible(not self.rows)
        if self.rows:
            return
        filtering = bool(self.tool.text().strip() or self.conversation.text().strip()
                         or self.decision.currentIndex() > 0 or self.period.currentIndex() > 0)
        self.empty.setText(_("No call matches these filters.") if filtering else
                           _("No tool calls yet. Each call the agent or a connected app makes is listed here, "
                             "with its verdict and what decided it."))

    def _fit_columns(self) -> None:
        # The verdict's words differ in length by language ("withdrawn while you were asked"):
        # shown whole rather than cut to "withdrawn while you …"; a long tool or app name elides.
        for column in (COL_TIME, COL_WHO, COL_TOOL, COL_VERDICT):
            self.calls.resizeColumnToContents(column)
        self._natural = {c: self.calls.columnWidth(c) for c in (COL_WHO, COL_TOOL)}
        self._share_width()

    def _share_width(self) -> None:
        """The name columns as wide as their names, up to what the window leaves them."""
        natural = self._natural
        if not natural:
            return
        left = (self.calls.viewport().width() - self.calls.columnWidth(COL_TIME)
                - self.calls.columnWidth(COL_VERDICT) - LEAST_DECIDER_WIDTH)
        each = max(LEAST_NAME_WIDTH, min(MOST_NAME_WIDTH, left // 2))
        # One name short leaves the other what it does not need.
        for column, other in ((COL_WHO, COL_TOOL), (COL_TOOL, COL_WHO)):
            room = max(each, left - min(natural[other], each))
            self.calls.setColumnWidth(column, max(LEAST_NAME_WIDTH, min(natural[column], MOST_NAME_WIDTH, room)))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._share_width()

    def _decider(self, record: JsonObject) -> str:
        if record.get("grant_id"):
            return _("grant {id}").format(id=record["grant_id"])
        source = str(record.get("rule_source") or "")
        if source:
            rule = self.rule_for(source)  # the audit keeps where the rule was written
            return rule_phrase(rule) if rule is not None else source
        return provenance_phrase(str(record["provenance"]))

    def selected(self) -> JsonObject | None:
        item = self.calls.currentItem()
        if item is None:
            return None
        index = self.calls.indexOfTopLevelItem(item)
        return self.rows[index] if 0 <= index < len(self.rows) else None

    def _update_why(self) -> None:
        record = self.selected()
        self.why_button.setEnabled(bool(record and (record.get("rule_source") or record.get("grant_id"))))
        self.detail.setToolTip("")  # an export's failure detail goes with its sentence
        if record is None:
            self.detail.setText("")
            return
        event = _event(record)
        client = visible(display_name(str(record.get("client") or "")), one_line=True)
        if event is Event.SESSION_NOT_HANDED_BACK:
            self.detail.setText(_(
                "Echo Desk quit and could not hand {client}'s session back to its own echo-desk gateway ({why}), "
                "so it closed the session: {client} sees its Echo Desk server end and must start it again to use "
                "these tools.").format(client=client, why=_failure_words(record)))
            return
        if event is Event.TOOLS_LISTED_WITHOUT:
            self.detail.setText(_(
                "{client} asked for its tools while these MCP servers were still starting: {servers}. Its list "
                "came without their tools, so that it did not wait for them; it is told to list its tools again "
                "once they have started.").format(client=client, servers=_servers_of(record)))
            return
        if event is Event.SERVER_LEFT:
            arguments = record.get("arguments")
            folder = arguments.get("folder") if isinstance(arguments, dict) else ""
            self.detail.setText("\n".join([_(
                "The sandboxed MCP server “{server}” left in {folder} what would run code later, and no call to it "
                "came after to say so. It was put aside when the server stopped:").format(server=visible(str(record["tool"]), one_line=True),
                                             folder=visible(str(folder or ""), one_line=True)),
                *put_aside_lines("", _planted(record), more_of(record.get("planted")))]))
            return
        if event is Event.CHECKED_AFTER_RESTART:
            arguments = record.get("arguments")
            workspace = arguments.get("workspace") if isinstance(arguments, dict) else ""
            started = arguments.get("started") if isinstance(arguments, dict) else None
            server = arguments.get("server") if isinstance(arguments, dict) else None
            if isinstance(server, str) and server:
                heading = _("Echo Desk was closed while the sandboxed MCP server “{server}” ran, before it had "
                            "checked what the server left. It checked that at its next start:").format(
                    server=visible(server, one_line=True))
            else:
                server = ""
                heading = _("Echo Desk was closed before it had checked what call {call} ({tool}) left. It checked "
                            "that at its next start:").format(call=visible(str(record["call_id"]), one_line=True),
                                                             tool=visible(str(record["tool"]), one_line=True))
            self.detail.setText("\n".join([
                heading,
                *command_lines(str(workspace or ""), _planted(record), str(record.get("error") or ""),
                               float(started) if isinstance(started, (int, float)) else float(record["at"]),
                               server, more_of(record.get("planted")))]))
            return
        if event is Event.SESSION_HANDED_BACK:
            self.detail.setText(_(
                "Echo Desk quit and handed {client}'s session back to its own echo-desk gateway, which goes on "
                "serving it without Echo Desk's windows: a call that would ask you is refused, the others run "
                "as your rules and settings say. Each of those calls is listed here too.").format(client=client))
            return
        arguments = json.dumps(record["arguments"], ensure_ascii=False)
        planted = planted_tooltip(_planted(record), server=_by_a_server(record), more=more_of(record.get("planted")))
        checked = count_of(record, "folders_checked")  # (0: every folder was)
        self.detail.setText(f"{record['call_id']} · {record['tool']} {arguments[:300]}\n"
                            f"{provenance_phrase(str(record['provenance']))}" + (f"\n{planted}" if planted else "")
                            + (f"\n{folders_checked_line(checked)}" if checked else ""))

    def _why(self) -> None:
        record = self.selected()
        if record is not None:
            self.why.emit(str(record.get("rule_source") or ""), str(record.get("grant_id") or ""))

    def export_to(self, path: Path) -> int:
        """Write the filtered records as JSON Lines; returns how many."""
        rows = self.filtered()
        with open(path, "w", encoding="utf-8") as out:
            for r in rows:
                out.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
        return len(rows)

    def _ask_export(self) -> None:
        name, _filter = QFileDialog.getSaveFileName(self, _("Export activity"), "echo-desk-activity.jsonl",
                                                    _("JSON Lines (*.jsonl)"))
        if name:
            try:
                count = self.export_to(Path(name))
            except OSError as exc:
                say_failure(self.detail, _("Nothing was exported ({reason})"), exc)
                return
            self.detail.setToolTip("")
            self.detail.setText(ngettext("{n} call exported to {path}", "{n} calls exported to {path}", count).format(n=count, path=name))

    def retranslate(self, *_args: object) -> None:
        self.tool.setPlaceholderText(_("Tool (exact name)"))
        self.tool.setAccessibleName(_("Filter by tool"))
        self.conversation.setPlaceholderText(_("Conversation id"))
        self.conversation.setToolTip(_("The first characters of a conversation's id are enough, as the From "
                                       "column shows them."))
        self.conversation.setAccessibleName(_("Filter by conversation"))
        for edit in (self.tool, self.conversation):
            _room_for_hint(edit)
        self.decision.setItemText(0, _("Any verdict"))
        for i, decision in enumerate(Decision, start=1):
            self.decision.setItemText(i, _(DECISION_LABELS[decision]))
        for i, event in enumerate(EVENT_LABELS, start=1 + len(Decision)):
            self.decision.setItemText(i, _(EVENT_LABELS[event]))
        self.decision.setAccessibleName(_("Filter by verdict"))
        # (Its rows are sized by the combo's width: measured by their words, with room for a check mark.)
        view, metrics = self.decision.view(), self.decision.fontMetrics()
        widest = max(metrics.horizontalAdvance(self.decision.itemText(i)) for i in range(self.decision.count()))
        view.setMinimumWidth(widest + 2 * metrics.height() + view.verticalScrollBar().sizeHint().width())
        for i, (_seconds, label) in enumerate(PERIODS):
            self.period.setItemText(i, _(label))
        self.period.setAccessibleName(_("Filter by time"))
        labels = [""] * 5
        labels[COL_TIME], labels[COL_WHO], labels[COL_TOOL] = _("Time"), _("From"), _("Tool")
        labels[COL_VERDICT], labels[COL_DECIDER] = _("Verdict"), _("Decided by")
        self.calls.setHeaderLabels(labels)
        self.calls.setAccessibleName(_("Tool calls"))
        self.refresh.setText(_("Re&fresh"))
        self.why_button.setText(_("&Why was this allowed?"))
        self.export.setText(_("&Export as JSON Lines…"))
        self._render()
        self._say_what_is_not_written()


def _room_for_hint(edit: QLineEdit) -> None:
    """At least as wide as its placeholder: a filter's hint cut to "Conversati…" says nothing.
    (A line edit's own hint is 17 "x": what is beyond them is its frame and margins.)"""
    metrics = edit.fontMetrics()
    frame = edit.sizeHint().width() - 17 * metrics.horizontalAdvance("x")
    edit.setMinimumWidth(metrics.horizontalAdvance(edit.placeholderText()) + frame)


def _failure_words(record: JsonObject) -> str:
    """Why a session was not handed back, in the person's language."""
    why = record.get("error_kind")
    if why in HandBackFailure._value2member_map_:
        return _(HAND_BACK_FAILURES[HandBackFailure(str(why))])
    return _("the reason was not recorded")  # a later version's reason


def _servers_of(record: JsonObject) -> str:
    """The MCP servers a row names (their configured names, shown as plain text)."""
    arguments = record.get("arguments")
    servers = arguments.get("servers") if isinstance(arguments, dict) else None
    names = [visible(str(name), one_line=True) for name in servers] if isinstance(servers, list) else []
    return list_text(names)


def _event(record: JsonObject) -> Event | None:
    """The event a row records, when it is no call (a row of a later version's kind: shown as a call)."""
    event = record.get("event")
    if event in EVENT_LABELS:
        return Event(str(event))
    return None


def _from(record: JsonObject, event: Event | None) -> tuple[str, str]:
    """The From cell of a row and its whole text (the tooltip): the MCP client whose call came
    through the gateway, the sandboxed server whose own row it is (what it left outside its
    calls: no conversation asked), both when a row has both, else the chat's conversation."""
    client = str(record.get("client") or "")
    names = []
    if event is Event.SERVER_LEFT or (event is Event.CHECKED_AFTER_RESTART and _by_a_server(record)):
        server = _server_of(record)
        if server:
            # The name first, as an app's: a narrow column elides the end, not the name.
            names.append(_("{server} (MCP server)").format(server=visible(server, one_line=True)))
    if client:
        # A call another MCP client made through the gateway is named by that client.
        names.append(_("{client} (through MCP)").format(client=visible(display_name(client), one_line=True)))
    conversation = str(record.get("conversation_id") or "")
    if not names:
        return conversation[:8], conversation
    return " · ".join(names), "\n".join(t for t in (*names, conversation) if t)


def _server_of(record: JsonObject) -> str:
    """The MCP server a row names by its source (``mcp:<server>``), else by its Tool column."""
    try:
        server = ToolSource(str(record.get("source") or "")).server
    except ValueError:  # a later version's kind
        server = ""
    return server or str(record.get("tool") or "")


def _planted(record: JsonObject) -> list[Planted]:
    """What the call tried to plant, put aside or back (full paths); none in a row from before
    the log recorded it."""
    return planted_of(record.get("planted"))


def _by_a_server(record: JsonObject) -> bool:
    """The call went to an MCP server (what it planted, the server left in its folder)."""
    try:
        return ToolSource(str(record.get("source") or "")).kind is SourceKind.MCP
    except ValueError:  # a row with no source (an event) or a later version's kind
        return False
