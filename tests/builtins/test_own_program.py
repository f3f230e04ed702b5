"""Echo Desk's own program — its package and, when it runs from a virtual environment, that
environment (its site-packages' .pth files, sitecustomize, its scripts) — runs at Echo Desk's next
start with all of its trust. A file tool writing there needs the person's own approval of that
exact path, whatever rule allows writing in the workspace that holds it (a checkout of Echo Desk,
the home folder holding a pipx or uv install)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tool_test_helpers import MakeCtx

import echo_desk
from echo_desk.builtins import WriteFile
from echo_desk.builtins.files.lifecycle import protections_of
from echo_desk.common.fs import resolve
from echo_desk.tools import ErrorKind, ProtectionReason


def test_echo_desks_own_package_is_protected() -> None:
    package = Path(echo_desk.__file__).resolve().parent
    target = resolve(str(package / "runtime.py"), (package.parent,))
    assert [p.reason for p in protections_of(target)] == [ProtectionReason.RUNS_CODE]


async def test_a_pth_file_in_echo_desks_environment_needs_the_persons_own_approval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_ctx: MakeCtx,
) -> None:
    venv = (tmp_path / "home" / ".local/share/pipx/venvs/echo-desk").resolve()
    site = venv / "lib/python3.12/site-packages"
    site.mkdir(parents=True)
    monkeypatch.setattr(sys, "prefix", str(venv))
    monkeypatch.setattr(sys, "base_prefix", "/usr")
    home = tmp_path / "home"
    params = {"path": str(site / "zz-agent.pth"), "content": "import os; os.system('id')\n"}
    ctx = make_ctx("write_file", roots=(home.resolve(),))
    preview = await WriteFile().preview(params, ctx)
    assert [p.reason for t in preview.targets for p in t.protections] == [ProtectionReason.RUNS_CODE]
    result = await WriteFile().execute(params, ctx)  # allowed by a rule, not approved by the person
    assert result.error_kind is ErrorKind.BUSINESS
    assert not (site / "zz-agent.pth").exists()
