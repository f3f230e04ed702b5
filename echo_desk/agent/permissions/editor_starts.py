"""The editor a git or hg command starts where no word of the line names it, judged as the
program it runs.

``git commit`` without a message, ``git commit --amend``, ``git tag -a`` without ``-m``, ``git
notes add``/``append``/``edit`` and ``hg commit`` without ``-m``/``-l`` run an editor through
the shell: git's ``GIT_EDITOR``, else ``core.editor``, else ``VISUAL`` (not when ``TERM`` is
``dumb``), else ``EDITOR``, else ``editor`` on Debian's git (``vi`` upstream); hg's
``HGEDITOR``, else ``ui.editor``, else ``VISUAL``, else ``EDITOR``, else ``vi``. Without a
terminal on its input git still starts it when ``TERM`` is set and not ``dumb`` (it refuses
with "Terminal is dumb" otherwise): with ``~/.local/bin`` first on the ``PATH``, a planted
``~/.local/bin/editor`` ran under a plain ``git commit`` (git 2.39, bash and dash, s314).

A rule naming git or hg trusts git or hg, not that program: the editor counts as a command the
line runs (``Inner``), each one it may be (``candidates``), and the rules judge it as if the line
named it, with the same checks a named program gets. The settings (``core.editor``,
``ui.editor``) are read where the line runs (``editor_settings``): the editor they name is one
more the line runs (``git_set_editors``, ``hg_set_editors``). Every way the agent can name one
already asks (s309); the person's own ran as the line's: with ``core.editor = vim``,
``printf ':!touch PWNED\n:wq\n' | git commit`` ran touch through vim, and with ``core.editor =
"$HOME/tools/myedit"`` a planted ~/tools/myedit ran (git 2.39, bash and dash, s324), while the
engine judged only ``EDITOR``.
"""

from __future__ import annotations

from collections.abc import Sequence

from echo_desk.agent.permissions import line_environment, sensible_editor
from echo_desk.agent.permissions.hg_commands import command_at, command_of
from echo_desk.agent.permissions.options import Seen
from echo_desk.agent.permissions.reading import Argv, Inner
from echo_desk.sandbox.shell import Grammar

__all__ = ["git_editors", "git_set_editors", "hg_editors", "hg_set_editors"]

#: With no variable set: Debian's git runs ``editor`` (the alternatives' name), upstream's ``vi``;
#: Debian's hg runs ``sensible-editor`` (which reads ``~/.selected_editor`` and runs ``editor``),
#: upstream's ``vi``. Each counts.
_GIT_DEFAULTS = ("editor", "vi")
_HG_DEFAULTS = ("sensible-editor", "editor", "vi")
#: The file the editor is given: only its program is judged, so any plain word does.
_GIT_FILE = ".git/COMMIT_EDITMSG"
_HG_FILE = "/tmp/hg-editor.commit.hg.txt"

#: The options that give ``git commit`` its message, so no editor starts (with ``-e`` it does).
_COMMIT_MESSAGES = frozenset({"-m", "--message", "-F", "--file", "-C", "--reuse-message", "--fixup", "--no-edit",
                              "--dry-run", "--short", "--porcelain", "--long"})
_TAG_ANNOTATES = frozenset({"-a", "--annotate", "-s", "--sign", "-u", "--local-user"})
_TAG_MESSAGES = frozenset({"-m", "--message", "-F", "--file", "-l", "--list", "-d", "--delete", "-v", "--verify"})
#: Options that start the editor whatever else the line says (git 2.39: ``git rebase -i`` and
#: ``cherry-pick --edit`` ran it without a terminal too; ``git revert`` without ``--edit`` did not).
_EDIT_OPTIONS = {
    "commit": ("-e", "--edit", "-c", "--reedit-message"),
    "merge": ("-e", "--edit"), "cherry-pick": ("-e", "--edit"), "revert": ("-e", "--edit"),
    "rebase": ("-i", "--interactive", "--edit-todo"), "add": ("-e", "--edit"), "tag": ("-e", "--edit"),
    "branch": ("--edit-description",), "config": ("-e", "--edit"),
}
#: ``git notes`` actions that start the editor unless a message option is given.
_NOTES_EDITING = frozenset({"add", "append", "edit"})
_NOTES_MESSAGE = ("-m", "--message", "-F", "--file", "-C", "--reuse-message")
#: hg's commit options that give the message (hg takes a unique prefix of a long one).
_HG_MESSAGES = ("-m", "--message", "-l", "--logfile")


def git_editors(sub: str, seen: Sequence[Seen] | None, words: Argv) -> tuple[Inner, ...]:
    """The editors git's subcommand ``sub`` starts, its words after it ``words`` (``seen``: its
    options as read by its table, ``None`` where git_options has none)."""
    if not _git_starts_editor(sub, seen, words):
        return ()
    return _inners("GIT_EDITOR", _GIT_DEFAULTS, _GIT_FILE)


def hg_editors(argv: Argv) -> tuple[Inner, ...]:
    """The editors the hg line ``argv`` starts: ``hg commit`` (``ci``, a prefix) without a message."""
    at = command_at(argv)
    if at is None:
        return _inners("HGEDITOR", _HG_DEFAULTS, _HG_FILE) if _maybe_commit(argv) else ()
    if at >= len(argv) or not _names_commit(argv[at] or ""):
        return ()
    words: list[str] = []
    for word in argv[at + 1:]:
        if word is None:
            return _inners("HGEDITOR", _HG_DEFAULTS, _HG_FILE)  # it may be -e, or no message
        if word == "--":
            break
        words.append(word)
    # (-e/--edit starts it whatever the message; a group of short options is not read)
    edits = any(_gives(w, ("--edit",)) or (w.startswith("-") and not w.startswith("--") and "e" in w) for w in words)
    if not edits and any(_gives(w, _HG_MESSAGES) for w in words):
        return ()
    return _inners("HGEDITOR", _HG_DEFAULTS, _HG_FILE)


def git_set_editors(values: Sequence[str] | None, chosen: str | None = "") -> tuple[Inner, ...]:
    """The editors ``core.editor`` names (``values``: each value the settings give it, ``None``:
    settings not read, which may name any program), for a git command that starts one: git takes
    it before ``VISUAL`` and ``EDITOR``, after ``GIT_EDITOR`` (then none). ``sensible-editor``
    is judged as what it runs (``chosen``: ``sensible_editor.selected``)."""
    return _set_editors("GIT_EDITOR", values, _GIT_FILE, chosen)


def hg_set_editors(values: Sequence[str] | None, chosen: str | None = "") -> tuple[Inner, ...]:
    """The editors ``ui.editor`` names, for an hg command that starts one (as ``git_set_editors``:
    hg takes it after ``HGEDITOR``)."""
    return _set_editors("HGEDITOR", values, _HG_FILE, chosen)


def _set_editors(first: str, values: Sequence[str] | None, file: str, chosen: str | None) -> tuple[Inner, ...]:
    if line_environment.get(first):
        return ()
    if values is None:
        return (_inner(None),)
    found: list[Inner] = []
    # (an empty value is no editor: what follows it runs; the variables and defaults are already
    # judged, since a conditional include's condition is not judged here)
    for value in dict.fromkeys(v for v in values if v.strip()):
        if value.split() == [sensible_editor.PROGRAM]:
            found += [_inner(line) for line in sensible_editor.editors(chosen, file)]
        else:
            found.append(_inner(f"{value} {file}"))
    return tuple(dict.fromkeys(found))


def _git_starts_editor(sub: str, seen: Sequence[Seen] | None, words: Argv) -> bool:
    names = {n for s in seen or () if s.option is not None for n in s.option.names}
    edits = _EDIT_OPTIONS.get(sub, ())
    if seen is not None and names & set(edits):
        return True
    if seen is None and edits and any(w is None or _may_be(w, edits) for w in _options(words)):
        return True  # (a subcommand git_options has no table for: its words as they may be read)
    if sub == "commit":
        # (``--fixup=amend:REV`` and ``reword:REV`` open the editor on the message they take)
        rewords = any(s.option is not None and "--fixup" in s.option.names
                      and (s.value or "").startswith(("amend:", "reword:")) for s in seen or ())
        return rewords or not names & _COMMIT_MESSAGES
    if sub == "tag":
        return bool(names & _TAG_ANNOTATES) and not names & _TAG_MESSAGES
    if sub == "notes":
        known = [w for w in words if w is not None]
        if len(known) < len(words):
            return True  # a word known only when the line runs may be any action, or none
        operands = [w for w in known if not w.startswith("-")]
        if not operands or operands[0] not in _NOTES_EDITING:
            return False
        return operands[0] == "edit" or not any(_gives(w, _NOTES_MESSAGE) for w in known)
    return False


def _options(words: Argv) -> list[str | None]:
    """The words before ``--`` that may be options."""
    found: list[str | None] = []
    for word in words:
        if word == "--":
            break
        if word is None or word.startswith("-"):
            found.append(word)
    return found


def _may_be(word: str, options: Sequence[str]) -> bool:
    """Whether ``word`` may be one of ``options``: a long one or a prefix of it, a short one
    alone or in a group (a letter of a glued value counts too: the editor counts as started)."""
    if word.startswith("--"):
        name = word.partition("=")[0]
        return len(name) > 2 and any(o.startswith("--") and o.startswith(name) for o in options)
    return any(not o.startswith("--") and o[1] in word[1:] for o in options)


def _gives(word: str, options: Sequence[str]) -> bool:
    """Whether ``word`` surely is one of ``options`` (a short one alone or with its value glued
    on, a long one or a prefix of it, with ``=value`` or not). A group of short options
    (``-Am``) is not read: the editor counts as started, so the line asks."""
    for option in options:
        if option.startswith("--"):
            name = word.partition("=")[0]
            if len(name) > 2 and option.startswith(name):
                return True
        elif word.startswith(option):
            return True
    return False


def _names_commit(word: str) -> bool:
    """Whether ``word`` names hg's commit: ``ci`` (its other name), or a unique prefix of ``commit``."""
    return word == "ci" or command_of(word, frozenset({"commit"})) == "commit"


def _maybe_commit(argv: Argv) -> bool:
    """Whether an hg line whose command word is not known here may be a commit."""
    return any(w is None or (w and not w.startswith("-") and _names_commit(w)) for w in argv[1:])


def _inners(first: str, defaults: Sequence[str], file: str) -> tuple[Inner, ...]:
    """Each editor it may run: ``first`` (``GIT_EDITOR``, ``HGEDITOR``) when set, else
    ``VISUAL`` and ``EDITOR`` where set (which of them runs depends on ``TERM``: both count),
    else ``defaults``. The settings between them are read where the line runs (see the module)."""
    value = line_environment.get(first)
    if value:
        return (_inner(f"{value} {file}"),)
    found = [v for v in (line_environment.get("VISUAL"), line_environment.get("EDITOR")) if v]
    return tuple(_inner(f"{value} {file}") for value in (found or defaults))


def _inner(line: str | None) -> Inner:
    """The editor command ``line`` (``None``: one not known here, which is never allowed)."""
    if line is None:
        return Inner(line="", grammar=None, editor=True)
    # (git and hg run it as ``sh -c '<editor> "$@"'``: its words are a shell line)
    return Inner(line=line, grammar=Grammar.POSIX, editor=True)
