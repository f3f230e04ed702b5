"""Screenshots of Settings › Connected apps and of the diff shown before a client's config file is
rewritten, in English and Chinese, on a fake home folder holding every client's config file (the
tests' own, in each client's documented format). Claude Desktop is protected first, so the page
shows each standing.

Run:  xvfb-run -a -s "-screen 0 1280x800x24" env QT_QPA_PLATFORM=xcb python scripts/screenshots_connected_apps.py
Writes docs/screenshots/settings_connected_apps{,_zh}.png and connected_apps_diff{,_zh}.png.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "screenshots"
sys.path.insert(0, str(ROOT / "scripts"))
from shots_home import shots_home  # noqa: E402

HOME = shots_home("echo-desk-shots-")  # the clients' config files live here, as in a real home folder
for var, sub in (("ECHO_DESK_CONFIG_DIR", ".config/echo-desk"), ("ECHO_DESK_DATA_DIR", ".local/share/echo-desk")):
    os.environ[var] = str(HOME / sub)
os.environ["HOME"] = str(HOME)
os.environ.pop("XDG_CONFIG_HOME", None)

from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402
from shots_loop import run_shots  # noqa: E402

from echo_desk.mcp.connected import apply_install, locations_of, plan_install  # noqa: E402
from echo_desk.store.settings import SettingsStore  # noqa: E402
from echo_desk.tools import secrets  # noqa: E402
from echo_desk.ui.core import i18n_qt  # noqa: E402
from echo_desk.ui.core.backend import CatalogBackend  # noqa: E402
from echo_desk.ui.settings.connected_apps_dialog import ProtectDialog  # noqa: E402
from echo_desk.ui.settings.connected_apps_page import ConnectedAppsPage  # noqa: E402
from echo_desk.ui.settings.settings_dialog import SettingsDialog  # noqa: E402
from tests.mcp.connected.homes import make_home  # noqa: E402


def save(widget: QWidget, name: str) -> None:
    QApplication.processEvents()
    path = OUT / name
    widget.grab().save(str(path))
    print(f"wrote {path.relative_to(ROOT)}")


async def until(condition: Callable[[], object], seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise TimeoutError("the page did not get there in time")


async def shoot() -> None:
    secrets.install_secret_store(secrets.MemorySecretStore())  # the demo's secrets stay in memory
    where = make_home(HOME)
    where["zed"].write_text(where["zed"].read_text().replace('"theme": "One Dark",', '"theme": "One Dark"'))
    apply_install(plan_install(locations_of("claude-desktop")[0], command=["echo-desk"]))
    settings = SettingsStore.in_dir(HOME / ".config/echo-desk")
    backend = CatalogBackend(settings)
    page = ConnectedAppsPage(settings, backend)
    dialog = SettingsDialog(backend, None, connected_page=page)
    dialog.resize(1180, 680)
    dialog.show_page("connected")
    dialog.show()
    await until(lambda: page.reports)
    cursor = next(i for i in range(page.apps.topLevelItemCount()) if page.apps.topLevelItem(i).text(0) == "Cursor")
    page.apps.setCurrentItem(page.apps.topLevelItem(cursor))  # one file: the app's own row
    await asyncio.sleep(0.2)
    save(dialog, "settings_connected_apps.png")
    page.protect()
    await until(lambda: isinstance(page.dialog, ProtectDialog))
    protect = page.dialog
    assert isinstance(protect, ProtectDialog)
    await until(lambda: protect.diff is not None and protect.diff.is_loaded)
    await asyncio.sleep(0.2)
    save(protect, "connected_apps_diff.png")
    i18n_qt.apply_language("zh_CN")
    page.refresh()
    await asyncio.sleep(0.4)
    save(protect, "connected_apps_diff_zh.png")
    protect.reject()
    await asyncio.sleep(0.2)
    save(dialog, "settings_connected_apps_zh.png")
    dialog.close()
    i18n_qt.apply_language("en")


if __name__ == "__main__":
    run_shots(OUT, shoot)
