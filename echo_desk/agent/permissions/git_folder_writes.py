"""The folders git writes outside its repository, for the write rules to judge
(``Reading.written_below``). A rule naming git (``git **``) trusts git, not every place it may
put files: with the agent's writes kept to ``out/``, ``git worktree add ../x`` checked the
repository out into ../x, and ``git worktree add ~/bin`` put its programs in a folder on your
``PATH`` (proven with git 2.39), while nothing judged those paths as writes. So each folder a
subcommand creates, fills, moves or deletes is judged as a write anywhere below it:

- ``git worktree add PATH``: PATH (the new worktree); ``move WORKTREE NEW-PATH``: both (the
  worktree leaves its folder); ``remove WORKTREE``: the folder it deletes; ``repair PATH…``:
  each PATH (it rewrites the ``.git`` file there); ``list``, ``lock``, ``unlock``, ``prune``
  write only inside the repository folder;
- ``git clone REPOSITORY [DIRECTORY]``: DIRECTORY, else the folder named after the repository
  (``../remote.git`` clones into ``remote``), and the folder ``--separate-git-dir`` names;
- ``git init [DIRECTORY]``: DIRECTORY (else the folder it runs in) and ``--separate-git-dir``'s;
- ``git apply [PATCH…]``: the folder it runs in, below which it writes every file the patch names
  (its input when none is given); the patch, not the line, names them, and the agent may have
  written it (``git apply out/p.patch`` rewrote a write-denied ``.github/workflows/ci.yml``,
  proven with git 2.39). Only ``--check``, ``--stat``, ``--numstat``, ``--summary`` or
  ``--cached`` without ``--apply`` or ``--index`` leave the worktree alone;
- ``git am``: the files its mailboxes' patches name, from the top of the worktree, which is not
  known here (it may be above the folder the line runs in): the write rules ask.

Paths are read from where ``-C`` leads. An action or option not known here, or a word known
only when the line runs, makes the place not known (``None``): the write rules ask. The
repository's own folder (``.git``) is git's, as every command writes it. Version read: git
2.39's manuals.
"""

from __future__ import annotations

from collections.abc import Sequence

from echo_desk.agent.permissions import git_options as git
from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions.folder_writes import (
    Form,
    every,
    first,
    first_or,
    folders,
    option_values,
    second_or,
)
from echo_desk.agent.permissions.git_settings_writes import from_starts
from echo_desk.agent.permissions.long_prefixes import long_prefix
from echo_desk.agent.permissions.options import OptionSet, flags, read_options, values

Paths = tuple[str | None, ...]


def _humanish(url: str | None) -> str | None:
    """The folder ``git clone URL`` makes without one named: the last part of the URL without
    ``/.git`` or ``.git`` (``None``: not known here)."""
    if url is None:
        return None
    name = url.rstrip("/")
    name = name.removesuffix("/.git").removesuffix(".git").rstrip("/")
    name = name.rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return name if name not in ("", ".", "..") else None


#: The folder ``--separate-git-dir`` names: the repository's own folder, moved there.
_SEPARATE = frozenset({"--separate-git-dir"})
#: Each writing form (git 2.39's manuals); any other option makes the folder not known.
_FORMS = {
    ("worktree", "add"): Form(OptionSet((*flags("-f|--force --detach --checkout --no-checkout --lock --orphan "
                                                "-q|--quiet --track --no-track --guess-remote --no-guess-remote"),
                                         *values("-b -B --reason"))), first),
    ("worktree", "move"): Form(OptionSet(flags("-f|--force")), every),
    ("worktree", "remove"): Form(OptionSet(flags("-f|--force")), every),
    ("worktree", "repair"): Form(OptionSet(()), every),
    ("clone", None): Form(OptionSet((
        *flags("-l|--local --no-hardlinks -s|--shared --dissociate -q|--quiet -v|--verbose --progress -n|--no-checkout "
               "--bare --mirror --sparse --reject-shallow --no-reject-shallow --single-branch --no-single-branch "
               "--no-tags --tags --recurse-submodules --shallow-submodules --no-shallow-submodules "
               "--remote-submodules --no-remote-submodules --also-filter-submodules"),
        *values("-o|--origin -b|--branch -u|--upload-pack --reference --reference-if-able --separate-git-dir "
                "--template -c|--config --depth --shallow-since --shallow-exclude -j|--jobs --filter --server-option "
                "--bundle-uri --ref-format"))), second_or(_humanish), _SEPARATE),
    ("init", None): Form(OptionSet((*flags("-q|--quiet --bare"),
                                    *values("--template --separate-git-dir --object-format -b|--initial-branch"))),
                         first_or("."), _SEPARATE),
}
#: The worktree actions that write only inside the repository folder.
_INSIDE = frozenset({"list", "lock", "unlock", "prune"})


def folders_written(argv: Sequence[str | None], at: int) -> Paths:
    """The folders the git command ``argv`` (its subcommand at ``at``) writes outside its
    repository folder (see the module doc): none for a subcommand not read here."""
    sub = argv[at]
    words = list(argv[at + 1:])
    action: str | None = None
    if sub == "worktree":
        start = next((k for k, w in enumerate(words) if w is None or not w.startswith("-")), None)
        if start is None:
            return ()  # (no action: git prints how to use it)
        if start > 0:
            return (None,)  # (an option before the action: not read here)
        action = words[0]
        if action in _INSIDE:
            return ()
        words = words[1:]
    if sub == "apply":
        return _applied(argv, words)
    if sub == "am":
        return (None,)
    form = _FORMS.get((sub or "", action))
    if form is None:
        return (None,) if sub == "worktree" else ()
    return tuple(from_starts(argv, f) for f in folders(words, form))


#: ``git apply``'s options that leave the worktree alone, unless ``--apply`` or ``--index`` is
#: given too (git takes a unique prefix of each).
_APPLY_ELSEWHERE = ("--check", "--stat", "--numstat", "--summary", "--cached")
_APPLY_WORKTREE = ("--apply", "--index")


def _applied(argv: Sequence[str | None], words: Sequence[str | None]) -> Paths:
    """The folder ``git apply`` writes below: the one it runs in (``None``: not known)."""
    def given(names: tuple[str, ...]) -> bool:
        return any(w is not None and long_prefix(w, n) for w in words for n in names)
    if given(_APPLY_ELSEWHERE) and not given(_APPLY_WORKTREE) and None not in words:
        return ()
    return (from_starts(argv, "."),)


#: The option naming the template folder ``git init`` and ``git clone`` copy into the new
#: repository folder.
_TEMPLATE = frozenset({"--template"})


def templates(argv: Sequence[str | None]) -> Paths:
    """The template folders the git command ``argv`` copies into the repository it makes
    (``git init --template=DIR``, ``git clone --template=DIR``, else the folder
    ``$GIT_TEMPLATE_DIR`` names in the environment the commands inherit from Echo Desk; none
    for other commands), read from where ``-C`` leads. Every file there lands in the new
    repository folder: its hooks (``git clone`` runs ``post-checkout`` before it ends, proven
    with git 2.39; later commands the others) and its ``config``. ``None``: a folder not known
    here."""
    parsed = read_options(argv[1:], git.GLOBAL)
    if parsed.rest is None:
        return ()
    at = 1 + parsed.rest
    form = _FORMS.get((argv[at] or "", None))
    if form is None:
        return ()
    named = option_values(argv[at + 1:], form, _TEMPLATE)
    environment = line_environment.get("GIT_TEMPLATE_DIR")
    return tuple(from_starts(argv, t) for t in named or ([environment] if environment else []))
