"""The result grid inside a ``db_query`` / ``db_execute`` card.

The database tools put ``columns`` (name, type) and ``rows`` in the envelope's metadata.
``grid_of`` reduces that to what a card can show (a bounded number of rows, long cells cut);
the chat session stores exactly that with the conversation, so a reopened conversation draws
the same grid. ``grid_html`` renders it as a small HTML table for the card's
``QTextDocument`` (the transcript stays one model row: no widget per cell).
"""

from __future__ import annotations

import html

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _, ngettext

# The grid is read once where the result enters the transcript (``card_facts``); imported from here too.
from echo_desk.ui.chat.card_facts import Cell, GridFacts
from echo_desk.ui.chat.card_parse import MAX_CELL_CHARS as MAX_CELL_CHARS
from echo_desk.ui.chat.card_parse import MAX_ROWS as MAX_ROWS
from echo_desk.ui.chat.card_parse import grid_of as grid_of
from echo_desk.ui.core.palette import Palette, in_use

#: Rows a collapsed card shows; an expanded card shows up to ``MAX_ROWS``.
COLLAPSED_ROWS = 8
#: Columns drawn (collapsed / expanded); a wider result says how many it leaves out.
COLLAPSED_COLUMNS = 8
MAX_COLUMNS = 12
#: A collapsed card cuts cells sooner so one long value does not make every row tall.
COLLAPSED_CELL_CHARS = 40


def _cell(value: Cell, limit: int, p: Palette) -> str:
    if value is None:
        return f"<span style='color:{p.muted}'><i>NULL</i></span>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return html.escape(str(value))
    text = str(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    # A database's text is untrusted: hidden characters made visible, line breaks kept as lines.
    return html.escape(visible(text)).replace("\n", "<br/>")


def _numeric(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def more_rows_text(grid: GridFacts, shown: int) -> str:
    """"N more rows" under the grid: rows returned but not drawn plus rows past the tool's cap."""
    more = grid.row_count - shown + grid.more_rows
    if more <= 0:
        return ""
    if grid.more_rows and not grid.more_rows_exact:
        return ngettext("at least {n} more row", "at least {n} more rows", more).format(n=more)
    return ngettext("{n} more row", "{n} more rows", more).format(n=more)


def grid_html(grid: GridFacts, *, expanded: bool, palette: Palette | None = None) -> tuple[str, bool]:
    """The table and whether expanding the card would show more rows (``palette``: the one in use)."""
    p = palette or in_use()
    limit = MAX_ROWS if expanded else COLLAPSED_ROWS
    col_limit = MAX_COLUMNS if expanded else COLLAPSED_COLUMNS
    chars = MAX_CELL_CHARS if expanded else COLLAPSED_CELL_CHARS
    shown_rows = grid.rows[:limit]
    shown_cols = grid.columns[:col_limit]
    head = "".join(
        f"<th align='left' style='background:{p.table_header}'>{html.escape(visible(c.name, one_line=True))}"
        + (f"<br/><span style='color:{p.muted}; font-weight:normal'>{html.escape(visible(c.type, one_line=True))}</span>"
           if c.type else "")
        + "</th>"
        for c in shown_cols)
    body = []
    for row in shown_rows:
        cells = []
        for i in range(len(shown_cols)):
            value = row[i] if i < len(row) else None
            align = " align='right'" if _numeric(value) else ""
            cells.append(f"<td{align}>{_cell(value, chars, p)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    parts = ["<table cellpadding='3' cellspacing='0' border='1' "
             f"style='border-color:{p.border}; border-style:solid; background:{p.base}; margin-top:4px'>"
             f"<tr>{head}</tr>{''.join(body)}</table>"]
    notes = []
    more = more_rows_text(grid, len(shown_rows))
    if more:
        notes.append(more)
    if len(grid.columns) > col_limit:
        hidden_columns = len(grid.columns) - col_limit
        notes.append(ngettext("{n} more column", "{n} more columns", hidden_columns).format(n=hidden_columns))
    if not grid.rows:
        notes.append(_("No rows."))
    if grid.status:
        notes.append(visible(grid.status, one_line=True))
    if notes:
        parts.append(f"<div style='color:{p.muted}'>{html.escape(' · '.join(notes))}</div>")
    cut = any(isinstance(v, str) and len(v) > chars for row in shown_rows for v in row[:col_limit])
    return "".join(parts), len(grid.rows) > len(shown_rows) or len(grid.columns) > col_limit or cut
