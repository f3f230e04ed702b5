"""A sub-agent's call that plants thousands of files: ``delegate`` keeps its sandbox facts in the
transcript capped as the card keeps a command's (``tools.sandbox_kept``), with the count of the
plants past the cap, at once and once a later check ends. Before, the whole list went into the
transcript, and with it into the stored conversation."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from echo_desk.agent.scope import Scope
from echo_desk.tools import ToolExecutionContext, ToolResult
from echo_desk.tools.planted import Change, CheckedLater, Planted, planted_of
from echo_desk.tools.sandbox_kept import MAX_ENTRIES, PLANTED_MORE_KEY, capped
from echo_desk.ui.chat.card_parse import subtranscript_of
from tests.agent.test_subagent_late_check import Heard, StillRunning, _delegate, _engine, _results

MANY = 3_000
PLANTS = tuple(Planted(f"pkg{i}/.git/hooks/pre-commit", Change.CREATED, kept=f"/aside/pkg{i}") for i in range(MANY))
HOSTS = [f"h{i}.example" for i in range(MANY)]


class PlantsMany(StillRunning):
    """A command whose sandbox put aside ``MANY`` plants, told with its result."""

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        sandbox = {"sandboxed": True, "planted": [p.to_json() for p in PLANTS], "refused_hosts": HOSTS}
        return ToolResult.ok("exit code 0", metadata={"sandbox": sandbox})


def _bounded(entry: dict[str, Any]) -> None:
    sandbox = entry["sandbox"]
    assert len(sandbox["planted"]) == MAX_ENTRIES and sandbox[PLANTED_MORE_KEY] == MANY - MAX_ENTRIES
    assert [p.path for p in planted_of(sandbox["planted"])] == [p.path for p in PLANTS[:MAX_ENTRIES]]
    assert len(json.dumps(entry)) < 20_000  # (the whole list is some 300 kB)


async def test_a_sub_agents_plants_are_stored_capped_with_their_count(
        tmp_path: Path, engines: list[Any], scope: Scope) -> None:
    tool, heard = PlantsMany(), Heard()
    dispatcher, factory = _engine(tmp_path, engines, tool)
    outcome = await _delegate(dispatcher, factory, scope, heard)
    [entry] = _results(outcome.envelopes["d1"])
    _bounded(entry)
    assert entry["sandbox"]["refused_hosts"] == HOSTS[:MAX_ENTRIES]
    # The card reads every one of them back: the first ones named, all of them counted.
    sub, bad = subtranscript_of(outcome.envelopes["d1"].metadata["transcript"])
    assert bad == () and sub.planted_count == MANY


async def test_a_later_check_that_found_thousands_is_stored_capped_too(
        tmp_path: Path, engines: list[Any], scope: Scope) -> None:
    tool, heard = StillRunning(), Heard()
    dispatcher, factory = _engine(tmp_path, engines, tool)
    await _delegate(dispatcher, factory, scope, heard)
    tool.checks[0].set_result(CheckedLater(PLANTS, "/w"))
    [(_, later)] = heard.later
    [entry] = _results(later)
    _bounded(entry)
    assert entry["sandbox"]["checked_late"] is True


def test_capping_keeps_short_lists_as_they_are_and_adds_to_an_earlier_count() -> None:
    few = {"sandboxed": True, "planted": [p.to_json() for p in PLANTS[:3]], "domains": ["a.example"]}
    assert capped(few) == few
    again = capped(capped({"sandboxed": True, "planted": [p.to_json() for p in PLANTS]}))
    assert again[PLANTED_MORE_KEY] == MANY - MAX_ENTRIES  # (capping what is capped changes nothing)
    assert capped({**few, PLANTED_MORE_KEY: 7})[PLANTED_MORE_KEY] == 7
    assert PLANTED_MORE_KEY not in capped({**few, PLANTED_MORE_KEY: True})  # (not a count)

