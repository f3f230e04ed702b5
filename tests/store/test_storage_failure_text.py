"""A failed database or file write is said in the words every system refusal uses
(``common.explain``), and in the language of the moment when it is shown: one table of the
system's refusals, not two that said "permission denied" here and "the data folder cannot be
written" there."""

from __future__ import annotations

import errno
import sqlite3

import pytest

from echo_desk.common.explain import refusal_cause, refused
from echo_desk.i18n import set_language, shown
from echo_desk.store.not_saved import storage_failure_text


@pytest.mark.parametrize("code", [errno.EACCES, errno.EPERM, errno.EROFS])
def test_a_refused_write_is_said_as_every_refusal(code: int) -> None:
    error = OSError(code, "the C library's English")
    assert storage_failure_text(error) == refusal_cause(error)


def test_a_refusal_not_listed_is_said_as_every_refusal() -> None:
    error = OSError(errno.EIO, "Input/output error")
    assert storage_failure_text(error) == refused(error) == "the system refused it: Input/output error"


def test_sqlite_s_own_cause_is_named_and_follows_a_language_switch(chinese: None) -> None:
    error = sqlite3.OperationalError("database or disk is full")
    error.sqlite_errorname = "SQLITE_FULL"  # as SQLite sets it
    said = storage_failure_text(error)
    assert said == "磁盘已满"
    set_language("en")
    assert shown(said) == "the disk is full"
    assert shown(storage_failure_text(OSError(errno.ENOSPC, "No space left on device"))) == "the disk is full"


def test_anything_else_keeps_its_own_words() -> None:
    assert storage_failure_text(ValueError("bad row")) == "bad row"
