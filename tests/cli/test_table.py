"""The terminal's tables: columns line up whatever the cells hold (long names, wide characters)."""

from __future__ import annotations

from echo_desk.cli.words import cells, table


def _column_starts(line: str, texts: list[str]) -> list[int]:
    """The terminal cell where each of ``texts`` starts in ``line`` (they appear in order)."""
    starts, at = [], 0
    for text in texts:
        at = line.index(text, at)
        starts.append(cells(line[:at]))
        at += len(text)
    return starts


def test_every_column_starts_at_the_same_cell_in_every_row() -> None:
    rows = [["NAME", "RISK", "STATE"],
            ["github__create_pull_request_review", "Execute", "closed"],
            ["db_query", "读取", "闭合（未配置数据库）"],
            ["x", "Read", "open"]]
    lines = table(rows)
    starts = [_column_starts(line, r) for line, r in zip(lines, rows, strict=True)]
    assert all(s == starts[0] for s in starts), lines
    # Each column is as wide as its widest cell, and no cell touches the next one.
    assert starts[0] == [0, cells("github__create_pull_request_review") + 1,
                         cells("github__create_pull_request_review") + 1 + cells("Execute") + 1]


def test_the_last_column_is_not_padded() -> None:
    assert table([["A", "B"], ["long name", "x"]]) == ["A         B", "long name x"]
