"""Screenshots of the gateway: another program's agent (here the official MCP Python SDK client,
as "cursor") asks through ``echo-desk gateway`` to edit a file, and Echo Desk's own approval
dialog opens headed with the client; then the client withdraws the request and the dialog says
so. Real engine, real gateway process, real client; English and Chinese. Also the catalog's view of
what one client sees (Settings › Tools, "Shown to: Cursor").

Run:  xvfb-run -a -s "-screen 0 1280x800x24" env QT_QPA_PLATFORM=xcb python scripts/screenshots_gateway.py
Writes docs/screenshots/gateway_{approval,withdrawn,catalog}_{en,zh}.png.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import sys
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from shots_home import shots_home  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
HOME = shots_home("echo-desk-gw-shots-")
for var, sub in (("ECHO_DESK_CONFIG_DIR", "config"), ("ECHO_DESK_DATA_DIR", "data")):
    os.environ[var] = str(HOME / sub)
os.environ["ECHO_DESK_GATEWAY_SOCKET"] = str(HOME / "gw.sock")
os.environ["ECHO_DESK_GATEWAY_START"] = "0"

from mcp import Client, StdioServerParameters  # noqa: E402
from PySide6.QtCore import QCoreApplication, QDeadlineTimer  # noqa: E402
from PySide6.QtWidgets import QWidget  # noqa: E402

from echo_desk.gateway.service import GatewayService  # noqa: E402
from echo_desk.runtime import Runtime  # noqa: E402
from echo_desk.store.settings import GatewayClient, SettingsStore  # noqa: E402
from echo_desk.ui.approval.approval_dialog import ApprovalDialog  # noqa: E402
from echo_desk.ui.approval.host import QtHost  # noqa: E402
from echo_desk.ui.core import i18n_qt  # noqa: E402
from scripts.shots_loop import run_shots  # noqa: E402

T = TypeVar("T")
WORKSPACE = HOME / "shop"
NOTES = """# Release notes

## 2.4.0
- Faster checkout page
- Fixed the currency rounding on invoices
"""
#: The release notes and the client's edit in each picture's language: (file, text, old line, new line).
DEMO = {"en": ("RELEASE_NOTES.md", NOTES, "- Fixed the currency rounding on invoices\n", "- Orders export to CSV\n"),
        "zh": ("更新说明.md", "# 更新说明\n\n## 2.4.0\n- 结账页面更快了\n- 修正了发票金额的舍入\n",
               "- 修正了发票金额的舍入\n", "- 订单可导出为 CSV\n")}


def settle(ms: int = 400) -> None:
    deadline = QDeadlineTimer(ms)
    while not deadline.hasExpired():
        QCoreApplication.processEvents()


def save(widget: QWidget, name: str) -> None:
    settle()
    widget.grab().save(str(OUT / name))
    print(f"wrote docs/screenshots/{name}")


class ClientThread:
    """The MCP client on a loop of its own (the window's loop stays free for the dialog)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.stack = contextlib.AsyncExitStack()
        self.client: Client | None = None

    def run(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    async def _open(self) -> None:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "echo_desk", "gateway", "--client", "cursor"],
            env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=str(WORKSPACE))
        self.client = await self.stack.enter_async_context(Client(params, mode="legacy"))

    def open(self) -> None:
        self.run(self._open()).result(120)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.run(self.stack.aclose()).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)


def main() -> None:
    WORKSPACE.mkdir(parents=True)
    for name, text, _old, _new in DEMO.values():
        (WORKSPACE / name).write_text(text, encoding="utf-8")
    store = SettingsStore.in_dir(HOME / "config")
    store.update(lambda s: setattr(s.gateway, "clients", {
        "cursor": GatewayClient(builtins=True, hidden_tools=["run_command"]), "claude-code": GatewayClient()}))
    runtime = Runtime.create(settings_store=store, data_dir=HOME / "data", with_plugins=False)
    host = QtHost()
    service = GatewayService(runtime, host)
    service.start_in_thread()
    client = ClientThread()
    client.open()

    def shot(language: str) -> Any:
        async def run() -> None:
            i18n_qt.apply_language("zh_CN" if language == "zh" else "en")
            opened: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            host.dialog_opened.connect(lambda d: opened.done() or opened.set_result(d))
            assert client.client is not None
            name, _text, old, new = DEMO[language]
            call = client.run(client.client.call_tool("edit_file", {
                "path": name, "edits": [{"old": old, "new": old + new}]}))
            dialog = await asyncio.wait_for(opened, 60)
            assert isinstance(dialog, ApprovalDialog)
            dialog.resize(980, 680)
            settle(800)
            save(dialog, f"gateway_approval_{language}.png")
            call.cancel()  # the client gives up: notifications/cancelled
            for _ in range(300):
                if dialog.withdrawn:
                    break
                await asyncio.sleep(0.05)
            save(dialog, f"gateway_withdrawn_{language}.png")
            dialog.close()
            host.dialog_opened.disconnect()

        return run

    def catalog(language: str) -> Any:
        async def run() -> None:
            from echo_desk.ui.core.backend import CatalogBackend
            from echo_desk.ui.settings.catalog_page import ToolsPage

            i18n_qt.apply_language("zh_CN" if language == "zh" else "en")
            page = ToolsPage(CatalogBackend(store, runtime))
            page.resize(1200, 640)
            page.show()
            index = page.clients.findData("cursor")
            page.clients.setCurrentIndex(index)
            page.clients.activated.emit(index)
            save(page, f"gateway_catalog_{language}.png")
            page.close_page()
            page.close()

        return run

    try:
        run_shots(OUT, catalog("en"), catalog("zh"), shot("en"), shot("zh"))
    finally:
        client.close()
        service.close()
        runtime.close()


if __name__ == "__main__":
    main()
