"""read/write globs and symlinks, fetch domains, MCP argument fields, DB statement classes."""

from __future__ import annotations

import os

from echo_desk.agent.permissions import Effect, Family, Subject
from echo_desk.agent.permissions.subjects import statement_class

from .conftest import Setup

RULES = """
[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/src/**"
examples = { match = ["@workspace/src/a/b.py"], not_match = ["@workspace/docs/a.md"] }

[[rule]]
effect = "deny"
tool = "write"
pattern = "@workspace/src/secret/**"

[[rule]]
effect = "deny"
tool = "read"
pattern = "~/.ssh/**"

[[rule]]
effect = "allow"
tool = "read"
pattern = "~/notes/**"

[[rule]]
effect = "allow"
tool = "fetch"
pattern = "domain:*.example.com GET /docs"
examples = { match = ["https://api.example.com/docs/x"], not_match = ["https://example.com/docs", "POST https://a.example.com/docs"] }

[[rule]]
effect = "allow"
tool = "fetch"
pattern = "domain:python.org"

[[rule]]
effect = "allow"
tool = "mcp:gh/create_issue"
pattern = 'repo = "acme/*", draft = "true"'
examples = { match = ['{"repo": "acme/web", "draft": true}'], not_match = ['{"repo": "acme/web"}'] }

[[rule]]
effect = "deny"
tool = "mcp:gh"
pattern = 'repo = "acme/secret*"'

[[rule]]
effect = "allow"
tool = "db:main"
pattern = "read"

[[rule]]
effect = "ask"
tool = "db:main"
pattern = "schema"
"""


def test_write_globs_are_anchored_and_deny_wins(setup: Setup) -> None:
    setup.write_user_rules(RULES)
    e, ws = setup.engine, setup.workspace
    assert e.check_path("src/a.py", write=True, workspace=ws).effect is Effect.ALLOW
    assert e.check_path(str(ws / "src" / "deep" / "b.py"), write=True, workspace=ws).effect is Effect.ALLOW
    assert e.check_path("src/secret/k", write=True, workspace=ws).effect is Effect.DENY
    assert e.check_path("src/../docs/a.md", write=True, workspace=ws).effect is None
    assert e.check_path("docs/src/a.py", write=True, workspace=ws).effect is None  # anchored at the root
    assert e.check_path("src/a.py", write=False, workspace=ws).effect is None  # a write rule is not a read rule


def test_a_symlink_needs_both_ends_allowed_and_is_denied_if_either_is(setup: Setup) -> None:
    setup.write_user_rules(RULES)
    e, ws, home = setup.engine, setup.workspace, setup.home
    (home / "elsewhere.txt").write_text("x")
    os.symlink(home / "elsewhere.txt", ws / "src" / "link.txt")
    assert e.check_path("src/link.txt", write=True, workspace=ws).effect is None
    (ws / "src" / "secret").mkdir()
    os.symlink(ws / "src" / "secret", ws / "src" / "innocent")
    assert e.check_path("src/innocent/key", write=True, workspace=ws).effect is Effect.DENY
    (home / "notes").mkdir()
    os.symlink(home / ".ssh", home / "notes" / "keys")
    assert e.check_path("~/notes/keys/id_rsa", write=False, workspace=ws).effect is Effect.DENY
    assert e.check_path("~/notes/todo.md", write=False, workspace=ws).effect is Effect.ALLOW


def test_writes_to_echo_desks_own_settings_are_refused_by_the_floor(setup: Setup) -> None:
    setup.write_user_rules('[[rule]]\neffect = "allow"\ntool = "write"\npattern = "~/**"\n')
    e, ws = setup.engine, setup.workspace
    verdict = e.check_path("~/.config/echo-desk/permissions.toml", write=True, workspace=ws)
    assert verdict.effect is Effect.DENY and verdict.provenance is not None
    assert verdict.provenance.kind.value == "floor"
    assert e.check_path("~/other.txt", write=True, workspace=ws).effect is Effect.ALLOW


def test_fetch_domains_methods_and_paths_and_never_a_bare_ip(setup: Setup) -> None:
    setup.write_user_rules(RULES)
    e = setup.engine
    assert e.check_url("https://api.example.com/docs/a").effect is Effect.ALLOW
    assert e.check_url("https://api.example.com/docs").effect is Effect.ALLOW
    assert e.check_url("https://api.example.com/docsevil").effect is None
    assert e.check_url("https://api.example.com/docs/a", method="POST").effect is None
    assert e.check_url("https://example.com/docs/a").effect is None  # *. means a subdomain
    assert e.check_url("https://api.example.com.evil.net/docs/").effect is None
    assert e.check_url("https://python.org@evil.net/").effect is None
    assert e.check_url("https://www.python.org/").effect is None
    assert e.check_url("http://PYTHON.org./x").effect is Effect.ALLOW
    assert e.check_url("http://151.101.0.223/").effect is None
    assert e.check_url("http://[::1]/").effect is None
    assert e.check_url("file:///etc/passwd").effect is None
    assert e.check_url("https://pythοn.org/").effect is None  # Greek omicron


def test_mcp_server_tool_and_fields(setup: Setup) -> None:
    setup.write_user_rules(RULES)
    e = setup.engine
    assert e.check_mcp("gh", "create_issue", {"repo": "acme/web", "draft": True}).effect is Effect.ALLOW
    assert e.check_mcp("gh", "create_issue", {"repo": "acme/web", "draft": False}).effect is None
    assert e.check_mcp("gh", "create_issue", {"repo": ["acme/web"], "draft": True}).effect is None
    assert e.check_mcp("gh", "create_issue", {"repo": "acme/secrets", "draft": True}).effect is Effect.DENY
    assert e.check_mcp("gh", "delete_repo", {"repo": "acme/secret-x"}).effect is Effect.DENY
    assert e.check_mcp("gitlab", "create_issue", {"repo": "acme/web", "draft": True}).effect is None


def test_db_statement_classes(setup: Setup) -> None:
    setup.write_user_rules(RULES)
    e, ws = setup.engine, setup.workspace

    def db(tool: str, sql: str, connection: str = "main") -> Effect | None:
        subject = Subject(tool=tool, family=Family.DB, names=frozenset({tool, f"db:{connection}"}),
                          connection=connection, statement_class=statement_class(tool != "db_execute", sql))
        return e.evaluate(subject, workspaces=(ws,)).effect

    assert db("db_query", "SELECT 1") is Effect.ALLOW
    assert db("db_query", "SELECT 1", "other") is None
    assert db("db_execute", "  DROP TABLE t") is Effect.ASK
    assert db("db_execute", "UPDATE t SET a = 1") is None
