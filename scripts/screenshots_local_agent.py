"""Screenshots of the built-in agent's first hour, in English and Chinese: the first run (a default
workspace, said which, and the example prompts), a long call being written (the status line with
tokens and tokens/s), a runaway stop (the Retry card), the model working out what a request asks
for (its intent step), and the note under an answer whose number contradicts what a read counted.
Real window, store, engine and tools; the model is scripted, so the shots show exactly these states.

Run:  xvfb-run -a -s "-screen 0 1280x800x24" env QT_QPA_PLATFORM=xcb python scripts/screenshots_local_agent.py
Writes docs/screenshots/{first_run,writing_call,runaway_stop,working_out,count_note}{,_zh}.png.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from shots_home import shots_home  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
HOME = shots_home("echo-desk-agent-shots-")
# A person's first start: their own (empty) home, started from it, so the default workspace is
# a new "Echo Desk" folder in their documents.
os.environ["HOME"] = str(HOME)
os.environ.pop("XDG_DOCUMENTS_DIR", None)
for var, sub in (("ECHO_DESK_CONFIG_DIR", "config"), ("ECHO_DESK_DATA_DIR", "data")):
    os.environ[var] = str(HOME / ".echo-desk" / sub)
os.chdir(HOME)

from PySide6.QtWidgets import QApplication  # noqa: E402
from shots_loop import run_shots  # noqa: E402

from echo_desk.agent.model import (  # noqa: E402
    IntentProgress,
    StreamEnd,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStarted,
)
from echo_desk.i18n import _  # noqa: E402
from echo_desk.runtime import Runtime  # noqa: E402
from echo_desk.store.conversations import ConversationStore  # noqa: E402
from echo_desk.store.settings import SettingsStore  # noqa: E402
from echo_desk.ui.app.main import show_first_frame  # noqa: E402
from echo_desk.ui.app.services import Services  # noqa: E402
from echo_desk.ui.chat.chat_window import MainWindow  # noqa: E402
from echo_desk.ui.core import i18n_qt  # noqa: E402
from echo_desk.ui.core.backend import CatalogBackend  # noqa: E402

#: The demo in each language: (notes file, its text, the line changed, words the model writes,
#: the line it repeats, the two requests).
DEMO = {
    "en": ("notes.txt", "milk\neggs\n", "eggs\n",
           ("free-range", "eggs", "from", "the", "farm", "market", "on", "Saturday", "morning", "large",
            "brown", "a", "dozen", "organic", "local", "fresh", "box", "of", "six", "twelve", "and", "milk"),
           "Buy bread\n", "In notes.txt, change eggs to free-range eggs", "What is in notes.txt?"),
    "zh_CN": ("购物清单.txt", "牛奶\n鸡蛋\n", "鸡蛋\n",
              ("散养", "鸡蛋", "来自", "农场", "集市", "周六", "早上", "大个", "红皮", "一打", "有机", "本地",
               "新鲜", "一盒", "六个", "十二个", "和", "牛奶"),
              "买面包\n", "在 购物清单.txt 里把“鸡蛋”改成“散养鸡蛋”", "购物清单.txt 里有什么？"),
}
LANGUAGE = {"current": "en"}


def demo() -> tuple[Any, ...]:
    return DEMO[LANGUAGE["current"]]


class LongCall:
    """Writes an edit_file call slowly and never finishes it (the shot is taken meanwhile)."""

    @property
    def display_name(self) -> str:
        return _("Local (built-in) · {model}").format(model="qwen2.5-coder-0.5b-instruct-q4_k_m")  # as LocalModel

    async def stream(self, messages: Sequence[Any], tools: Sequence[Any], *,
                     tool_choice: str = "auto") -> AsyncIterator[Any]:
        await asyncio.sleep(0.4)
        yield ToolCallStarted(id="c1", name="edit_file")
        name, _text, line, vocabulary = demo()[:4]
        yield ToolCallDelta(id="c1", text='{"path": "' + name + '", "edits": [{"old": "'
                            + line.replace("\n", "\\n") + '", "new": "')
        words = random.Random(7)
        while True:  # varied text: the same words over and over would be stopped as a runaway
            await asyncio.sleep(0.02)
            yield ToolCallDelta(id="c1", text=words.choice(vocabulary) + " ")

    async def aclose(self) -> None:
        return None


class Repeats:
    """Answers with the same line again and again: the runaway guard stops it."""

    @property
    def display_name(self) -> str:
        return _("Local (built-in) · {model}").format(model="qwen2.5-coder-0.5b-instruct-q4_k_m")  # as LocalModel

    async def stream(self, messages: Sequence[Any], tools: Sequence[Any], *,
                     tool_choice: str = "auto") -> AsyncIterator[Any]:
        for _turn in range(40):
            await asyncio.sleep(0.01)
            yield TextDelta(demo()[4])
        yield StreamEnd()

    async def aclose(self) -> None:
        return None


class StatingIntent:
    """Takes its intent step and never finishes it (the shot is taken meanwhile)."""

    @property
    def display_name(self) -> str:
        return "Qwen2.5-Coder 0.5B (built-in)"

    async def stream(self, messages: Sequence[Any], tools: Sequence[Any], *,
                     tool_choice: str = "auto") -> AsyncIterator[Any]:
        tokens = 0
        while True:
            yield IntentProgress(tokens=tokens)
            tokens += 1
            await asyncio.sleep(0.3)

    async def aclose(self) -> None:
        return None


class MiscountsRows:
    """Reads data.csv with the real read_file, then answers with one row too few."""

    def __init__(self) -> None:
        self.turn = 0

    @property
    def display_name(self) -> str:
        return "Qwen2.5-Coder 0.5B (built-in)"

    async def stream(self, messages: Sequence[Any], tools: Sequence[Any], *,
                     tool_choice: str = "auto") -> AsyncIterator[Any]:
        self.turn += 1
        if self.turn == 1:
            yield ToolCallReady(ToolCall(id="c1", name="read_file", arguments='{"path": "data.csv"}'))
            yield StreamEnd("tool_calls")
            return
        yield TextDelta("data.csv has 16 rows.")
        yield StreamEnd()

    async def aclose(self) -> None:
        return None


def save(window: MainWindow, name: str) -> None:
    QApplication.processEvents()
    path = OUT / name
    window.grab().save(str(path))
    print(f"wrote {path.relative_to(ROOT)}")


async def until(condition: Callable[[], object], seconds: float = 15.0) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("the window never reached the state to shoot")
        await asyncio.sleep(0.05)


async def shoot(language: str, suffix: str) -> None:
    i18n_qt.apply_language(language)
    LANGUAGE["current"] = language
    # The Documents folder as a desktop in this language names it (xdg-user-dirs: ~/文档 in Chinese).
    os.environ["XDG_DOCUMENTS_DIR"] = str(HOME / ("Documents" if language == "en" else "文档"))
    name, notes, _line, _words, _repeated, change, question = demo()
    data = HOME / ".echo-desk" / "data"
    settings = SettingsStore.in_dir(HOME / ".echo-desk" / "config")
    runtime = Runtime.create(settings_store=settings, data_dir=data, with_plugins=False)
    store = ConversationStore(data / f"conversations-{language}.sqlite3")
    services = Services(settings=settings, backend=CatalogBackend(settings, runtime), runtime=runtime,
                        conversations=store, providers_available=True)
    window = MainWindow()
    window.resize(1180, 760)
    window.attach(services)
    window.set_banner(lambda: "")
    show_first_frame(window)
    await asyncio.sleep(0.5)
    save(window, f"first_run{suffix}.png")

    workspace = Path(window.workspace_folder())
    (workspace / name).write_text(notes, encoding="utf-8")
    window.set_model(LongCall())
    window.composer.setPlainText(change)
    window.send()
    await until(lambda: "/s" in window.progress_label.text() or "秒" in window.progress_label.text())
    await asyncio.sleep(1.2)  # a few seconds into the call: tokens and a rate to show
    save(window, f"writing_call{suffix}.png")
    window.stop_button.click()
    await until(lambda: not window.session.busy)

    window.new_conversation()
    window.set_model(Repeats())
    window.composer.setPlainText(question)
    window.send()
    await until(lambda: window.retry_card.isVisibleTo(window) and not window.session.busy)
    await asyncio.sleep(0.3)
    save(window, f"runaway_stop{suffix}.png")

    window.new_conversation()
    window.set_model(StatingIntent())
    window.composer.setPlainText("form.py 里的保存按钮是做什么的？" if suffix else "What does the save button in form.py do?")
    window.send()
    await until(lambda: "2" in window.progress_label.text())
    save(window, f"working_out{suffix}.png")
    window.stop_button.click()
    await until(lambda: not window.session.busy)

    window.new_conversation()
    (workspace / "data.csv").write_text("id,name\n" + "".join(f"{i},ok\n" for i in range(1, 18)),
                                        encoding="utf-8")
    window.set_model(MiscountsRows())
    window.composer.setPlainText("data.csv 有多少行数据？" if suffix else "How many data rows are in data.csv?")
    window.send()
    await until(lambda: not window.session.busy and window.session.transcript.items()[-1].kind == "notice")
    await asyncio.sleep(0.3)
    save(window, f"count_note{suffix}.png")
    window.session.flush_writes()
    window.close()
    store.close()
    runtime.close()


def main() -> None:
    run_shots(OUT, lambda: shoot("en", ""), lambda: shoot("zh_CN", "_zh"))


if __name__ == "__main__":
    main()
