"""The tools catalog's tree view, which fits its columns to its width.

The description is the column a person reads to choose; a stretched section is the first to give
way, down to a few pixels of "…" in a narrow window. Here it takes the room the other columns
leave and never less than a floor: the name and status columns narrow first (their full text is
in their tooltips), and below that the columns right of the description scroll, so the name and
its check box stay in view.

The fitting runs in the view's own overrides (resize, geometry updates), never in a slot of the
page holding it: Qt delivers signals from a child to a parent that is being destroyed, and a
Python slot there crashes.
"""

from __future__ import annotations

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QTreeView, QWidget

from echo_desk.ui.settings.catalog_model import (
    COL_CLIENT,
    COL_DESCRIPTION,
    COL_POLICY,
    COL_RISK,
    COL_STATUS,
    COL_TOOL,
)

#: Narrowest and widest the name and status columns get.
TOOL_WIDTHS = (190, 230)
STATUS_WIDTHS = (140, 210)
#: The description's floor, in a window of any width.
DESCRIPTION_MIN = 220


class CatalogTree(QTreeView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._fitting = False

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def updateGeometries(self) -> None:
        # Called when the header or the scroll bars change: a column a person dragged wider, a
        # vertical scroll bar that came or went. Their widths stay; the description takes the rest.
        super().updateGeometries()
        if not self._fitting:
            self.fit_description()

    def fit_columns(self) -> None:
        """The name and status columns at their widest if the description keeps its floor, else
        narrowed (status first) down to their narrowest; then the description."""
        room = self._room_for_three()
        missing = max(0, DESCRIPTION_MIN - (room - TOOL_WIDTHS[1] - STATUS_WIDTHS[1]))
        status = STATUS_WIDTHS[1] - min(missing, STATUS_WIDTHS[1] - STATUS_WIDTHS[0])
        missing -= STATUS_WIDTHS[1] - status
        tool = TOOL_WIDTHS[1] - min(missing, TOOL_WIDTHS[1] - TOOL_WIDTHS[0])
        self._resize(COL_TOOL, tool)
        self._resize(COL_STATUS, status)
        self.fit_description()

    def fit_description(self) -> None:
        """The description takes the room the other columns leave, never less than its floor."""
        header = self.header()
        room = self._room_for_three() - header.sectionSize(COL_TOOL) - header.sectionSize(COL_STATUS)
        self._resize(COL_DESCRIPTION, max(DESCRIPTION_MIN, room))

    def _resize(self, column: int, width: int) -> None:
        self._fitting = True
        try:
            self.header().resizeSection(column, width)
        finally:
            self._fitting = False

    def _room_for_three(self) -> int:
        """The viewport's width less the risk, approval and client columns."""
        header = self.header()
        return self.viewport().width() - sum(
            header.sectionSize(c) for c in (COL_RISK, COL_POLICY, COL_CLIENT) if not header.isSectionHidden(c))


__all__ = ["DESCRIPTION_MIN", "CatalogTree"]
