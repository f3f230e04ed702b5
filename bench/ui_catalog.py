"""Tools catalog with 2,000 tools: time to open the Tools page, and per filter keystroke.

Opening = building the model and the page and painting it. A keystroke = the filter change
plus the repaint. Targets: open ≤ 300 ms, keystroke ≤ 16 ms.
Run: QT_QPA_PLATFORM=offscreen python bench/ui_catalog.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtWidgets import QApplication

from echo_desk.store.settings import SettingsStore
from echo_desk.tools import RiskLevel, Tool
from echo_desk.ui.core.backend import CatalogBackend, CatalogEntry
from echo_desk.ui.settings.catalog_page import ToolsPage

TOOLS = 2000
BASELINE_TOOLS = 20
SOURCES = ["builtin", "plugin"] + [f"mcp:server{i}" for i in range(18)]
TAGS = ["files.read", "files.write", "shell", "web", "database.read", "basic"]
RISKS = [RiskLevel.READ, RiskLevel.WRITE, RiskLevel.EXEC]


def make_tool(i: int) -> Tool:
    cls = type(f"Tool{i}", (Tool,), {
        "name": f"tool_{i:04d}",
        "description": f"Does thing number {i} with care.",
        "title": f"Tool number {i}",
        "catalog_description": f"Helps with task {i}: searching, reading and summarising item {i}.",
        "risk_level": RISKS[i % 3],
        "capabilities": frozenset({TAGS[i % len(TAGS)]}),
    })
    return cls()


def paint(widget) -> None:  # type: ignore[no-untyped-def]
    QApplication.processEvents()
    widget.repaint()


def main() -> None:
    _app = QApplication.instance() or QApplication(sys.argv)  # kept alive for the whole run
    entries = [CatalogEntry(make_tool(i), SOURCES[i % len(SOURCES)]) for i in range(TOOLS)]
    backend = CatalogBackend(SettingsStore.in_memory(), entries=entries)
    # Warm Qt's widget classes once, like any earlier window of the app would.
    warm = ToolsPage(CatalogBackend(SettingsStore.in_memory(), entries=entries[:5]))
    warm.resize(1000, 600)
    warm.show()
    paint(warm)
    warm.close_page()
    warm.deleteLater()

    # Same-run baseline: the page with one screenful of tools (what it costs before the rows do).
    start = time.perf_counter()
    small = ToolsPage(CatalogBackend(SettingsStore.in_memory(), entries=entries[:BASELINE_TOOLS]))
    small.resize(1000, 600)
    small.show()
    paint(small)
    baseline = (time.perf_counter() - start) * 1000
    small.close_page()
    small.deleteLater()

    start = time.perf_counter()
    page = ToolsPage(backend)
    page.resize(1000, 600)
    page.show()
    paint(page)
    opened = (time.perf_counter() - start) * 1000
    print(f"catalog of {TOOLS} tools in {len(SOURCES)} groups: opened and painted in {opened:.0f} ms "
          f"(target <= 300 ms) {'OK' if opened <= 300 else 'OVER'}; {opened / baseline:.1f} × the page with "
          f"{BASELINE_TOOLS} tools ({baseline:.0f} ms, same run)")

    keystrokes = []
    text = ""
    for ch in "number 1":
        text += ch
        t = time.perf_counter()
        page.filter.setText(text)
        paint(page)
        keystrokes.append((time.perf_counter() - t) * 1000)
    for _ in range(len("number 1")):
        text = text[:-1]
        t = time.perf_counter()
        page.filter.setText(text)
        paint(page)
        keystrokes.append((time.perf_counter() - t) * 1000)
    print(f"filter keystroke (filter + repaint), {len(keystrokes)} keystrokes: median "
          f"{statistics.median(keystrokes):.1f} ms, max {max(keystrokes):.1f} ms (target <= 16 ms) "
          f"{'OK' if max(keystrokes) <= 16 else 'OVER'}  {[round(k, 1) for k in keystrokes]}")
    t = time.perf_counter()
    page.tags.setCurrentIndex(page.tags.findData("shell"))
    paint(page)
    print(f"capability filter: {(time.perf_counter() - t) * 1000:.1f} ms")
    t = time.perf_counter()
    backend.settings.set_tool("tool_0001", enabled=False)
    paint(page)
    print(f"one toggle (settings save + re-reading 2,000 rows' state + repaint): {(time.perf_counter() - t) * 1000:.1f} ms")
    page.close_page()


if __name__ == "__main__":
    main()
