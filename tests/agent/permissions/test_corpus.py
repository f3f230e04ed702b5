"""The adversarial corpus: hundreds of hostile and ordinary command lines, each with the verdict
it must get under ``corpus_rules.toml``. Not one may be allowed that is not expected to be.

``ask`` in the corpus means "not allowed and not denied": the rules either ask or leave the call
to ``run_command``'s default (which asks).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import HERE, Setup

CORPUS = [json.loads(line) for line in (HERE / "corpus_shell.jsonl").read_text(encoding="utf-8").split("\n")[1:]
          if line.strip()]


def verdict_word(effect: Effect | None) -> str:
    return "ask" if effect in (None, Effect.ASK) else effect.value


def test_the_corpus_is_large_and_covers_every_verdict() -> None:
    assert len(CORPUS) >= 300
    assert {c[0] for c in CORPUS} == {"allow", "ask", "deny"}


@pytest.fixture
def corpus_setup(setup: Setup) -> Setup:
    setup.write_user_rules((HERE / "corpus_rules.toml").read_text(encoding="utf-8"))
    report = setup.engine.load((setup.workspace,))
    assert not report.errors, [p.describe() for p in report.errors]
    return setup


def test_nothing_is_wrongly_allowed_and_every_verdict_is_as_expected(corpus_setup: Setup) -> None:
    engine, ws = corpus_setup.engine, corpus_setup.workspace
    wrongly_allowed, other = [], []
    for expected, command, _note in CORPUS:
        got = verdict_word(engine.check_command(command, workspace=ws).effect)
        if got == "allow" and expected != "allow":
            wrongly_allowed.append(command)
        elif got != expected:
            other.append((expected, got, command))
    assert wrongly_allowed == []
    assert other == []


def test_a_denied_part_names_its_rule_and_line(corpus_setup: Setup) -> None:
    verdict = corpus_setup.engine.check_command("git status && rm -rf build", workspace=corpus_setup.workspace)
    assert verdict.effect is Effect.DENY
    assert verdict.provenance is not None and verdict.provenance.rule is not None
    source = verdict.provenance.rule.source
    assert source.path == corpus_setup.config / "permissions.toml"
    lines = (corpus_setup.config / "permissions.toml").read_text().splitlines()
    assert lines[source.line - 1] == "[[rule]]"
    assert 'pattern = "rm ** -rf **"' in lines[source.line + 2]
    assert [p.effect for p in verdict.parts] == [Effect.ALLOW, Effect.DENY]


def test_the_workspace_root_is_never_deleted(corpus_setup: Setup, tmp_path: Path) -> None:
    ws = corpus_setup.workspace
    for line in (f"rm -r {ws}", f"rm -rf {ws}/", "rm -r .", "rm -r ~", f"rm -r src/.. {ws}/src"):
        assert corpus_setup.engine.check_command(line, workspace=ws).effect is Effect.DENY, line
    # After a cd the target is judged from every folder the line may be in: from src, `..` is the root.
    assert corpus_setup.engine.check_command("cd src && rm -r ..", workspace=ws).effect is Effect.DENY
    # After a cd to a folder not known, a relative target is not known either: asked, never allowed.
    assert corpus_setup.engine.check_command("cd \"$D\" && rm -r x", workspace=ws).effect is Effect.ASK
