"""The store of what was put aside as Echo Desk quit: private, told once, and never broken by an
odd name (a path's bytes that are not UTF-8) or a row it cannot read."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from echo_desk.store.left_at_quit import LeftAtQuitStore
from echo_desk.tools.planted import Change, Planted


def test_records_are_kept_private_in_order_and_told_once(tmp_path: Path) -> None:
    store = LeftAtQuitStore(tmp_path / "data" / "left_at_quit.sqlite3")
    assert store.untold() == [] and not store.path.exists()
    store.add("a", "/w/a", [Planted(".envrc", Change.CREATED, kept="/k/.envrc").to_json()], at=1.0)
    store.add("b", "/w/b", [Planted(".git/config", Change.CHANGED, put_back=True).to_json()], at=2.0)
    store.add("c", "/w/c", [Planted(".envrc", Change.CREATED).to_json()], told=True)
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    first, second = store.untold()
    assert (first.server, first.folder, first.at, first.planted[0]["kept"]) == ("a", "/w/a", 1.0, "/k/.envrc")
    assert (second.server, second.planted[0]["change"], second.planted[0]["put_back"]) == ("b", "changed", True)
    store.mark_told([first.id])
    assert [r.server for r in store.untold()] == ["b"]


def test_a_name_that_is_not_utf8_and_a_row_it_cannot_read(tmp_path: Path) -> None:
    store = LeftAtQuitStore(tmp_path / "left_at_quit.sqlite3")
    odd = os.fsdecode(b"caf\xe9/.envrc")
    store.add("s\udcff", os.fsdecode(b"/w/\xff"), [Planted(odd, Change.CREATED).to_json()])
    with sqlite3.connect(store.path) as conn:
        conn.execute("INSERT INTO left_at_quit (at, server, folder, planted) VALUES (0, 'x', '/w', 'not json')")
    good, broken = store.untold()
    assert good.planted[0]["path"] == "caf\\xe9/.envrc" and good.folder == "/w/\\xff"
    assert (broken.server, broken.planted) == ("x", ())
