"""Telling the person that a settings change could not be saved, and so was not made.

Every page saves on each click (there is no OK button to fail on), so a full disk or a settings
folder that cannot be written is reported here, once, where the person is looking; the page
itself already shows the setting as it still is (``SettingsStore.report_save_failures``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from echo_desk.i18n import _
from echo_desk.store.not_saved import not_saved_text


class SaveFailureNotice:
    """One non-modal message box, reused while it is open (ten clicks on a full disk: one box)."""

    def __init__(self, folder: Path, parent: Callable[[], QWidget]) -> None:
        self._folder = folder
        self._parent = parent
        self.box: QMessageBox | None = None

    def show(self, error: OSError) -> None:
        text = not_saved_text(error)
        detail = _("Settings are kept in {folder}. Free some space there or make it writable, then make the "
                   "change again.").format(folder=self._folder)
        if self.box is None or not self.box.isVisible():
            self.box = QMessageBox(QMessageBox.Icon.Warning, _("Settings not saved"), text,
                                   QMessageBox.StandardButton.Ok, self._parent())
            self.box.setInformativeText(detail)
            self.box.setWindowModality(Qt.WindowModality.NonModal)  # the page behind stays usable
            self.box.show()
        else:
            self.box.setText(text)
        self.box.raise_()
