"""Switching the language at run time changes our texts, the catalog and Qt's own buttons."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QDialogButtonBox, QPushButton

from echo_desk import i18n
from echo_desk.agent.host import ApprovalRequest
from echo_desk.tools import FileChange, FileChangeKind, RiskLevel, Target
from echo_desk.ui.approval.approval_dialog import ApprovalDialog
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.catalog_model import COL_RISK
from echo_desk.ui.settings.settings_dialog import SettingsDialog


def _request() -> ApprovalRequest:
    return ApprovalRequest(
        call_id="c1", tool_name="write_note", tool_title="Write note", risk=RiskLevel.WRITE, scope_id="s",
        scope_label="Chat", scope_chain=("Chat",), arguments={"path": "n.txt"},
        targets=(Target(kind="path", value="/home/me/ws/n.txt"),),
        file_changes=(FileChange(path="/home/me/ws/n.txt", kind=FileChangeKind.MODIFY, before_sha256="a",
                                 after_sha256="b", diff="@@ -1 +1 @@\n-a\n+b\n"),),
        summary="", binding="x")


def test_switching_language_changes_catalog_dialog_and_qt_buttons(qtbot, runtime, qloop):
    settings = SettingsDialog(CatalogBackend(runtime.settings, runtime))
    dialog = ApprovalDialog(_request())
    qtbot.addWidget(settings)
    qtbot.addWidget(dialog)
    settings.show()
    dialog.show()
    tools = settings.tools
    close = settings.buttons.button(QDialogButtonBox.StandardButton.Close)
    assert tools.model.horizontalHeaderItem(0).text() == "Tool"
    assert dialog.allow_once.text() == "Allow once"
    assert close.text() == "Close"

    # What the General page's language box does.
    settings.general.language.setCurrentIndex(settings.general.language.findData("zh_CN"))
    settings.general.language.activated.emit(settings.general.language.currentIndex())
    QApplication.processEvents()  # Qt delivers its LanguageChange events queued

    assert i18n.current_language() == "zh_CN"
    assert runtime.settings.current.language == "zh_CN"  # persisted
    assert tools.model.horizontalHeaderItem(0).text() == "工具"
    write_row = tools.model._rows["write_note"]
    assert write_row[COL_RISK].text() == "写入"
    assert tools.model.itemFromIndex(tools.model.group_index("plugin")).text() == "插件（2 个工具）"
    assert settings.nav.item(1).text() == "工具" and settings.windowTitle() == "设置"
    assert dialog.allow_once.text() == "仅允许一次" and dialog.deny.text() == "拒绝"
    assert dialog.diff_panes[0].toggle.text() == "并排显示"
    assert i18n_qt.qt_translation_loaded()
    assert close.text() == "关闭"  # Qt's own string, from qtbase_zh_CN.qm

    # zh layouts: no button narrower than its text needs.
    dialog.resize(dialog.minimumSize())
    QApplication.processEvents()
    clipped = [b.text() for b in dialog.findChildren(QPushButton) if b.width() < b.sizeHint().width()]
    assert clipped == []

    i18n_qt.apply_language("en")
    QApplication.processEvents()
    assert tools.model.horizontalHeaderItem(0).text() == "Tool" and dialog.allow_once.text() == "Allow once"
    assert close.text() == "Close"
    settings.close()
