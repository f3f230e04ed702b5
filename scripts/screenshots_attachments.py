"""Screenshots of attachments for the README, through the real window, engine and store (the
model is a scripted demo that accepts images).

Run:  xvfb-run -a -s "-screen 0 1280x800x24" env QT_QPA_PLATFORM=xcb python scripts/screenshots_attachments.py
Writes docs/screenshots/attach_{prompt,menu,outside,message}{,_zh}.png: the prompt with an image and a
file attached, the paperclip's menu (files or a folder), the outside-the-workspace choice, and the
sent message with its thumbnail.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from shots_home import shots_home  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
HOME = shots_home("echo-desk-attach-shots-")
for var, sub in (("ECHO_DESK_CONFIG_DIR", "config"), ("ECHO_DESK_DATA_DIR", "data")):
    os.environ[var] = str(HOME / sub)

import qasync  # noqa: E402
from PySide6.QtCore import QPoint  # noqa: E402
from PySide6.QtGui import QColor, QImage, QPainter  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from echo_desk.agent.model import StreamEnd, StreamEvent, TextDelta  # noqa: E402
from echo_desk.runtime import Runtime  # noqa: E402
from echo_desk.store.conversations import ConversationStore  # noqa: E402
from echo_desk.store.settings import SettingsStore  # noqa: E402
from echo_desk.ui.app.services import Services  # noqa: E402
from echo_desk.ui.chat.chat_window import MainWindow  # noqa: E402
from echo_desk.ui.core import i18n_qt, marshal  # noqa: E402
from echo_desk.ui.core.backend import CatalogBackend  # noqa: E402


class VisionDemo:
    """Answers with a fixed sentence in the window's language; says it takes PNG images."""

    image_types = frozenset({"image/png"})
    display_name = "vision-demo"

    async def stream(self, messages: Sequence[Any], tools: Sequence[Any], *,
                     tool_choice: str = "auto") -> AsyncIterator[StreamEvent]:
        from echo_desk.i18n import current_language

        answer = ("销量每个季度都在增长：第三根柱子最高。" if current_language() == "zh_CN"
                  else "Sales grow every quarter: the third bar is the tallest.")
        for word in answer.split(" "):
            yield TextDelta(word + " ")
        yield StreamEnd()

    async def aclose(self) -> None:
        return None


def chart(path: Path) -> None:
    image = QImage(640, 400, QImage.Format.Format_RGB32)
    image.fill(QColor("#2d7dd2"))
    painter = QPainter(image)
    for x, top, colour in ((60, 220, "#f4d35e"), (240, 120, "#ee964b"), (420, 60, "#f95738")):
        painter.fillRect(x, top, 120, 360 - top, QColor(colour))
    painter.end()
    image.save(str(path))


#: The demo's files, named in each language: (workspace, chart, docs folder, plan, downloads, invoice).
FILES = {"en": ("shop", "sales-chart.png", "docs", "plan.md", "Downloads", "invoice-2026-11.pdf"),
         "zh_CN": ("网店", "销售图表.png", "文档", "计划.md", "下载", "发票-2026-11.pdf")}


def demo_files(lang: str) -> tuple[Path, Path, Path, Path]:
    """Make the language's demo files: (workspace, chart, plan, invoice)."""
    shop, chart_name, docs, plan_name, downloads, invoice_name = FILES[lang]
    workspace, outside = HOME / shop, HOME / downloads
    (workspace / docs).mkdir(parents=True)
    plan = workspace / docs / plan_name
    plan.write_text("# Plan\n" if lang == "en" else "# 计划\n")
    chart(workspace / chart_name)
    outside.mkdir()
    (outside / invoice_name).write_bytes(b"%PDF-1.4\n")
    return workspace, workspace / chart_name, plan, outside / invoice_name


async def shoot(app: QApplication, services: Services) -> None:
    for lang, suffix, question in (("en", "", "What does the chart show?"), ("zh_CN", "_zh", "图表显示了什么？")):
        workspace, chart_file, plan, invoice = demo_files(lang)
        i18n_qt.apply_language(lang)
        for conversation in services.conversations.list():  # each language's pictures start afresh
            services.conversations.delete(conversation.id)
        window = MainWindow()
        window.attach(services)
        window.set_workspace(str(workspace))
        window.resize(1180, 760)
        window.show()
        window.set_model(services.model)
        window.set_banner(lambda: "")
        window.attachments.add_paths([chart_file, plan])
        window.composer.setPlainText(question)
        await asyncio.sleep(0.3)
        window.grab().save(str(OUT / f"attach_prompt{suffix}.png"))
        # The paperclip's menu is a window of its own: the screen under the main window is grabbed.
        menu = window.attach_button.menu()
        # Above the button (the button sits at the window's bottom edge), as Qt places it there.
        above = window.attach_button.rect().topLeft() - QPoint(0, menu.sizeHint().height())
        menu.popup(window.attach_button.mapToGlobal(above))
        await asyncio.sleep(0.3)
        frame = window.frameGeometry()
        shot = app.primaryScreen().grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height())
        shot.save(str(OUT / f"attach_menu{suffix}.png"))
        menu.hide()
        window.attachments.add_paths([invoice])
        await asyncio.sleep(0.3)
        assert window.attachments.dialog is not None
        window.attachments.dialog.grab().save(str(OUT / f"attach_outside{suffix}.png"))
        window.attachments.dialog.reject()
        window.attachment_tray.chips[-1].remove.click()  # keep the chart only
        window.send()
        await window.session.wait_idle()
        await asyncio.sleep(0.3)
        window.grab().save(str(OUT / f"attach_message{suffix}.png"))
        window.close()


def main() -> None:
    app = QApplication(sys.argv)
    marshal.install()
    settings = SettingsStore.in_dir(HOME / "config")
    runtime = Runtime.create(settings_store=settings, data_dir=HOME / "data", with_plugins=False)
    store = ConversationStore(HOME / "data" / "conversations.sqlite3")
    services = Services(settings=settings, backend=CatalogBackend(settings, runtime), runtime=runtime,
                        conversations=store, providers_available=True)
    services.model = VisionDemo()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(shoot(app, services))
    store.close()
    runtime.close()
    print("wrote", ", ".join(sorted(p.name for p in OUT.glob("attach_*.png"))))


if __name__ == "__main__":
    main()
