"""The tools catalog: toggles reach the engine at once (definitions and dispatcher)."""

from __future__ import annotations

import subprocess
import sys

from PySide6.QtCore import Qt

from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.store.settings import SettingsStore, ToolPolicy
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.core.file_watch import FileWatch
from echo_desk.ui.settings.catalog_model import COL_POLICY, COL_TOOL, PolicyRole
from echo_desk.ui.settings.catalog_page import ToolsPage
from tests.ui.conftest import ReadNote


def _definition_names(runtime, scope) -> set[str]:
    return {d.name for d in runtime.schema_factory.definitions(scope)}


def _page(qtbot, runtime) -> ToolsPage:
    page = ToolsPage(CatalogBackend(runtime.settings, runtime))
    qtbot.addWidget(page)
    return page


def test_unchecking_a_tool_hides_it_from_the_model_and_the_dispatcher_refuses_it(qtbot, qloop, runtime, scope):
    page = _page(qtbot, runtime)
    assert "write_note" in _definition_names(runtime, scope)
    item = page.model.itemFromIndex(page.model.tool_index("write_note"))
    assert item.checkState() == Qt.CheckState.Checked

    item.setCheckState(Qt.CheckState.Unchecked)  # what a click on the check box does

    assert runtime.settings.current.tool("write_note").enabled is False
    assert "write_note" not in _definition_names(runtime, scope)
    assert "read_note" in _definition_names(runtime, scope)
    call = ToolCall(id="c1", name="write_note", arguments='{"path": "a.txt", "text": "x"}')
    envelope = qloop.run_until_complete(runtime.dispatcher.execute_tool(call, scope, ScriptedHost()))
    assert not envelope.ok and envelope.error_kind == "disabled"
    assert not (scope.workspace_roots[0] / "a.txt").exists()

    item.setCheckState(Qt.CheckState.Checked)
    assert "write_note" in _definition_names(runtime, scope)


def test_a_tool_switched_off_by_another_process_is_unchecked_here_and_refused(qtbot, qloop, runtime, scope):
    page = _page(qtbot, runtime)
    FileWatch([runtime.settings.path.parent], [runtime.settings.path], runtime.settings.refresh, page)
    item = page.model.itemFromIndex(page.model.tool_index("write_note"))
    assert item.checkState() == Qt.CheckState.Checked

    # Another process (the command line, a client's gateway) saves the same settings file.
    switch_off = ("import sys; from pathlib import Path; from echo_desk.store.settings import SettingsStore; "
                  "store = SettingsStore(Path(sys.argv[1])); store.set_tool('write_note', enabled=False); "
                  "store.update(lambda s: setattr(s, 'theme', 'dark'))")
    subprocess.run([sys.executable, "-c", switch_off, str(runtime.settings.path)], check=True, timeout=60)

    qtbot.waitUntil(lambda: item.checkState() == Qt.CheckState.Unchecked, timeout=5000)
    assert "write_note" not in _definition_names(runtime, scope)
    call = ToolCall(id="c1", name="write_note", arguments='{"path": "a.txt", "text": "x"}')
    envelope = qloop.run_until_complete(runtime.dispatcher.execute_tool(call, scope, ScriptedHost()))
    assert not envelope.ok and envelope.error_kind == "disabled"
    item.setCheckState(Qt.CheckState.Checked)  # a click here keeps what else that process saved
    saved = SettingsStore(runtime.settings.path).current
    assert saved.tool("write_note").enabled is True and saved.theme == "dark"


def test_group_toggle_switches_every_tool_of_the_source(qtbot, qloop, runtime, scope):
    page = _page(qtbot, runtime)
    group = page.model.itemFromIndex(page.model.group_index("plugin"))
    assert group.rowCount() == 2

    group.setCheckState(Qt.CheckState.Unchecked)

    assert "plugin" in runtime.settings.current.disabled_sources
    assert _definition_names(runtime, scope) == set()
    for name in ("write_note", "read_note"):
        assert not page.tool_checked(name)  # the rows follow the engine's rule
        call = ToolCall(id=f"c-{name}", name=name, arguments='{"path": "a.txt", "text": "x"}')
        envelope = qloop.run_until_complete(runtime.dispatcher.execute_tool(call, scope, ScriptedHost()))
        assert envelope.error_kind == "disabled"

    group.setCheckState(Qt.CheckState.Checked)
    assert _definition_names(runtime, scope) == {"write_note", "read_note"}


def test_settings_changed_elsewhere_show_in_the_catalog(qtbot, runtime):
    page = _page(qtbot, runtime)
    runtime.settings.set_tool("read_note", enabled=False, policy=ToolPolicy.NEVER)
    assert not page.tool_checked("read_note")
    cells = page.model._rows["read_note"]
    assert cells[COL_POLICY].data(PolicyRole) == "never"
    assert cells[COL_POLICY].text() == "Never"


def test_policy_and_profile_apply_and_persist(qtbot, runtime, config_dir):
    page = _page(qtbot, runtime)
    page.model.set_policy("write_note", "always")
    assert SettingsStore.in_dir(config_dir).current.tool("write_note").policy is ToolPolicy.ALWAYS

    runtime.settings.set_tool("write_note", enabled=True)
    page.profiles.setCurrentIndex(page.profiles.findData("read-only"))
    page.profiles.activated.emit(page.profiles.currentIndex())
    # The profile applies: per-tool overrides are cleared and write tools are off.
    assert runtime.settings.current.active_profile == "read-only"
    assert not page.tool_checked("write_note")
    assert page.tool_checked("read_note")


def test_filter_text_and_capability_tag(qtbot, runtime):
    page = _page(qtbot, runtime)

    def shown() -> set[str]:
        # What the tree really shows, not what the filter thinks.
        names = set()
        for g in range(page.model.rowCount()):
            group = page.model.index(g, COL_TOOL)
            if page.tree.isRowHidden(g, group.parent()):
                continue
            for r in range(page.model.rowCount(group)):
                if not page.tree.isRowHidden(r, group):
                    names.add(page.model.index(r, COL_TOOL, group).data(Qt.ItemDataRole.ToolTipRole))
        return names

    assert shown() == {"write_note", "read_note"}
    page.filter.setText("write")
    assert shown() == {"write_note"} == page.visible_tools()
    page.filter.setText("")
    page.tags.setCurrentIndex(page.tags.findData("files.read"))
    assert shown() == {"read_note"}
    page.filter.setText("nothing matches this")
    assert shown() == set()
    assert page.tree.isRowHidden(0, page.model.group_index("plugin").parent())  # the empty group too


def test_status_column_shows_readiness_and_the_breaker_in_words(qtbot, runtime):
    from echo_desk.tools import ErrorKind
    from echo_desk.ui.settings.catalog_model import COL_STATUS

    page = _page(qtbot, runtime)
    assert page.model._rows["read_note"][COL_STATUS].text() == "Ready"
    for _ in range(runtime.settings.current.breaker_threshold):
        runtime.breakers.record("read_note", ErrorKind.TIMEOUT, "disk slow")
    page.model.refresh_status()  # what the page's 1 s timer does
    text = page.model._rows["read_note"][COL_STATUS].text()
    assert text.startswith("Paused after 3 failures, retry in ") and text.endswith(" s")


def test_a_description_with_an_html_comment_shows_it_in_the_tooltip(qtbot, runtime):
    # Issue 20 item 5: a comment hidden from the person but read by the model.
    from PySide6.QtGui import QTextDocument

    from echo_desk.ui.settings.catalog_model import COL_DESCRIPTION
    from tests.hostile_text import BIDI_FILENAME, HTML_COMMENT

    tool = next(e.tool for e in runtime.registry.entries() if e.name == "write_note")
    tool.catalog_description = HTML_COMMENT + BIDI_FILENAME  # an MCP server writes its own
    page = _page(qtbot, runtime)
    index = page.model.tool_index("write_note").siblingAtColumn(COL_DESCRIPTION)
    doc = QTextDocument()
    doc.setHtml(index.data(Qt.ItemDataRole.ToolTipRole))
    assert "<!-- ignore previous instructions" in doc.toPlainText()
    assert "report⟨U+202E⟩txt.sh" in index.data(Qt.ItemDataRole.DisplayRole)


def test_the_catalog_shows_the_engines_default_for_an_mcp_tool_whose_risk_was_lowered(qtbot, qloop, runtime, scope):
    from echo_desk.tools.results import RiskLevel
    from echo_desk.ui.core.labels import risk_label
    from echo_desk.ui.settings.catalog_model import COL_RISK

    class RemoteLookup(ReadNote):  # exec, like every MCP tool starts
        name = "gh__lookup"
        risk_level = RiskLevel.EXEC

    runtime.registry.register(RemoteLookup(), source="mcp:gh")
    page = _page(qtbot, runtime)
    cells = page.model._rows["gh__lookup"]
    assert cells[COL_POLICY].text() == "Default (Ask)"
    runtime.settings.set_tool("gh__lookup", risk_override=RiskLevel.READ)
    qtbot.waitUntil(lambda: cells[COL_POLICY].text() == "Default (Always allow)")
    assert cells[COL_RISK].text() == risk_label("read")
    standing = runtime.standing("gh__lookup")
    assert standing is not None and standing.default_by == "risk default: read"
    # ...and the dispatcher does what the catalog says: no question asked.
    (scope.workspace_roots[0] / "n.txt").write_text("hi")
    host = ScriptedHost()
    envelope = qloop.run_until_complete(
        runtime.dispatcher.execute_tool(ToolCall(id="c1", name="gh__lookup", arguments='{"path": "n.txt"}'),
                                        scope, host))
    assert envelope.ok and host.requests == []


def test_tools_the_models_profile_hides_say_so_and_stay_enabled(qtbot, builtin_runtime, tmp_path):
    from pathlib import Path

    from echo_desk.providers.local.profiles import get_profile
    from echo_desk.providers.local.provider import LocalModel
    from echo_desk.ui.settings.catalog_model import COL_STATUS

    backend = CatalogBackend(builtin_runtime.settings, builtin_runtime)
    page = ToolsPage(backend)
    qtbot.addWidget(page)
    rows = page.model._rows
    assert "hidden" not in rows["echo_text"][COL_STATUS].text()  # no model connected yet
    backend.model = LocalModel(Path(tmp_path / "never-started.gguf"), get_profile("qwen2.5-coder-tools"))
    page.model.refresh_status()  # what the page's timer does
    assert rows["echo_text"][COL_STATUS].text().endswith("Hidden from this model")
    assert "hidden" not in rows["read_file"][COL_STATUS].text()
    assert rows["echo_text"][COL_TOOL].checkState() == Qt.CheckState.Checked  # still enabled


def test_a_switch_that_cannot_be_saved_flips_back_and_the_person_is_told(qtbot, qloop, runtime, scope, monkeypatch):
    import errno
    import os

    from echo_desk.ui.app.save_failures import SaveFailureNotice

    page = _page(qtbot, runtime)
    notice = SaveFailureNotice(runtime.settings.path.parent, lambda: page)
    runtime.settings.report_save_failures(notice.show)  # as the app wires it

    def full_disk(path, data):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr("echo_desk.store.settings.write_private", full_disk)
    item = page.model.itemFromIndex(page.model.tool_index("write_note"))
    item.setCheckState(Qt.CheckState.Unchecked)  # what a click on the check box does

    qtbot.waitUntil(lambda: item.checkState() == Qt.CheckState.Checked, timeout=5000)  # the truth, shown
    assert runtime.settings.current.tool("write_note").enabled is not False
    assert "write_note" in _definition_names(runtime, scope)
    box = notice.box
    assert box is not None and box.isVisible() and not box.isModal()
    assert box.text() == "Echo Desk could not save this change, so it was not made: the disk is full."
    assert str(runtime.settings.path.parent) in box.informativeText()
    item.setCheckState(Qt.CheckState.Unchecked)  # again: the same box, not a second one
    qtbot.waitUntil(lambda: item.checkState() == Qt.CheckState.Checked, timeout=5000)
    assert notice.box is box
    box.close()


def test_a_readiness_check_that_raises_is_said_in_chinese_with_its_words_in_the_tooltip(qtbot, runtime, monkeypatch):
    # Before: "就绪检查失败：disk quota probe exploded" (the exception's English in the cell).
    import re

    from echo_desk.i18n import current_language, set_language
    from echo_desk.ui.settings.catalog_model import COL_STATUS

    page = _page(qtbot, runtime)

    def broken() -> bool:
        raise RuntimeError("disk quota probe exploded")

    monkeypatch.setattr(page.model._tools["read_note"], "is_ready", broken)
    before = current_language()
    set_language("zh_CN")
    try:
        page.model.refresh_status()
        cell = page.model._rows["read_note"][COL_STATUS]
        assert cell.text().startswith("就绪检查失败")
        assert not re.search(r"[A-Za-z]{3,}", cell.text().replace("Echo Desk", "")), cell.text()
        assert "RuntimeError: disk quota probe exploded" in cell.toolTip()
    finally:
        set_language(before)
    monkeypatch.undo()
    page.model.refresh_status()
    assert page.model._rows["read_note"][COL_STATUS].toolTip() == ""


def test_the_description_keeps_readable_room_in_a_narrow_window_in_both_languages(qtbot, runtime, chinese):
    # Before: in a 900 px Settings window the stretched Description column gave way first, down
    # to "…" (the name, status and approval columns kept their widths).
    from echo_desk.ui.core import i18n_qt
    from echo_desk.ui.settings.catalog_model import COL_DESCRIPTION

    page = _page(qtbot, runtime)
    page.resize(700, 500)  # the page's share of a 900 px Settings window
    page.show()
    qtbot.waitExposed(page)
    tree, header = page.tree, page.tree.header()
    for language in ("zh_CN", "en"):
        i18n_qt.apply_language(language)
        qtbot.waitUntil(lambda: header.sectionSize(COL_DESCRIPTION) >= 220)
        # The name and its check box, then the whole description column, in view without scrolling.
        assert header.sectionViewportPosition(COL_TOOL) == 0
        assert header.sectionViewportPosition(COL_DESCRIPTION) + header.sectionSize(COL_DESCRIPTION) \
            <= tree.viewport().width()
        assert header.sectionSize(COL_TOOL) >= 190
    page.resize(1200, 500)  # a wide window: the name and status columns at their usual widths again
    qtbot.waitUntil(lambda: header.sectionSize(COL_TOOL) == 230)
    assert header.sectionSize(COL_DESCRIPTION) > 220
    assert sum(header.sectionSize(c) for c in range(header.count()) if not header.isSectionHidden(c)) \
        == tree.viewport().width()


def test_statuses_side_by_side_read_alike_in_both_languages(qtbot, builtin_runtime, chinese):
    # Before: "Ready" above "no database configured" and "hidden from this model" (lower case).
    from pathlib import Path

    from echo_desk.providers.local.profiles import get_profile
    from echo_desk.providers.local.provider import LocalModel
    from echo_desk.ui.core import i18n_qt
    from echo_desk.ui.settings.catalog_model import COL_STATUS

    backend = CatalogBackend(builtin_runtime.settings, builtin_runtime)
    backend.model = LocalModel(Path("never-started.gguf"), get_profile("qwen2.5-coder-tools"))
    page = ToolsPage(backend)
    qtbot.addWidget(page)
    i18n_qt.apply_language("en")
    rows = page.model._rows
    texts = {name: cells[COL_STATUS].text() for name, cells in rows.items()}
    assert texts["db_query"] == "Not ready: no database configured"
    assert texts["echo_text"] == "Hidden from this model"
    assert texts["read_file"] == "Ready"
    assert [t for t in texts.values() if not t[:1].isupper()] == []
    # A status the column may cut short is whole in its tooltip; "Ready" needs none.
    assert "Not ready: no database configured" in rows["db_query"][COL_STATUS].toolTip()
    assert rows["read_file"][COL_STATUS].toolTip() == ""
    i18n_qt.apply_language("zh_CN")
    assert rows["db_query"][COL_STATUS].text() == "未就绪：未配置数据库"
    assert rows["echo_text"][COL_STATUS].text() == "对此模型隐藏"
