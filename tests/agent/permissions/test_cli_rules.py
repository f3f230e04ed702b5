"""``echo-desk rules``: a real subprocess, the same engine the dispatcher uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "git status **"

[[rule]]
effect = "deny"
tool = "fetch"
pattern = "domain:*.evil.example"

[[rule]]
effect = "allow"
tool = "mcp:gh/create_issue"
pattern = 'repo = "acme/*"'
"""


def rules(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "echo_desk", "--no-mcp", "rules", *args], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ), cwd=cwd, stdin=subprocess.DEVNULL)


def _config() -> Path:
    path = Path(os.environ["ECHO_DESK_CONFIG_DIR"])
    path.mkdir(parents=True, exist_ok=True)
    (path / "permissions.toml").write_text(RULES)
    return path


def test_check_prints_each_part_with_its_rule_and_exits_by_verdict(tmp_path: Path) -> None:
    config = _config()
    allowed = rules("check", "--workspace", str(tmp_path), "--", "git status -s | git status")
    assert allowed.returncode == 0, allowed.stderr
    out = json.loads(allowed.stdout)
    assert out["verdict"] == "allow" and len(out["parts"]) == 2
    assert out["shell"].endswith("bash --noprofile --norc -c")  # the shell that would run the line
    assert out["decided_by"]["rule"] == {"effect": "allow", "tool": "shell", "pattern": "git status **",
                                         "file": str(config / "permissions.toml"), "line": 2}
    asked = rules("check", "--workspace", str(tmp_path), "--", "git status; curl x")
    assert asked.returncode == 1 and json.loads(asked.stdout)["parts"][1]["verdict"] is None
    denied = rules("check", "--url", "https://a.evil.example/x")
    assert denied.returncode == 2
    mcp = rules("check", "--mcp", "gh/create_issue", "--args", '{"repo": "acme/web", "title": "x"}')
    assert mcp.returncode == 0
    assert rules("check", "--mcp", "gh/create_issue", "--args", '{"repo": "other/web"}').returncode == 1


def test_untrusted_text_is_printed_escaped(tmp_path: Path) -> None:
    _config()
    out = rules("check", "--workspace", str(tmp_path), "--", "ls \u202e; echo \x1b[31m")
    assert "\u202e" not in out.stdout and "\x1b" not in out.stdout and "\\u202e" in out.stdout


def test_list_grants_revoke_and_trust(tmp_path: Path) -> None:
    _config()
    listing = json.loads(rules("list", "--json", "--workspace", str(tmp_path)).stdout)
    assert [r["line"] for r in listing["rules"] if r["layer"] == "user"] == [2, 7, 12]
    assert rules("grants").stdout.strip() == "no grants in force"
    assert rules("revoke", "g_nothing").returncode == 1
    assert rules("revoke", "--all").stdout.strip() == "revoked 0 grants"
    (tmp_path / ".echo-desk").mkdir()
    (tmp_path / ".echo-desk" / "permissions.toml").write_text('[[rule]]\neffect = "allow"\ntool = "shell"\n'
                                                                'pattern = "make **"\n')
    assert rules("check", "--workspace", str(tmp_path), "--", "make test").returncode == 1
    refused = rules("trust", str(tmp_path))  # no terminal, no --yes: nothing trusted
    assert refused.returncode == 1 and '"make **"' in refused.stdout
    assert rules("trust", str(tmp_path), "--yes").returncode == 0
    assert rules("check", "--workspace", str(tmp_path), "--", "make test").returncode == 0


def test_allow_in_sandbox_is_listed_and_checked_with_its_own_exit_code(tmp_path: Path) -> None:
    config = _config()
    with (config / "permissions.toml").open("a") as f:
        f.write('\n[[rule]]\neffect = "allow-in-sandbox"\ntool = "shell"\npattern = "make **"\n')
    listed = rules("list", "--workspace", str(tmp_path))
    assert listed.returncode == 0 and 'allow-in-sandbox "shell" "make **"' in listed.stdout
    checked = rules("check", "--workspace", str(tmp_path), "--", "make test && git status")
    assert checked.returncode == 3, checked.stderr
    out = json.loads(checked.stdout)
    assert out["verdict"] == "allow-in-sandbox" and out["sandbox"]["status"] in {s for s in (
        "available", "bwrap_missing", "apparmor_userns", "userns_disabled", "container", "wsl1", "flatpak",
        "unsupported_os", "failed")}
    # A chain with one part not covered is not allowed anywhere.
    assert rules("check", "--workspace", str(tmp_path), "--", "make test; curl x").returncode == 1
