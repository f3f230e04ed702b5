"""Fixtures for the main window's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication


@pytest.fixture
def larger_font(qapp: QApplication) -> Iterator[None]:
    """The desktop's font two points larger (11 pt where Qt's default is 9)."""
    before = qapp.font()
    font = qapp.font()
    font.setPointSize(font.pointSize() + 2)
    qapp.setFont(font)
    yield
    qapp.setFont(before)
