"""The engine, the CLI and the stores never load Qt."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def test_engine_cli_and_stores_import_without_loading_qt() -> None:
    code = (
        "import sys\n"
        "import echo_desk.runtime, echo_desk.cli.main, echo_desk.cli.with_runtime, echo_desk.cli.ask, echo_desk.cli.rules\n"
        "import echo_desk.cli.changes, echo_desk.cli.mcp, echo_desk.agent.loop, echo_desk.agent.delegate\n"
        "import echo_desk.store.conversations, echo_desk.store.audit, echo_desk.providers.factory, echo_desk.mcp\n"
        "import echo_desk.builtins, echo_desk.builtins.database\n"
        "echo_desk.runtime.Runtime\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'qasync', 'shiboken6')]\n"
        "print(loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.skipif(os.environ.get("ECHO_DESK_BLOCK_QT") != "1", reason="only in the Qt-blocked run")
def test_qt_really_is_blocked_in_this_run() -> None:
    with pytest.raises(ImportError, match="blocked"):
        import PySide6  # noqa: F401
