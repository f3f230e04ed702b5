"""The files git's own subcommands read, and print, where no word of the line names them, for
the read rules to judge (``Reading.values``, as wget's netrc file is). A rule naming git (``git
**``) trusts git, not every file it reads: with ``~/.git-credentials`` and ``~/.gitconfig``
read-denied, each of these printed a secret (git 2.39, bash and dash, s312):

- ``git credential fill`` (``approve``, ``reject``): runs the helpers the settings name, so it
  reads the person's settings files and the credential store's files (``password=…`` printed
  with ``credential.helper = store``), or asks the cache's daemon (its socket folder, below);
  ``git send-email`` too, for the password it sends to the mail server (by its manual: not
  installed here);
- ``git credential-store get`` (every action): ``~/.git-credentials`` and
  ``$XDG_CONFIG_HOME/git/credentials`` (``~/.config/git/credentials``) unless ``--file`` names
  the file, which is then judged as its word;
- ``git credential-cache get``: asks the daemon holding the passwords through its socket folder
  ``~/.cache/git/credential`` (``~/.git-credential-cache``) unless ``--socket`` names it;
- ``git config`` in a reading form (``--list``, ``--get…``, ``--show-origin``, a key alone)
  without ``--file``, ``--blob``, ``--local`` or ``--worktree``: the person's settings files as
  ``--global`` writes them (``git_settings_writes.global_files``) and the system's
  (``/etc/gitconfig``, ``$GIT_CONFIG_SYSTEM``), or only one of them with ``--global`` or
  ``--system``: ``http.extraHeader = Authorization: Bearer …`` and
  ``url.https://user:password@host/.insteadOf`` printed;
- ``git var -l``: the same settings files, printed as ``git config -l`` does;
- the subcommands that may reach a remote over http(s) (``clone``, ``fetch``, ``pull``,
  ``push``, ``ls-remote``, ``remote update``/``show``/``prune``, ``submodule update``/``add``,
  ``archive --remote``): libcurl reads ``~/.netrc`` (``download_reads.NETRC``) and sends its
  login to the server, as ``curl -n`` does (``git ls-remote http://127.0.0.1:1/x`` opened and
  read it, strace); which transport a remote's name leads to is in the settings, so each counts.
  They send what the settings and the credential helpers hold to the server too, so they read
  what ``git credential fill`` reads (below): ``git ls-remote http://127.0.0.1:PORT/x`` sent
  ``~/.gitconfig``'s ``http.extraHeader`` (``Authorization: Bearer …``) to that loopback
  server, and after its 401 the password ``credential.helper = store`` read from
  ``~/.git-credentials`` (git 2.39.5, bash and dash, strace: ``git credential-store get``
  opened it, s325). The settings' ``http.<url>.*`` sections are not matched to the URL here:
  every settings file counts.

A word only known when the line runs may be any of these forms: the files are read. The files
those settings files include (``include.path``, ``includeIf.*.path`` whatever its
condition) are read too, and printed by ``git config --list``: ``included`` adds them where the
home folder is known (``shell_verdict``). A settings file among them (or one they include) the
engine cannot read or parse (a byte not UTF-8, a file it may not open, an include of another
user's ``~name``) may set a helper or include a denied file git reads all the same (proven, git
2.39, s322): ``settings_unread`` makes such a command ask where a read deny exists. Not seen
here: the settings every other git command reads without printing them. The file a ``store`` helper's ``--file`` names in those
settings (``credential.helper = store --file=/path``: ``git credential fill`` printed its
password, git 2.39, bash and dash, s318) and the socket a ``cache`` helper's ``--socket`` names
are read by the commands that run the helpers, and so is every path in a helper's value (a
shell helper ``!f() { cat /path; }; f`` printed it, s318), set in those settings or in the
repository's own (``.git/config``, of the repository ``-C DIR`` leads to where it leads:
``git -C DIR credential fill`` ran DIR's helper, s322): ``helper_files`` adds them. What a helper program reads
that its value does not name (``git-credential-NAME`` on ``$PATH``, a relative path after a
``cd``) is not seen.
Version read: git 2.39's manuals and sources.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from echo_desk.agent.permissions import git_config, git_index, line_environment, this_verdict
from echo_desk.agent.permissions.download_reads import NETRC
from echo_desk.agent.permissions.git_settings_writes import config_written, global_files
from echo_desk.agent.permissions.long_prefixes import long_prefix

__all__ = ["CREDENTIAL_SOCKETS", "OncePerVerdict", "credential_files", "helper_files", "included", "read",
           "settings_unread"]

_T = TypeVar("_T")

#: Where git (built for /usr, as Debian's) reads the system's settings.
_SYSTEM_FILE = "/etc/gitconfig"
#: The credential-cache daemon's socket folders (``--socket`` names another).
CREDENTIAL_SOCKETS = ("~/.cache/git/credential", "~/.git-credential-cache")
#: The subcommands that may reach a remote over http(s), and those that do only in some of their
#: actions (their first operand) or with an option.
_REMOTE_SUBCOMMANDS = frozenset({"clone", "fetch", "pull", "push", "ls-remote", "http-fetch", "http-push"})
_REMOTE_ACTIONS = {"remote": frozenset({"update", "show", "prune", "set-head"}),
                   "submodule": frozenset({"update", "add"})}
#: The credential helpers git ships, and the option naming the file or socket each uses.
_HELPER_OPTIONS = {"store": "--file", "cache": "--socket"}
#: ``git config``'s options that keep it to a file the line names, or to the repository's own.
_OWN_SCOPES = ("--file", "--blob", "--local", "--worktree")


def read(argv: Sequence[str | None], at: int) -> tuple[str, ...]:
    """The files the git command ``argv`` (its subcommand at ``at``) reads that no word names
    (see the module doc)."""
    sub = argv[at]
    words = argv[at + 1:]
    if _may_reach_http(sub, words):
        # (and sends what the settings and the credential helpers give it: s325)
        return (NETRC, *settings_files(), *credential_files(), *CREDENTIAL_SOCKETS)
    if sub in ("credential", "send-email"):
        return (*settings_files(), *credential_files(), *CREDENTIAL_SOCKETS)
    if sub == "credential-store":
        named = _values(words, "--file")
        return credential_files() if not named else tuple(v for v in named if v is not None)
    if sub == "credential-cache":
        return () if _values(words, "--socket") else CREDENTIAL_SOCKETS
    if sub == "var":
        listing = any(w is None or w == "-l" for w in words)
        return settings_files() if listing else ()
    if sub == "config":
        if config_written(argv, at):
            return ()  # (a writing form prints nothing; one not read here asks already)
        if any(w is None for w in words):
            return settings_files()
        options = [w for w in words if w is not None and w.startswith("-")]
        if any(long_prefix(w, n) for w in options for n in _OWN_SCOPES) or any(_short_file(w) for w in options):
            return ()
        if any(long_prefix(w, "--system") for w in options):
            return _system_files()
        if any(long_prefix(w, "--global") for w in options):
            return global_files()
        return settings_files()
    return ()


def _may_reach_http(sub: str | None, words: Sequence[str | None]) -> bool:
    """Whether the git subcommand ``sub`` with ``words`` may fetch or push over http(s) (a word
    only known when the line runs may be the action that does)."""
    if sub in _REMOTE_SUBCOMMANDS:
        return True
    if sub == "archive":
        return any(w is None or long_prefix(w, "--remote") for w in words)
    if sub in _REMOTE_ACTIONS:
        action = next((w for w in words if w is None or not w.startswith("-")), "")
        return action is None or action in _REMOTE_ACTIONS[sub]
    return False


def included(values: Sequence[str], home: Path | None) -> tuple[str, ...]:
    """The files the settings files among ``values`` (what ``read`` found) include, for a home
    folder ``home`` (``~/`` in ``values`` and in the settings is there)."""
    settings = set(settings_files())
    files = [_placed(v, home) for v in values if v in settings]
    return tuple(str(p) for p in git_config.included_files([f for f in files if f is not None], home))


def helper_files(values: Sequence[str], home: Path | None, folders: Sequence[Path]) -> tuple[str, ...]:
    """The files and sockets the credential helpers of the settings files among ``values`` (and
    the files they include) name, and those of the repository git finds run in one of
    ``folders``, where ``values`` is what ``read`` found for a command running those helpers
    (``git credential``, ``send-email``)."""
    if CREDENTIAL_SOCKETS[0] not in values:
        return ()
    files = _helper_settings(values, home, folders)
    found: list[str] = []
    for path in dict.fromkeys((*files, *git_config.included_files(files, home))):
        for section, _, key, value in git_config.file_entries(path) or ():
            if section == "credential" and key == "helper":
                found.extend(v for v in _helper_named(value) if v not in found)
    return tuple(found)


def settings_unread(values: Sequence[str], home: Path | None, folders: Sequence[Path]) -> bool:
    """Whether a settings file whose entries ``included`` or ``helper_files`` would read for
    ``values`` (what ``read`` found), or a file it includes, is not read or not parsed here
    (``git_config.settings_unread``): what it includes or the helper it sets is not seen, so the
    command is judged as one not read (deny rules ask)."""
    settings = set(settings_files())
    files = [p for p in (_placed(v, home) for v in values if v in settings) if p is not None]
    if CREDENTIAL_SOCKETS[0] in values:
        files = _helper_settings(values, home, folders)
    return git_config.settings_unread(files, home)


class OncePerVerdict:
    """``included``, ``helper_files`` and ``settings_unread`` for one verdict's home folder
    ``home``, each worked out once a verdict (``this_verdict``) for the same values, folders and
    variables the line gives: a git command is looked at many times in a verdict (its forms, its
    part, its rule, the rule-suggestion trials), and each time these walked the settings files and
    what they include. While the variables looked up are being recorded
    (``line_environment.reading``) it is worked out again, so they are."""

    def __init__(self, home: Path | None) -> None:
        self.home = home

    def included(self, values: Sequence[str]) -> tuple[str, ...]:
        return self._once("included", values, (), lambda: included(values, self.home))

    def helper_files(self, values: Sequence[str], folders: Sequence[Path]) -> tuple[str, ...]:
        return self._once("helpers", values, folders, lambda: helper_files(values, self.home, folders))

    def settings_unread(self, values: Sequence[str], folders: Sequence[Path]) -> bool:
        return self._once("unread", values, folders, lambda: settings_unread(values, self.home, folders))

    def _once(self, kind: str, values: Sequence[str], folders: Sequence[Path], work: Callable[[], _T]) -> _T:
        if line_environment.recording():
            return work()
        given = line_environment.given()
        # (of ``values``, each of the three looks only at the settings files and the socket
        # folder: a command's values with the files found added keep the answer)
        settings = set(settings_files())
        key = ("git unnamed reads", kind, self.home, CREDENTIAL_SOCKETS[0] in values,
               tuple(v for v in values if v in settings), tuple(folders), None if given is None else given.key())
        return this_verdict.remembered(key, work)


def _helper_settings(values: Sequence[str], home: Path | None, folders: Sequence[Path]) -> list[Path]:
    """The settings files whose helpers a command running them reads: the person's and the
    system's among ``values``, and the repository's own that git finds run in one of ``folders``
    (``-C DIR`` leads there)."""
    settings = set(settings_files())
    files = [p for p in (_placed(v, home) for v in values if v in settings) if p is not None]
    for folder in folders:
        for root in git_index.repository_roots(folder):
            git_dir = git_index.git_dir_of(root)
            files += (git_config.repository_files(git_dir) or []) if git_dir is not None else []
    return files


def _helper_named(helper: str) -> list[str]:
    """What the helper ``helper`` (a settings value: ``store --file=/path``, ``!cat /path``)
    names: the file or socket a helper git ships takes with its option (git runs ``git
    credential-NAME`` and its words through the shell), and every path in any helper."""
    try:
        words = shlex.split(helper)
    except ValueError:
        words = helper.split()
    option = _HELPER_OPTIONS.get(words[0]) if words else None
    named = [v for v in _values(words[1:], option) if v] if option else []
    return [*named, *(w for w in git_config.path_words(helper) if w not in named)]


def _placed(value: str, home: Path | None) -> Path | None:
    if value.startswith("~/"):
        return None if home is None else home / value[2:]
    return Path(value) if os.path.isabs(value) else None


def settings_files() -> tuple[str, ...]:
    """The person's and the system's git settings files (not the repository's own)."""
    return (*global_files(), *_system_files())


def _system_files() -> tuple[str, ...]:
    """The system's settings file, and the one ``$GIT_CONFIG_SYSTEM`` names instead."""
    system = line_environment.get("GIT_CONFIG_SYSTEM", "")
    return (_SYSTEM_FILE, *([system] if system else []))


def credential_files() -> tuple[str, ...]:
    """The files ``git credential-store`` reads and writes when no ``--file`` names one."""
    xdg = line_environment.get("XDG_CONFIG_HOME", "")
    under = os.path.join(xdg, "git", "credentials") if os.path.isabs(xdg) else None
    return ("~/.git-credentials", "~/.config/git/credentials", *([under] if under else []))


def _values(words: Sequence[str | None], name: str) -> list[str | None]:
    """The values given to the long option ``name`` (``--file=F``, ``--file F``, any prefix git
    accepts; ``None``: only known when the line runs)."""
    found: list[str | None] = []
    for k, word in enumerate(words):
        if word is None:
            continue
        if word == "--":
            break
        option, equals, value = word.partition("=")
        if option.startswith("--") and long_prefix(option, name):
            found.append(value if equals else (words[k + 1] if k + 1 < len(words) else None))
    return found


def _short_file(word: str) -> bool:
    """Whether a group of short options holds ``-f`` (``git config -lf F``)."""
    return not word.startswith("--") and "f" in word[1:]
