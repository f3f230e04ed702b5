"""A watch is stopped once however often its page is closed: the Settings window's close and
then the test's (or the app's) close of the same page stopped it twice, and the second stop, its
timer already deleted, raised inside a close event, which took the whole process down."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent

from echo_desk.ui.core.file_watch import FileWatch


def test_stopping_twice_after_the_watch_is_deleted_does_nothing(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    called: list[int] = []
    watch = FileWatch([tmp_path], [], lambda: called.append(1))
    watch.stop()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # its deleteLater has run
    watch.stop()  # raised RuntimeError: Internal C++ object (QTimer) already deleted
    (tmp_path / "new.txt").write_text("x")
    QCoreApplication.processEvents()
    assert called == []
