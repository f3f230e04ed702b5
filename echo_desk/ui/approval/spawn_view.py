"""Sub-agent parts of the approval dialog: the spawn manifest and the "asked by a sub-agent" banner.

The manifest panel is what the person reads before allowing ``delegate``: the goal, the tools
the sub-agent will actually get, read-only or the folders it may change, its limits, and in
red what was asked for but refused. The banner tops every approval a sub-agent asks for.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QFrame, QLabel, QVBoxLayout, QWidget

from echo_desk.agent.host import ApprovalRequest
from echo_desk.agent.subagents import SpawnGrants
from echo_desk.i18n import _, list_text
from echo_desk.ui.approval.spawn_manifest import access_text, asking_subagent_goal, limits_text, refused_texts
from echo_desk.ui.core import theme


def _value_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class ManifestPanel(QFrame):
    """The spawn manifest of a sub-agent request (``ApprovalRequest.spawn``), field by field."""

    def __init__(self, request: ApprovalRequest, grants: SpawnGrants,
                 title_for: Callable[[str], str] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.grants = grants
        self._title_for: Callable[[str], str] = title_for or (lambda name: name)
        self.setObjectName("manifest")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        theme.styled(self, lambda p: f"QFrame#manifest {{ background: {p.card}; border: 1px solid {p.border}; border-radius: 6px; }}")
        layout = QVBoxLayout(self)
        self.caption = QLabel()
        font = self.caption.font()
        font.setBold(True)
        self.caption.setFont(font)
        layout.addWidget(self.caption)
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.goal_label, self.goal = QLabel(), _value_label()
        self.goal.setTextFormat(Qt.TextFormat.PlainText)
        self.tools_label, self.tools = QLabel(), _value_label()
        self.access_label, self.access = QLabel(), _value_label()
        self.roots_label, self.roots = QLabel(), _value_label()
        self.roots.setTextFormat(Qt.TextFormat.PlainText)
        self.limits_label, self.limits = QLabel(), _value_label()
        self.refused_label, self.refused = QLabel(), _value_label()
        self.rows = [(self.goal_label, self.goal), (self.tools_label, self.tools),
                     (self.access_label, self.access), (self.roots_label, self.roots),
                     (self.limits_label, self.limits), (self.refused_label, self.refused)]
        for label, value in self.rows:
            self.form.addRow(label, value)
        layout.addLayout(self.form)
        self.retranslate()

    def retranslate(self) -> None:
        m = self.grants
        self.caption.setText(_("What the sub-agent will get"))
        self.goal_label.setText(_("Goal:"))
        self.goal.setText(m.goal or _("(no goal given)"))
        self.tools_label.setText(_("Tools granted:"))
        if m.tools:
            self.tools.setText(list_text(self._tool_html(name) for name in m.tools))
        else:
            none = _("none: no sub-agent can start")
            self.tools.setText(f"<span style='color:{theme.colour('danger')}'>{html.escape(none)}</span>")
        self.access_label.setText(_("Access:"))
        self.access.setText(html.escape(access_text(m)))
        self.roots_label.setText(_("May change:"))
        self.roots.setText("\n".join(map(str, m.write_roots)) if m.write_roots else _("nothing (no folders)"))
        self.limits_label.setText(_("Limits:"))
        self.limits.setText(html.escape(limits_text(m)))
        self.refused_label.setText(_("Refused:"))
        refused = refused_texts(m)
        if refused:
            items = "".join(f"<li>{html.escape(r)}</li>" for r in refused)
            intro = _("asked for but not granted:")
            self.refused.setText(f"<span style='color:{theme.colour('danger')}'>{html.escape(intro)}</span>"
                                 f"<ul style='margin:0; color:{theme.colour('danger')}'>{items}</ul>")
        else:
            nothing = _("nothing: every request fits")
            self.refused.setText(f"<span style='color:{theme.colour('muted')}'>{html.escape(nothing)}</span>")
        for widget, name in ((self.goal, _("Goal")), (self.tools, _("Tools granted")), (self.access, _("Access")),
                             (self.roots, _("Folders it may change")), (self.limits, _("Limits")),
                             (self.refused, _("Refused"))):
            widget.setAccessibleName(name)

    def _tool_html(self, name: str) -> str:
        title = self._title_for(name)
        if title == name:
            return f"<b>{html.escape(name)}</b>"
        return f"<b>{html.escape(title)}</b> <span style='color:{theme.colour('muted')}'>({html.escape(name)})</span>"

    def text(self) -> str:
        """Everything the panel shows, as plain text (tests, copy)."""
        rows = []
        for label, value in self.rows:
            shown = value.text() if value.textFormat() == Qt.TextFormat.PlainText else _plain(value.text())
            rows.append(f"{label.text()} {shown}")
        return "\n".join(rows)


def _plain(markup: str) -> str:
    from PySide6.QtGui import QTextDocument

    doc = QTextDocument()
    doc.setHtml(markup)
    return doc.toPlainText()


class SubagentBanner(QLabel):
    """"Asked by a sub-agent": shown on top of every approval a sub-agent requests."""

    def __init__(self, request: ApprovalRequest, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.goal = asking_subagent_goal(request.links)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        theme.styled(self, lambda p: f"QLabel {{ background: {p.warn_bg}; border: 1px solid {p.warn_border};"
                                     f" border-radius: 6px; padding: 8px; color: {p.text}; }}")
        self.setVisible(self.goal is not None)
        self.retranslate()

    def retranslate(self) -> None:
        if self.goal is None:
            return
        # (Translated outside the f-string: Babel does not extract calls inside one.)
        who = _("A sub-agent is asking, not the agent you are chatting with.")
        goal = _("Its goal: {goal}").format(goal=self.goal)
        # The whole chain is on the "Asked by" line just below.
        self.setText(f"<b>{html.escape(who)}</b><br>{html.escape(goal)}")
        self.setAccessibleName(_("Asked by a sub-agent"))
