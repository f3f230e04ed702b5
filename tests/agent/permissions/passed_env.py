"""Tests of the readers of a variable judge it as a command gets it: ``run_command`` passes
only an allow-list of Echo Desk's environment (``sandbox.command_environment``), so a test
setting ``GIT_DIR`` for the engine to read must let it through too, as a line's
``env GIT_DIR=… git`` would."""

from __future__ import annotations

import pytest

from echo_desk.sandbox import environment


def pass_on(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    """Set ``name`` in Echo Desk's environment, and let commands get it."""
    monkeypatch.setenv(name, value)
    monkeypatch.setattr(environment, "ALLOWED_NAMES", environment.ALLOWED_NAMES | {name})
