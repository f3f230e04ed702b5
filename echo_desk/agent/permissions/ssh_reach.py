"""Which commands may run ssh: the one notion the rules use to make what the person's ssh
settings name (``ssh_config``) count for a command (``settings_files``).

ssh runs what its settings say before it reaches any host (``ProxyCommand``, ``Match exec``,
``LocalCommand``), with the files they ``Include``. Programs other than ssh run it: scp and sftp
always; rsync for a ``host:path`` operand (its remote shell); git for a remote that is
``host:path``, ``ssh://``, ``git+ssh://`` or ``ssh+git://`` (``git_repositories.reaches_hosts``);
hg for an ``ssh://`` path. Proven with OpenSSH 9.2, git 2.39 and hg 6.3: a ProxyCommand in a
file an ``Include`` names ran under ``git ls-remote x:r``, ``git fetch ssh://x/r``,
``git clone git+ssh://x/r``, ``hg identify ssh://x/r`` and ``hg clone ssh://x/r``, with a host
that does not exist.

What the engine cannot tell (a remote named in settings it cannot read, a word known only
when the line runs, a subcommand of hg that reaches a path from its settings) counts as ssh.
"""

from __future__ import annotations

from collections.abc import Sequence

from echo_desk.agent.permissions.program_options import SSH_CLIENTS

#: URL schemes that reach another host without ssh (git 2.39 ``transport.c``; hg's ``http``).
#: Any other form that is not a local path may run ssh (git reads ``host:path`` and ``ssh://``,
#: ``git+ssh://``, ``ssh+git://`` as ssh's; a remote helper ``x::`` runs ``git-remote-x``).
_NOT_SSH = ("http://", "https://", "git://", "ftp://", "ftps://")
#: hg's subcommands (with their aliases) that reach the repository a path or its settings'
#: ``[paths]`` name (hg 6.3); hg takes any unique prefix of a subcommand's name.
_HG_REACHES = ("clone", "pull", "push", "incoming", "in", "outgoing", "out", "identify", "id", "summary", "sum",
               "bundle", "paths")
#: hg's global options that take the next word as their value (hg 6.3).
_HG_VALUES = frozenset({"-R", "--repository", "--repo", "--cwd", "--config", "--encoding", "--encodingmode",
                        "--color", "--pager"})


def ssh_form(url: str) -> bool:
    """Whether git may reach ``url`` (not a local path) through ssh: any form but a URL of a
    scheme that uses no ssh."""
    return not url.startswith(_NOT_SSH)


def runs_ssh(program: str, argv: Sequence[str | None]) -> bool:
    """Whether the command ``argv`` of ``program`` (not git: ``git_repositories.reaches_hosts``)
    may run ssh."""
    words = list(argv[1:])
    if program in SSH_CLIENTS:
        return True
    if program == "rsync":
        # ``host:path`` and ``host::module`` (a ':' before any '/'): the remote shell, or ssh
        # to start a daemon with ``-e``; a word known only when the line runs may be one.
        return any(w is None or ":" in w.split("/", 1)[0] for w in words)
    if program == "hg":
        if any(w is None or w.startswith("ssh://") for w in words):
            return True
        command = _hg_command(words)
        return command is None or any(name.startswith(command) for name in _HG_REACHES)
    return False


def _hg_command(words: Sequence[str | None]) -> str | None:
    """hg's subcommand: the first word that is neither an option nor a global option's value
    (``None``: none, or not known)."""
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word is None:
            return None
        elif word.startswith("-"):
            skip = word in _HG_VALUES
        else:
            return word
    return None
