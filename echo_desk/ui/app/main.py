"""``run_gui``: the desktop app on a qasync loop.

Order matters for start-up time: Qt and the (light) window first, painted; then settings,
engine, storage and model in ``services.load_services``. Closing the window stops the turn,
closes the engine and the model, ends our worker threads, and only then quits Qt.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QWidget

from echo_desk.common.json_text import read_json
from echo_desk.i18n import LANGUAGES, _
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.core import app_icon, i18n_qt, marshal, theme
from echo_desk.ui.core.gui_collector import GuiThreadCollector

if TYPE_CHECKING:
    import asyncio

    from echo_desk.mcp.status import McpEvent
    from echo_desk.store.settings import LocalModelSettings, ProviderSettings, Settings
    from echo_desk.ui.app.checked_after_restart_notice import CheckedAfterRestartNotice
    from echo_desk.ui.app.left_at_quit_notice import LeftAtQuitNotice
    from echo_desk.ui.app.services import Services
    from echo_desk.ui.app.single_instance import SingleInstance
    from echo_desk.ui.core.file_watch import FileWatch
    from echo_desk.ui.settings.settings_dialog import SettingsDialog

log = logging.getLogger(__name__)


def _early_setting(key: str, allowed: tuple[str, ...]) -> str | None:
    """A saved setting, read without pydantic so the first frame already uses it."""
    from echo_desk.store.paths import config_dir

    try:
        raw = read_json((config_dir() / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = raw.get(key) if isinstance(raw, dict) else None
    return value if value in allowed else None


def early_language() -> str | None:
    """The saved language (``en``/``zh_CN``), or ``None`` for the system's."""
    return _early_setting("language", LANGUAGES)


class _FirstPaint(QObject):
    """Notes the time of the window's first paint."""

    painted = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.painted_at: float | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.painted_at is None:
            self.painted_at = time.time()
            self.painted.emit()
        return False


def freeze_start_up_objects() -> None:
    """Collect once, then move everything alive after start-up (modules, the engine, Pygments'
    tables, Qt wrappers: ~80,000 objects) out of the garbage collector's reach. Otherwise the
    next full collection walks them all, a pause of ~100 ms that lands on whatever the person
    does first (often opening a conversation). They live until the app quits anyway."""
    gc.collect()
    gc.freeze()


def show_first_frame(window: QWidget, timeout_ms: int = 3000) -> float | None:
    """Show ``window`` and run Qt until it has painted once (before asyncio/qasync exist)."""
    painter = _FirstPaint()
    window.installEventFilter(painter)
    local = QEventLoop()
    painter.painted.connect(local.quit)
    QTimer.singleShot(timeout_ms, local.quit)
    window.show()
    if painter.painted_at is None:
        local.exec()
    window.removeEventFilter(painter)
    return painter.painted_at


class App:
    """Owns the window and the services for one run of the GUI."""

    def __init__(self, qapp: QApplication) -> None:
        self.qapp = qapp
        # From the start: engine threads allocate from the first load on (``gui_collector``).
        self._collector = GuiThreadCollector(qapp)
        self.window = MainWindow(defer_extras=True)  # the hidden parts follow the first frame
        self.services: Services | None = None
        self.settings_dialog: SettingsDialog | None = None
        #: Takes what another process saves in the settings and mcp.json (``ui.core.file_watch``).
        self._config_watch: FileWatch | None = None
        #: What sandboxed servers left as Echo Desk last quit, told once at start (``left_at_quit_notice``).
        self._left_at_quit: LeftAtQuitNotice | None = None
        #: Sandboxed commands' checks owed when Echo Desk was last closed, made and told at start.
        self._checked_after_restart: CheckedAfterRestartNotice | None = None
        # What the connected model was made from; a change reconnects.
        self._model_config: tuple[str, dict[str, ProviderSettings], LocalModelSettings] | None = None
        # Made on the loop in ``main``: asyncio loads after the first frame. A close before then is kept.
        self._closed: asyncio.Event | None = None
        self._closing = False
        self.window.closing.connect(self._close_requested)
        qapp.aboutToQuit.connect(self._close_requested)
        self.window.settings_requested.connect(self.open_settings)
        self.window.model_chosen.connect(self._on_model_chosen)

    def stop_collecting(self) -> None:
        """Give Python's automatic collector back (the app is leaving, or a test ran it in-process)."""
        self._collector.stop()

    def _close_requested(self) -> None:
        self._closing = True
        if self._closed is not None:
            self._closed.set()

    async def main(self) -> int:
        import asyncio

        closed = self._closed = asyncio.Event()
        if self._closing:
            closed.set()
        if not self.window.isVisible():
            self.window.show()
        await self.load()
        await closed.wait()
        await self.shutdown()
        return 0

    async def load(self) -> None:
        from echo_desk.ui.app.services import load_services, start_gateway
        from echo_desk.ui.approval.host import warm_up_approvals
        from echo_desk.ui.chat.markdown import preload_code_lexers, warm_up
        from echo_desk.ui.widgets.diff_view import warm_up as warm_up_diffs

        warm_up()
        warm_up_diffs()
        preload_code_lexers()
        self.services = await load_services(host=self.window.host)
        start_gateway(self.services, self.window.host)
        self.window.attach(self.services)
        self.window.set_model(self.services.model)
        self.window.set_banner(self.services.banner)
        if self.services.mcp is not None:
            self.services.mcp.subscribe(lambda event: marshal.run_on_main(self._on_mcp_event, event))
        current = self.services.settings.current
        self._model_config = (current.active_provider, current.providers, current.local_model)
        self.services.settings.subscribe(lambda s: marshal.run_on_main(self._on_settings, s))
        self._watch_config_folder(self.services)
        self._tell_when_settings_are_not_saved(self.services)
        self._tell_what_was_put_aside_at_the_last_quit(self.services)
        self._make_the_checks_owed_since_the_last_close(self.services)
        warm_up_approvals()
        freeze_start_up_objects()

    def _watch_config_folder(self, services: Services) -> None:
        from echo_desk.mcp.config import config_path
        from echo_desk.store.private import private_dir
        from echo_desk.ui.core.file_watch import FileWatch

        settings, mcp = services.settings, services.mcp

        def changed() -> None:
            settings.refresh()
            if mcp is not None:  # servers another program added or removed start or stop here too
                marshal.spawn(mcp.reload_if_changed())

        if settings.path is not None:
            self._config_watch = FileWatch([private_dir(settings.path.parent)], [settings.path, config_path()],
                                           changed, self.window)

    def _tell_when_settings_are_not_saved(self, services: Services) -> None:
        from echo_desk.ui.app.save_failures import SaveFailureNotice

        def where_the_person_looks() -> QWidget:
            dialog = self.settings_dialog
            return dialog if dialog is not None and dialog.isVisible() else self.window

        folder = services.settings.path.parent if services.settings.path is not None else None
        if folder is not None:
            notice = SaveFailureNotice(folder, where_the_person_looks)
            services.settings.report_save_failures(lambda error: marshal.run_on_main(notice.show, error))

    def _tell_what_was_put_aside_at_the_last_quit(self, services: Services) -> None:
        store = services.runtime.left_at_quit if services.runtime is not None else None
        if store is not None:
            from echo_desk.ui.app.left_at_quit_notice import LeftAtQuitNotice

            self._left_at_quit = LeftAtQuitNotice(store, self.window)
            self._left_at_quit.check()

    def _make_the_checks_owed_since_the_last_close(self, services: Services) -> None:
        if services.runtime is not None and services.runtime.owed_checks is not None:
            from echo_desk.ui.app.checked_after_restart_notice import CheckedAfterRestartNotice

            self._checked_after_restart = CheckedAfterRestartNotice(
                services.runtime, services.conversations, self.window,
                on_card=lambda card: self.window.session.show_updated_card(card.conversation_id, card.call_id,
                                                                           card.envelope))
            self._checked_after_restart.check()

    def _on_settings(self, settings: Settings) -> None:
        wanted = (settings.active_provider, settings.providers, settings.local_model)
        if wanted != self._model_config:
            # The model's configuration changed (Models page, model picker): connect anew.
            self._model_config = wanted
            self.window.fill_models()
            marshal.spawn(self._reconnect())

    def _on_mcp_event(self, event: McpEvent) -> None:
        # New or changed MCP tools: the catalog (if open) re-reads the registry.
        if self.settings_dialog is not None:
            self.settings_dialog.tools.sync_registry()

    def _on_model_chosen(self, name: str) -> None:
        if self.services is None or not name:
            return

        def change(s: Settings) -> None:
            s.active_provider = name

        self.services.settings.update(change)  # _on_settings reconnects

    async def _reconnect(self) -> None:
        from echo_desk.ui.app.services import connect_model

        services = self.services
        if services is None:  # settings change before the services loaded: nothing is connected yet
            return
        await connect_model(services)
        self.window.set_model(services.model)
        self.window.refresh_banner()

    def open_settings(self) -> None:
        if self.services is None:
            return
        if self.settings_dialog is not None and self.settings_dialog.isVisible():
            self.settings_dialog.raise_()
            self.settings_dialog.activateWindow()
            return
        from echo_desk.ui.settings.settings_dialog import SettingsDialog

        models_page = None
        from echo_desk.ui.app.services import model_factory

        factory = model_factory()
        if factory is not None:
            from echo_desk.ui.settings.models_page import ModelsPage

            models_page = ModelsPage(self.services.settings, factory)
        mcp_page: QWidget | None = None
        if self.services.mcp is not None:
            from echo_desk.store.paths import config_dir
            from echo_desk.ui.settings.mcp_page import McpPage

            mcp_page = McpPage(self.services.mcp, self.window.host, str(config_dir() / "mcp.json"))
        elif self.services.mcp_error:
            from echo_desk.ui.app.services import mcp_failed_text
            from echo_desk.ui.settings.settings_dialog import PlaceholderPage

            error = self.services.mcp_error
            mcp_page = PlaceholderPage(lambda: mcp_failed_text(error))
        from echo_desk.ui.settings.connected_apps_page import ConnectedAppsPage

        manager = self.services.mcp
        # Moving an app's servers into mcp.json: the running servers follow it (new ones wait for approval).
        connected_page = ConnectedAppsPage(self.services.settings, self.services.backend,
                                           after_change=manager.reload if manager is not None else None,
                                           gateway=self.services.gateway)
        self.settings_dialog = SettingsDialog(self.services.backend, self.window, models_page=models_page,
                                              mcp_page=mcp_page, connected_page=connected_page,
                                              workspace=self.window.workspace_folder)
        self.settings_dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.settings_dialog.destroyed.connect(self._settings_gone)
        self.settings_dialog.show()

    def _settings_gone(self, *_args: object) -> None:
        self.settings_dialog = None

    async def shutdown(self) -> None:
        if self._config_watch is not None:  # nothing re-read or restarted while closing
            self._config_watch.stop()
            self._config_watch = None
        self.window.session.stop()
        if self.services is not None:
            # Before the dialogs are refused: a connected app's call waiting in one is withdrawn
            # and answered that Echo Desk quit (its session handed back), never "denied".
            await self.services.close_gateway()
        self.window.host.cancel_dialogs()  # e.g. an MCP first-start question still open: refused
        await self.window.session.wait_idle()
        if self.settings_dialog is not None:
            self.settings_dialog.close()
        if self.services is not None:
            await self.services.aclose()
        import asyncio

        current = asyncio.current_task()
        others = [t for t in marshal.pending_tasks() if t is not current]
        for task in others:
            task.cancel()
        if others:
            await asyncio.wait(others, timeout=5)
        await marshal.shutdown()


def close_on_signals(window: QWidget) -> None:
    """SIGTERM and SIGINT close the window like its close button: the same clean shutdown
    (turn stopped, dialogs refused, MCP servers and the model server ended)."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: QTimer.singleShot(0, window.close))
    # Python runs signal handlers only between bytecodes; let it look while Qt idles.
    wake = QTimer(window)
    wake.timeout.connect(lambda: None)
    wake.start(250)


def _bring_forward(window: QWidget) -> None:
    from echo_desk.ui.core.desktop_notify import bring_forward  # only when a second launch asks

    bring_forward(window)


def run_gui(argv: list[str] | None = None) -> int:
    """Open the main window and run until it is closed. Returns the process exit code."""
    argv = list(sys.argv if argv is None else argv) or ["echo-desk"]
    qapp = QApplication.instance() or QApplication(argv)
    assert isinstance(qapp, QApplication)
    qapp.setApplicationName("Echo Desk")
    qapp.setOrganizationName("Echo Desk")
    app_icon.apply_app_identity(qapp)
    # We quit after our own clean shutdown, not when the last window hides.
    qapp.setQuitOnLastWindowClosed(False)
    from echo_desk.ui.app.single_instance import SingleInstance

    instance = SingleInstance()
    if not instance.claim():  # another Echo Desk of this person is open: it comes forward
        if instance.answered:
            return 0
        i18n_qt.apply_language(early_language())  # said in the person's language
        print(_("Echo Desk is already running with these settings, but it did not answer."), file=sys.stderr)
        return 1
    marshal.install()
    i18n_qt.apply_language(early_language())
    theme.apply_theme(_early_setting("theme", tuple(theme.ThemeChoice)))
    app = App(qapp)
    try:
        return _run_app(app, qapp, instance)
    finally:
        app.stop_collecting()  # every way out: the engine's threads are done by then


def _run_app(app: App, qapp: QApplication, instance: SingleInstance) -> int:
    instance.activated.connect(lambda: _bring_forward(app.window))
    painted_at = show_first_frame(app.window)
    if os.environ.get("ECHO_DESK_EXIT_AFTER_FIRST_FRAME"):
        # For bench/ui_startup.py: report when the first frame was painted, then leave.
        print(f"FIRST_FRAME {painted_at or 0:.6f}", flush=True)
        app.window.hide()
        return 0
    app.window.build_extras()
    instance.listen()  # a later launch brings this window forward
    from echo_desk import sandbox

    sandbox.check_at_start()  # bwrap is probed on its own thread while the engine loads
    import asyncio

    import qasync  # after the first frame: the window is already on screen

    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    close_on_signals(app.window)
    try:
        with loop, marshal.asyncgen_hooks(loop):
            return int(loop.run_until_complete(app.main()))
    finally:
        instance.close()
        asyncio.set_event_loop(None)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    raise SystemExit(run_gui())
