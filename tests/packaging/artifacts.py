"""Shared helpers for the packaging smoke tests: the repository, its version, a known
translated string, and running a built program the way a user would (no checkout on the path)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ZH_PO = REPO / "i18n" / "zh_CN" / "LC_MESSAGES" / "echo_desk.po"
APP_ID = "io.github.echodesk.EchoDesk"
# Generous: these start a fresh interpreter (and Qt) on a busy 2-core machine.
RUN_TIMEOUT = 180


@dataclass(frozen=True)
class Dist:
    wheel: Path
    sdist: Path


@dataclass(frozen=True)
class WheelVenv:
    root: Path
    python: Path
    echo_desk: Path
    site_packages: Path
    workdir: Path


def source_version() -> str:
    """The version as written in its one place, read as text (not imported from the checkout)."""
    text = (REPO / "echo_desk" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__\s*=\s*"([^"]+)"', text, re.MULTILINE)
    assert match, "echo_desk/__init__.py has no __version__"
    return match.group(1)


@dataclass(frozen=True)
class KnownString:
    msgid: str
    zh_CN: str


def known_zh_string() -> KnownString:
    """One translated message from the zh_CN catalog source, to look up in a compiled one."""
    from babel.messages.pofile import read_po

    with ZH_PO.open("rb") as handle:
        catalog = read_po(handle, locale="zh_CN")
    for message in catalog:
        if (message.id and isinstance(message.id, str) and isinstance(message.string, str)
                and message.string and message.string != message.id and not message.fuzzy):
            return KnownString(message.id, message.string)
    raise AssertionError(f"{ZH_PO} has no translated message")


def user_env(**extra: str) -> dict[str, str]:
    """The environment of a user's shell: offscreen Qt, and no PYTHONPATH pointing at the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "ECHO_DESK_BLOCK_QT")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    env.update(extra)
    return env


def run(cmd: list[str], cwd: Path, **extra_env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=user_env(**extra_env), capture_output=True, text=True,
                          timeout=RUN_TIMEOUT, check=False)


def builtin_tool_names(stdout: str) -> set[str]:
    """The built-in tools of a ``tools list --json`` (plugins depend on what else is installed)."""
    rows = json.loads(stdout)["tools"]
    assert isinstance(rows, list)
    return {row["name"] for row in rows if row["source"] == "builtin"}


def assert_first_frame(result: subprocess.CompletedProcess[str]) -> None:
    """The GUI painted its first frame and left cleanly (ECHO_DESK_EXIT_AFTER_FIRST_FRAME=1)."""
    assert result.returncode == 0, f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert "FIRST_FRAME" in result.stdout, result.stdout + result.stderr


def _envelope(result: subprocess.CompletedProcess[str]) -> dict[str, object]:
    assert result.stdout.lstrip().startswith("{"), f"no envelope (exit {result.returncode}):\n{result.stderr}"
    envelope = json.loads(result.stdout)
    assert isinstance(envelope, dict)
    return envelope


def assert_tools_run(program: list[str], workspace: Path) -> None:
    """Real tools through the real dispatcher from a built program: a search (pathspec, worker
    thread) and an approved write (preview, diff, atomic save). Lazy imports missing from a
    build break here, not in ``tools list``."""
    (workspace / "notes.txt").write_text("packaged hello\n", encoding="utf-8")
    found = run([*program, "call", "search_files", "--args", json.dumps({"regex": "packaged"}),
                 "--workspace", str(workspace)], cwd=workspace)
    envelope = _envelope(found)
    assert envelope["ok"], envelope
    assert "notes.txt" in envelope["content"]
    target = workspace / "written.txt"
    wrote = run([*program, "call", "write_file", "--args", json.dumps({"path": str(target), "content": "from a build\n"}),
                 "--workspace", str(workspace), "--yes"], cwd=workspace)
    envelope = _envelope(wrote)
    assert envelope["ok"], envelope
    assert [change["kind"] for change in envelope["file_changes"]] == ["create"]
    assert target.read_text(encoding="utf-8") == "from a build\n"
