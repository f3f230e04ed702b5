"""The git commands that write worktree files no word of the line names, from a tree git
chooses: ``git checkout BRANCH``, ``git switch``, ``git merge``, ``git pull``, ``git reset
--hard``, ``git read-tree -u``… A rule naming git (``git **``) trusts git, not every file a
commit may hold: with ``.github/**`` write-denied, the agent wrote ``out/ci.yml``, ``git add``-ed
it (its blob), built a tree holding it at ``.github/workflows/ci.yml`` with ``git mktree``, put
it in the index with ``git read-tree TREE``, committed it, moved refs with ``git update-ref``,
and ``git merge BRANCH`` wrote the denied file, each command allowed on its own (proven with git
2.39 under bash and dash). A branch someone else pushed does the same.

Such a command writes anywhere below the top of its worktree: where a deny or ask write rule
may match a file there, the line asks (``ShellVerdict``). The forms below only read, or write
only the repository's own folder and index; any other form of these subcommands, a word known
only when the line runs among them, or a subcommand not known to leave the worktree alone,
counts as writing it. Version read: git 2.39's manuals.

``git worktree add PATH BRANCH`` writes the branch's tree below PATH the same way: the new folder
is judged as a write (``git_folder_writes``), but a glob deny such as ``**/*.env`` names no word
of the line, so ``git worktree add out/wt other`` wrote ``out/wt/.env`` and
``out/wt/.github/workflows/ci.yml`` beside ``@workspace/**/*.env`` and ``@workspace/**/.github/**``
write-denied (proven with git 2.39 under bash and dash). PATH is the top of that worktree.
``git submodule add URL PATH`` checks the submodule out below PATH, which git keeps inside the
worktree, and writes ``.gitmodules`` at its top: with ``@workspace/**/.github/**`` denied,
``git -c protocol.file.allow=always submodule add ../x out/x`` wrote ``out/x/.github/workflows/ci.yml``
(git 2.39, bash and dash); it, ``update`` and ``deinit`` are judged as writing below the top.
(``update = !command`` in ``.gitmodules`` runs nothing: git 2.39 refuses it there.)
``git clean`` deletes untracked files below the folder it runs in, which no word names, and
without ``-f`` too where the person's settings say ``clean.requireForce = false``: it deleted an
untracked ``src/local.env`` beside ``@workspace/**/*.env`` write-denied (git 2.39, bash and
dash); only ``-n``/``--dry-run`` leave the worktree alone.

The top is where git takes it from: ``--work-tree`` (``GIT_WORK_TREE``), else the repository's
own ``core.worktree`` (relative to its repository folder), else the folder holding ``.git``.
With ``core.worktree = ../../site`` in ws/.git/config, ``git checkout ci-update`` run in ws
wrote ../site/.github/workflows/ci.yml (git 2.39, bash and dash, s255): judged from ws, a deny
below the real worktree was not looked at. git reads it from the repository's own files only
(the person's settings and ``-c core.worktree=…`` change nothing: git 2.39).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import git_config, git_folder_writes, git_repositories
from echo_desk.agent.permissions import git_options as git
from echo_desk.agent.permissions.git_index import git_dir_of, repository_roots
from echo_desk.agent.permissions.long_prefixes import long_prefix
from echo_desk.agent.permissions.options import read_options

#: The subcommands known to leave the worktree alone: they read, write only the repository's own
#: folder and index, write what their words name (``mv``, ``rm``, ``merge-file``, ``bundle
#: create``), or are read elsewhere (``apply`` and ``am``: the patch names the files,
#: ``git_folder_writes``; ``clone`` and ``init``: the folder they make; ``format-patch``,
#: ``bugreport``…: ``git_file_writes``). Any other subcommand, one not known (a newer builtin,
#: an alias) among them, counts as writing the worktree: git's merge strategies run as commands
#: (``git merge-resolve HEAD -- HEAD BRANCH`` wrote the branch's files), ``merge-index``,
#: ``quiltimport``, ``mergetool``, ``difftool --dir-diff``, ``rerere``, ``subtree`` and git's
#: helpers (``checkout--worker``, ``submodule--helper``) do, as ``checkout`` does.
_LEAVES_WORKTREE = git.KEEPS_INDEX | frozenset({
    "add", "stage", "commit", "mv", "rm", "apply", "am", "init", "init-db", "clone", "notes", "replace", "update-index",
    "update-ref", "symbolic-ref", "write-tree", "commit-tree", "hash-object", "mktree", "mktag", "archive",
    "bundle", "format-patch", "range-diff", "merge-base", "merge-tree", "merge-file", "name-rev", "count-objects",
    "fsck", "fsck-objects", "prune", "prune-packed", "repack", "pack-refs", "gc", "maintenance", "commit-graph",
    "multi-pack-index", "pack-objects", "pack-redundant", "index-pack", "unpack-objects", "unpack-file",
    "update-server-info", "verify-pack", "show-index", "check-ignore", "check-attr", "check-ref-format",
    "check-mailmap", "verify-commit", "verify-tag", "annotate", "cherry", "show-branch", "patch-id",
    "get-tar-commit-id", "mailinfo", "mailsplit", "interpret-trailers", "stripspace", "column", "fmt-merge-msg",
    "fast-export", "fast-import", "credential", "credential-store", "credential-cache", "bugreport", "diagnose",
    "send-pack", "fetch-pack", "upload-pack", "upload-archive", "receive-pack", "http-fetch", "http-push",
    "send-email", "request-pull", "imap-send", "hook", "daemon", "instaweb", "web--browse",
})
#: Actions of the subcommands taking one that leave the worktree alone.
_READING_ACTIONS = {
    "stash": frozenset({"list", "show", "create", "store", "drop", "clear"}),
    "bisect": frozenset({"log", "visualize", "view", "terms", "help"}),
    "sparse-checkout": frozenset({"list"}),
    # (`add`, `update`, `deinit` write submodule worktrees below the top; `foreach`'s line is
    # judged on its own; `init` and `sync` write the repositories' own settings)
    "submodule": frozenset({"status", "summary", "foreach", "init", "sync"}),
}
#: ``git reset``'s modes that write the worktree (without one it sets the index and HEAD).
_RESET_WRITING = ("--hard", "--merge", "--keep")
#: ``read-tree`` writes the worktree only with ``-u`` and without ``--dry-run`` (``-n``);
#: ``pull --dry-run`` stops after fetching; ``restore --staged`` without ``--worktree`` writes
#: only the index.
_DRY_RUN = ("--dry-run",)


def updates_worktree(argv: Sequence[str | None]) -> bool:
    """Whether the git command ``argv`` may write worktree files from a tree git chooses."""
    parsed = read_options(argv[1:], git.GLOBAL)
    if parsed.rest is None:
        return False  # (no subcommand: `git --version`)
    at = 1 + parsed.rest
    sub = argv[at]
    if sub is None:
        return True
    if sub == "worktree":
        return _new_worktree(argv, at) is not None
    if sub in _LEAVES_WORKTREE:
        return False
    words = list(argv[at + 1:])
    if None in words:
        return True
    options = [w for w in words if w is not None and w.startswith("-")]
    operands = [w for w in words if w is not None and not w.startswith("-")]

    def given(*names: str) -> bool:
        return any(long_prefix(w, n) for w in options for n in names)

    if sub == "submodule" and not operands:
        return False  # (`git submodule` alone is `git submodule status`)
    if sub in _READING_ACTIONS:
        return not (operands and operands[0] in _READING_ACTIONS[sub])
    if sub == "reset":
        return given(*_RESET_WRITING)
    if sub == "read-tree":
        return _short(options, "u") and not (given(*_DRY_RUN) or _short(options, "n"))
    if sub == "restore":
        # (-s takes the source as the rest of its word: `-sWIP` names no mode)
        return given("--worktree") or _short(options, "W", "s") or not (given("--staged") or _short(options, "S", "s"))
    if sub == "pull":
        return not given(*_DRY_RUN)
    if sub == "clean":
        # (-e takes the pattern as the rest of its word: `-en` names no dry run)
        return not (given(*_DRY_RUN) or _short(options, "n", "e"))
    return True


def tops(argv: Sequence[str | None], cwds: Sequence[Path]) -> list[str | None]:
    """The tops of the worktrees the git command ``argv``, run from any of ``cwds``, works in:
    the one ``--work-tree`` (or ``GIT_WORK_TREE``) names, else each one git may take from each
    folder it starts from (``-C``; ``git_index.repository_roots``), else that folder (with ``--git-dir``, or outside any repository);
    ``None``: one only known when the line runs."""
    parsed = read_options(argv[1:], git.GLOBAL)
    if parsed.rest is not None and argv[1 + parsed.rest] == "worktree":
        return _new_worktree_tops(argv, 1 + parsed.rest, cwds)
    where = git_repositories.folders(argv, cwds)
    if where.unknown:
        return [None]
    if where.worktrees:
        return [str(t) for t in where.worktrees]
    found: list[str | None] = []
    for named in where.named:
        found += [str(named.root), *_configured_tops(named.git_dir)]
    if not where.named:
        for start in where.starts:
            for root in repository_roots(start) or [start]:
                git_dir = git_dir_of(root)
                found += [str(root), *(_configured_tops(git_dir) if git_dir is not None else [])]
    return list(dict.fromkeys(found))


def _configured_tops(git_dir: Path) -> list[str | None]:
    """The worktree tops the repository ``git_dir``'s own settings name (``core.worktree``,
    relative to ``git_dir``; ``None``: a settings file not read, or a ``~`` path)."""
    found: list[str | None] = []
    for name in ("config", "config.worktree"):
        entries = git_config.file_entries(git_dir / name)
        if entries is None:
            return [None]
        for section, subsection, key, value in entries:
            if (section, subsection, key) != ("core", None, "worktree"):
                continue
            found.append(None if value.startswith("~") else os.path.normpath(git_dir / value))
    return found


def _new_worktree(argv: Sequence[str | None], at: int) -> tuple[str | None, ...] | None:
    """The folders ``git worktree add`` (its subcommand at ``at``) checks a tree out into, from
    where ``-C`` leads (``None`` in them: not known here); ``None`` for any other action, which
    writes no tree out (``list``, ``lock``, ``move``…)."""
    action = next((w for w in argv[at + 1:] if w is None or not w.startswith("-")), "")
    if action is None:
        return (None,)
    if action != "add":
        return None
    return git_folder_writes.folders_written(argv, at)


def _new_worktree_tops(argv: Sequence[str | None], at: int, cwds: Sequence[Path]) -> list[str | None]:
    """The tops of the worktrees ``git worktree add`` makes, run from any of ``cwds`` (a path
    from the home, ``~/x``, is not read here)."""
    found: list[str | None] = []
    for folder in _new_worktree(argv, at) or ():
        if folder is None or folder.startswith("~"):
            return [None]
        found += [folder] if os.path.isabs(folder) else [str(c / folder) for c in cwds]
    return list(dict.fromkeys(found))


def _short(options: Sequence[str], letter: str, valued: str = "") -> bool:
    """Whether a group of short options (``-mu``) holds ``letter`` before the first letter in
    ``valued``, whose value is the rest of the word."""
    for word in options:
        if word.startswith("--"):
            continue
        letters = word[1:]
        for v in valued:
            letters = letters.split(v, 1)[0]
        if letter in letters:
            return True
    return False
