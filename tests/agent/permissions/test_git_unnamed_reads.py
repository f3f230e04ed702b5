"""s312: the files git's own subcommands read and print where no word of the line names them are
judged by the read rules. Under ``git **`` with ``~/.git-credentials``, ``~/.gitconfig`` and
``~/.config/git/**`` read-denied, git 2.39 (bash and dash) printed ``password=…`` for
``printf 'protocol=https\\nhost=example.com\\n\\n' | git credential fill`` (``credential.helper
= store``) and ``git credential-store get``, and ``http.extraHeader``'s token or a URL rewrite's
password for ``git config --global --list``, ``git config -l --show-origin``, ``git config
--get-urlmatch http https://example.com``, ``git config --get-regexp url`` and ``git var -l``.
Only a deny on those files makes them ask: with none, ``git **`` still allows them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, git_config
from echo_desk.agent.permissions.git_unnamed_reads import read
from tests.agent.permissions.git_setup import git_in

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text

GIT = rule_text("git **", "printf **")
SECRETS_DENIED = GIT + rule_text("~/.git-credentials", "~/.gitconfig", "~/.config/git/**", "~/.cache/git/**",
                                 effect="deny", tool="read")
FILL = "printf 'protocol=https\\nhost=example.com\\n\\n' | git credential fill"


@pytest.fixture
def repository(setup: Setup) -> Path:
    workspace: Path = setup.workspace
    git_in(workspace, "init", "-q", "-b", "main")
    return workspace


@pytest.mark.parametrize("line", [
    FILL,
    "git credential approve",
    "printf 'protocol=https\\nhost=example.com\\n\\n' | git credential-store get",
    "git credential-store erase",
    "git credential-cache get",
    "git config --global --list",
    "git config --list --show-origin",
    "git config -l",
    "git config --get-urlmatch http https://example.com",
    "git config --get http.extraHeader",
    "git config http.extraHeader",  # (a key alone gets it)
    "git config --get-regexp url",
    "git -C src config --list",
    "git config --li",  # (a prefix of --list)
    "git var -l",
])
def test_a_settings_or_credential_file_git_prints_is_judged_by_the_read_rules(setup: Setup, repository: Path,
                                                                               line: str) -> None:
    assert effect_under(setup, SECRETS_DENIED, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git config --local --list",  # (the repository's own file)
    "git config --file out/c --list",
    "git config -f out/c -l",
    "git var GIT_AUTHOR_IDENT",
    "git status",
    "git log --oneline",
])
def test_a_line_reading_no_denied_file_stays_allowed(setup: Setup, repository: Path, line: str) -> None:
    assert effect_under(setup, SECRETS_DENIED, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [FILL, "git credential-store get", "git config --global --list", "git config -l"])
def test_without_a_read_deny_git_stays_allowed(setup: Setup, repository: Path, line: str) -> None:
    assert effect_under(setup, GIT, line) is Effect.ALLOW


def test_the_system_settings_are_read_without_a_scope_or_with_system(setup: Setup, repository: Path) -> None:
    system_denied = GIT + rule_text("/etc/gitconfig", effect="deny", tool="read")
    assert effect_under(setup, system_denied, "git config --system --list") is not Effect.ALLOW
    assert effect_under(setup, system_denied, "git config --list") is not Effect.ALLOW
    assert "/etc/gitconfig" not in read(("git", "config", "--global", "--list"), 1)
    assert "~/.gitconfig" not in read(("git", "config", "--system", "--list"), 1)


def test_a_named_credential_file_replaces_the_default_ones() -> None:
    assert read(("git", "credential-store", "--file=/tmp/c", "get"), 1) == ("/tmp/c",)
    assert "~/.git-credentials" in read(("git", "credential-store", "get"), 1)
    assert read(("git", "config", "--global", "core.pager", "less"), 1) == ()


NETRC_DENIED = GIT + rule_text("~/.netrc", effect="deny", tool="read")


@pytest.mark.parametrize("line", [
    "git ls-remote http://127.0.0.1:1/x",  # (libcurl read ~/.netrc before connecting: strace)
    "git fetch http://127.0.0.1:1/x",
    "git fetch",  # (the remote's URL is in the settings)
    "git pull origin main",
    "git push origin main",
    "git clone https://example.com/r.git out/r",
    "git remote update",
    "git submodule update --init",
    "git archive --remote=https://example.com/r.git HEAD",
])
def test_a_command_that_may_reach_a_remote_over_http_reads_the_netrc_file(setup: Setup, repository: Path,
                                                                         line: str) -> None:
    assert effect_under(setup, NETRC_DENIED, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["git remote -v", "git status", "git submodule status", "git archive HEAD"])
def test_a_command_reaching_no_remote_stays_allowed_under_a_netrc_deny(setup: Setup, repository: Path,
                                                                      line: str) -> None:
    assert effect_under(setup, NETRC_DENIED, line) is Effect.ALLOW


def test_without_a_netrc_deny_fetch_stays_allowed(setup: Setup, repository: Path) -> None:
    assert effect_under(setup, GIT, "git fetch") is Effect.ALLOW


def test_a_file_the_settings_include_is_judged_as_read_too(setup: Setup, repository: Path) -> None:
    """``git config --list`` printed the token of a file ``~/.gitconfig`` includes (git 2.39,
    bash and dash); a file an included one includes counts too, and ``includeIf`` whatever its
    condition (the engine does not weigh it: one more ask at most)."""
    (setup.home / ".secrets").mkdir()
    (setup.home / ".gitconfig").write_text("[include]\n\tpath = ~/.secrets/git\n", encoding="utf-8")
    (setup.home / ".secrets" / "git").write_text('[includeIf "gitdir:~/work/"]\n\tpath = more\n', encoding="utf-8")
    (setup.home / ".secrets" / "more").write_text("[http]\n\textraHeader = Authorization: Bearer T\n", encoding="utf-8")
    for denied in ("~/.secrets/git", "~/.secrets/more"):
        rules = GIT + rule_text(denied, effect="deny", tool="read")
        assert effect_under(setup, rules, "git config --list") is not Effect.ALLOW
        assert effect_under(setup, rules, "git config --local --list") is Effect.ALLOW
        assert effect_under(setup, rules, "git status") is Effect.ALLOW


@pytest.mark.parametrize("helper", [
    "store --file=~/.secrets/creds",
    "store --file ~/.secrets/creds",
    "store --fi=~/.secrets/creds",  # (a prefix git takes)
    "'store' --file='~/.secrets/creds'",
    "cache --socket=~/.secrets/creds",
    '"!f() { echo username=a; cat ~/.secrets/creds; }; f"',  # (a shell helper, quoted for its `;`)
    "/usr/local/bin/git-credential-file --from ~/.secrets/creds",
])
def test_the_file_a_credential_helper_in_the_settings_names_is_judged_as_read(setup: Setup, repository: Path,
                                                                              helper: str) -> None:
    """s318: with ``credential.helper = store --file=P`` in ``~/.gitconfig`` (P read-denied),
    ``git credential fill`` printed the password P holds (git 2.39, bash and dash, strace:
    ``git credential-store --file=P get`` opened P), as with ``!f() { …; cat P; }; f``; the
    helper may be set in a file the person's settings include."""
    (setup.home / ".secrets").mkdir()
    (setup.home / ".gitconfig").write_text("[include]\n\tpath = ~/.more\n", encoding="utf-8")
    (setup.home / ".more").write_text(f'[credential "https://example.com"]\n\thelper = {helper}\n', encoding="utf-8")
    rules = GIT + rule_text("~/.secrets/**", effect="deny", tool="read")
    assert effect_under(setup, rules, FILL) is not Effect.ALLOW
    assert effect_under(setup, rules, "git credential approve") is not Effect.ALLOW
    assert effect_under(setup, rules, "git status") is Effect.ALLOW
    assert effect_under(setup, rules, "git config --local --list") is Effect.ALLOW


@pytest.mark.parametrize("helper", ["store --file=~/creds", "cache --timeout=60", "osxkeychain", "!f() { :; }; f"])
def test_a_credential_helper_naming_no_denied_file_stays_allowed(setup: Setup, repository: Path,
                                                                 helper: str) -> None:
    (setup.home / ".gitconfig").write_text(f"[credential]\n\thelper = {helper}\n", encoding="utf-8")
    rules = GIT + rule_text("~/.secrets/**", effect="deny", tool="read")
    assert effect_under(setup, rules, FILL) is Effect.ALLOW


def test_a_credential_helper_in_the_repository_settings_is_judged_too(setup: Setup, repository: Path) -> None:
    """s318: a shell helper in the repository's ``.git/config`` that cats a read-denied file
    printed it for ``git credential fill`` (git 2.39, bash and dash, strace)."""
    (setup.home / ".secrets").mkdir()
    with (repository / ".git" / "config").open("a", encoding="utf-8") as settings:
        settings.write('[credential]\n\thelper = "!f() { cat ~/.secrets/creds; }; f"\n')
    rules = GIT + rule_text("~/.secrets/**", effect="deny", tool="read")
    assert effect_under(setup, rules, FILL) is not Effect.ALLOW
    assert effect_under(setup, rules, "git status") is Effect.ALLOW


_CAT_HELPER = '[credential]\n\thelper = "!f() { cat ~/.secrets/creds; }; f"\n'


@pytest.mark.parametrize("settings", [
    _CAT_HELPER.encode() + b"[user]\n\tname = \xe9t\xe9\n",  # (a value not UTF-8: git reads the file)
    _CAT_HELPER.replace("f\"\n", "f\" # \xff\n").encode("latin-1"),  # (in a comment)
    b"[include]\n\tpath = ~root/more\n",  # (another user's home folder: git reads it)
    b"[include]\n\tpath = ~/notes\n",  # (a folder: not read here; git refuses, one more ask at most)
])
def test_a_settings_file_not_read_here_makes_a_command_reading_settings_ask(setup: Setup, repository: Path,
                                                                             settings: bytes) -> None:
    """s322: git 2.39 read a ``~/.gitconfig`` holding a byte not UTF-8 (in a value or a comment)
    and ran the credential helper it set: ``git credential fill`` printed the password of the
    read-denied file it cats (bash and dash); so did one including ``~root/more`` (another
    user's ``~name``). A file the engine cannot read or parse may set such a helper, or include
    a denied file: commands that run the helpers or print the settings ask."""
    (setup.home / ".secrets").mkdir()
    (setup.home / "notes").mkdir()
    (setup.home / ".gitconfig").write_bytes(settings)
    rules = GIT + rule_text("~/.secrets/**", effect="deny", tool="read")
    assert effect_under(setup, rules, FILL) is not Effect.ALLOW
    assert effect_under(setup, rules, "git config --global --list") is not Effect.ALLOW
    assert effect_under(setup, rules, "git status") is Effect.ALLOW
    assert effect_under(setup, GIT, FILL) is Effect.ALLOW  # (no deny rule: nothing to hide)


def test_a_repository_settings_file_not_read_here_makes_credential_fill_ask(setup: Setup, repository: Path) -> None:
    """s322: the same, for the repository's own ``.git/config`` (where ``-C`` leads, too)."""
    (setup.home / ".secrets").mkdir()
    (repository / "sub").mkdir()
    with (repository / ".git" / "config").open("ab") as settings:
        settings.write(_CAT_HELPER.encode() + b"# \xff\n")
    rules = GIT + rule_text("~/.secrets/**", effect="deny", tool="read")
    assert effect_under(setup, rules, FILL) is not Effect.ALLOW
    assert effect_under(setup, rules, "cd sub && " + FILL) is not Effect.ALLOW
    assert effect_under(setup, rules, "git config --global --list") is Effect.ALLOW
    assert effect_under(setup, rules, "git status") is Effect.ALLOW


def test_a_byte_order_mark_is_read_as_git_reads_it(setup: Setup, repository: Path) -> None:
    """s322: git 2.39 skipped a UTF-8 byte order mark opening ``~/.gitconfig`` and ran the helper
    it set (the denied file's password printed, bash and dash): the helper's file is judged."""
    (setup.home / ".secrets").mkdir()
    (setup.home / ".gitconfig").write_text("\ufeff" + _CAT_HELPER, encoding="utf-8")
    rules = GIT + rule_text("~/.secrets/**", effect="deny", tool="read")
    assert effect_under(setup, rules, FILL) is not Effect.ALLOW
    other = GIT + rule_text("~/.other/**", effect="deny", tool="read")
    assert effect_under(setup, other, FILL) is Effect.ALLOW  # (read, not failed closed)


@pytest.mark.parametrize("folder", ["other", "../outside/other"])
def test_the_repository_minus_c_leads_to_has_its_helpers_judged(setup: Setup, repository: Path,
                                                                 folder: str) -> None:
    """s322: ``git -C DIR credential fill`` runs the helpers of the repository found from DIR
    (git 2.39: a shell helper in DIR's ``.git/config`` printed the denied file), not the one
    the line runs in."""
    (setup.home / ".secrets").mkdir()
    other = (repository / folder).resolve()
    other.mkdir(parents=True)
    git_in(other, "init", "-q", "-b", "main")
    with (other / ".git" / "config").open("a", encoding="utf-8") as settings:
        settings.write(_CAT_HELPER)
    rules = GIT + rule_text("~/.secrets/**", effect="deny", tool="read")
    line = FILL.replace("git credential", f"git -C {folder} credential")
    assert effect_under(setup, rules, line) is not Effect.ALLOW
    assert effect_under(setup, rules, FILL) is Effect.ALLOW  # (the line's own repository sets none)


def test_each_settings_file_is_looked_at_once_a_verdict(setup: Setup, repository: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """s323: a git command is looked at many times in a verdict (its forms, its part, its rule,
    its helpers, its aliases and hooks), and each time the settings files were looked at again
    (up to 14 times each for ``git credential fill``): once a verdict now, same answer."""
    (setup.home / ".secrets").mkdir()
    (setup.home / ".gitconfig").write_text("[include]\n\tpath = ~/.more\n[alias]\n\tst = status\n", encoding="utf-8")
    (setup.home / ".more").write_text(_CAT_HELPER, encoding="utf-8")
    looked: Counter[str] = Counter()
    parse_file = git_config._parsed

    def counted(path: str, *rest: object) -> object:
        looked[path] += 1
        return parse_file.__wrapped__(path, *rest)

    monkeypatch.setattr(git_config, "_parsed", counted)
    rules = GIT + rule_text("~/.secrets/**", effect="deny", tool="read")
    for line, allowed in ((FILL, False), ("git config --list", True), ("git st && git log -1", True)):
        looked.clear()
        assert (effect_under(setup, rules, line) is Effect.ALLOW) is allowed
        assert looked[str(setup.home / ".gitconfig")] == 1 and looked[str(setup.home / ".more")] == 1, looked


def test_a_settings_file_changed_between_verdicts_is_read_again(setup: Setup, repository: Path) -> None:
    """What a verdict kept of a settings file is not the next verdict's (s323)."""
    (setup.home / ".secrets").mkdir()
    rules = GIT + rule_text("~/.secrets/**", effect="deny", tool="read")
    (setup.home / ".gitconfig").write_text("[user]\n\tname = a\n", encoding="utf-8")
    assert effect_under(setup, rules, FILL) is Effect.ALLOW
    (setup.home / ".gitconfig").write_text(_CAT_HELPER, encoding="utf-8")
    assert effect_under(setup, rules, FILL) is not Effect.ALLOW
    (setup.home / ".gitconfig").write_text("[user]\n\tname = a\n", encoding="utf-8")
    assert effect_under(setup, rules, FILL) is Effect.ALLOW


#: The person's settings and password store read-denied, the netrc file not.
SENT_DENIED = GIT + rule_text("~/.gitconfig", "~/.git-credentials", effect="deny", tool="read")


@pytest.mark.parametrize("line", [
    "git ls-remote http://127.0.0.1:1/x",  # (sent the extraHeader, then the stored password: git 2.39.5)
    "git fetch http://127.0.0.1:1/x",
    "git pull http://127.0.0.1:1/x main",
    "git push http://127.0.0.1:1/x main",
    "git clone http://127.0.0.1:1/x out/r",
    "git fetch",  # (the remote's URL is in the settings)
    "git remote update",
    "git archive --remote=http://127.0.0.1:1/x HEAD",
])
def test_a_command_that_may_reach_a_remote_over_http_sends_the_settings_and_credentials(
        setup: Setup, repository: Path, line: str) -> None:
    """s325: ``git ls-remote http://127.0.0.1:PORT/x`` sent ``~/.gitconfig``'s ``http.extraHeader``
    (``Authorization: Bearer …``) to that loopback server and, after its 401, the password
    ``credential.helper = store`` read from ``~/.git-credentials`` (git 2.39.5, bash and dash,
    strace: ``git credential-store get`` opened it): they count as read, as for ``git credential
    fill``."""
    assert effect_under(setup, SENT_DENIED, line) is not Effect.ALLOW


def test_the_file_a_helper_names_is_sent_too(setup: Setup, repository: Path) -> None:
    (setup.home / ".secrets").mkdir()
    (setup.home / ".gitconfig").write_text("[credential]\n\thelper = store --file=~/.secrets/creds\n",
                                           encoding="utf-8")
    rules = GIT + rule_text("~/.secrets/**", effect="deny", tool="read")
    assert effect_under(setup, rules, "git ls-remote http://127.0.0.1:1/x") is not Effect.ALLOW
    assert effect_under(setup, rules, "git status") is Effect.ALLOW


@pytest.mark.parametrize("line", ["git status", "git log --oneline", "git remote -v", "git archive HEAD"])
def test_a_command_reaching_no_remote_sends_nothing(setup: Setup, repository: Path, line: str) -> None:
    assert effect_under(setup, SENT_DENIED, line) is Effect.ALLOW


def test_without_a_read_deny_a_fetch_stays_allowed(setup: Setup, repository: Path) -> None:
    (setup.home / ".gitconfig").write_text("[credential]\n\thelper = store\n", encoding="utf-8")
    assert effect_under(setup, GIT + rule_text("~/.ssh/**", effect="deny", tool="read"), "git fetch") is Effect.ALLOW
