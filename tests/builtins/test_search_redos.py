"""search_files with hostile patterns (issue 20, item 6): they finish well within the tool's
timeout, through the real pipeline, while the caller's event loop keeps running.

Before the fix ``(a|a)*b`` over a 27-character line stalled the loop for 35 s, and the glob
below ran past 120 s against a 43-character name: Python's ``re`` held the GIL throughout.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.builtins import SearchFiles
from echo_desk.builtins.search.patterns import LineSearch
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import ErrorKind

#: Far below the tool's own timeout (60 s): a hostile pattern must not get anywhere near it.
DEADLINE = SearchFiles.timeout_seconds / 6
#: The longest the caller's loop may go without running (generous for a busy 2-core machine).
MAX_LOOP_LAG = 1.0

EXPLODING_REGEXES = [
    r"(a|a)*b",
    r"(a+)+b",
    r"(a*)*b",
    r"(.*a){25}b",
    r"^(\w+\s?)*$",
    r"(x+x+)+y",
]
EXPLODING_GLOBS = [
    "*n*n*n*n*n*n*n*n*n*n*n*nQ",
    "**/*n*n*n*n*n*n*n*n*n*n*n*nQ",
]
#: Constructs a linear-time engine cannot run: refused with a message naming the construct.
REFUSED = {
    r"(a)\1": "backreferences",
    r"(?P<x>a)(?P=x)": "backreferences",
    r"foo(?=bar)": "lookahead",
    r"foo(?!bar)": "lookahead",
    r"(?<=a)b": "lookbehind",
    r"(?<!a)b": "lookbehind",
    r"(?>a+)b": "atomic",
    r"a*+b": "possessive",
    r"end\Z": "\\z",
    r"(": "missing",
}


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    rt = Runtime.create(settings_store=SettingsStore.in_dir(tmp_path / "cfg"), data_dir=tmp_path,
                        with_plugins=False)
    yield rt
    rt.close()


@asynccontextmanager
async def loop_lag() -> AsyncIterator[list[float]]:
    """Yields a list that ends up holding the longest gap between two turns of this loop."""
    worst = [0.0]

    async def tick() -> None:
        last = time.monotonic()
        while True:
            await asyncio.sleep(0.005)
            now = time.monotonic()
            worst[0] = max(worst[0], now - last)
            last = now

    ticker = asyncio.create_task(tick())
    try:
        yield worst
    finally:
        ticker.cancel()


async def _search(runtime: Runtime, workspace: Path, args: dict[str, Any]) -> Any:
    scope = Scope(label="conversation", workspace_roots=(workspace,))
    call = ToolCall(id="c1", name="search_files", arguments=json.dumps(args))
    host = ScriptedHost(choice=ApprovalChoice.DENY)  # a read tool: it must not even ask
    with anyio.fail_after(DEADLINE):
        envelope = await runtime.dispatcher.execute_tool(call, scope, host)
    assert host.requests == []
    return envelope


@pytest.mark.parametrize("pattern", EXPLODING_REGEXES)
async def test_an_exploding_regex_finishes_and_the_loop_keeps_running(
    runtime: Runtime, workspace: Path, pattern: str
) -> None:
    # None of them matches: each line ends in "!" and holds no "b" or "y".
    lines = ["a" * 27 + "!", "a" * 40 + "c!", "x" * 60 + "!", "word " * 30 + "!", "a" * 100_000 + "!"]
    (workspace / "victim.txt").write_text("\n".join(lines) + "\n")
    async with loop_lag() as lag:
        envelope = await _search(runtime, workspace, {"regex": pattern})
    assert envelope.ok, envelope.error
    assert envelope.content == "no matches"
    assert lag[0] < MAX_LOOP_LAG, f"the loop stalled {lag[0]:.2f} s"


@pytest.mark.parametrize("glob", EXPLODING_GLOBS)
async def test_an_exploding_glob_finishes_and_the_loop_keeps_running(
    runtime: Runtime, workspace: Path, glob: str
) -> None:
    name = "n" * 43
    assert len(name) == 43
    (workspace / name).write_text("x\n")
    (workspace / "sub").mkdir()
    (workspace / "sub" / name).write_text("x\n")
    async with loop_lag() as lag:
        envelope = await _search(runtime, workspace, {"glob": glob})
    assert envelope.ok and envelope.content == "no matches"
    found = await _search(runtime, workspace, {"glob": glob[:-1]})  # without the Q it matches
    assert name in found.content
    assert lag[0] < MAX_LOOP_LAG, f"the loop stalled {lag[0]:.2f} s"


async def test_an_exploding_gitignore_line_is_harmless(runtime: Runtime, workspace: Path) -> None:
    # A cloned repository's .gitignore is as untrusted as the model.
    (workspace / ".gitignore").write_text("*n*n*n*n*n*n*n*n*n*n*n*nQ\n" * 20 + "ignored.txt\n")
    (workspace / ("n" * 43)).write_text("hit\n")
    (workspace / "ignored.txt").write_text("hit\n")
    async with loop_lag() as lag:
        envelope = await _search(runtime, workspace, {"regex": "hit"})
    assert envelope.ok and envelope.content.splitlines() == ["n" * 43 + ":1: hit"]
    assert lag[0] < MAX_LOOP_LAG


@pytest.mark.parametrize(("pattern", "named"), REFUSED.items())
async def test_constructs_the_linear_engine_cannot_run_are_refused_clearly(
    runtime: Runtime, workspace: Path, pattern: str, named: str
) -> None:
    (workspace / "a.txt").write_text("aa foobar end\n")
    envelope = await _search(runtime, workspace, {"regex": pattern})
    assert envelope.error_kind is ErrorKind.VALIDATION
    assert "'regex' is not a valid regular expression" in envelope.error
    assert named in envelope.error, envelope.error


async def test_an_invalid_glob_class_is_a_validation_error(runtime: Runtime, workspace: Path) -> None:
    envelope = await _search(runtime, workspace, {"glob": "[z-a].txt"})
    assert envelope.error_kind is ErrorKind.VALIDATION and "glob" in envelope.error


async def test_ordinary_patterns_behave_as_before(runtime: Runtime, workspace: Path) -> None:
    (workspace / "m.py").write_text("def main():\n    return 42\r\nclass Main: pass\n")
    cases = {
        r"def\s+main": ["m.py:1: def main():"],
        r"^\s+return \d+$": ["m.py:2:     return 42"],
        r"(?P<kw>class|def) [Mm]ain": ["m.py:1: def main():", "m.py:3: class Main: pass"],
        r"\bMain\b": ["m.py:3: class Main: pass"],
    }
    for pattern, expected in cases.items():
        envelope = await _search(runtime, workspace, {"regex": pattern})
        assert envelope.content.splitlines() == expected, pattern
    folded = await _search(runtime, workspace, {"regex": "MAIN", "case_sensitive": False})
    assert len(folded.content.splitlines()) == 2


def test_one_pass_search_finds_the_lines_a_line_by_line_search_finds() -> None:
    text = "alpha\r\nbeta gamma\n\n  delta\nünïcode ✓ word\nend\n"
    patterns = [r"a$", r"^\s*d", r"^$", r"\bgamma\b", r"[^x]+", r"a\sg", r"é|ü", r"\w+ ✓", r"x*",
                r"\Abeta", r"end\z", r"(?i)ALPHA", r"a.b"]
    expected_lines = [line.removesuffix("\r") for line in text.split("\n")[:-1]]
    for pattern in patterns:
        one_pass = list(LineSearch(pattern).lines(text))
        python_re = pattern.replace("\\z", "\\Z")  # the same meaning, per line, in Python's syntax
        by_line = [(n, line) for n, line in enumerate(expected_lines, start=1) if re.search(python_re, line)]
        assert one_pass == by_line, pattern
    assert list(LineSearch("x").lines("")) == []
