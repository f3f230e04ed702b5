"""What the chat window uses of the services the app loads after the first frame.

The app's ``Services`` is one; the window asks only for these, so it needs nothing from the app
package above it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from echo_desk.runtime import Runtime
    from echo_desk.store.conversations import ConversationStore
    from echo_desk.store.settings import SettingsStore
    from echo_desk.ui.core.backend import CatalogBackend


class WindowServices(Protocol):
    @property
    def settings(self) -> SettingsStore: ...

    @property
    def backend(self) -> CatalogBackend: ...

    @property
    def runtime(self) -> Runtime | None: ...

    @property
    def conversations(self) -> ConversationStore: ...
