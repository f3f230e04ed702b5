"""Text from the file system that is not UTF-8 (lone surrogates) made storable and sendable."""

from __future__ import annotations

import json
import os
import sqlite3

from echo_desk.common.storable import storable, storable_text


def test_a_name_whose_bytes_are_not_utf8_is_written_with_visible_escapes() -> None:
    name = os.fsdecode(b"z\xff\xfe.txt")
    assert storable_text(name) == "z\\xff\\xfe.txt"
    assert storable_text("\ud800x") == "\\ud800x"  # a lone surrogate of another origin
    assert storable_text("plain 中文 ✓ 😀") == "plain 中文 ✓ 😀"


def test_what_was_made_storable_is_taken_by_sqlite_and_json_and_nothing_else_is_copied() -> None:
    clean = {"a": ["b", ("c", 1)], "n": None}
    assert storable(clean) is clean
    dirty = {os.fsdecode(b"k\xff"): [os.fsdecode(b"v\xfe"), ("ok", 2)], "same": clean}
    made = storable(dirty)
    assert made == {"k\\xff": ["v\\xfe", ("ok", 2)], "same": clean} and made["same"] is clean
    text = json.dumps(made, ensure_ascii=False)
    with sqlite3.connect(":memory:") as db:
        db.execute("CREATE TABLE t (x TEXT)")
        db.execute("INSERT INTO t VALUES (?)", (text,))  # the raw one raises UnicodeEncodeError here
        assert db.execute("SELECT x FROM t").fetchone()[0] == text
    text.encode("utf-8")
