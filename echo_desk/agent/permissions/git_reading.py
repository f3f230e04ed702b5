"""git read as git reads itself: global options first (``-C``, ``--no-pager``… are dropped for
deny rules; ``-c``, ``--config-env``, ``--exec-path`` are never covered by ``**``, and a setting
``-c`` gives only by a rule writing out its key), then the subcommand's
options (``git_options``), the commands it runs (``submodule foreach``, ``bisect run``, the editor
``git commit`` starts: ``editor_starts``) and what
its read-looking forms change (``git branch NAME``), and where it writes outside its repository
(``git_settings_writes``, ``git_folder_writes``, ``git_file_writes``) and the files it reads and
prints that no word names (``git_unnamed_reads``)."""

from __future__ import annotations

from echo_desk.agent.permissions import git_file_writes, git_unnamed_reads
from echo_desk.agent.permissions import git_options as git
from echo_desk.agent.permissions.editor_starts import git_editors
from echo_desk.agent.permissions.git_folder_writes import folders_written
from echo_desk.agent.permissions.git_settings_writes import config_written
from echo_desk.agent.permissions.git_worktree_updates import updates_worktree
from echo_desk.agent.permissions.options import Does, Seen, read_options
from echo_desk.agent.permissions.reading import Argv, Flag, Inner, Reading, flags_of, spellings_of
from echo_desk.sandbox.shell import Grammar


def git_reading(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], git.GLOBAL)
    found = flags_of(parsed, git.GLOBAL)
    found += _settings([s.value for s in parsed.seen if s.option is not None and s.option.does is Does.CONFIG])
    harmless = {s.index + 1 for s in parsed.seen if s.option is not None and set(s.option.names) & git.HARMLESS_GLOBAL}
    matched = tuple(a for k, a in enumerate(argv) if k not in harmless)
    if parsed.rest is None:
        return Reading(program, flags=tuple(found), matched=matched)
    at = 1 + parsed.rest
    sub = argv[at]
    plain = (argv[0], *argv[at:])
    if sub is None:
        return Reading(program, flags=(*found, Flag(frozenset(), "", None)), matched=matched, spellings=(plain,))
    spec = git.SUBCOMMANDS.get(sub)
    spellings: list[Argv] = [plain]
    inners: list[Inner] = []
    seen = None
    if spec is not None:
        sub_parsed = read_options(argv[at + 1:], spec)
        seen = sub_parsed.seen
        found += flags_of(sub_parsed, spec)
        found += signature_formats(sub_parsed.seen)
        spellings += [(argv[0], *form[at:]) for form in spellings_of(argv, sub_parsed, at + 1)]
    else:
        for token in argv[at + 1:]:
            if token == "--":
                break
            if token is None or token.startswith("-"):
                found.append(Flag(frozenset({token or ""} - {""}), token or "", None))
    rest = [k for k in range(at + 1, len(argv)) if argv[k] is None or not (argv[k] or "").startswith("-")]
    if rest and (sub, argv[rest[0]]) in git.RUNS_A_COMMAND_LINE:
        words = [argv[k] for k in rest[1:]]
        line = None if any(w is None for w in words) else " ".join(w for w in words if w is not None)
        # (it runs the line in the folder of each submodule, not in the one the line runs in:
        # `git submodule foreach 'printf x > src/main.c'` writes vendor/lib/src/main.c)
        inners.append(Inner(line=line or "", grammar=Grammar.POSIX, elsewhere=True))
    if rest and (sub, argv[rest[0]]) in git.RUNS_A_COMMAND and len(rest) > 1:
        inners.append(Inner(start=rest[1]))
    found += _git_changes(argv, at, sub)
    inners += git_editors(sub, seen, argv[at + 1:])
    if sub == "clone":
        found += _settings(clone_settings(argv[at + 1:]))
    if git.runs_a_program(sub):
        found.append(Flag(frozenset({sub}), sub, Does.RUNS))
    unnamed = git_file_writes.written(argv, at)
    written = (*(config_written(argv, at) if sub == "config" else ()), *unnamed.files)
    below = (*folders_written(argv, at), *unnamed.below)
    reads_only = sub in git.READS_ONLY and not found and not inners
    return Reading(program, flags=tuple(found), inners=tuple(inners), matched=matched, spellings=tuple(spellings),
                   reads_only=reads_only, written=written, written_below=below, removed=unnamed.removed,
                   landed=unnamed.landed,
                   values=git_unnamed_reads.read(argv, at))


def _settings(values: list[str | None]) -> list[Flag]:
    """The settings a line gives git (``-c key=value``), each a flag a rule names only by its key
    (``Flag.setting``); one only known when the line runs is never named."""
    return [Flag(frozenset(), "", None) if v is None else Flag(frozenset(), v, Does.CONFIG, setting=v) for v in values]


def clone_settings(words: Argv) -> list[str | None]:
    """The settings ``git clone`` writes into the new repository's own settings file before it
    checks out (``-c``/``--config key=value``: ``core.hooksPath`` there runs a post-checkout hook
    during the clone). The engine knows no other option of clone, so it reads every way git's
    parser may take them: a short ``c`` in a group (``-qc``, ``-cKEY=V``) and any prefix of
    ``--config`` (``--conf``); a word it cannot read is one only known when the line runs."""
    found: list[str | None] = []
    for k, word in enumerate(words):
        following = words[k + 1] if k + 1 < len(words) else None
        if word is None:
            found.append(None)
        elif word == "--":
            break
        elif word.startswith("--"):
            name, equals, value = word.partition("=")
            if len(name) > 2 and "--config".startswith(name):
                found.append(value if equals else following)
        elif word.startswith("-") and "c" in word[1:]:
            rest = word[word.index("c", 1) + 1:]
            found.append(rest or following)
    return found


def subcommand(argv: Argv) -> str | None:
    """The subcommand of the git command ``argv`` (``None``: none, or one only known when it runs)."""
    parsed = read_options(argv[1:], git.GLOBAL)
    return None if parsed.rest is None else argv[1 + parsed.rest]


def changes_index(argv: Argv) -> bool:
    """Whether the git command ``argv`` may add entries to its repository's index: the
    submodules the engine finds there are those before the line runs (``git_index``), and
    ``git add out/r`` makes the repository the agent planted in out/r one."""
    parsed = read_options(argv[1:], git.GLOBAL)
    if parsed.rest is None:
        return False  # no subcommand (`git --version`)
    return argv[1 + parsed.rest] not in git.KEEPS_INDEX


def _git_changes(argv: Argv, at: int, sub: str) -> list[Flag]:
    """What a read-looking subcommand changes: ``git branch NAME`` creates a branch, ``-D``
    deletes one, ``git remote add`` adds a remote, ``git stash`` stashes (see ``git_options``)."""
    words = argv[at + 1:]
    options = [w for w in words if w is not None and w.startswith("-")]
    operands = [w for w in words if w is None or not w.startswith("-")]
    spec = git.SUBCOMMANDS.get(sub)

    def spelled(token: str) -> set[str]:
        name = token.partition("=")[0]
        option = None
        if spec is not None and name.startswith("--"):
            option = spec.long(name)[0]
        elif spec is not None and len(name) >= 2:
            option = spec.short(name[1])
        return set(option.names) if option is not None else {name}

    found: list[Flag] = []
    if sub in git.CHANGING:
        for token in options:
            if spelled(token) & git.CHANGING[sub]:
                found.append(Flag(frozenset({token}), token, Does.WRITES))
        listing = any(spelled(t) & git.LISTING[sub] for t in options)
        if operands and not listing and not found:
            found += [Flag(frozenset({w or ""} - {""}), w or "", Does.WRITES) for w in operands[:1]]
    if sub == "clean" and updates_worktree(argv):
        found += [Flag(frozenset({token}), token, Does.WRITES) for token in options if _widens_clean(token)]
    if sub in git.READING_ACTIONS:
        action = operands[0] if operands else None
        reads = action in git.READING_ACTIONS[sub] if action is not None else sub in git.READS_WITHOUT_ACTION
        if not reads:
            found.append(Flag(frozenset({action or sub}), action or sub, Does.WRITES))
    return found




def _widens_clean(token: str) -> bool:
    """Whether ``git clean``'s option ``token`` makes it delete more: untracked folders (-d),
    ignored files (-x, -X). Without -n it deletes where ``clean.requireForce = false`` lets it
    (s249): only a rule naming the option covers that (s254); with -n it deletes nothing."""
    if token.startswith("--"):
        return False
    letters = token[1:].partition("e")[0]  # (-e takes the rest of the word: a pattern)
    return any(letter in letters for letter in "dxX")


#: Format placeholders that verify a commit's or tag's signature, running gpg (or gpgsm,
#: ssh-keygen) as ``--show-signature`` does: ``%G?``, ``%GS``…, and ``%(signature…)`` of
#: for-each-ref formats (``git branch --format``).
_SIGNATURE_PLACEHOLDERS = ("%G", "%(signature")


def signature_formats(seen: list[Seen]) -> list[Flag]:
    """An option value holding a signature placeholder (``--format=%G?``, ``--pretty=format:%GS``)
    runs the signature verifier: a rule covers it only by naming the option."""
    return [Flag(frozenset(s.option.names) | {s.token}, s.token, Does.RUNS) for s in seen
            if s.option is not None and s.value is not None and any(p in s.value for p in _SIGNATURE_PLACEHOLDERS)]
