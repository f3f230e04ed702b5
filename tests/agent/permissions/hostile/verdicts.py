"""The engine's verdict (and what its parser collected) for many lines, computed in a child
process: a parser crash (tree-sitter-bash 0.25.1 segfaults on some inputs) kills the child,
never the test run. The crashing line is recorded and the child restarted after it.

Run as a script, this file is the child: ``python verdicts.py REQUEST START`` reads the request
(rule sets and ``[rule set, line]`` items, JSON), builds a scratch world with one engine per
rule set, and prints one JSON result per item from ``START`` on, flushing each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[4]
ALLOWING = frozenset({"allow", "allow-in-sandbox"})


@dataclass(frozen=True)
class Judged:
    """One line's verdict under one rule set. ``effect`` is the engine's effect (``none``: no
    rule spoke, the tool's default asks), or ``crash`` when checking it killed the process."""

    effect: str
    programs: tuple[str | None, ...] = ()
    words: tuple[str, ...] = ()
    detail: str = ""

    @property
    def allowed(self) -> bool:
        return self.effect in ALLOWING

    @property
    def crashed(self) -> bool:
        return self.effect == "crash"


def judge(rule_sets: dict[str, str], items: list[tuple[str, str]], *, timeout: float = 600.0) -> list[Judged]:
    """Each ``(rule set name, line)`` judged by the engine in a child process."""
    with tempfile.TemporaryDirectory(prefix="hostile-verdicts-") as tmp:
        request = Path(tmp) / "request.json"
        request.write_text(json.dumps({"rule_sets": rule_sets, "items": items}), encoding="utf-8")
        results: dict[int, Judged] = {}
        start = 0
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONFAULTHANDLER": ""}
        while start < len(items):
            child = subprocess.run([sys.executable, __file__, str(request), str(start)], capture_output=True,
                                   env=env, timeout=timeout, cwd=tmp)
            for text in child.stdout.decode("utf-8", "replace").splitlines():
                if not text.startswith("{"):
                    continue
                raw = json.loads(text)
                results[raw["i"]] = Judged(raw["effect"], tuple(raw["programs"]), tuple(raw["words"]))
            done = [i for i in results if i >= start]
            after = max(done) + 1 if done else start
            if after >= len(items):
                break
            if child.returncode == 0:
                raise RuntimeError(f"the verdict child stopped early without failing:\n{child.stderr.decode()[-2000:]}")
            if child.returncode > 0 and not done and start == 0:
                raise RuntimeError(f"the verdict child failed (exit {child.returncode}):\n{child.stderr.decode()[-3000:]}")
            results[after] = Judged("crash", detail=f"exit {child.returncode}")
            start = after + 1
        return [results[i] for i in range(len(items))]


_PROBE = """
import sys, tempfile
from pathlib import Path
from echo_desk.agent.permissions import PermissionEngine
from echo_desk.store.grants import GrantStore
with tempfile.TemporaryDirectory() as tmp:
    engine = PermissionEngine(config_dir=Path(tmp) / "config", grants=GrantStore(Path(tmp) / "g.sqlite3"), home=Path(tmp))
    engine.check_command(sys.argv[1], workspace=Path(tmp))
"""


def crashes(line: str, *, runs: int = 3, timeout: float = 60.0) -> int:
    """How many of ``runs`` fresh processes die checking ``line`` with the engine. The
    tree-sitter crash reads out of bounds: whether it faults depends on the address layout,
    so a line is tried in several processes (a fixed engine survives every one)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    died = 0
    for _ in range(runs):
        child = subprocess.run([sys.executable, "-c", _PROBE, line], capture_output=True, env=env, timeout=timeout)
        died += child.returncode < 0
    return died


# -- the child ------------------------------------------------------------------------------
def _engines(rule_sets: dict[str, str], root: Path) -> dict[str, Any]:
    from echo_desk.agent.permissions import PermissionEngine
    from echo_desk.store.grants import GrantStore

    engines = {}
    for name, text in rule_sets.items():
        config = root / "home" / ".config" / f"echo-desk-{name}"
        config.mkdir(parents=True)
        if text:
            (config / "permissions.toml").write_text(text, encoding="utf-8")
        store = GrantStore(root / f"grants-{name}.sqlite3")
        engine = PermissionEngine(config_dir=config, grants=store, home=root / "home")
        report = engine.load((root / "ws",))
        if report.errors:
            raise SystemExit(f"rule set {name!r} does not load: {[p.describe() for p in report.errors]}")
        engines[name] = engine
    return engines


def _collected(line: str) -> tuple[list[str | None], list[str]]:
    from echo_desk.agent.permissions.shell import analyse

    analysis = analyse(line)
    programs: list[str | None] = []
    words: list[str] = []
    for command in analysis.commands:
        argv = getattr(command, "argv", ())
        programs.append(getattr(command, "program", None))
        words.extend(w.value for w in argv if getattr(w, "value", None) is not None)
    return programs, words


def _child(request_path: str, start: int) -> None:
    sys.path.insert(0, str(REPO))
    from tests.agent.permissions.hostile import scratch

    request = json.loads(Path(request_path).read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="hostile-world-") as tmp:
        root = scratch.build_template(Path(tmp))
        engines = _engines(request["rule_sets"], root)
        ws = root / "ws"
        for i, (rules, line) in enumerate(request["items"]):
            if i < start:
                continue
            filled = scratch.fill(line, root)
            effect = engines[rules].check_command(filled, workspace=ws).effect
            programs, words = _collected(filled)
            print(json.dumps({"i": i, "effect": effect.value if effect is not None else "none",
                              "programs": programs, "words": words}), flush=True)


if __name__ == "__main__":
    _child(sys.argv[1], int(sys.argv[2]))
