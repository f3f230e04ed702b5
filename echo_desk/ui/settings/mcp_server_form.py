"""Add or edit one MCP server: name, transport, command line or URL, env/headers, timeout.

The exact list that will be run is shown under the arguments as they are typed. Saving
checks everything first (nothing is written on an error), puts secret values in the keyring
off the UI thread, then hands the config to the manager, which saves ``mcp.json`` and asks
for a new first-start approval when the command line, env names or URL changed.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase, QTextOption
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _, shown
from echo_desk.mcp.config import ServerConfig, Transport, Value
from echo_desk.mcp.editing import (
    FormError,
    ServerDraft,
    args_from_text,
    build_server,
    split_command_line,
    store_secrets,
)
from echo_desk.tools.secrets import secrets_kept
from echo_desk.ui.core import i18n_qt, marshal, theme
from echo_desk.ui.settings.mcp_rows import KeyValueRows

if TYPE_CHECKING:
    from echo_desk.mcp.manager import McpManager

TRANSPORTS: tuple[Transport, ...] = ("stdio", "http", "sse")


def _form_page() -> tuple[QWidget, QFormLayout]:
    page = QWidget()
    outer = QVBoxLayout(page)
    outer.setContentsMargins(0, 0, 0, 0)
    form = QFormLayout()
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
    outer.addLayout(form)
    outer.addStretch(1)  # spare height goes below the fields, not between them
    return page, form


class ServerFormDialog(QDialog):
    """Non-blocking: ``open()`` it. ``saved`` carries the saved server's name."""

    saved = Signal(str)

    def __init__(self, manager: McpManager, config: ServerConfig | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.manager = manager
        self.original = config.name if config is not None else ""
        # Not on the form (mcp.json only): kept as they were, never dropped by an edit.
        self._allowed_domains = config.allowed_domains if config is not None else ()
        self.resize(860, 660)
        layout = QVBoxLayout(self)
        top, form = _form_page()
        self.name = QLineEdit()
        self.transport = QComboBox()
        for _t in TRANSPORTS:
            self.transport.addItem("", _t)
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(1, 86400)
        self.timeout.setDecimals(0)
        self.timeout.setValue(60)
        self.enabled = QCheckBox()
        self.enabled.setChecked(True)
        self.name_label, self.transport_label, self.timeout_label = QLabel(), QLabel(), QLabel()
        form.addRow(self.name_label, self.name)
        form.addRow(self.transport_label, self.transport)
        form.addRow(self.timeout_label, self.timeout)
        form.addRow("", self.enabled)
        layout.addWidget(top)

        self.pages = QStackedWidget()
        stdio, sform = _form_page()
        self.command, self.args, self.cwd = QLineEdit(), QPlainTextEdit(), QLineEdit()
        self.args.setFixedHeight(96)
        self.split_button = QPushButton()
        self.split_button.clicked.connect(self._split)
        # Read-only text rather than a word-wrapped label: it wraps at any character (long paths)
        # and keeps a steady height inside the form.
        self.runs = QPlainTextEdit()
        self.runs.setReadOnly(True)
        self.runs.setFixedHeight(64)
        self.runs.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.runs.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.runs_label = QLabel()
        self.command_label, self.args_label, self.cwd_label = QLabel(), QLabel(), QLabel()
        sform.addRow(self.command_label, self.command)
        sform.addRow(self.args_label, self.args)
        sform.addRow("", self.split_button)
        sform.addRow(self.runs_label, self.runs)
        sform.addRow(self.cwd_label, self.cwd)
        self.sandboxed = QCheckBox()
        sform.addRow("", self.sandboxed)
        self.env = KeyValueRows()
        self.env_box = QGroupBox()
        QVBoxLayout(self.env_box).addWidget(self.env)
        sform.addRow(self.env_box)
        self.pages.addWidget(stdio)
        remote, rform = _form_page()
        self.url = QLineEdit()
        self.url.setPlaceholderText("https://example.com/mcp")
        self.url_label = QLabel()
        rform.addRow(self.url_label, self.url)
        self.headers = KeyValueRows()
        self.headers_box = QGroupBox()
        QVBoxLayout(self.headers_box).addWidget(self.headers)
        rform.addRow(self.headers_box)
        self.sign_in_box = QGroupBox()
        sign_in_form = QFormLayout(self.sign_in_box)
        self.sign_in_hint = QLabel()
        self.sign_in_hint.setWordWrap(True)
        sign_in_form.addRow(self.sign_in_hint)
        self.client_id, self.client_secret = QLineEdit(), QLineEdit()
        self.client_secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.client_metadata_url, self.scope = QLineEdit(), QLineEdit()
        self.client_metadata_url.setPlaceholderText("https://example.org/echo-desk-client.json")
        self._client_secret_kept: Value | None = None
        self.client_id_label, self.client_secret_label = QLabel(), QLabel()
        self.client_metadata_label, self.scope_label = QLabel(), QLabel()
        sign_in_form.addRow(self.client_id_label, self.client_id)
        sign_in_form.addRow(self.client_secret_label, self.client_secret)
        sign_in_form.addRow(self.client_metadata_label, self.client_metadata_url)
        sign_in_form.addRow(self.scope_label, self.scope)
        rform.addRow(self.sign_in_box)
        self.pages.addWidget(remote)
        layout.addWidget(self.pages, 1)

        self.error = QLabel()
        self.error.setWordWrap(True)
        theme.styled(self.error, lambda p: f"color: {p.danger};")
        self.error.setVisible(False)
        layout.addWidget(self.error)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)

        self.transport.currentIndexChanged.connect(lambda i: self.pages.setCurrentIndex(0 if i == 0 else 1))
        self.command.textChanged.connect(self._show_runs)
        self.args.textChanged.connect(self._show_runs)
        if config is not None:
            self.load(config)
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.setWindowTitle(_("Edit MCP server “{name}”").format(name=self.original) if self.original
                            else _("Add an MCP server"))
        self.name_label.setText(_("Name:"))
        self.name.setPlaceholderText(_("letters, digits, - and _"))
        self.transport_label.setText(_("Transport:"))
        for i, text in enumerate((_("Local program (stdio)"), _("Streamable HTTP"), _("SSE (older servers)"))):
            self.transport.setItemText(i, text)
        self.timeout_label.setText(_("Tool call timeout:"))
        self.timeout.setSuffix(_(" s"))
        self.enabled.setText(_("Enabled (start it when Echo Desk starts)"))
        self.command_label.setText(_("Command:"))
        self.command.setPlaceholderText(_("e.g. npx, uvx, /usr/local/bin/my-server"))
        self.args_label.setText(_("Arguments:"))
        self.args.setPlaceholderText(_("One argument per line, exactly as passed to the program"))
        self.split_button.setText(_("Split a pasted command line into arguments"))
        self.cwd_label.setText(_("Working folder:"))
        self.cwd.setPlaceholderText(_("optional"))
        self.sandboxed.setText(_("Start it in the sandbox (its working folder writable, secrets hidden, no network)"))
        self.env_box.setTitle(_("Environment variables"))
        self.env.retranslate(_("Add variable"))
        self.url_label.setText(_("Server URL:"))
        self.headers_box.setTitle(_("HTTP headers"))
        self.headers.retranslate(_("Add header"))
        self.sign_in_box.setTitle(_("Sign-in (OAuth)"))
        self.sign_in_hint.setText(_("Leave these empty when the service lets Echo Desk register itself. Paste a "
                                    "client ID (and its secret) when the service asks you to register an app by "
                                    "hand."))
        self.client_id_label.setText(_("Client ID:"))
        self.client_secret_label.setText(_("Client secret:"))
        self.client_secret.setPlaceholderText(
            _("(stored in keyring)") if self._client_secret_kept
            else _("only for a confidential client; kept in the keyring") if secrets_kept()
            else _("only for a confidential client; kept until Echo Desk exits (no system keyring)"))
        self.client_metadata_label.setText(_("Client metadata URL:"))
        self.scope_label.setText(_("Extra scopes:"))
        self.scope.setPlaceholderText(_("optional, separated by spaces"))
        for label, line in ((self.client_id_label, self.client_id), (self.client_secret_label, self.client_secret),
                            (self.client_metadata_label, self.client_metadata_url), (self.scope_label, self.scope)):
            line.setAccessibleName(label.text().rstrip(":："))
        for label, field in ((self.name_label, self.name), (self.transport_label, self.transport),
                             (self.timeout_label, self.timeout), (self.command_label, self.command),
                             (self.args_label, self.args), (self.cwd_label, self.cwd), (self.url_label, self.url)):
            field.setAccessibleName(label.text().rstrip(":："))
        self.enabled.setAccessibleName(self.enabled.text())
        self.split_button.setAccessibleName(self.split_button.text())
        self.runs_label.setText(_("Will run:"))
        self.runs.setAccessibleName(_("The exact program and arguments that will run"))
        self.runs.setPlaceholderText(_("Nothing yet: type the command above."))
        labels = (self.name_label, self.transport_label, self.timeout_label, self.command_label, self.args_label,
                  self.runs_label, self.cwd_label, self.url_label)
        width = max(label.sizeHint().width() for label in labels)
        for label in labels:  # one label column for the three forms, in every language
            label.setMinimumWidth(width)
        self.save_button.setAccessibleName(_("Save this server"))
        self._show_runs()

    def load(self, cfg: ServerConfig) -> None:
        self.name.setText(cfg.name)
        self.transport.setCurrentIndex(TRANSPORTS.index(cfg.transport))
        self.timeout.setValue(cfg.timeout)
        self.enabled.setChecked(cfg.enabled)
        self.command.setText(cfg.command)
        self.args.setPlainText("\n".join(cfg.args))
        self.cwd.setText(cfg.cwd)
        self.sandboxed.setChecked(cfg.sandbox)
        self.env.set_values(cfg.env)
        self.url.setText(cfg.url)
        self.headers.set_values(cfg.headers)
        self.client_id.setText(cfg.oauth.client_id)
        self._client_secret_kept = cfg.oauth.client_secret
        self.client_metadata_url.setText(cfg.oauth.client_metadata_url)
        self.scope.setText(cfg.oauth.scope)

    def draft(self) -> ServerDraft:
        return ServerDraft(name=self.name.text(), transport=TRANSPORTS[self.transport.currentIndex()],
                           command=self.command.text(), args=args_from_text(self.args.toPlainText()),
                           env=tuple(self.env.values()), cwd=self.cwd.text(), url=self.url.text(),
                           headers=tuple(self.headers.values()), enabled=self.enabled.isChecked(),
                           timeout=float(self.timeout.value()), sandbox=self.sandboxed.isChecked(),
                           allowed_domains=self._allowed_domains, client_id=self.client_id.text(),
                           client_secret=self.client_secret.text(), client_secret_kept=self._client_secret_kept,
                           client_metadata_url=self.client_metadata_url.text(), scope=self.scope.text())

    def _show_runs(self) -> None:
        line = [self.command.text().strip(), *args_from_text(self.args.toPlainText())]
        # An empty form showed [""]: with nothing to run the box is empty and its placeholder speaks.
        self.runs.setPlainText(json.dumps(line, ensure_ascii=False) if any(line) else "")

    def _split(self) -> None:
        try:
            command, args = split_command_line(self.command.text(), self.args.toPlainText())
        except FormError as exc:  # e.g. an unclosed quote: why in the person's words, shlex's in the tooltip
            from echo_desk.common.explain import technical_detail

            self._fail(_("Cannot split that command line: {error}").format(error=_(exc.message).format(**exc.params)),
                       visible(technical_detail(exc)))
            return
        self.command.setText(command)
        self.args.setPlainText("\n".join(args))

    def _fail(self, text: str, detail: str = "") -> None:
        self.error.setText(text)
        self.error.setToolTip(detail)  # the developer's words for what failed, for a report
        self.error.setVisible(True)
        self.save_button.setEnabled(True)

    def _failed(self, message: str, exc: BaseException) -> None:
        """``message`` with ``{reason}``: why ``exc`` happened in the person's language
        (``explain``), the exception's own English in the tooltip."""
        from echo_desk.common.explain import technical_detail
        from echo_desk.mcp.explain import explained

        self._fail(message.format(reason=shown(explained(exc, quote_detail=False))), visible(technical_detail(exc)))

    def save(self) -> None:
        """Check the form; if it is fine, store the secrets and save through the manager."""
        # Asked before the secrets go to the keyring: the save itself would be refused.
        if refusal := self.manager.edit_refusal():
            self._fail(refusal)
            return
        taken = set(self.manager.configs())
        try:
            built = build_server(self.draft(), taken=taken - {self.original}, original=self.original)
        except FormError as exc:
            self._fail(_(exc.message).format(**exc.params))
            return
        self.error.setVisible(False)
        self.save_button.setEnabled(False)
        marshal.spawn(self._save(built.config, built.secrets))

    async def _save(self, config: ServerConfig, secrets: dict[str, str]) -> None:
        try:
            if secrets:
                await marshal.BackgroundOp(store_secrets, secrets).run_async()
        except Exception as exc:  # e.g. the keyring is locked: mcp.json was not touched yet  # noqa: BLE001
            self._failed(_("Not saved: the keyring did not take the secrets, and mcp.json was not changed "
                           "({reason})"), exc)
            return
        try:
            if self.original and config.name != self.original:
                # A rename is one change of mcp.json: the old entry goes, the new one needs approval.
                await self.manager.rename_server(self.original, config, wait=False)
                self.manager.revoke_start(self.original)
            else:
                await self.manager.set_server(config, wait=False)
        except Exception as exc:  # e.g. mcp.json not writable: say so, stay open  # noqa: BLE001
            # A secret already given to the keyring stays there: the next save uses it again.
            self._failed(_("Not saved: mcp.json was not changed ({reason})"), exc)
            return
        self.saved.emit(config.name)
        self.accept()
