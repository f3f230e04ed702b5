"""The hooks a git command may run, and whether one of them is present.

A hook the person installed is a program the engine cannot read, and the common ones are
launchers that read the worktree: the pre-commit framework's ``.git/hooks/pre-commit`` runs
what ``.pre-commit-config.yaml`` lists (a ``repo: local`` hook with ``language: system`` runs
any command), husky's and lefthook's hooks run scripts and settings kept in the worktree, and a
plain hook may run or source any file there. So a git command that runs a hook present in a
hooks folder runs code the agent may have written: the caller (``settings_files``) counts every
file of the worktree and of the home folder as code the command runs.

Which commands run which hooks follows githooks(5) and git's sources (2.39), widened where a
command may run another (``rebase`` commits as ``commit`` does). A subcommand the engine does
not know (an alias, a newer builtin) may run any hook. Only a file named exactly as a hook runs
(``pre-commit.sample`` never does); a hook file that is not executable is counted all the same
(the line may make it so).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from echo_desk.agent.permissions import git_options as git
from echo_desk.agent.permissions.options import read_options

_COMMITS = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-rewrite", "pre-auto-gc")
_MERGES = ("pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-merge", "pre-auto-gc")
_REBASES = ("pre-rebase", "post-checkout", *_COMMITS)
_SERVER = ("pre-receive", "update", "proc-receive", "post-receive", "post-update", "push-to-checkout")

#: Hooks any command that writes the index or moves a ref may run: ``git status`` and ``git
#: diff`` refresh the index and write it back, nearly every other command moves a ref.
ANY_COMMAND = ("reference-transaction", "post-index-change")

#: The hooks each subcommand runs besides ``ANY_COMMAND``.
RUNS: dict[str, tuple[str, ...]] = {
    "commit": _COMMITS,
    "merge": _MERGES,
    "pull": (*_MERGES, *_REBASES),  # pull merges or rebases what it fetched
    "rebase": _REBASES,
    "cherry-pick": _COMMITS,  # the sequencer commits as `git commit` does
    "revert": _COMMITS,
    "am": ("applypatch-msg", "pre-applypatch", "post-applypatch", "post-rewrite", "pre-auto-gc"),
    # post-checkout runs after a branch is checked out and after files are (`checkout -- f`,
    # `restore`), in every new worktree, and as bisect and stash check out.
    "checkout": ("post-checkout",),
    "switch": ("post-checkout",),
    "restore": ("post-checkout",),
    "worktree": ("post-checkout",),
    "bisect": ("post-checkout",),
    "stash": ("post-checkout",),
    "fetch": ("pre-auto-gc",),
    "gc": ("pre-auto-gc",),
    "maintenance": ("pre-auto-gc",),
    "push": ("pre-push",),
    "receive-pack": _SERVER,
    "send-email": ("sendemail-validate",),
    "p4": ("p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit"),
}

#: The hooks ``git receive-pack`` runs in the repository a push reaches (a local one too: a
#: push to a path or a ``file://`` URL), and ``git gc --auto`` after it.
RECEIVE_PACK = frozenset({*_SERVER, "pre-auto-gc", *ANY_COMMAND})

#: Every hook name git runs; ``git hook run NAME`` runs NAME, whatever it is.
ALL = frozenset({*ANY_COMMAND, *(h for hooks in RUNS.values() for h in hooks)})

#: Subcommands known to run no hook but ``ANY_COMMAND``.
ONLY_ANY = git.KEEPS_INDEX | frozenset({
    "add", "rm", "mv", "reset", "clean", "apply", "init", "notes", "replace", "update-index", "update-ref",
    "symbolic-ref", "read-tree", "write-tree", "commit-tree", "hash-object", "archive", "format-patch",
    "range-diff", "merge-base", "name-rev", "count-objects", "fsck", "prune", "repack", "pack-refs",
    "check-ignore", "check-attr", "check-ref-format", "mktree", "mktag", "verify-commit", "verify-tag",
})

#: Hooks ``-n``/``--no-verify`` skips, for the subcommands whose options the engine reads.
#: (prepare-commit-msg and post-commit run all the same: proven with git 2.39.)
SKIPPED_BY_NO_VERIFY: dict[str, frozenset[str]] = {"commit": frozenset({"pre-commit", "commit-msg"})}


def hooks_run(argv: Sequence[str | None]) -> frozenset[str] | None:
    """The names of the hooks the git command ``argv`` may run (``None``: any file of the
    hooks folder, as ``git hook run NAME`` runs NAME, ``*.sample`` too)."""
    parsed = read_options(argv[1:], git.GLOBAL)
    if parsed.rest is None:
        return frozenset()  # no subcommand (`git --version`)
    at = 1 + parsed.rest
    sub = argv[at]
    if sub == "hook" or sub is None:
        return None
    # (An alias runs another subcommand, or a shell line whose paths ``git_config`` counts.)
    if sub in RUNS:
        found = set(RUNS[sub]) | set(ANY_COMMAND)
    elif sub in ONLY_ANY:
        return frozenset(ANY_COMMAND)
    else:
        return ALL  # an alias or a subcommand not known: it may run any hook
    spec = git.SUBCOMMANDS.get(sub)
    if sub in SKIPPED_BY_NO_VERIFY and spec is not None:
        verify = True
        for seen in read_options(argv[at + 1:], spec).seen:
            if seen.option is not None and "--no-verify" in seen.option.names:
                verify = False
            elif seen.option is not None and "--verify" in seen.option.names:
                verify = True
        if not verify:
            found -= SKIPPED_BY_NO_VERIFY[sub]
    return frozenset(found)


def present(folders: Iterable[Path], names: frozenset[str] | None) -> bool:
    """Whether any of ``folders`` holds a hook named one of ``names`` (``None``: any file; a
    folder that cannot be listed counts as holding one)."""
    for folder in folders:
        try:
            entries = {entry.name for entry in folder.iterdir()}
        except FileNotFoundError:
            continue
        except OSError:
            return True
        if entries and (names is None or entries & names):
            return True
    return False
