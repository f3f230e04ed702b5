"""The tools catalog says how many permission rules mention each tool (the engine counts)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from echo_desk.ui.core import i18n_qt
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.catalog_model import COL_POLICY
from echo_desk.ui.settings.catalog_page import ToolsPage

RULES = """[[rule]]
effect = "allow"
tool = "shell"
pattern = "git status **"

[[rule]]
effect = "deny"
tool = "run_command"
pattern = "git push **"

[[rule]]
effect = "allow"
tool = "fetch"
pattern = "domain:example.com"
"""


def test_each_tool_shows_the_engines_rule_count(qtbot, builtin_runtime, config_dir):
    (config_dir / "permissions.toml").write_text(RULES)
    builtin_runtime.permissions.refresh()
    page = ToolsPage(CatalogBackend(builtin_runtime.settings, builtin_runtime))
    qtbot.addWidget(page)
    rows = page.model._rows
    for name in ("run_command", "fetch_url", "read_file"):
        standing = builtin_runtime.standing(name)
        assert standing is not None
        text = rows[name][COL_POLICY].text()
        if standing.rule_count:
            assert text.endswith(f" · rules: {standing.rule_count}")
        else:
            assert "rules:" not in text
    # Counted by the engine: both the family and the tool's own name mention run_command.
    assert builtin_runtime.standing("run_command").rule_count >= 2
    assert rows["run_command"][COL_POLICY].text().endswith(
        f"rules: {builtin_runtime.standing('run_command').rule_count}")
    assert "rules:" not in rows["read_file"][COL_POLICY].text()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_approval_column_shows_its_whole_text_with_a_rule_count(qtbot, builtin_runtime, config_dir,
                                                                    language) -> None:
    # The column was 140 px: "Default (asks) · ru…" / "默认（每次询问）· 规…" at every size.
    (config_dir / "permissions.toml").write_text(RULES)
    builtin_runtime.permissions.refresh()
    i18n_qt.apply_language(language)
    page = ToolsPage(CatalogBackend(builtin_runtime.settings, builtin_runtime))
    qtbot.addWidget(page)
    page.resize(1180, 600)
    page.show()
    QApplication.processEvents()
    metrics = page.tree.fontMetrics()
    width = page.tree.header().sectionSize(COL_POLICY)
    texts = [cells[COL_POLICY].text() for cells in page.model._rows.values()]
    assert any("·" in text for text in texts)  # a rule count is shown
    assert [t for t in texts if metrics.horizontalAdvance(t) + 12 > width] == []
