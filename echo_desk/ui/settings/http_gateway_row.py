"""The switch of the gateway's optional HTTP listener (``Settings.gateway.http_enabled`` and
``http_port``), on Settings › Connected apps, and what came of it: listening at its address, or
why not (another program has the port: ``GatewayService.http_error``), where it was switched on.

The gateway applies the setting on its own loop, a moment later; the row looks again twice a
second while it is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from echo_desk.i18n import _, shown
from echo_desk.store.settings import Settings, SettingsStore
from echo_desk.ui.core import i18n_qt, marshal, theme

if TYPE_CHECKING:
    from echo_desk.gateway.service import GatewayService

LOOK_AGAIN_MS = 500


class HttpGatewayRow(QWidget):
    def __init__(self, settings: SettingsStore, gateway: GatewayService | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.gateway = gateway
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.enabled = QCheckBox()
        self.enabled.toggled.connect(self._set_enabled)
        self.port = QSpinBox()
        self.port.setRange(1024, 65535)
        self.port.setKeyboardTracking(False)  # one change when typed, not one per digit
        self.port.valueChanged.connect(self._set_port)
        row.addWidget(self.enabled)
        row.addWidget(self.port)
        row.addStretch(1)
        layout.addLayout(row)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self._timer = QTimer(self)
        self._timer.setInterval(LOOK_AGAIN_MS)
        self._timer.timeout.connect(self.show_status)
        self._unsubscribe = settings.subscribe(lambda _s: marshal.run_on_main(self._show_setting))
        self._show_setting()
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def close_row(self) -> None:
        self._timer.stop()
        self._unsubscribe()

    def retranslate(self, *_args: object) -> None:
        self.enabled.setText(_("Also serve MCP over &HTTP, for apps that take only a URL, on 127.0.0.1 port"))
        self.port.setAccessibleName(_("HTTP gateway port"))
        self.show_status()

    def _show_setting(self) -> None:
        current = self.settings.current.gateway
        for widget, value in ((self.enabled, current.http_enabled), (self.port, current.http_port)):
            widget.blockSignals(True)
            if isinstance(widget, QCheckBox):
                widget.setChecked(bool(value))
            else:
                widget.setValue(int(value))
            widget.blockSignals(False)
        self.show_status()

    def _change(self, **update: object) -> None:
        def change(s: Settings) -> None:
            s.gateway = s.gateway.model_copy(update=update)

        self.settings.update(change)

    def _set_enabled(self, on: bool) -> None:
        self._change(http_enabled=on)

    def _set_port(self, port: int) -> None:
        self._change(http_port=port)

    def show_status(self) -> None:
        """Listening at its address, starting, or why it is not running, as the gateway says now."""
        current = self.settings.current.gateway
        failed = False
        if not current.http_enabled:
            text = ""
        elif self.gateway is None:
            text = _("Saved; it starts with Echo Desk's gateway, which is not running in this window.")
        elif self.gateway.http_error:
            text, failed = shown(self.gateway.http_error), True
        elif self.gateway.http_port == current.http_port:
            text = _("Listening on {url}; each app needs its own bearer token ({command} shows it).").format(
                url=f"http://127.0.0.1:{current.http_port}/mcp", command="echo-desk gateway token --client NAME")
        else:
            text = _("Starting…")
        if self.status.text() != text:
            self.status.setText(text)
            self.status.setStyleSheet(f"color: {theme.colour('warn')}" if failed else "")

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._timer.start()
        self.show_status()

    def hideEvent(self, event: QHideEvent) -> None:
        self._timer.stop()
        super().hideEvent(event)
