"""The system prompt: what it must tell the model, and that it stays short."""

from __future__ import annotations

import datetime
from pathlib import Path

from echo_desk.agent.prompts import system_message
from echo_desk.agent.scope import Scope


def test_system_prompt_says_where_when_what_and_how() -> None:
    scope = Scope(label="t", workspace_roots=(Path("/home/ada/project"),))
    text = system_message(scope, today=datetime.date(2026, 11, 30), system="Linux 6.1").content
    for fact in ("/home/ada/project", "2026-11-30", "Linux 6.1", "relative", "Read a file before answering about it or changing it", "search_files",
                 "edit_file", "write_file only creates new files", "denies", "user's language"):
        assert fact in text, fact
    # Every word is prompt processing on a CPU at every turn: keep it near 120 words.
    assert len(text.split()) < 130


def test_without_a_workspace_it_says_none() -> None:
    assert "Workspace: (none)" in system_message(Scope(label="t")).content
