"""The CLI keeps checks owed as the app does (its sandboxed commands write rows too), so its own
start makes the checks an earlier process owed: beside the command, one line on stderr in the
person's language, what was found left for the app's notice. A check is made by one process
only, when the app and the CLI start at once."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from echo_desk.agent.owed_checks import make_owed_checks
from echo_desk.cli import owed_checks
from echo_desk.i18n import set_language
from echo_desk.runtime import Runtime
from echo_desk.store.audit import AuditLog
from echo_desk.store.owed_checks import OWED_CHECKS_FILE, OwedChecksStore
from tests.owed_check_helpers import owed_by_a_gone_process, snapshot_of

CJK = re.compile(r"[\u4e00-\u9fff]")


def _cli(tmp_path: Path, *args: str, lang: str = "C.UTF-8") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LANG": lang, "LC_ALL": "", "LC_MESSAGES": "", "LANGUAGE": "",
           "ECHO_DESK_CONFIG_DIR": str(tmp_path / "config"), "ECHO_DESK_DATA_DIR": str(tmp_path / "data"),
           "ECHO_DESK_CACHE_DIR": str(tmp_path / "cache"), "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    return subprocess.run([sys.executable, "-m", "echo_desk", "--no-mcp", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, check=False)


def _owed_hook(tmp_path: Path) -> tuple[OwedChecksStore, Path]:
    workspace, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    store = OwedChecksStore(tmp_path / "data" / OWED_CHECKS_FILE)
    store.owe(conversation_id="c", call_id="call-1", tool="run_command", workspace=str(workspace),
              snapshot=snapshot_of(workspace, home, tmp_path / "data" / "put-aside"))
    owed_by_a_gone_process(store)
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho planted\n")
    return store, hook


def test_the_cli_start_makes_the_owed_check_and_says_so_on_stderr(tmp_path: Path) -> None:
    store, hook = _owed_hook(tmp_path)
    done = _cli(tmp_path, "tools", "list", "--json")
    assert done.returncode == 0, done.stderr
    assert not hook.exists()  # put aside by the CLI's start, not left until the app's
    json.loads(done.stdout)  # the command's output is its own
    assert ("Echo Desk checked 1 sandboxed command that an earlier Echo Desk was closed before checking, and "
            "something needs your attention: open Echo Desk") in done.stderr
    [told] = store.untold()  # the app's notice still names what was found
    assert told.call_id == "call-1" and told.planted and store.owed() == []


def test_the_line_is_in_the_persons_language_and_says_when_nothing_was_found(tmp_path: Path) -> None:
    workspace, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    workspace.mkdir()
    store = OwedChecksStore(tmp_path / "data" / OWED_CHECKS_FILE)
    for call in ("call-1", "call-2"):
        store.owe(conversation_id="c", call_id=call, tool="run_command", workspace=str(workspace),
                  snapshot=snapshot_of(workspace, home, tmp_path / "data" / "put-aside"))
    owed_by_a_gone_process(store)
    done = _cli(tmp_path, "tools", "list", "--json", lang="zh_CN.UTF-8")
    assert done.returncode == 0, done.stderr
    [line] = [x for x in done.stderr.splitlines() if "补查了" in x]
    assert "2 条沙箱命令" in line and "没有发现" in line and CJK.search(line)
    english = _cli(tmp_path, "tools", "list", "--json")
    assert "checked" not in english.stderr  # made once: nothing owed any more


def test_nothing_owed_says_nothing_and_opens_no_store(tmp_path: Path) -> None:
    done = _cli(tmp_path, "tools", "list", "--json")
    assert done.returncode == 0, done.stderr
    assert "checked" not in done.stderr
    assert not (tmp_path / "data" / OWED_CHECKS_FILE).exists()
    assert not (tmp_path / "data" / "conversations.sqlite3").exists()


def test_a_check_claimed_by_a_process_still_running_is_not_made_again(tmp_path: Path) -> None:
    """The app and the CLI starting at once both see the row owed: the first to claim it makes
    the check; the other, finding it claimed, makes none (its second check would find nothing
    where the first put aside what it found, and say so over the first's words)."""
    store, hook = _owed_hook(tmp_path)
    [check] = store.owed()
    assert store.claim(check)  # this (running) process makes it
    assert not store.claim(check) and store.owed() == []
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        assert make_owed_checks(store, audit) == 0
    finally:
        audit.close()
    assert hook.exists() and store.untold() == []


def test_a_check_whose_maker_was_killed_in_turn_is_owed_again(tmp_path: Path) -> None:
    store, hook = _owed_hook(tmp_path)
    [check] = store.owed()
    assert store.claim(check)
    owed_by_a_gone_process(store)  # killed while it made it
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        assert make_owed_checks(store, audit) == 1
    finally:
        audit.close()
    assert not hook.exists() and [r.call_id for r in store.untold()] == ["call-1"]


def test_the_line_counts_commands_and_servers_apart_in_both_languages(tmp_path: Path) -> None:
    """A server's check is no command's: the line says each kind with its own count (before s331
    it said "2 sandboxed commands"), in the person's language."""
    store, _hook = _owed_hook(tmp_path)  # a command's check that finds a planted hook
    folder, home = tmp_path / "folder", tmp_path / "server-home"
    folder.mkdir()
    home.mkdir()
    store.owe(conversation_id="", call_id="", tool="probe", server="probe", workspace=str(folder),
              snapshot=snapshot_of(folder, home, tmp_path / "data" / "put-aside"))
    owed_by_a_gone_process(store)
    runtime = Runtime.create(data_dir=tmp_path / "data", with_builtins=False, with_plugins=False)
    try:
        made = owed_checks.make_owed_checks(runtime)
    finally:
        runtime.close()
    assert made == owed_checks.Made(commands=1, servers=1, to_look_at=1)
    lines = {}
    try:
        for language in ("en", "zh_CN"):
            set_language(language)
            out = io.StringIO()
            owed_checks.tell(made, out)
            lines[language] = out.getvalue().strip()
            out = io.StringIO()
            owed_checks.tell(owed_checks.Made(servers=2), out)
            lines[f"{language} servers"] = out.getvalue().strip()
    finally:
        set_language("en")
    assert lines["en"].startswith("Echo Desk checked 1 sandboxed command and 1 sandboxed MCP server that an earlier "
                                  "Echo Desk was closed before checking, and something needs your attention")
    assert lines["en servers"] == ("Echo Desk checked 2 sandboxed MCP servers that an earlier Echo Desk was closed "
                                   "before checking: nothing was left that would run code later.")
    assert "1 条沙箱命令，以及 1 个沙箱 MCP 服务器" in lines["zh_CN"] and "需要你留意" in lines["zh_CN"]
    assert "2 个沙箱 MCP 服务器" in lines["zh_CN servers"] and "没有发现" in lines["zh_CN servers"]
    assert "命令" not in lines["zh_CN servers"] and CJK.search(lines["zh_CN servers"])


def test_what_an_earlier_start_found_is_not_counted_again(tmp_path: Path) -> None:
    """A check made by an earlier start and not yet told (the app not opened since) is the notice's
    to say: this start's line says what its own checks found (nothing here)."""
    folder, home = tmp_path / "folder", tmp_path / "home"
    folder.mkdir()
    home.mkdir()
    store = OwedChecksStore(tmp_path / "data" / OWED_CHECKS_FILE)
    earlier = store.owe(conversation_id="c", call_id="call-0", tool="run_command", workspace=str(folder),
                        snapshot=b"")
    store.checked(earlier, [{"path": ".envrc", "change": "created"}])  # found, not told yet
    store.owe(conversation_id="", call_id="", tool="probe", server="probe", workspace=str(folder),
              snapshot=snapshot_of(folder, home, tmp_path / "data" / "put-aside"))
    owed_by_a_gone_process(store)
    runtime = Runtime.create(data_dir=tmp_path / "data", with_builtins=False, with_plugins=False)
    try:
        assert owed_checks.make_owed_checks(runtime) == owed_checks.Made(servers=1)
    finally:
        runtime.close()
    assert len(store.untold()) == 2
