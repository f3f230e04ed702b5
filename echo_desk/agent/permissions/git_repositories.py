"""The repositories a git command runs git in besides the one it finds from the folder the line
runs in: the folder ``-C`` leads to (the repository found from there), the repository
``--git-dir`` names and the worktree ``--work-tree`` names, and the repository at the other end
of a local transport (``git push out/r.git``, ``git fetch ../other``, ``file://`` URLs, and a
remote whose URL is a path), of the plumbing under them (``git send-pack``, ``git fetch-pack``)
and of ``git remote update``/``show``/``prune``/``set-head``/``add``: every repository ``fetch
--multiple`` names, every remote of a group (``remotes.GROUP``) and, for ``fetch --all`` and a
bare ``remote update``, every remote (s162: only the first operand counted, and ``send-pack``,
whose receive-pack runs the hooks there, none).

git runs in each with that repository's own settings: a push to a local repository runs
``git receive-pack`` there, which runs the hooks of that repository (pre-receive, update,
post-receive…) and what its settings name (``core.alternateRefsCommand``, a shell command,
proven with git 2.39); a fetch, pull, clone or ls-remote runs ``git upload-pack`` there, which
reads its settings (none known to run a program there, but the engine does not decide which
settings do). So a rule for a git command is a rule for whatever the agent put in any of them
(``settings_files``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from echo_desk.agent.permissions import git_options as git
from echo_desk.agent.permissions import git_variables, ssh_reach
from echo_desk.agent.permissions.options import OptionSet, read_options, values

#: The options (taking a value as the next word) of the subcommands that reach another
#: repository, read only to find their repository operand (git 2.39's manuals). A rule still
#: has to name every option of them (``git_options`` knows none).
_TRANSPORT_VALUES = {
    "push": "--repo -o|--push-option --receive-pack --exec",
    "fetch": "--upload-pack --depth --deepen --shallow-since --shallow-exclude --negotiation-tip -o|--server-option "
             "--refmap -j|--jobs --filter --recurse-submodules-default --submodule-prefix",
    "pull": "--upload-pack --depth --deepen --shallow-since --shallow-exclude --negotiation-tip -o|--server-option "
            "--refmap -j|--jobs --filter -s|--strategy -X|--strategy-option --cleanup",
    "ls-remote": "--upload-pack -o|--server-option --sort",
    "clone": "-o|--origin -b|--branch -u|--upload-pack --reference --reference-if-able --separate-git-dir --template "
             "-c|--config --depth --shallow-since --shallow-exclude -j|--jobs --filter --server-option --bundle-uri "
             "--ref-format",
    "archive": "--format -o|--output --prefix --remote --exec --add-file --add-virtual-file",
    # The plumbing under push and fetch: the repository is the first operand (fetch-pack reads
    # its options only glued, ``--upload-pack=X``).
    "send-pack": "--receive-pack --exec",
    "fetch-pack": "",
}
_SPECS = {sub: OptionSet(values(names), abbreviations=False) for sub, names in _TRANSPORT_VALUES.items()}
#: Options whose value is the repository itself.
_REPOSITORY_OPTIONS = frozenset({"--repo", "--remote"})
#: Where git looks for a repository given by path (``enter_repo``): ``r/.git``, ``r``,
#: ``r.git/.git``, ``r.git``.
_SUFFIXES = ("/.git", "", ".git/.git", ".git")


@dataclass(frozen=True)
class Named:
    """A repository the options name: its repository folder (``--git-dir``) and its worktree
    (``--work-tree``, else the folder git runs in)."""

    git_dir: Path
    root: Path


@dataclass(frozen=True)
class Folders:
    """Where a git command runs: the folders it finds its repository from (each of the line's
    folders, or where ``-C`` leads), the repositories ``--git-dir`` names, the worktrees
    ``--work-tree`` names; ``unknown``: a folder known only when the line runs."""

    starts: tuple[Path, ...]
    named: tuple[Named, ...]
    worktrees: tuple[Path, ...]
    unknown: bool
    #: The index file and object folders the environment names (``git_variables``).
    data: tuple[Path, ...] = ()


def folders(argv: Sequence[str | None], cwds: Sequence[Path]) -> Folders:
    """The folders the git command ``argv``, run from any of ``cwds``, runs in (see ``Folders``).
    ``-C`` is taken in turn, each relative to the last (``-C a -C b`` is a/b); ``--git-dir``
    and ``--work-tree`` are relative to where the ``-C`` options lead, and so are the variables
    that do the same from the environment (``git_variables``: ``GIT_DIR``, ``GIT_WORK_TREE``;
    ``GIT_COMMON_DIR`` counts as a repository folder too)."""
    parsed = read_options(argv[1:], git.GLOBAL)
    starts = [Path(os.path.normpath(c)) for c in cwds]
    git_dirs: list[str] = []
    worktrees: list[str] = []
    unknown = False
    for seen in parsed.seen:
        # (the token, not the option: --git-dir and --work-tree share one in ``git_options``)
        name = seen.token.partition("=")[0] if seen.token.startswith("--") else seen.token[:2]
        if seen.option is None or name not in ("-C", "--git-dir", "--work-tree"):
            continue
        if seen.value is None:
            unknown = True  # (a word known only when the line runs, or none)
        elif name == "-C":
            if seen.value:  # (`-C ""` stays where it is)
                starts = [Path(os.path.normpath(s / seen.value)) for s in starts]
        elif name == "--git-dir":
            git_dirs.append(seen.value)
        else:
            worktrees.append(seen.value)
    environment = git_variables.moved()
    # (an option wins over its variable: git's --git-dir sets GIT_DIR)
    git_dirs = git_dirs or [d for d in (environment.git_dir,) if d]
    worktrees = worktrees or [w for w in (environment.work_tree,) if w]
    git_dirs += [d for d in (environment.common_dir,) if d]
    trees = [Path(os.path.normpath(s / w)) for s in starts for w in worktrees]
    named = [Named(Path(os.path.normpath(s / d)), tree) for s in starts for d in git_dirs for tree in (trees or [s])]
    data = [Path(os.path.normpath(s / d)) for s in starts for d in environment.data]
    return Folders(tuple(dict.fromkeys(starts)), tuple(dict.fromkeys(named)), tuple(dict.fromkeys(trees)),
                   unknown or environment.unknown, tuple(dict.fromkeys(data)))


@dataclass(frozen=True)
class Remotes:
    """What the settings say about remotes: each remote's URLs (``url``, ``pushurl``), the words
    that name the remote a command without one uses (``branch.*.remote``, ``pushRemote``,
    ``remote.pushDefault``), the URL rewrites (``url.BASE.insteadOf PREFIX``) and the groups of
    remotes ``git fetch GROUP`` and ``git remote update GROUP`` fetch (``remotes.GROUP``)."""

    urls: dict[str, tuple[str, ...]]
    defaults: tuple[str, ...]
    rewrites: tuple[tuple[str, str], ...]
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)


def remotes(entries: Sequence[tuple[str, str | None, str, str]]) -> Remotes:
    """``Remotes`` from settings entries ``(section, subsection, key, value)`` (``git_config``)."""
    urls: dict[str, list[str]] = {}
    defaults: list[str] = []
    rewrites: list[tuple[str, str]] = []
    groups: dict[str, list[str]] = {}
    for section, sub, key, value in entries:
        if section == "remote" and sub is not None and key in ("url", "pushurl"):
            urls.setdefault(sub, []).append(value)
        elif section == "remote" and sub is None and key == "pushdefault":
            defaults.append(value)
        elif section == "branch" and sub is not None and key in ("remote", "pushremote"):
            defaults.append(value)
        elif section == "url" and sub is not None and key in ("insteadof", "pushinsteadof"):
            rewrites.append((sub, value))
        elif section == "remotes" and sub is None:
            groups.setdefault(key, []).extend(value.split())
    return Remotes({k: tuple(v) for k, v in urls.items()}, tuple(defaults), tuple(rewrites),
                   {k: tuple(v) for k, v in groups.items()})


#: What a local repository at the other end runs: ``git receive-pack`` (a push, and ``git
#: send-pack`` under it) runs its hooks, ``git upload-pack`` none.
RECEIVES = frozenset({"push", "send-pack"})


def other_ends(argv: Sequence[str | None], starts: Sequence[Path], known: Remotes | None) -> tuple[list[Path], bool]:
    """The repository folders (every one git may take: ``_SUFFIXES``) at the other end of the
    git command ``argv`` run from any of ``starts`` where that is a local repository, with
    remote names read from ``known`` (``None``: the settings could not be read). With ``True``:
    one known only when the line runs (any folder may be it)."""
    urls = other_urls(argv, known)
    if urls is None:
        return [], True
    found: list[Path] = []
    for url in urls:
        path = local_path(url)
        if path is None:
            continue
        if path == "":
            return [], True
        for start in starts:
            base = Path(os.path.normpath(start / path))
            found += [Path(os.path.normpath(f"{base}{suffix}")) for suffix in _SUFFIXES]
    return list(dict.fromkeys(found)), False


def reaches_hosts(argv: Sequence[str | None], known: Remotes | None, submodules: bool) -> bool:
    """Whether the git command ``argv`` may run ssh (``ssh_reach``): a remote of ssh's forms at
    the other end of a push, fetch, pull, clone, ls-remote or ``archive --remote``, or one not
    known; any other subcommand that reaches a remote (``submodule update``, ``remote update``,
    ``request-pull``…: ``_REACHES``), and a fetch, pull or clone in a repository with
    ``submodules`` or told to recurse into them (their URLs are the ``.gitmodules`` file's)."""
    parsed = read_options(argv[1:], git.GLOBAL)
    if parsed.rest is None:
        return False
    sub = argv[1 + parsed.rest]
    if sub is None:
        return True
    if sub in _REACHES:
        actions = _REACHES[sub]
        action = next((w for w in argv[2 + parsed.rest:] if w is None or not w.startswith("-")), "")
        return actions is None or action is None or action in actions
    if sub not in _SPECS:
        return False
    if sub in ("fetch", "pull", "clone", "push") and (
            submodules or any(w is None or w.startswith("--recurse") for w in argv[2 + parsed.rest:])):
        return True
    urls = other_urls(argv, known)
    return urls is None or any(ssh_reach.ssh_form(u) for u in urls if local_path(u) is None or local_path(u) == "")


#: git's subcommands (besides ``_SPECS``') that may reach a remote, with the actions that do
#: (``None``: any; git 2.39's manuals; ``remote add -f`` fetches): ``git remote -v`` and
#: ``git submodule status`` do not.
_REACHES: dict[str, frozenset[str] | None] = {
    "submodule": frozenset({"update", "add"}), "remote": frozenset({"update", "show", "prune", "set-head", "add"}),
    "request-pull": None, "fetch-pack": None, "send-pack": None, "maintenance": None,
}


def other_urls(argv: Sequence[str | None], known: Remotes | None) -> list[str] | None:
    """The URLs at the other end of the git command ``argv`` (``[]``: a subcommand that reaches
    none; ``None``: one known only when the line runs, or from settings not read)."""
    parsed = read_options(argv[1:], git.GLOBAL)
    if parsed.rest is None:
        return []
    at = 1 + parsed.rest
    sub = argv[at]
    if sub == "remote":
        return _remote_urls(argv[at + 1:], known)
    spec = _SPECS.get(sub or "")
    if spec is None:
        return []
    words = argv[at + 1:]
    mine = read_options(words, spec)
    operands = [w for _, w in mine.operands]
    repository: list[str | None] = [s.value for s in mine.seen
                                     if s.option is not None and set(s.option.names) & _REPOSITORY_OPTIONS]
    if sub == "archive":
        pass  # (its operands are a tree and paths: only --remote names a repository)
    elif any(s.option is None and _may_take_a_value(s.token, sub or "") for s in mine.seen):
        repository += operands  # (an option not known here may have taken the next word)
    elif sub == "fetch" and any(s.option is None for s in mine.seen):
        # `--multiple` (any prefix of it) makes every operand a repository or group; `--all`
        # every remote (an option not known here may be either).
        repository += [*operands, *(known.urls if known is not None else [None])]
    elif operands:
        repository.append(operands[0])
    elif not repository:
        # No repository given: the remote the settings choose (the current branch's, the
        # push default, else origin), read as any of them.
        if known is None:
            return None
        repository += [*known.defaults, *known.urls, "origin"]
    urls: list[str] = []
    for word in repository:
        if word is None or known is None:
            return None
        urls += _urls(word, known)
    return urls


#: The actions of ``git remote`` that reach remotes (``add -f`` fetches the URL it adds), with the
#: options of theirs that take a value (git 2.39's manuals).
_REMOTE_REACHES = {"update": OptionSet((), abbreviations=False),
                   "add": OptionSet(values("-t -m --mirror"), abbreviations=False),
                   "show": OptionSet((), abbreviations=False), "prune": OptionSet((), abbreviations=False),
                   "set-head": OptionSet((), abbreviations=False)}


def _remote_urls(words: Sequence[str | None], known: Remotes | None) -> list[str] | None:
    """The URLs ``git remote ACTION …`` reaches (``words``: what follows ``remote``): the remotes
    and groups it names, or for ``update`` with none, every remote."""
    action = next((w for w in words if w is None or not w.startswith("-")), "")
    if action is None:
        return None
    spec = _REMOTE_REACHES.get(action)
    if spec is None:
        return []
    mine = read_options(words[words.index(action) + 1:], spec)
    named: list[str | None] = [w for _, w in mine.operands]
    if known is None or mine.dynamic or any(w is None for w in named):
        return None
    if action == "update" and not named:
        named = [*known.urls, *known.groups.get("default", ())]
    urls: list[str] = []
    for word in named:
        urls += _urls(word or "", known)
    return urls


def _may_take_a_value(token: str, sub: str) -> bool:
    """Whether ``token``, an option not known here, may take the next word as git reads it: an
    abbreviation of one of the subcommand's options that take a value (``--rec`` for
    ``--receive-pack``), or a cluster of short options ending in one (``-fo``)."""
    names = _TRANSPORT_VALUES[sub].replace("|", " ").split()
    if token.startswith("--"):
        return "=" not in token and any(n.startswith(token) for n in names)
    return any(f"-{letter}" in names for letter in token[1:])


def _urls(word: str, known: Remotes) -> list[str]:
    """The URLs a repository word stands for: a group's remotes' (``remotes.GROUP``, which git
    looks for first), a configured remote's (a name without one is itself the URL), each also
    as the settings' rewrites make it."""
    members = [u for name in known.groups.get(word, ()) for u in known.urls.get(name, ()) or [name]]
    urls = members + (list(known.urls.get(word, ())) or [word])
    rewritten = [base + url[len(prefix):] for url in urls for base, prefix in known.rewrites if url.startswith(prefix)]
    return list(dict.fromkeys(urls + rewritten))


def local_path(url: str) -> str | None:
    """The path of a URL git reaches as a local repository (``None``: another host, or a remote
    helper's ``x::…``; ``""``: a form not read here)."""
    if url.startswith("file://"):
        path = url[len("file://"):]
        return path if path.startswith("/") and "%" not in path else ""
    if "::" in url or "://" in url:
        return None
    colon, slash = url.find(":"), url.find("/")
    if colon != -1 and (slash == -1 or colon < slash):
        return None  # host:path, ssh's form
    return url


@dataclass(frozen=True)
class Moves:
    """The ``-C`` options of a git command: the indexes of their words in the command (option and
    value) and the folders they name, in turn (``None``: one only known when the line runs)."""

    words: frozenset[int]
    folders: tuple[str | None, ...]


def moves(argv: Sequence[str | None]) -> Moves:
    """The ``-C`` options of the git command ``argv``: git changes into each folder in turn before
    it does anything else, so ``git -C DIR rest`` is ``cd DIR && git rest`` (``-C ""`` stays)."""
    parsed = read_options(argv[1:], git.GLOBAL)
    words: set[int] = set()
    folders: list[str | None] = []
    for seen in parsed.seen:
        if seen.option is None or not seen.token.startswith("-C"):
            continue
        words.update(range(seen.index + 1, seen.index + 1 + seen.words))
        folders.append(seen.value)
    return Moves(frozenset(words), tuple(folders))
