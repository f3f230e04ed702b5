"""The shape of a query result and its two renderings: a compact text table for the model and
JSON metadata (columns and rows) for the card's grid."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from echo_desk.builtins.database.values import cell_text

#: A cell is cut to this many characters in the model's table (the grid gets the full value).
CELL_WIDTH = 60
#: The model's table stops adding rows past this size (the grid still gets every row).
MAX_TABLE_CHARS = 20_000


@dataclass(frozen=True)
class Column:
    name: str
    type: str


@dataclass
class QueryResult:
    """Rows already JSON-safe. ``more_rows`` counts rows past the cap; ``more_rows_exact`` is
    False when counting stopped at a limit (then there are *at least* that many)."""

    columns: list[Column]
    rows: list[list[Any]]
    more_rows: int = 0
    more_rows_exact: bool = True
    status: str = ""
    elapsed_ms: float = 0.0
    notes: list[str] = field(default_factory=list)


def more_rows_note(result: QueryResult) -> str:
    if not result.more_rows:
        return ""
    count = f"{result.more_rows}" if result.more_rows_exact else f"at least {result.more_rows}"
    return (f"{count} more rows not shown (row cap {len(result.rows)}); "
            "add WHERE/ORDER BY/LIMIT or aggregate to see the rest")


def text_table(result: QueryResult) -> str:
    """``a | b`` rows under a header line; ``(N rows)`` and the row-cap note at the end."""
    lines: list[str] = []
    if result.columns:
        header = [c.name for c in result.columns]
        body = [[cell_text(v, CELL_WIDTH) for v in row] for row in result.rows]
        widths = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(header)]
        lines.append(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
        lines.append("-+-".join("-" * w for w in widths))
        size = sum(len(line) + 1 for line in lines)
        for shown, r in enumerate(body):
            line = " | ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip()
            size += len(line) + 1
            if size > MAX_TABLE_CHARS:
                lines.append(f"[table cut after {shown} of {len(body)} rows to stay short; "
                             "select fewer columns or rows to see the rest]")
                break
            lines.append(line)
        lines.append(f"({len(result.rows)} row{'s' if len(result.rows) != 1 else ''})")
        lines.append("columns: " + ", ".join(f"{c.name} {c.type}" for c in result.columns))
    if result.status:
        lines.append(result.status)
    note = more_rows_note(result)
    if note:
        lines.append(note)
    lines.extend(result.notes)
    return "\n".join(lines) if lines else "(no result)"


def result_metadata(result: QueryResult, connection: str) -> dict[str, Any]:
    """What the card's grid shows: every column with its type, every returned row."""
    return {
        "connection": connection,
        "columns": [{"name": c.name, "type": c.type} for c in result.columns],
        "rows": result.rows,
        "row_count": len(result.rows),
        "more_rows": result.more_rows,
        "more_rows_exact": result.more_rows_exact,
        "status": result.status,
        "elapsed_ms": round(result.elapsed_ms, 1),
    }


@dataclass(frozen=True)
class TableColumn:
    name: str
    type: str
    nullable: bool = True
    primary_key: bool = False


@dataclass(frozen=True)
class TableInfo:
    schema: str
    name: str
    kind: str  # table | view | materialized view | partitioned table | foreign table
    columns: tuple[TableColumn, ...]

    @property
    def qualified(self) -> str:
        return f"{self.schema}.{self.name}" if self.schema else self.name


def schema_text(tables: list[TableInfo], limit: int) -> str:
    """One line per table: ``public.items (table): id integer pk, name text not null``."""
    if not tables:
        return "(no tables or views visible to this connection)"
    lines = []
    for t in tables[:limit]:
        cols = ", ".join(
            f"{c.name} {c.type}" + (" pk" if c.primary_key else "" if c.nullable else " not null")
            for c in t.columns
        )
        lines.append(f"{t.qualified} ({t.kind}): {cols}")
    if len(tables) > limit:
        lines.append(f"{len(tables) - limit} more tables not shown; pass table=<name> to see one")
    return "\n".join(lines)


def schema_metadata(tables: list[TableInfo], connection: str) -> dict[str, Any]:
    return {
        "connection": connection,
        "tables": [
            {"schema": t.schema, "name": t.name, "kind": t.kind,
             "columns": [{"name": c.name, "type": c.type, "nullable": c.nullable,
                          "primary_key": c.primary_key} for c in t.columns]}
            for t in tables
        ],
    }
