"""Screenshots of finding and the keyboard: search results across conversations, the find bar
in a conversation, and the shortcuts sheet, in English and Chinese. Real window, store and engine;
the conversations are stored messages (no model runs).

Run:  xvfb-run -a -s "-screen 0 1280x800x24" env QT_QPA_PLATFORM=xcb python scripts/screenshots_find.py
Writes docs/screenshots/{search,find_bar,shortcuts}_{en,zh}.png.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from shots_home import shots_home  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
HOME = shots_home("echo-desk-find-shots-")
for var, sub in (("ECHO_DESK_CONFIG_DIR", "config"), ("ECHO_DESK_DATA_DIR", "data")):
    os.environ[var] = str(HOME / sub)

from PySide6.QtCore import QCoreApplication, QDeadlineTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from echo_desk.agent.model import ChatMessage  # noqa: E402
from echo_desk.i18n_build import compile_catalogs  # noqa: E402
from echo_desk.runtime import Runtime  # noqa: E402
from echo_desk.store.conversations import ConversationStore  # noqa: E402
from echo_desk.store.settings import SettingsStore  # noqa: E402
from echo_desk.ui.app.services import Services  # noqa: E402
from echo_desk.ui.chat.chat_window import MainWindow  # noqa: E402
from echo_desk.ui.core import i18n_qt, marshal  # noqa: E402
from echo_desk.ui.core.backend import CatalogBackend  # noqa: E402

CONVERSATIONS = {
    "en": [
        ("Quarterly report", ["Where is the quarterly report for Q3?",
                              "The **quarterly report** is in `reports/q3.md`; the summary table is at the end.",
                              "Can you check the totals in the report against the spreadsheet?",
                              "The totals match, except the travel line: the report says 4,210 and the sheet 4,120."]),
        ("Trip to Lisbon", ["Find me a hotel near the river in Lisbon", "Here are three hotels near the river…",
                            "Which one has the best report from guests?"]),
    ],
    "zh": [
        ("周末出行", ["这个周末的天气怎么样？", "周六晴，周日有小雨。天气预报说气温在 15 到 22 度之间。",
                  "那我们周六去公园吧，天气好的话可以野餐。"]),
        ("季度报告", ["第三季度的报告在哪里？", "报告在 `reports/q3.md`，最后有汇总表。", "帮我核对一下天气对出行费用的影响。"]),
    ],
}


def settle(ms: int = 300) -> None:
    deadline = QDeadlineTimer(ms)
    while not deadline.hasExpired():
        QCoreApplication.processEvents()


def save(widget: QWidget, name: str) -> None:
    settle()
    path = OUT / name
    widget.grab().save(str(path))
    print(f"wrote {path.relative_to(ROOT)}")


def shoot(language: str, query: str, find: str) -> None:
    i18n_qt.apply_language("zh_CN" if language == "zh" else "en")
    folder = HOME / ("project" if language == "en" else "项目")
    settings = SettingsStore.in_dir(folder / "config")
    runtime = Runtime.create(settings_store=settings, data_dir=folder, with_plugins=False)
    store = ConversationStore(folder / "conversations.sqlite3")
    for title, texts in CONVERSATIONS[language]:
        conv = store.create(title, workspace=str(folder))
        for i, text in enumerate(texts):
            store.append(conv.id, ChatMessage(role="user" if i % 2 == 0 else "assistant", content=text))
    services = Services(settings=runtime.settings, backend=CatalogBackend(runtime.settings, runtime),
                        runtime=runtime, conversations=store, providers_available=True)
    window = MainWindow()
    window.resize(1180, 720)
    window.attach(services)
    window.show()
    window.conversations.search.setText(query)
    window.conversations.message_search.run_now()
    save(window, f"search_{language}.png")
    window.conversations.results.open_current()
    window.find_bar.open_find(find)
    save(window, f"find_bar_{language}.png")
    window.show_shortcuts()
    assert window.shortcuts_sheet is not None
    save(window.shortcuts_sheet, f"shortcuts_{language}.png")
    window.shortcuts_sheet.close()
    window.close()
    store.close()
    runtime.close()


def main() -> None:
    compile_catalogs()
    app = QApplication.instance() or QApplication(sys.argv)
    marshal.install()
    OUT.mkdir(parents=True, exist_ok=True)
    shoot("en", "report", "report")
    shoot("zh", "天气", "天气")
    del app


if __name__ == "__main__":
    main()
