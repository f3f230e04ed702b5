"""Settings › Sandbox › what makes a program run code: the built-in list with why, the person's
own entries added and removed (saved at once), bad entries refused with a reason."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt

from echo_desk.sandbox import runs_code
from echo_desk.store.settings import SettingsStore
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.settings.sandbox_page import SandboxPage

CJK = re.compile(r"[\u4e00-\u9fff]")


def _texts(page: SandboxPage) -> list[str]:
    return [page.protected.entries.item(i).text() for i in range(page.protected.entries.count())]


def test_the_list_shows_every_entry_with_why_and_keeps_the_persons_own(qtbot, settings_store: SettingsStore,
                                                                        tmp_path) -> None:
    page = SandboxPage(settings_store, workspace=lambda: str(tmp_path))
    qtbot.addWidget(page)
    protected = page.protected
    texts = _texts(page)
    assert len(texts) == len(runs_code.ENTRIES)
    assert texts[0].startswith(".echo-desk/ — ") and any(t.startswith(".envrc — direnv runs it") for t in texts)
    assert not protected.remove.isEnabled()
    protected.entries.setCurrentRow(0)
    assert not protected.remove.isEnabled()  # a built-in entry cannot be removed

    qtbot.keyClicks(protected.new_path, "tools/")
    qtbot.mouseClick(protected.add, Qt.MouseButton.LeftButton)
    protected.new_path.setText("Makefile")
    qtbot.keyClick(protected.new_path, Qt.Key.Key_Return)
    assert settings_store.current.sandbox.protected_paths == ["tools/", "Makefile"]
    assert protected.new_path.text() == "" and protected.error.isHidden()
    assert _texts(page)[-2:] == ["tools/ — you added it in Settings › Sandbox",
                                 "Makefile — you added it in Settings › Sandbox"]

    assert any(t.startswith("bin/ — ") and t.endswith("(only when the workspace is your home folder)")
               for t in _texts(page))
    for bad, says in (("../outside", "inside the workspace"), ("/etc/passwd", "inside the workspace"),
                      ("a\nb", "control character"), (".vscode/settings.json", "Already protected: .vscode/")):
        protected.new_path.setText(bad)
        protected.add.click()
        assert not protected.error.isHidden() and says in protected.error.text(), bad
    assert settings_store.current.sandbox.protected_paths == ["tools/", "Makefile"]

    protected.entries.setCurrentRow(protected.entries.count() - 2)
    assert protected.remove.isEnabled()
    protected.remove.click()
    assert settings_store.current.sandbox.protected_paths == ["Makefile"]
    protected.new_path.setText("bin/")  # protected by the list only in the home folder: the person's own here
    protected.add.click()
    assert protected.error.isHidden() and settings_store.current.sandbox.protected_paths == ["Makefile", "bin/"]
    assert _texts(page)[-1] == "bin/ — you added it in Settings › Sandbox"
    protected.entries.setCurrentRow(protected.entries.count() - 1)
    protected.remove.click()
    assert _texts(page)[-1] == "Makefile — you added it in Settings › Sandbox"

    again = SandboxPage(settings_store, workspace=lambda: str(tmp_path))  # read back from the settings
    qtbot.addWidget(again)
    assert _texts(again)[-1].startswith("Makefile — ")


def test_the_list_reads_in_chinese(qtbot, settings_store: SettingsStore, tmp_path) -> None:
    page = SandboxPage(settings_store, workspace=lambda: str(tmp_path))
    qtbot.addWidget(page)
    i18n_qt.apply_language("zh_CN")
    try:
        assert CJK.search(page.protected.caption.text()) and CJK.search(page.protected.add.text())
        for text in _texts(page):
            assert CJK.search(text.split("：", 1)[1]), text  # the reason after the path
    finally:
        i18n_qt.apply_language("en")
