"""Screenshots of MCP sign-in, resources, prompts and URL questions for docs/mcp.md, through the
real widgets, the real MCP manager, a real authorization server on loopback (Authlib, as in the
sign-in tests; the browser step is driven by an HTTP client) and the real server-everything.

Run:  xvfb-run -a -s "-screen 0 1280x800x24" env QT_QPA_PLATFORM=xcb python scripts/screenshots_mcp_sign_in.py
Writes docs/screenshots/mcp_{sign_in,signed_in,form_sign_in,resources,prompt_form,url_question}{,_zh}.png.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "screenshots"
sys.path.insert(0, str(ROOT / "scripts"))
from shots_home import shots_home  # noqa: E402

HOME = shots_home("echo-desk-mcp-shots-")
for var, sub in (("ECHO_DESK_CONFIG_DIR", "config"), ("ECHO_DESK_DATA_DIR", "data"), ("ECHO_DESK_CACHE_DIR", "cache")):
    os.environ[var] = str(HOME / sub)

import qasync  # noqa: E402
from PySide6.QtCore import QObject, QUrl, Slot  # noqa: E402
from PySide6.QtGui import QDesktopServices  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from echo_desk.mcp import McpManager  # noqa: E402
from echo_desk.mcp.config import parse_server  # noqa: E402
from echo_desk.mcp.oauth import loopback_http_allowed  # noqa: E402
from echo_desk.mcp.status import ServerState  # noqa: E402
from echo_desk.runtime import Runtime  # noqa: E402
from echo_desk.store.conversations import ConversationStore  # noqa: E402
from echo_desk.store.settings import SettingsStore  # noqa: E402
from echo_desk.tools import Question, secrets  # noqa: E402
from echo_desk.ui.app.services import Services  # noqa: E402
from echo_desk.ui.approval.host import QtHost  # noqa: E402
from echo_desk.ui.approval.question_dialog import QuestionDialog  # noqa: E402
from echo_desk.ui.chat.chat_window import MainWindow  # noqa: E402
from echo_desk.ui.core import i18n_qt, marshal  # noqa: E402
from echo_desk.ui.core.backend import CatalogBackend  # noqa: E402
from echo_desk.ui.settings.mcp_page import McpPage  # noqa: E402
from tests.mcp.conftest import everything_config  # noqa: E402
from tests.mcp.oauth.authlib_server import AuthlibServer  # noqa: E402
from tests.mcp.oauth.browser import Browser  # noqa: E402
from tests.mcp.oauth.resource_server import Guard, make_resource_app  # noqa: E402
from tests.mcp.oauth.serving import Served  # noqa: E402

LANGS = (("en", ""), ("zh_CN", "_zh"))


class _Browser(QObject):
    """Stands in for the person's browser: an HTTP client signs in and approves."""

    def __init__(self) -> None:
        super().__init__()
        self.browser = Browser()

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.browser.start(url.toString(QUrl.ComponentFormattingOption.FullyEncoded))


async def until(check: Callable[[], object], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("the screen did not reach the state to shoot")
        await asyncio.sleep(0.05)


async def settle() -> None:
    await asyncio.sleep(0.3)  # a screenshot script, not a test: let Qt paint


async def sign_in_shots(world_url: str, issuer: str) -> None:
    for lang, suffix in LANGS:
        await sign_in_shots_in(lang, suffix, world_url)
        print("sign-in shots", lang, issuer)


async def sign_in_shots_in(lang: str, suffix: str, world_url: str) -> None:
    i18n_qt.apply_language(lang)
    secrets.install_secret_store(secrets.MemorySecretStore())  # each language signs in afresh
    servers = {"docs-hub": parse_server("docs-hub", {"type": "http", "url": world_url})}
    manager = McpManager(SettingsStore.in_memory(), servers=servers)
    request = manager.start_request("docs-hub")
    assert request is not None and manager.approve_start("docs-hub", request.fingerprint)
    page = McpPage(manager, QtHost(), str(HOME / "config" / "mcp.json"))
    page.resize(1000, 560)
    page.show()
    await manager.start_all()
    await until(lambda: page.row_buttons.get("docs-hub") is not None)
    page.servers.setCurrentItem(page.servers.topLevelItem(0))
    await settle()
    page.grab().save(str(OUT / f"mcp_sign_in{suffix}.png"))
    page.row_buttons["docs-hub"].click()
    await until(lambda: manager.status("docs-hub").state is ServerState.CONNECTED)
    await until(lambda: page.row_buttons.get("docs-hub") is not None
                and page.row_buttons["docs-hub"].isVisible() and manager.status("docs-hub").sign_in is not None)
    page.refresh()
    await settle()
    page.grab().save(str(OUT / f"mcp_signed_in{suffix}.png"))
    page.edit_button.click()
    form = page.server_form
    assert form is not None
    form.client_id.setText("1234567890-echo.apps.example.com")
    form.client_secret.setText("secret")
    form.scope.setText("docs.read")
    form.show()
    await settle()
    form.grab().save(str(OUT / f"mcp_form_sign_in{suffix}.png"))
    form.reject()
    page.close_page()
    page.close()
    await manager.aclose()


async def chat_shots(services: Services, runtime: Runtime) -> None:
    manager = McpManager(runtime.settings, registry=runtime.registry, servers={"everything": everything_config()})
    request = manager.start_request("everything")
    assert request is not None and manager.approve_start("everything", request.fingerprint)
    runtime.mcp = manager
    services.mcp = manager
    await manager.start_all()
    for lang, suffix in LANGS:
        await chat_shots_in(lang, suffix, services)
    await manager.aclose()


async def chat_shots_in(lang: str, suffix: str, services: Services) -> None:
    i18n_qt.apply_language(lang)
    window = MainWindow()
    window.attach(services)
    window.resize(1180, 760)
    window.show()
    window.set_banner(lambda: "")
    window.resources.open_panel()
    panel = window.resources.panel
    assert panel is not None
    await until(lambda: panel.listing is not None)
    panel.tree.expandAll()
    top = panel.tree.topLevelItem(0)
    panel.tree.setCurrentItem(top.child(min(2, top.childCount() - 1)))
    await settle()
    panel.grab().save(str(OUT / f"mcp_resources{suffix}.png"))
    panel.close()
    completer = window.prompt_completer
    window.composer.setPlainText("/everything:args")
    await until(lambda: "/everything:args-prompt" in completer.model.stringList())
    completer.choose("/everything:args-prompt")
    form = completer.form
    assert form is not None
    form.fields["city"].setText("Oslo" if lang == "en" else "杭州")
    await settle()
    form.grab().save(str(OUT / f"mcp_prompt_form{suffix}.png"))
    form.reject()
    question = QuestionDialog(Question(
        prompt="Confirm the payment for order 42 on the shop's own page.",
        url="https://pay.example.com/checkout?order=42&lang=" + ("en" if lang == "en" else "zh-CN"),
        asked_by="MCP server shop", mcp_server="shop"))
    question.show()
    await settle()
    question.grab().save(str(OUT / f"mcp_url_question{suffix}.png"))
    question.reject()
    window.close()


def main() -> None:
    app = QApplication(sys.argv)
    app.setQuitOnLastWindowClosed(False)
    marshal.install()
    secrets.install_secret_store(secrets.MemorySecretStore())
    handler = _Browser()
    QDesktopServices.setUrlHandler("http", handler, "open")
    settings = SettingsStore.in_dir(HOME / "config")
    runtime = Runtime.create(settings_store=settings, data_dir=HOME / "data", with_plugins=False)
    store = ConversationStore(HOME / "data" / "conversations.sqlite3")
    services = Services(settings=settings, backend=CatalogBackend(settings, runtime), runtime=runtime,
                        conversations=store, providers_available=True)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    guard = Guard()
    with loop, marshal.asyncgen_hooks(loop), loopback_http_allowed(), AuthlibServer() as authlib, \
            Served(make_resource_app(guard)) as mcp:
        issuer = authlib.issuer

        async def verify(token: str) -> tuple[list[str], str] | None:
            import httpx

            async with httpx.AsyncClient(timeout=5) as http:
                answer = (await http.post(f"{issuer}/introspect", data={"token": token})).json()
            if not answer.get("active"):
                return None
            return str(answer.get("scope", "")).split(), str(answer.get("aud", ""))

        guard.issuer, guard.verify = issuer, verify
        loop.run_until_complete(sign_in_shots(f"{mcp.url}/mcp", issuer))
        loop.run_until_complete(chat_shots(services, runtime))
        loop.run_until_complete(marshal.shutdown())
    store.close()
    runtime.close()
    print("wrote the mcp_*.png shots named above into", OUT)


if __name__ == "__main__":
    main()
