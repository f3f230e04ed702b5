"""s240: bun runs the scripts of the nearest package.json (``cd out && bun run x``, ``bun run
--cwd out x``) and imports the ``preload`` modules of the bunfig.toml of the folder it runs in
before anything it runs (``cd out && bun -e 1``), as npm runs its package.json's scripts. Where
the write rules let the agent write those files, a rule naming bun no longer allows the line (bun
1.4.5, bash and dash: the s240 lines of the hostile corpus, rule set bun-scripts)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.model import Opaque

from .conftest import Setup
from .engine_verdicts import rule_text, verdict_under

RULES = rule_text("[bun|cd] **") + rule_text("@workspace/out/**", tool="write")


@pytest.mark.parametrize("line", [
    "cd out && bun run x",
    "cd out && bun x",
    "cd out && bun test",
    "cd out && bun -e 1",
    "cd out && bun ../a.ts",
    "bun run --cwd out x",
    "bun --cwd=out run x",
    "bun run --cwd=out/sub x",
])
def test_a_package_json_or_bunfig_the_agent_may_write_asks(setup: Setup, line: str) -> None:
    decision = verdict_under(setup, RULES, line)
    assert decision.effect is None
    assert decision.parts[-1].opaque is Opaque.AGENT_SETTINGS


@pytest.mark.parametrize("line", [
    "bun run x", "bun test", "bun install", "bun a.ts", "cd src && bun run x", "bun run --cwd src x", "bun --version",
])
def test_bun_where_the_agent_may_not_write_its_settings_stays_allowed(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is Effect.ALLOW
