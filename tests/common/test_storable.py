"""Text from the file system that is not UTF-8 (lone surrogates) made storable and sendable."""

from __future__ import annotations

import json
import os
import sqlite3

from echo_desk.common.storable import storable, storable_text
from echo_desk.i18n import N_, for_person, set_language, shown


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


def test_an_error_written_for_the_person_stays_so_when_made_storable() -> None:
    # A file tool's error naming a non-UTF-8 file: the model's English and the person's words
    # (their language, on the tool card) both get the visible escapes; neither is lost.
    name = os.fsdecode(b"z\xff.txt")
    error = for_person(f"{name} already exists; nothing is replaced.", N_("{path} already exists."), path=name)
    made = storable_text(error)
    assert made == "z\\xff.txt already exists; nothing is replaced."
    made.encode("utf-8")
    try:
        set_language("zh_CN")
        assert shown(made) == "z\\xff.txt 已存在。"
    finally:
        set_language("en")
