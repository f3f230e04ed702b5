"""A rule can name the MCP client calling through the gateway (``client = "cursor"``)."""

from __future__ import annotations

from echo_desk.agent.permissions import Effect, Family, Subject
from echo_desk.agent.permissions.model import Severity

from .conftest import Setup

RULES = """
[[rule]]
effect = "allow"
tool = "mcp:gh"
client = "cursor"

[[rule]]
effect = "deny"
tool = "mcp:gh/delete_repo"
client = "*"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "git status **"
client = ["vscode", "zed"]
"""


def _mcp(tool: str, client: str) -> Subject:
    return Subject(tool=f"gh__{tool}", family=Family.MCP, names=frozenset({"mcp:gh", f"mcp:gh/{tool}"}),
                   server="gh", mcp_tool=tool, client=client)


def _shell(command: str, client: str) -> Subject:
    return Subject(tool="run_command", family=Family.SHELL, names=frozenset({"run_command", "shell"}),
                   command=command, client=client)


def test_a_rule_naming_a_client_speaks_only_for_that_client(setup: Setup) -> None:
    setup.write_user_rules(RULES)
    e = setup.engine
    assert not e.load().errors
    assert e.evaluate(_mcp("create_issue", "cursor"), record_use=False).effect is Effect.ALLOW
    # Echo Desk's own chat and another client: the rule says nothing; the settings decide.
    assert e.evaluate(_mcp("create_issue", ""), record_use=False).effect is None
    assert e.evaluate(_mcp("create_issue", "vscode"), record_use=False).effect is None


def test_star_means_any_mcp_client_but_not_echo_desks_own_agent(setup: Setup) -> None:
    setup.write_user_rules(RULES)
    e = setup.engine
    assert e.evaluate(_mcp("delete_repo", "cursor"), record_use=False).effect is Effect.DENY
    assert e.evaluate(_mcp("delete_repo", "goose"), record_use=False).effect is Effect.DENY
    assert e.evaluate(_mcp("delete_repo", ""), record_use=False).effect is None


def test_a_list_of_clients_and_the_same_line_from_the_chat(setup: Setup) -> None:
    setup.write_user_rules(RULES)
    e, ws = setup.engine, (setup.workspace,)
    assert e.evaluate(_shell("git status -s", "zed"), workspaces=ws, record_use=False).effect is Effect.ALLOW
    assert e.evaluate(_shell("git status -s", "cursor"), workspaces=ws, record_use=False).effect is not Effect.ALLOW
    assert e.evaluate(_shell("git status -s", ""), workspaces=ws, record_use=False).effect is not Effect.ALLOW


def test_a_bad_client_value_refuses_the_file_with_the_reason(setup: Setup) -> None:
    for bad in ('"Cursor App"', "3", "[]", '["cursor", 1]'):
        setup.write_user_rules(f'[[rule]]\neffect = "allow"\ntool = "mcp:gh"\nclient = {bad}\n')
        setup.engine.refresh()
        errors = setup.engine.load().errors
        assert errors and errors[0].severity is Severity.ERROR and "client" in errors[0].message, bad


def test_a_deny_for_one_client_does_not_shadow_an_allow_for_everyone(setup: Setup) -> None:
    setup.write_user_rules('[[rule]]\neffect = "deny"\ntool = "mcp:gh"\nclient = "cursor"\n\n'
                           '[[rule]]\neffect = "allow"\ntool = "mcp:gh"\n')
    report = setup.engine.load()
    assert not report.warnings
    assert "client cursor" in report.rules[-2].describe()
    setup.write_user_rules('[[rule]]\neffect = "deny"\ntool = "mcp:gh"\n\n'
                           '[[rule]]\neffect = "allow"\ntool = "mcp:gh"\nclient = "cursor"\n')
    setup.engine.refresh()
    assert setup.engine.load().warnings  # a deny for every caller does hide it


def _file(tool: str, family: Family, path: str, client: str) -> Subject:
    from echo_desk.agent.permissions.subjects import PathUse

    return Subject(tool=tool, family=family, names=frozenset({tool, family.value}),
                   paths=(PathUse(raw=path, family=family),), client=client)


def test_a_client_rule_speaks_for_that_clients_file_calls_too(setup: Setup) -> None:
    # The file tools judge each path with the rules of its family; those must be the calling
    # client's (a deny for Cursor's reads of secrets/ was left out, and the read ran unasked).
    setup.write_user_rules('[[rule]]\neffect = "deny"\ntool = "read"\npattern = "@workspace/secrets/**"\nclient = "cursor"\n\n'
                           '[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/out/**"\nclient = "zed"\n')
    e, ws = setup.engine, (setup.workspace,)
    assert not e.load().errors
    read = e.evaluate(_file("read_file", Family.READ, "secrets/key.txt", "cursor"), workspaces=ws, record_use=False)
    assert read.effect is Effect.DENY
    assert e.evaluate(_file("read_file", Family.READ, "secrets/key.txt", ""), workspaces=ws,
                      record_use=False).effect is not Effect.DENY
    wrote = e.evaluate(_file("write_file", Family.WRITE, "out/a.txt", "zed"), workspaces=ws, record_use=False)
    assert wrote.effect is Effect.ALLOW
    for other in ("", "cursor"):
        assert e.evaluate(_file("write_file", Family.WRITE, "out/a.txt", other), workspaces=ws,
                          record_use=False).effect is not Effect.ALLOW


def test_always_chosen_in_the_chats_dialog_is_the_chats_alone(setup: Setup) -> None:
    # "Always" in Echo Desk's own chat wrote a rule without ``client``, which speaks for every
    # caller: a gateway client was then allowed what only the chat was (every narrower choice
    # in the same dialog is the chat's alone, as a client's "always" is that client's).
    from echo_desk.agent.permissions import GrantScope, Suggestion

    e, ws = setup.engine, (setup.workspace,)
    push = Suggestion(tool="shell", pattern="git push **", label="git push **")
    rule = e.grant(push, GrantScope.ALWAYS, call_id="call_1")
    assert rule is not None and not e.load().errors
    assert e.evaluate(_shell("git push origin", ""), workspaces=ws, record_use=False).effect is Effect.ALLOW
    for client in ("cursor", "claude-code"):
        assert e.evaluate(_shell("git push origin", client), workspaces=ws,
                          record_use=False).effect is not Effect.ALLOW, client
    assert "client @chat" in rule.describe()


def test_chat_names_echo_desks_own_agent_in_a_rule(setup: Setup) -> None:
    setup.write_user_rules('[[rule]]\neffect = "allow"\ntool = "mcp:gh"\nclient = "@chat"\n\n'
                           '[[rule]]\neffect = "deny"\ntool = "mcp:gh/delete_repo"\nclient = ["@chat", "zed"]\n')
    e = setup.engine
    assert not e.load().errors
    assert e.evaluate(_mcp("create_issue", ""), record_use=False).effect is Effect.ALLOW
    assert e.evaluate(_mcp("create_issue", "cursor"), record_use=False).effect is None
    assert e.evaluate(_mcp("delete_repo", ""), record_use=False).effect is Effect.DENY
    assert e.evaluate(_mcp("delete_repo", "zed"), record_use=False).effect is Effect.DENY
    assert e.evaluate(_mcp("delete_repo", "cursor"), record_use=False).effect is None


def test_any_client_does_not_shadow_a_rule_for_the_chat(setup: Setup) -> None:
    setup.write_user_rules('[[rule]]\neffect = "deny"\ntool = "mcp:gh"\nclient = "*"\n\n'
                           '[[rule]]\neffect = "allow"\ntool = "mcp:gh"\nclient = "@chat"\n')
    assert not setup.engine.load().warnings
    setup.write_user_rules('[[rule]]\neffect = "deny"\ntool = "mcp:gh"\nclient = ["*", "@chat"]\n\n'
                           '[[rule]]\neffect = "allow"\ntool = "mcp:gh"\nclient = "@chat"\n')
    setup.engine.refresh()
    assert setup.engine.load().warnings
