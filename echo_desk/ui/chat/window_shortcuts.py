"""Every keyboard shortcut of the app in one list, and the main window's actions bound to them.

The shortcuts sheet (Ctrl+/) is drawn from ``SHEET``, so it lists exactly what is bound here and
what the widgets themselves answer to. Stop is not Escape: Escape closes the find bar and clears
the search box, and one key meaning both would be ambiguous.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from echo_desk.i18n import N_, _
from echo_desk.ui.core import i18n_qt

if TYPE_CHECKING:
    from echo_desk.ui.chat.chat_window import MainWindow


@dataclass(frozen=True)
class Shortcut:
    """Keys (portable ``QKeySequence`` text), what they do and where (both marked ``N_``).
    ``keys_in_words`` (marked ``N_``) stands for keys that are no one sequence (Alt + a letter)."""

    keys: tuple[str, ...]
    what: str
    where: str
    keys_in_words: str = ""


WINDOW = N_("Window")
CONVERSATIONS = N_("Conversations")
MESSAGE = N_("Message box and transcript")
FIND = N_("Find in the conversation")
SEARCH = N_("Search all conversations")
APPROVAL = N_("Approval dialog")
SETTINGS = N_("Settings")

#: The main window's actions: name → keys and description (bound by ``install``).
ACTIONS: dict[str, Shortcut] = {
    "new_conversation": Shortcut(("Ctrl+N",), N_("New conversation"), CONVERSATIONS),
    "next_conversation": Shortcut(("Ctrl+PgDown", "Ctrl+Tab"), N_("Next conversation"), CONVERSATIONS),
    "previous_conversation": Shortcut(("Ctrl+PgUp", "Ctrl+Shift+Tab"), N_("Previous conversation"),
                                      CONVERSATIONS),
    "rename_conversation": Shortcut(("F2",), N_("Rename the selected conversation (in the list)"), CONVERSATIONS),
    "export_conversation": Shortcut(("Ctrl+Shift+E",), N_("Export the conversation as Markdown"), CONVERSATIONS),
    "search": Shortcut(("Ctrl+Shift+F", "Ctrl+K"), N_("Search all conversations"), SEARCH),
    "find": Shortcut(("Ctrl+F",), N_("Find in this conversation"), FIND),
    "find_next": Shortcut(("F3",), N_("Next match"), FIND),
    "find_previous": Shortcut(("Shift+F3",), N_("Previous match"), FIND),
    "focus_prompt": Shortcut(("Ctrl+L",), N_("Go to the message box"), MESSAGE),
    "stop": Shortcut(("Ctrl+Shift+X",), N_("Stop the agent"), MESSAGE),
    "choose_workspace": Shortcut(("Ctrl+O",), N_("Choose the workspace folder"), WINDOW),
    "choose_model": Shortcut(("Ctrl+Shift+M",), N_("Choose the model"), WINDOW),
    "settings": Shortcut(("Ctrl+,",), N_("Open settings"), WINDOW),
    "shortcuts": Shortcut(("Ctrl+/", "F1"), N_("Show the keyboard shortcuts"), WINDOW),
}

#: Keys the widgets answer to themselves (listed on the sheet; not window actions).
WIDGET_KEYS: tuple[Shortcut, ...] = (
    Shortcut(("Ctrl+Return",), N_("Send the message"), MESSAGE),
    Shortcut(("Ctrl+C",), N_("Copy the selected message or card"), MESSAGE),
    Shortcut(("Return", "Space"), N_("Open or close the selected tool card"), MESSAGE),
    Shortcut(("Menu",), N_("More actions on the selected message (revert…)"), MESSAGE),
    Shortcut(("F2",), N_("Edit the selected message of yours (in the transcript)"), MESSAGE),
    Shortcut(("Ctrl+R",), N_("Regenerate the last answer"), MESSAGE),
    Shortcut(("Alt+Left", "Alt+Right"), N_("Previous or next version of the selected message"), MESSAGE),
    Shortcut(("Del",), N_("Delete the selected conversation (asks first)"), CONVERSATIONS),
    Shortcut(("Down",), N_("From the search box to the results"), SEARCH),
    Shortcut(("Return",), N_("Open the conversation at the chosen match"), SEARCH),
    Shortcut(("Esc",), N_("Clear the search"), SEARCH),
    Shortcut(("Return", "Shift+Return"), N_("Next or previous match"), FIND),
    Shortcut(("Esc",), N_("Close the find bar"), FIND),
    Shortcut(("Tab", "Space"), N_("Move to a button and press it"), APPROVAL),
    Shortcut(("Alt+A",), N_("Allow once (when every line has been shown)"), APPROVAL),
    Shortcut(("Alt+D", "Esc", "Return"), N_("Deny"), APPROVAL),
    # macOS has no Alt-letter keys: Qt shows no underlined letters there.
    *(() if sys.platform == "darwin" else (
        Shortcut((), N_("Use the button, box, tab or field whose letter is underlined"),
                 SETTINGS, keys_in_words=N_("Alt+underlined letter")),)),
)

#: Actions bound to the conversation list only (their keys mean something else elsewhere).
_LIST_ONLY = frozenset({"rename_conversation"})

SHEET_ORDER = (CONVERSATIONS, MESSAGE, SEARCH, FIND, APPROVAL, SETTINGS, WINDOW)


def sheet() -> list[tuple[str, list[Shortcut]]]:
    """Every shortcut, grouped by where it works, in the sheet's order (texts untranslated)."""
    every = [*ACTIONS.values(), *WIDGET_KEYS]
    return [(where, [s for s in every if s.where == where]) for where in SHEET_ORDER]


def key_text(keys: tuple[str, ...]) -> str:
    """The keys as this platform writes them (Ctrl+Shift+F, ⌘⇧F), alternatives joined."""
    return "  /  ".join(i18n_qt.key_text(k) for k in keys)


def sheet_keys(shortcut: Shortcut) -> str:
    """The keys column of the sheet: the keys, or the words that stand for them, translated."""
    return _(shortcut.keys_in_words) if shortcut.keys_in_words else key_text(shortcut.keys)


def install(window: MainWindow) -> dict[str, QAction]:
    """Bind ``ACTIONS`` to ``window`` (window-wide shortcuts); returns the actions by name."""
    handlers: dict[str, Callable[[], object]] = {
        "new_conversation": window.new_conversation,
        "next_conversation": lambda: _move(window, 1),
        "previous_conversation": lambda: _move(window, -1),
        "rename_conversation": window.conversations.rename_current,
        "export_conversation": lambda: window.conversations.export_requested.emit(window.session.conversation),
        "search": lambda: _focus_search(window),
        "find": lambda: window.find_bar.open_find(),
        "find_next": lambda: _find_step(window, True),
        "find_previous": lambda: _find_step(window, False),
        "focus_prompt": lambda: window.composer.setFocus(Qt.FocusReason.ShortcutFocusReason),
        "stop": window.session.stop,
        "choose_workspace": window.choose_workspace,
        "choose_model": lambda: _choose_model(window),
        "settings": window.settings_requested.emit,
        "shortcuts": window.show_shortcuts,
    }
    actions: dict[str, QAction] = {}
    for name, shortcut in ACTIONS.items():
        action = QAction(_(shortcut.what), window)
        action.setObjectName(name)
        action.setShortcuts([QKeySequence(k) for k in shortcut.keys])
        action.triggered.connect(lambda _checked=False, fn=handlers[name]: fn())
        if name in _LIST_ONLY:
            # F2 in the transcript edits a message; in the list it renames the conversation.
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            window.conversations.addAction(action)
        else:
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            window.addAction(action)
        actions[name] = action
    return actions


def retranslate(actions: dict[str, QAction]) -> None:
    """The actions' names in the current language (the window calls it on a language change)."""
    for name, action in actions.items():
        action.setText(_(ACTIONS[name].what))


def _move(window: MainWindow, step: int) -> None:
    """Open the conversation above or below the open one in the list (stops at either end)."""
    conversations = window.conversations
    shown = window.session.conversation
    current = conversations.index_of(str(shown.id)) if shown is not None else conversations.view.currentIndex()
    row = current.row() + step if current.isValid() else 0
    if 0 <= row < conversations.row_count():
        conversations.view.setCurrentIndex(conversations.model.index(row, 0))


def _focus_search(window: MainWindow) -> None:
    window.conversations.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
    window.conversations.search.selectAll()


def _find_step(window: MainWindow, forward: bool) -> None:
    if window.find_bar.isVisible():
        window.find_bar.step(forward)
    else:
        window.find_bar.open_find()


def _choose_model(window: MainWindow) -> None:
    window.model_picker.setFocus(Qt.FocusReason.ShortcutFocusReason)
    window.model_picker.showPopup()


def install_list_keys(window: MainWindow) -> QAction:
    """Delete in the conversation list deletes the selected conversation (after asking)."""
    view = window.conversations.view
    action = QAction(view)
    action.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
    action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
    action.triggered.connect(window.conversations.delete_current)
    view.addAction(action)
    return action
