"""What a git subcommand word runs when it is not one of git's own commands: the alias the
settings give it (``alias.d = diff``, ``alias.lp = log -p``), from the person's ~/.gitconfig, the
repository's .git/config, ``git -c alias.d=diff`` or ``GIT_CONFIG_*`` on the line. Under ``git
**`` with ``@workspace/src/**`` read-denied, ``git d``, ``git lp``, ``git -c alias.x=diff x`` and
``GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.y GIT_CONFIG_VALUE_0=show git y HEAD:src/main.py``
each printed src/main.py's ``KEY=secret`` (git 2.39, bash and dash, s281) while the engine judged
an unknown subcommand as reading nothing.

git (``git.c``, 2.39) runs its own command of that name first, then a program ``git-NAME`` found
in its exec path or ``PATH``, and only then the alias, whose words (split as git splits them,
quotes and backslashes) take the subcommand word's place. An alias the engine reads is judged as
those words; one it cannot read (``!…`` runs a shell line, a settings file not read or parsed,
an included file not followed, a ``git-NAME`` program) or a word naming nothing known here gives
``None``: the caller counts it as reading the whole repository.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import git_config, git_environment, git_repositories, line_environment
from echo_desk.agent.permissions import git_options as git
from echo_desk.agent.permissions.git_index import git_dir_of, repository_root
from echo_desk.agent.permissions.options import Does, read_options
from echo_desk.agent.permissions.repository_tops import repository_tops

__all__ = ["OWN_COMMANDS", "expansions", "settings"]

Args = tuple[str | None, ...]
Entry = git_environment.Entry

#: git 2.39's own commands (``git --list-cmds=builtins`` and ``--list-cmds=main``): git runs
#: them whatever an alias of the same name says. A newer git's own command not listed here is
#: judged as a word naming nothing known (one more ask under a read deny).
OWN_COMMANDS = frozenset((
    "add am annotate apply archive bisect--helper blame branch bugreport bundle cat-file check-attr check-ignore "
    "check-mailmap check-ref-format checkout checkout--worker checkout-index cherry cherry-pick clean clone column "
    "commit commit-graph commit-tree config count-objects credential credential-cache credential-cache--daemon "
    "credential-store describe diagnose diff diff-files diff-index diff-tree difftool env--helper fast-export "
    "fast-import fetch fetch-pack fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects "
    "fsmonitor--daemon gc get-tar-commit-id grep hash-object help hook index-pack init init-db interpret-trailers "
    "log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-index "
    "merge-ours merge-recursive merge-recursive-ours merge-recursive-theirs merge-subtree merge-tree mktag mktree "
    "multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs patch-id pickaxe prune prune-packed "
    "pull push range-diff read-tree rebase receive-pack reflog remote remote-ext remote-fd repack replace rerere "
    "reset restore rev-list rev-parse revert rm send-pack shortlog show show-branch show-index show-ref "
    "sparse-checkout stage stash status stripspace submodule--helper switch symbolic-ref tag unpack-file "
    "unpack-objects update-index update-ref update-server-info upload-archive upload-archive--writer upload-pack "
    "var verify-commit verify-pack verify-tag version whatchanged worktree write-tree "
    # (programs of git's exec path, run as git-NAME)
    "add--interactive bisect daemon difftool--helper filter-branch http-backend http-fetch http-push imap-send "
    "instaweb merge-octopus merge-one-file merge-resolve mergetool quiltimport remote-ftp remote-ftps remote-http "
    "remote-https request-pull sh-i18n--envsubst shell submodule subtree web--browse"
).split())
#: Where git's own programs are when ``GIT_EXEC_PATH`` does not say (Debian's, Fedora's).
_EXEC_PATHS = ("/usr/lib/git-core", "/usr/libexec/git-core")
#: git stops an alias that names itself; the engine stops following sooner than that.
_DEPTH = 10


def settings(args: Sequence[str | None], folders: Sequence[Path], home: Path | None,
             every_top: bool = False) -> list[Entry] | None:
    """Every setting ``git`` with the words ``args`` (after its name) run in any of ``folders``
    reads: its repository's and the person's files, the environment's, the line's ``-c`` last
    (``None``: one not read, which may say anything). ``every_top``: where git may take more than
    one folder for its repository (a ``.git`` it passes over or follows, a linked worktree), the
    settings of each count (one setting any of them gives may be the one: the editor), where an
    alias, which must be the one git runs, is not known then."""
    where = git_repositories.folders(("git", *args), folders)
    if where.unknown or where.worktrees:
        return None
    git_dirs: list[Path | None] = [named.git_dir for named in where.named]
    if not where.named:
        roots = [repository_root(start) for start in where.starts]
        if every_top:
            roots += [top for start in where.starts for top in repository_tops(start, "git")]
        elif any(root is not None and repository_tops(start, "git") != [root]
                 for start, root in zip(where.starts, roots, strict=True)):
            return None  # (a .git git passes over or follows: the settings it reads are not known here)
        tops = list(dict.fromkeys(roots))
        git_dirs = [None if root is None else git_dir_of(root) for root in tops] or [None]
        if every_top and any(root is not None and git_dir is None for root, git_dir in zip(tops, git_dirs, strict=False)):
            return None  # (a .git file not read, or anywhere: its settings are not known here)
    found: list[Entry] = []
    for git_dir in dict.fromkeys(git_dirs):
        read = git_config.entries(git_dir, home)
        if read is None:
            return None
        found += read
    line = _line_settings(args)
    return None if line is None else found + line


def _line_settings(args: Sequence[str | None]) -> list[Entry] | None:
    """The settings ``-c key=value`` gives (``None``: one only known when the line runs, one
    taken from a variable, or an include)."""
    found: list[Entry] = []
    for seen in read_options(args, git.GLOBAL).seen:
        if seen.option is None or seen.option.does is not Does.CONFIG:
            continue
        if "--config-env" in seen.option.names or seen.value is None:
            return None
        key, equals, value = seen.value.partition("=")
        section, dot, rest = key.partition(".")
        subsection, _, name = rest.rpartition(".")
        if not equals or not dot or not name or section.lower() in ("include", "includeif"):
            return None  # (a key alone, or an include: not read here)
        found.append((section.lower(), subsection or None, name.lower(), value))
    return found


def expansions(args: Args, folders: Sequence[Path], home: Path | None) -> list[Args] | None:
    """The words git runs for ``git`` with ``args`` (after its name) run in any of ``folders``,
    aliases replaced: ``args`` itself when its subcommand is one of git's own (or there is none),
    each definition of the alias otherwise (a conditional include may hold any of them).
    ``None``: what it runs is not known here."""
    entries: list[Entry] | None = None
    found: list[Args] = []
    todo: list[tuple[Args, int]] = [(args, 0)]
    while todo:
        words, depth = todo.pop()
        parsed = read_options(words, git.GLOBAL)
        if parsed.dynamic:
            return None
        if parsed.rest is None or words[parsed.rest] in OWN_COMMANDS:
            found.append(words)
            continue
        sub = words[parsed.rest]
        if sub is None or depth >= _DEPTH or _program(sub):
            return None
        entries = entries if entries is not None else settings(args, folders, home)
        if entries is None:
            return None
        values = [v for s, ss, k, v in entries if s == "alias" and _name(ss, k) == sub.lower()]
        if not values:
            return None  # (git runs a git-NAME it finds, or stops: neither is known here)
        for value in values:
            split = None if value.startswith("!") else _split(value)
            if split is None:
                return None
            todo.append(((*words[:parsed.rest], *split, *words[parsed.rest + 1:]), depth + 1))
    return found


def _name(subsection: str | None, key: str) -> str:
    return key if subsection is None else f"{subsection.lower()}.{key}"


def _program(sub: str) -> bool:
    """Whether git may find a program ``git-SUB`` to run before an alias: in its exec path or a
    folder of ``PATH`` (a relative folder: in one only known when it runs)."""
    if "/" in sub:
        return True
    exec_path = line_environment.get("GIT_EXEC_PATH")
    folders = [*([exec_path] if exec_path else []), *_EXEC_PATHS, *line_environment.get("PATH").split(os.pathsep)]
    return any(not os.path.isabs(f) or os.path.lexists(os.path.join(f, f"git-{sub}")) for f in folders)


def _split(value: str) -> tuple[str, ...] | None:
    """An alias's words as git splits them (``split_cmdline``): at blanks outside quotes, single
    and double quotes kept together, a backslash outside single quotes taking the next character
    as it is (``None``: a quote left open, which git refuses)."""
    words: list[str] = []
    word: list[str] | None = None
    quote = ""
    k = 0
    while k < len(value):
        char = value[k]
        k += 1
        if not quote and char.isspace():
            if word is not None:
                words.append("".join(word))
                word = None
            continue
        word = word if word is not None else []
        if not quote and char in "'\"":
            quote = char
        elif char == quote:
            quote = ""
        elif char == "\\" and quote != "'":
            if k == len(value):
                return None
            word.append(value[k])
            k += 1
        else:
            word.append(char)
    if quote:
        return None
    if word is not None:
        words.append("".join(word))
    return tuple(words)
