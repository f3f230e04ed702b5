"""The result grid inside a ``db_query`` / ``db_execute`` card.

The database tools put ``columns`` (name, type) and ``rows`` in the envelope's metadata.
``grid_of`` reduces that to what a card can show (a bounded number of rows, long cells cut);
the chat session stores exactly that with the conversation, so a reopened conversation draws
the same grid. ``grid_html`` renders it as a small HTML table for the card's
``QTextDocument`` (the transcript stays one model row: no widget per cell).
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING

from echo_desk.i18n import _
from echo_desk.ui.core import theme

if TYPE_CHECKING:
    from echo_desk.tools.results import JsonObject

#: Rows a collapsed card shows; an expanded card shows up to ``MAX_ROWS``.
COLLAPSED_ROWS = 8
#: Rows kept for the card (and stored with the conversation); the model got its own table.
MAX_ROWS = 50
#: Columns drawn (collapsed / expanded); a wider result says how many it leaves out.
COLLAPSED_COLUMNS = 8
MAX_COLUMNS = 12
#: A cell longer than this is cut with "…" (the model's text result has the value); a collapsed
#: card cuts sooner so one long value does not make every row tall.
MAX_CELL_CHARS = 120
COLLAPSED_CELL_CHARS = 40


def _cut(value: object) -> bool | int | float | str | None:
    """The value as stored for the card: scalars as they are, long text and structures cut."""
    if value is None or isinstance(value, bool | int | float):
        return value
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def grid_of(metadata: object) -> JsonObject | None:
    """The card's grid from a database envelope's metadata (or from a stored grid: the
    function is idempotent); ``None`` when there is no result table (e.g. ``3 rows affected``)."""
    if not isinstance(metadata, dict):
        return None
    columns = metadata.get("columns")
    rows = metadata.get("rows")
    if not isinstance(columns, list) or not columns or not isinstance(rows, list):
        return None
    cols = [{"name": str(c.get("name", "")), "type": str(c.get("type", ""))} if isinstance(c, dict)
            else {"name": str(c), "type": ""} for c in columns]
    kept = [[_cut(v) for v in row] for row in rows[:MAX_ROWS] if isinstance(row, list)]
    try:
        row_count = int(metadata.get("row_count", len(rows)))
        more = int(metadata.get("more_rows", 0) or 0)
    except (TypeError, ValueError):
        row_count, more = len(rows), 0
    return {
        "connection": str(metadata.get("connection", "") or ""),
        "columns": cols,
        "rows": kept,
        # Rows the tool returned (not all of them kept here) and rows past the tool's own cap.
        "row_count": max(row_count, len(kept)),
        "more_rows": max(more, 0),
        "more_rows_exact": bool(metadata.get("more_rows_exact", True)),
        "status": str(metadata.get("status", "") or ""),
    }


def _cell(value: object, limit: int) -> str:
    if value is None:
        return f"<span style='color:{theme.colour('muted')}'><i>NULL</i></span>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return html.escape(str(value))
    text = str(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return html.escape(text).replace("\n", "<br/>")


def _numeric(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def more_rows_text(grid: JsonObject, shown: int) -> str:
    """"N more rows" under the grid: rows returned but not drawn plus rows past the tool's cap."""
    more = int(grid.get("row_count", 0)) - shown + int(grid.get("more_rows", 0))
    if more <= 0:
        return ""
    if grid.get("more_rows") and not grid.get("more_rows_exact", True):
        return _("at least {n} more rows").format(n=more)
    return _("{n} more rows").format(n=more)


def grid_html(grid: JsonObject, *, expanded: bool) -> tuple[str, bool]:
    """The table and whether expanding the card would show more rows."""
    columns = grid.get("columns") or []
    rows = grid.get("rows") or []
    limit = MAX_ROWS if expanded else COLLAPSED_ROWS
    col_limit = MAX_COLUMNS if expanded else COLLAPSED_COLUMNS
    chars = MAX_CELL_CHARS if expanded else COLLAPSED_CELL_CHARS
    shown_rows = rows[:limit]
    shown_cols = columns[:col_limit]
    head = "".join(
        f"<th align='left' style='background:{theme.colour('table_header')}'>{html.escape(str(c.get('name', '')))}"
        + (f"<br/><span style='color:{theme.colour('muted')}; font-weight:normal'>{html.escape(str(c.get('type', '')))}</span>"
           if c.get("type") else "")
        + "</th>"
        for c in shown_cols)
    body = []
    for row in shown_rows:
        cells = []
        for i in range(len(shown_cols)):
            value = row[i] if i < len(row) else None
            align = " align='right'" if _numeric(value) else ""
            cells.append(f"<td{align}>{_cell(value, chars)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    parts = ["<table cellpadding='3' cellspacing='0' border='1' "
             f"style='border-color:{theme.colour('border')}; border-style:solid; background:{theme.colour('base')}; margin-top:4px'>"
             f"<tr>{head}</tr>{''.join(body)}</table>"]
    notes = []
    more = more_rows_text(grid, len(shown_rows))
    if more:
        notes.append(more)
    if len(columns) > col_limit:
        notes.append(_("{n} more columns").format(n=len(columns) - col_limit))
    if not rows:
        notes.append(_("No rows."))
    if grid.get("status"):
        notes.append(str(grid["status"]))
    if notes:
        parts.append(f"<div style='color:{theme.colour('muted')}'>{html.escape(' · '.join(notes))}</div>")
    cut = any(isinstance(v, str) and len(v) > chars for row in shown_rows for v in row[:col_limit])
    return "".join(parts), len(rows) > len(shown_rows) or len(columns) > col_limit or cut
