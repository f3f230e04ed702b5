"""Keys in the approval dialog. Enter and Escape deny (the dialog's own rule); Alt+A allows once
and Alt+D denies. Alt+A presses the Allow button, so it does nothing while Allow is disabled
(before every line of the request has been in view): a key never approves what a click could not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut

from echo_desk.i18n import _
from echo_desk.ui.core import i18n_qt

if TYPE_CHECKING:
    from echo_desk.ui.approval.approval_dialog import ApprovalDialog

ALLOW_ONCE_KEY = "Alt+A"
DENY_KEY = "Alt+D"


class ApprovalKeys(QObject):
    """The dialog's key bindings and the tooltips that name them (a child of the dialog)."""

    def __init__(self, dialog: ApprovalDialog) -> None:
        super().__init__(dialog)
        self._dialog = dialog
        for key, button in ((ALLOW_ONCE_KEY, dialog.allow_once), (DENY_KEY, dialog.deny)):
            shortcut = QShortcut(QKeySequence(key), dialog)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(button.click)  # click() does nothing on a disabled button
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        allow, deny = i18n_qt.key_text(ALLOW_ONCE_KEY), i18n_qt.key_text(DENY_KEY)
        self._dialog.allow_once.setToolTip(_("Allow once ({keys})").format(keys=allow))
        self._dialog.deny.setToolTip(_("Deny ({keys}, Esc or Enter)").format(keys=deny))


def install(dialog: ApprovalDialog) -> ApprovalKeys:
    return ApprovalKeys(dialog)
