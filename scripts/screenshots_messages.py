"""Screenshots of the message actions: an edited message with its "‹ 2/2 ›" switcher and
answers with their tokens-and-time footer, in English and Chinese. The real window, engine and
store; the model is scripted (with a usage report, as the local server sends one).

Run:  xvfb-run -a -s "-screen 0 1280x800x24" env QT_QPA_PLATFORM=xcb python scripts/screenshots_messages.py
Writes docs/screenshots/chat_versions{,_zh}.png.
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
HOME = shots_home("echo-desk-shots-")
for var, sub in (("ECHO_DESK_CONFIG_DIR", "config"), ("ECHO_DESK_DATA_DIR", "data")):
    os.environ[var] = str(HOME / sub)

from PySide6.QtWidgets import QApplication  # noqa: E402
from shots_loop import run_shots  # noqa: E402

from echo_desk.agent.model import StreamEnd, TextDelta, Usage  # noqa: E402
from echo_desk.runtime import Runtime  # noqa: E402
from echo_desk.store.conversations import ConversationStore  # noqa: E402
from echo_desk.store.settings import SettingsStore  # noqa: E402
from echo_desk.ui.app.main import show_first_frame  # noqa: E402
from echo_desk.ui.app.services import Services  # noqa: E402
from echo_desk.ui.chat.chat_window import MainWindow  # noqa: E402
from echo_desk.ui.chat.transcript import USER  # noqa: E402
from echo_desk.ui.core import i18n_qt  # noqa: E402
from echo_desk.ui.core.backend import CatalogBackend  # noqa: E402

#: The demo in each picture's language: the model's answers, then the person's three messages.
DEMO = {
    "en": (["Python's `sorted()` returns a new list; `list.sort()` sorts in place and returns `None`.",
            "Use `sorted(words, key=str.lower)` to ignore case:\n\n```python\nsorted(['b', 'A', 'c'], key=str.lower)\n```"],
           ["What is the difference between sorted() and sort()?", "How do I sort a list?",
            "How do I sort words, ignoring case?"]),
    "zh_CN": (["Python 的 `sorted()` 返回一个新列表；`list.sort()` 原地排序，返回 `None`。",
               "用 `sorted(words, key=str.lower)` 即可忽略大小写：\n\n```python\nsorted(['b', 'A', 'c'], key=str.lower)\n```"],
              ["sorted() 和 sort() 有什么区别？", "怎么给列表排序？", "怎么给单词排序并忽略大小写？"]),
}


class Demo:
    def __init__(self, answers: list[str]) -> None:
        self.turn = 0
        self.answers = answers

    @property
    def display_name(self) -> str:
        return "demo"

    async def stream(self, messages: Sequence[Any], tools: Sequence[Any], *,
                     tool_choice: str = "auto") -> AsyncIterator[Any]:
        text = self.answers[min(self.turn, len(self.answers) - 1)]
        self.turn += 1
        for word in text.split(" "):
            await asyncio.sleep(0.01)
            yield TextDelta(word + " ")
        yield Usage(input_tokens=812 + 40 * self.turn, output_tokens=len(text.split(" ")) + 9)
        yield StreamEnd()

    async def aclose(self) -> None:
        return None


async def turn(window: MainWindow, start: Any) -> None:
    done = asyncio.get_running_loop().create_future()

    def ended(busy: bool) -> None:
        if not busy and not done.done():
            done.set_result(True)

    window.session.busy_changed.connect(ended)
    start()
    await asyncio.wait_for(done, 30)
    window.session.busy_changed.disconnect(ended)


async def shoot(language: str, name: str) -> None:
    """One conversation in ``language``, started in English and switched live to it."""
    answers, asks = DEMO[language]
    workspace = HOME / ("workspace" if language == "en" else "项目")
    workspace.mkdir()
    settings = SettingsStore.in_dir(HOME / "config" / language)
    runtime = Runtime.create(settings_store=settings, data_dir=HOME / "data" / language)
    store = ConversationStore(HOME / "data" / language / "conversations.sqlite3")
    services = Services(settings=settings, backend=CatalogBackend(settings, runtime), runtime=runtime,
                        conversations=store, providers_available=True)
    window = MainWindow()
    window.resize(1280, 800)
    window.attach(services)
    window.set_workspace(str(workspace))
    window.set_model(Demo(answers))
    window.set_banner(lambda: "")
    show_first_frame(window)
    window.composer.setPlainText(asks[0])
    await turn(window, window.send)
    window.composer.setPlainText(asks[1])
    await turn(window, window.send)
    asked = next(i for i in reversed(window.session.transcript.items()) if i.kind == USER)
    await turn(window, lambda: window.message_actions.edit(asked, asks[2]))
    window.session.flush_writes()
    i18n_qt.apply_language(language)
    await asyncio.sleep(0.3)
    QApplication.processEvents()
    path = OUT / name
    window.grab().save(str(path))
    print(f"wrote {path.relative_to(ROOT)}")
    i18n_qt.apply_language("en")
    window.close()
    store.close()
    runtime.close()


def main() -> None:
    run_shots(OUT, lambda: shoot("en", "chat_versions.png"), lambda: shoot("zh_CN", "chat_versions_zh.png"))


if __name__ == "__main__":
    main()
