"""Grants: stored with what created them, expiry and revoke effective on the very next call."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect, GrantScope, Rule, Suggestion

from .conftest import Setup

GIT_STATUS = Suggestion(tool="shell", pattern="git status **", label="git status")


def test_a_15_minute_grant_expires_on_the_next_call_after_15_minutes(setup: Setup) -> None:
    engine, ws = setup.engine, setup.workspace
    grant = engine.grant(GIT_STATUS, GrantScope.MINUTES_15, call_id="call_1", conversation_id="c1", workspace=ws)
    assert grant is not None and getattr(grant, "created_by_call", "") == "call_1"
    assert engine.check_command("git status -s", workspace=ws).effect is Effect.ALLOW
    assert engine.check_command("git status && curl x", workspace=ws).effect is None
    setup.clock.advance(15 * 60 - 1)
    assert engine.check_command("git status", workspace=ws).effect is Effect.ALLOW
    setup.clock.advance(1)
    assert engine.check_command("git status", workspace=ws).effect is None
    assert engine.active_grants() == []


def test_revoke_takes_effect_on_the_very_next_call(setup: Setup) -> None:
    engine, ws = setup.engine, setup.workspace
    one = engine.grant(GIT_STATUS, GrantScope.WORKSPACE, call_id="call_1", workspace=ws)
    engine.grant(Suggestion(tool="shell", pattern="ls **", label="ls"), GrantScope.WORKSPACE, call_id="c2",
                 workspace=ws)
    assert engine.check_command("git status; ls", workspace=ws).effect is Effect.ALLOW
    assert engine.revoke(one.id)  # type: ignore[union-attr]
    assert engine.check_command("git status", workspace=ws).effect is None
    assert engine.check_command("ls", workspace=ws).effect is Effect.ALLOW
    assert engine.revoke_all() == 1
    assert engine.check_command("ls", workspace=ws).effect is None


def test_a_conversation_grant_holds_in_that_conversation_only(setup: Setup) -> None:
    engine, ws = setup.engine, setup.workspace
    engine.grant(GIT_STATUS, GrantScope.CONVERSATION, call_id="call_1", conversation_id="c1")
    assert engine.check_command("git status", workspace=ws, conversation_id="c1").effect is Effect.ALLOW
    assert engine.check_command("git status", workspace=ws, conversation_id="c2").effect is None


def test_a_grant_never_overrides_a_deny_or_the_floor(setup: Setup) -> None:
    setup.write_user_rules('[[rule]]\neffect = "deny"\ntool = "shell"\npattern = "git status --evil"\n')
    engine, ws = setup.engine, setup.workspace
    engine.grant(Suggestion(tool="shell", pattern="**", label="everything"), GrantScope.WORKSPACE, call_id="c",
                 workspace=ws)
    assert engine.check_command("git status --evil", workspace=ws).effect is Effect.DENY
    assert engine.check_command("rm -rf /", workspace=ws).effect is Effect.DENY
    assert engine.check_command("ls", workspace=ws).effect is Effect.ALLOW


def test_always_appends_a_rule_to_the_user_file_and_once_stores_nothing(setup: Setup) -> None:
    engine, ws = setup.engine, setup.workspace
    assert engine.grant(GIT_STATUS, GrantScope.ONCE, call_id="c") is None
    assert engine.active_grants() == []
    rule = engine.grant(GIT_STATUS, GrantScope.ALWAYS, call_id="call_9")
    text = (setup.config / "permissions.toml").read_text()
    assert 'pattern = "git status **"' in text and "call_9" in text
    assert engine.check_command("git status", workspace=ws).effect is Effect.ALLOW
    assert isinstance(rule, Rule) and rule.source.line == text.splitlines().index("[[rule]]") + 1


def test_always_refuses_to_touch_a_broken_user_file(setup: Setup) -> None:
    path = setup.write_user_rules("[[rule]\n")
    with pytest.raises(ValueError, match="has errors"):
        setup.engine.grant(GIT_STATUS, GrantScope.ALWAYS, call_id="c")
    assert path.read_text() == "[[rule]\n"


def test_uses_are_counted(setup: Setup) -> None:
    engine, ws = setup.engine, setup.workspace
    subject_grant = engine.grant(GIT_STATUS, GrantScope.WORKSPACE, call_id="c", workspace=ws)
    from echo_desk.agent.permissions import Family, Subject

    subject = Subject(tool="run_command", family=Family.SHELL, names=frozenset({"run_command", "shell"}),
                      command="git status")
    engine.evaluate(subject, workspaces=(ws,))
    engine.evaluate(subject, workspaces=(ws,))
    (stored,) = engine.active_grants()
    assert stored.id == subject_grant.id and stored.uses == 2  # type: ignore[union-attr]


def test_grants_stored_before_they_named_a_client_are_the_chats_after_the_upgrade(tmp_path) -> None:
    # The column is added to an older database; its grants stay, as the narrowest reading:
    # Echo Desk's own chat's (a gateway client is asked again rather than allowed more).
    import sqlite3

    from echo_desk.store.grants import GrantStore

    path = tmp_path / "grants.sqlite3"
    with sqlite3.connect(path) as old:
        old.execute("CREATE TABLE grants (id TEXT PRIMARY KEY, tool TEXT NOT NULL, pattern TEXT, scope TEXT NOT NULL,"
                    " created_at REAL NOT NULL, created_by_call TEXT NOT NULL, expires_at REAL,"
                    " conversation_id TEXT NOT NULL, workspace TEXT NOT NULL, uses INTEGER NOT NULL DEFAULT 0,"
                    " reason TEXT NOT NULL DEFAULT '')")
        old.execute("INSERT INTO grants VALUES ('g_old', 'shell', 'true **', 'workspace', 1.0, 'c0', NULL, '',"
                    " '/ws', 0, '')")
    old.close()
    store = GrantStore(path)
    try:
        (grant,) = store.active()
        assert grant.client == ""
        assert grant.applies(now=2.0, conversation_id="", workspaces=("/ws",))
        assert not grant.applies(now=2.0, conversation_id="", workspaces=("/ws",), client="cursor")
        made = store.add(tool="shell", pattern="true **", scope=GrantScope.WORKSPACE, created_by_call="c1",
                         workspace="/ws", client="cursor")
        assert made.id != grant.id and made.client == "cursor"  # not folded into the chat's grant
        assert {g.client for g in store.active()} == {"", "cursor"}
    finally:
        store.close()
