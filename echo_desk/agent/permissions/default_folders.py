"""Programs that read the folder they run in when the line names none: ``grep -r KEY`` searches
``.`` and everything below it, as ``rg KEY``, ``find -name x``, ``ls -R``, ``tree`` and ``du -a``
do. The deny rules judge such a command as if the line named ``.`` (``shell_verdict``): with
``@workspace/src/**`` read-denied, ``grep -r KEY`` at the workspace's top printed
``src/main.py:KEY=secret`` under bash and dash (strace: src/main.py opened) while ``grep -r KEY
.`` asked (s275).

Each program is declared here with how to tell, from its words, that it names nothing to read.
Where that cannot be told for sure (a word only known when the line runs, an option not in its
table, a program not run here: tokei, eza), it counts as reading ``.``: one more ask, never a
missed deny. s282 read ag, ack and fd with their tables (``searcher_options``) and git grep with
its pathspecs (``git_grep_paths``): ``ag KEY out`` and ``git grep KEY -- out`` no longer ask.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence, Set
from pathlib import Path

from echo_desk.agent.permissions import (
    git_aliases,
    git_grep_paths,
    git_options,
    git_whole_reads,
    hg_aliases,
    hg_extensions,
    hg_whole_reads,
    named_files,
)
from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions import searcher_options as searchers
from echo_desk.agent.permissions.options import OptionSet, Parsed, read_options

__all__ = ["greps_below_its_folder", "reads_repository", "reads_working_folder"]

Args = Sequence[str | None]


def reads_working_folder(program: str | None, args: Args) -> bool:
    """Whether ``program`` with the words ``args`` (after its name) reads the folder it runs in
    without the line naming it."""
    judge = _PROGRAMS.get(program or "")
    return judge is not None and judge(args)


def reads_repository(program: str | None, args: Args, folders: Sequence[Path], home: Path | None, *,
                     runner: str | None = None, is_path: git_whole_reads.IsPath | None = None) -> bool:
    """Whether ``program`` (started as ``runner``) with the words ``args``, run in any of
    ``folders``, reads the repository it runs in from its top folder, whatever folder below it
    the line runs in (``git diff``, ``git show``: ``git_whole_reads``; ``git grep KEY -- :/``
    searches from the top; ``hg files``: ``hg_whole_reads``), an alias judged as what it runs
    (``git_aliases``, ``hg_aliases``: one not known counts), an hg command an extension may
    give (``hg_extensions``), or shows its status as ``git status`` does (``exa --git``).
    ``is_path``: whether git takes a word before ``--`` as a path."""
    if program in _GIT_STATUS_LISTERS:
        options = args[:args.index("--")] if "--" in args else args
        return any(word is None or word in _GIT_STATUS_LISTERS[program] for word in options)
    if program == "hg":
        hg_runs = hg_aliases.expansions(tuple(args), folders, home, runner)
        return (hg_runs is None or any(hg_whole_reads.reads_whole_repository(words) for words in hg_runs)
                or bool(hg_extensions.foreign_commands(tuple(args), folders, home, runner)))
    if program != "git":
        return False
    git_runs = git_aliases.expansions(tuple(args), folders, home)
    if git_runs is None:
        return True
    # (an alias of `grep KEY` reads below the folder it runs in: its top covers that)
    return any(git_whole_reads.reads_whole_repository(words, is_path) or (words != tuple(args) and _git(words))
               or (_git(words) and any(word is None or word.startswith(":") for word in words)) for words in git_runs)


#: Listers whose options make them read the repository's status as ``git status`` does: ``exa
#: --git -l out`` and ``exa --git-ignore out`` opened .git/index, .git/HEAD and the objects (libgit2)
#: and ``exa --git -l`` showed ``-M src`` for a file changed below src/ (exa 0.10.1, bash and dash,
#: s299). exa takes no abbreviation (``--gi``: unknown argument); eza has the same options.
_GIT_STATUS_LISTERS: dict[str, frozenset[str]] = {
    "exa": frozenset({"--git", "--git-ignore"}),
    "eza": frozenset({"--git", "--git-ignore", "--git-repos", "--git-repos-no-status"}),
}


def _parsed(args: Args, spec: OptionSet) -> tuple[Parsed, set[str]]:
    parsed = read_options(args, spec)
    names = {name for seen in parsed.seen if seen.option is not None for name in seen.option.names}
    return parsed, names


def _grep(args: Args) -> bool:
    """grep reads ``.`` when it reads folders recursively and is given no file: its first operand
    is the pattern unless ``-e`` or ``-f`` gives it."""
    parsed, names = _parsed(args, table.GREP)
    if parsed.dynamic:
        return True
    return named_files.grep_recurses(args) and not _files(parsed, names, {"-e", "--regexp", "-f", "--file"})


def _rg(args: Args) -> bool:
    """rg searches ``.`` when given no path; with ``--files`` every operand is a path."""
    parsed, names = _parsed(args, table.RG)
    return parsed.dynamic or not _files(parsed, names, {"-e", "--regexp", "-f", "--file", "--files"})


def _files(parsed: Parsed, names: set[str], pattern_options: Set[str]) -> list[str | None]:
    """The operands naming files: all of them where an option gives the pattern."""
    operands = [value for _, value in parsed.operands]
    return operands if names & pattern_options else operands[1:]


def _tree(args: Args) -> bool:
    parsed = read_options(args, table.TREE)
    return parsed.dynamic or not parsed.operands


def _find(args: Args) -> bool:
    """find's starting points are the words before its first expression word (after ``-H``,
    ``-L``, ``-P``, ``-D``, ``-O``); none: ``.``."""
    i = 0
    while i < len(args) and (args[i] in table.FIND_GLOBAL or (args[i] or "").startswith(("-O", "-D"))):
        i += 2 if args[i] == "-D" else 1
    first = args[i] if i < len(args) else "-"
    return first is not None and (first.startswith("-") or first in ("(", "!", ")", ","))


def _operands_by(short_values: str, long_values: tuple[str, ...]) -> Callable[[Args], bool]:
    """For a GNU program without an option table here (ls, du): whether it is given no operand,
    knowing which options take the next word as their value (a long one may be abbreviated)."""

    def given_none(args: Args) -> bool:
        takes_next = False
        for k, word in enumerate(args):
            if word is None:
                return True
            if takes_next:
                takes_next = False
            elif word == "--":
                return k + 1 == len(args)
            elif word.startswith("--") and len(word) > 2:
                name = word.partition("=")[0]
                takes_next = "=" not in word and any(long.startswith(name) for long in long_values)
            elif word.startswith("-") and len(word) > 1:
                at = next((n for n, letter in enumerate(word[1:], start=1) if letter in short_values), None)
                takes_next = at is not None and at == len(word) - 1
            else:
                return False
        return True

    return given_none


_ls = _operands_by("ITw", ("--ignore", "--hide", "--tabsize", "--width", "--format", "--sort", "--time",
                           "--time-style", "--quoting-style", "--indicator-style", "--block-size"))
_du = _operands_by("BdtX", ("--block-size", "--max-depth", "--threshold", "--exclude", "--exclude-from",
                            "--files0-from", "--time-style"))


def _git(args: Args) -> bool:
    """git grep searches the files below the folder it runs in (the worktree's, or the tree a
    revision names) unless its words name exactly what it searches (``git_grep_paths``: ``git
    grep KEY -- out``; a glob pathspec, ``-- '*.py'``, matches src/main.py). git ls-files lists
    the names below it, as find does."""
    parsed = read_options(args, git_options.GLOBAL)
    if parsed.rest is None:
        return any(word is None for word in args)  # (a subcommand only known when it runs)
    sub = args[parsed.rest]
    if sub == "grep":
        return not git_grep_paths.names_what_it_searches(args[:parsed.rest], args[parsed.rest + 1:])
    return sub == "ls-files"


def greps_below_its_folder(program: str | None, args: Args) -> bool:
    """Whether ``program`` with the words ``args`` is a git grep searching only below the folder
    it runs in: its plain pathspecs after ``--`` taken from there, or that folder when it is given
    none (``git_grep_paths``)."""
    if program != "git":
        return False
    parsed = read_options(args, git_options.GLOBAL)
    return parsed.rest is not None and args[parsed.rest] == "grep" and git_grep_paths.searches_below_its_folder(
        args[:parsed.rest], args[parsed.rest + 1:])


def _ruff(args: Args) -> bool:
    """``ruff check`` and ``ruff format`` check ``.`` when given no path (ruff 0.x: every file
    below it opened, its findings printed with the lines around them)."""
    parsed = read_options(args, table.RUFF_GLOBAL)
    if parsed.dynamic:
        return True
    if parsed.rest is None or args[parsed.rest] not in ("check", "format"):
        return False
    own = read_options(args[parsed.rest + 1:], table.RUFF_CHECK)
    return own.dynamic or not own.operands


_ctags_given_none = _operands_by("foLDhI", ())


def _ctags(args: Args) -> bool:
    """ctags with ``-R`` (``--recurse``) and no file reads ``.``: each tag's search pattern is
    the line that defines it (``KEY=secret`` of src/main.py, Universal Ctags 5.9)."""
    recursive = any(word is None or word == "-R" or (word.startswith("--recurse") and word != "--recurse=no")
                    or (word[:1] == "-" and word[1:2] != "-" and "R" in word) for word in args)
    return recursive and _ctags_given_none(args)


_exa_given_none = _operands_by("LsIt", ("--level", "--sort", "--ignore-glob", "--time", "--time-style", "--color",
                                        "--colour"))


def _exa(args: Args) -> bool:
    """exa with ``-R`` (``--recurse``) or ``-T`` (``--tree``) and no path lists every name below
    ``.`` (exa 0.10: src/main.py printed, src opened); without them only the entries of ``.``,
    as ls does."""
    recursive = any(word is None or (word[:1] == "-" and word[1:2] != "-" and bool({"R", "T"} & set(word)))
                    or (len(word) > 2 and word.startswith("--")
                        and any(full.startswith(word.partition("=")[0]) for full in ("--recurse", "--tree")))
                    for word in args)
    return recursive and _exa_given_none(args)


def _env(args: Args) -> bool:
    """``env GIT_ICASE_PATHSPECS=1 git grep KEY -- SRC`` searched src/ (git 2.39): the command it
    runs is judged without the variable (``git_grep_paths`` sees only its words), so env giving
    it counts as reading ``.``."""
    return any(word is None or word.startswith(git_grep_paths.CASE_BLIND + "=") for word in args)


def _unproven(args: Args) -> bool:
    """tokei counts the lines of every file below ``.`` when given no path, and eza (exa's
    successor) lists below it with ``-R``: neither could be run here to see what else their
    words make them read, so they count as reading ``.`` whatever they are given."""
    return True


def _ag(args: Args) -> bool:
    """ag searches ``.`` when given no path after its pattern (``-g PATTERN`` gives it)."""
    parsed, names = _parsed(args, searchers.AG)
    return _unread(parsed) or not _files(parsed, names, searchers.AG_PATTERN)


def _ack(args: Args) -> bool:
    """ack searches ``.`` when given no path after its pattern (``--match`` gives it; ``-f``
    takes none)."""
    parsed, names = _parsed(args, searchers.ACK)
    return _unread(parsed) or not _files(parsed, names, searchers.ACK_PATHS_ONLY)


def _fd(args: Args) -> bool:
    """fd searches ``.`` when given no path after its pattern, unless ``--search-path`` names
    where it searches."""
    parsed, names = _parsed(args, searchers.FD)
    return _unread(parsed) or (searchers.FD_SEARCH_PATH not in names and not _files(parsed, names, set()))


def _unread(parsed: Parsed) -> bool:
    """Whether a word may be read otherwise than here: one only known when the line runs, or an
    option not in the table (a rule naming it covers it; which words it takes is not known:
    ``ack -C 3 out`` searched ``.`` for ``out``)."""
    return parsed.dynamic or any(seen.option is None for seen in parsed.seen)


_PROGRAMS: dict[str, Callable[[Args], bool]] = {
    "grep": _grep, "egrep": _grep, "fgrep": _grep, "rg": _rg, "tree": _tree, "find": _find,
    "ls": _ls, "du": _du, "git": _git,
    "ruff": _ruff, "ctags": _ctags, "ag": _ag, "ack": _ack, "fd": _fd,
    "exa": _exa, "eza": _unproven, "tokei": _unproven, "env": _env,
}
