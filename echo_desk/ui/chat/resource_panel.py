"""Browse the MCP servers' resources and resource templates and attach one to the next message.

Everything a server says (names, URIs, descriptions) is shown as plain text with hidden
characters made visible. Attaching reads the resource now, within the caps; a resource that
cannot be attached says why and nothing is attached. The model never reads a resource on its
own: only what the person attaches here goes into the turn.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import quote

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _, list_text, shown
from echo_desk.ui.core import marshal, theme

if TYPE_CHECKING:
    from echo_desk.mcp.manager import McpManager
    from echo_desk.mcp.resources import AttachedResource, ResourceInfo, ResourceListing, TemplateInfo

_VARIABLE = re.compile(r"\{([A-Za-z0-9_.]+)\}")


def expand(template: str, values: dict[str, str]) -> str:
    """A URI from a simple RFC 6570 template (``{name}`` variables), each value percent-encoded."""
    return _VARIABLE.sub(lambda m: quote(values.get(m.group(1), ""), safe=""), template)


def variables(template: str) -> list[str]:
    return list(dict.fromkeys(_VARIABLE.findall(template)))


class ResourcePanel(QDialog):
    #: A resource was read and may be attached: (``AttachedResource``, keep it up to date).
    attached = Signal(object, bool)

    def __init__(self, manager: McpManager, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.manager = manager
        self.listing: ResourceListing | None = None
        self.setMinimumSize(720, 480)
        layout = QVBoxLayout(self)
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        layout.addWidget(self.intro)
        self.server = QComboBox()
        self.server.currentIndexChanged.connect(lambda _i: self.load())
        layout.addWidget(self.server)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(4)
        self.tree.setRootIsDecorated(True)
        self.tree.currentItemChanged.connect(lambda *_a: self._chosen())
        self.tree.itemDoubleClicked.connect(lambda *_a: self.attach())
        layout.addWidget(self.tree, 1)
        self.description = QPlainTextEdit()
        self.description.setReadOnly(True)
        self.description.setMaximumHeight(90)
        layout.addWidget(self.description)
        self.template_form = QWidget()
        self.template_fields = QFormLayout(self.template_form)
        self.template_form.setVisible(False)
        layout.addWidget(self.template_form)
        self.keep_updated = QCheckBox()
        layout.addWidget(self.keep_updated)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        theme.styled(self.status, lambda p: f"color: {p.danger};")
        layout.addWidget(self.status)
        buttons = QDialogButtonBox()
        self.attach_button = QPushButton()
        self.attach_button.setDefault(True)
        self.attach_button.clicked.connect(self.attach)
        buttons.addButton(self.attach_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.close_button = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.close_button.clicked.connect(self.close)
        layout.addWidget(buttons)
        self.inputs: dict[str, QLineEdit] = {}
        self.retranslate()
        self.fill_servers()

    def retranslate(self) -> None:
        self.setWindowTitle(_("MCP resources"))
        self.intro.setText(_("Attach a resource of an MCP server to your next message: it is read now and "
                             "sent with the message, its address shown on it. The model reads no resource "
                             "you did not attach (a tool may, when you approve the call)."))
        self.server.setAccessibleName(_("MCP server"))
        self.tree.setHeaderLabels([_("Name"), _("Address"), _("Type"), _("Size")])
        self.tree.setAccessibleName(_("Resources"))
        self.description.setAccessibleName(_("Description"))
        self.keep_updated.setText(_("Keep it up to date until the message is sent (the server says when it changes)"))
        self.attach_button.setText(_("Attach"))

    # -- showing ----------------------------------------------------------------------------
    def fill_servers(self) -> None:
        self.server.blockSignals(True)
        self.server.clear()
        for status in self.manager.statuses():
            if status.state == "connected":
                self.server.addItem(visible(status.name, one_line=True), status.name)
        self.server.blockSignals(False)
        if self.server.count() == 0:
            self.status.setText(_("No MCP server is connected."))
        else:
            self.load()

    def current_server(self) -> str:
        return str(self.server.currentData() or "")

    def load(self) -> None:
        name = self.current_server()
        if not name:
            return
        self.status.setText("")
        self.tree.clear()
        marshal.spawn(self._load(name))

    async def _load(self, name: str) -> None:
        from echo_desk.mcp.resources import ResourceError

        try:
            listing = await self.manager.resources(name)
        except ResourceError as exc:
            self.status.setText(shown(exc.text))
            return
        if name != self.current_server():
            return
        self.listing = listing
        self.keep_updated.setEnabled(listing.subscribable)
        self.keep_updated.setChecked(listing.subscribable)
        self.tree.clear()
        resources = QTreeWidgetItem([_("Resources ({count})").format(count=len(listing.resources))])
        templates = QTreeWidgetItem([_("Templates ({count})").format(count=len(listing.templates))])
        for info in listing.resources:
            size = _("{size} KB").format(size=f"{info.size / 1000:.1f}") if info.size is not None else ""
            item = QTreeWidgetItem([visible(info.title or info.name, one_line=True), visible(info.uri, one_line=True),
                                    visible(info.mime, one_line=True), size])
            item.setData(0, Qt.ItemDataRole.UserRole, info)
            resources.addChild(item)
        for template in listing.templates:
            item = QTreeWidgetItem([visible(template.title or template.name, one_line=True),
                                    visible(template.uri_template, one_line=True), visible(template.mime, one_line=True), ""])
            item.setData(0, Qt.ItemDataRole.UserRole, template)
            templates.addChild(item)
        self.tree.addTopLevelItems([resources, templates])
        resources.setExpanded(True)
        templates.setExpanded(True)
        for column in range(3):
            self.tree.resizeColumnToContents(column)
        first = resources.child(0) or templates.child(0)
        if first is not None:
            self.tree.setCurrentItem(first)

    def chosen(self) -> ResourceInfo | TemplateInfo | None:
        from echo_desk.mcp.resources import ResourceInfo, TemplateInfo

        item = self.tree.currentItem()
        data = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        return data if isinstance(data, (ResourceInfo, TemplateInfo)) else None

    def _chosen(self) -> None:
        from echo_desk.mcp.resources import TemplateInfo

        data = self.chosen()
        self.attach_button.setEnabled(data is not None)
        self.description.setPlainText(visible(data.description) if data is not None else "")
        while self.template_fields.rowCount():
            self.template_fields.removeRow(0)
        self.inputs = {}
        is_template = isinstance(data, TemplateInfo)
        self.template_form.setVisible(is_template)
        if isinstance(data, TemplateInfo):
            for name in variables(data.uri_template):
                field = QLineEdit()
                field.setAccessibleName(name)
                self.inputs[name] = field
                label = QLabel(visible(name, one_line=True))
                label.setTextFormat(Qt.TextFormat.PlainText)
                self.template_fields.addRow(label, field)

    # -- attaching --------------------------------------------------------------------------
    def attach(self) -> None:
        from echo_desk.mcp.resources import ResourceInfo

        data = self.chosen()
        server = self.current_server()
        if data is None or not server:
            return
        if isinstance(data, ResourceInfo):
            uri, info = data.uri, data
        else:
            missing = [name for name, field in self.inputs.items() if not field.text().strip()]
            if missing:
                self.status.setText(_("Fill in: {names}").format(names=list_text(visible(n, one_line=True) for n in missing)))
                return
            uri, info = expand(data.uri_template, {k: f.text().strip() for k, f in self.inputs.items()}), None
        self.status.setText(_("Reading {uri}…").format(uri=visible(uri, one_line=True)))
        self.attach_button.setEnabled(False)
        marshal.spawn(self._read(server, uri, info))

    async def _read(self, server: str, uri: str, info: ResourceInfo | None) -> None:
        from echo_desk.mcp.resources import ResourceError

        try:
            attached: AttachedResource = await self.manager.read_resource(server, uri, info)
        except ResourceError as exc:
            self.status.setText(_("Not attached: {reason}").format(reason=shown(exc.text)))
            return
        finally:
            self.attach_button.setEnabled(True)
        self.status.setText("")
        self.attached.emit(attached, self.keep_updated.isChecked() and self.keep_updated.isEnabled())
        self.accept()
