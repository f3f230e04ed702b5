"""Built-in floor rules: always in force, no file can switch them off, checked before any rule.

- A recursive delete — ``rm`` with any spelling of its recursive option (``-r``, ``-R``, ``-fr``,
  ``--recursive``, ``--r``, ``--re…``), or ``find … -delete`` — of a target that canonicalises to
  ``/``, a home folder, a workspace root, or a folder holding one of those → deny, wherever it
  appears (behind ``sudo``, ``env``, ``xargs``, ``bash -c``, ``find -exec``…; the caller passes
  every unwrapped command). Targets are read as bash would expand them (``~``, ``~user``,
  ``~+``, ``~-``, ``$HOME``, ``$PWD``, ``//``, ``..``, ``.``, trailing slashes) and through
  symlinks; a target only known when it runs (``rm -rf "$DIR"``) → ask.
- Writing into Echo Desk's own settings folder (file tools or a shell redirection) → deny; a
  shell command naming a path inside it → ask.
"""

from __future__ import annotations

import os
import pwd
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from echo_desk.agent.permissions.model import Effect, Examples, Family, Layer, Rule, RuleSource
from echo_desk.agent.permissions.programs import Reading
from echo_desk.agent.permissions.shell import Word
from echo_desk.i18n import N_


def _floor_rule(tool: str, family: Family, pattern: str, reason: str) -> Rule:
    return Rule(effect=Effect.DENY, tool=tool, family=family, pattern=pattern, reason=reason,
                examples=Examples(), source=RuleSource(layer=Layer.FLOOR))


# Reasons are message ids (English in the engine, the CLI and the audit; the UI translates a
# floor rule's reason, never the text of a rule from a file).
SETTINGS_FOLDER = N_("<Echo Desk settings folder>")
RM_ROOTS = _floor_rule("shell", Family.SHELL, "rm -r / ~ $HOME @workspace",
                       N_("recursive delete of /, the home folder or the workspace root"))
OWN_SETTINGS = _floor_rule("write", Family.WRITE, f"{SETTINGS_FOLDER}/**",
                           N_("Echo Desk's own settings are changed in Settings, not by tools"))
OWN_SETTINGS_NAMED = Rule(effect=Effect.ASK, tool="shell", family=Family.SHELL, pattern=SETTINGS_FOLDER,
                          reason=N_("a command names Echo Desk's own settings folder"), examples=Examples(),
                          source=RuleSource(layer=Layer.FLOOR))
FLOOR_RULES = (RM_ROOTS, OWN_SETTINGS, OWN_SETTINGS_NAMED)

_VARIABLE = re.compile(r"^\$(\{)?(HOME|PWD|OLDPWD)(?(1)\})(/.*)?$")
_CONTENTS = re.compile(r"^(.*?/)?\.?\*$")
_BRACE = re.compile(r"\{([^{}]*,[^{}]*)\}")


@dataclass(frozen=True)
class Where:
    """What the floor needs to know about where a command runs."""

    cwd: Path
    home: Path
    workspaces: tuple[Path, ...]
    protected: tuple[Path, ...]


def delete_effect(words: Sequence[Word], reading: Reading, where: Where, cwds: Sequence[Path],
                  cwd_known: bool = True) -> Effect | None:
    """DENY when ``words`` (one command, read as ``reading``) deletes a protected root
    recursively, from any of the folders ``cwds`` it may run in; ASK when a target is only
    known when it runs (or relative, after a ``cd`` to a folder not known)."""
    targets = [words[i] for i in reading.deletes if i < len(words)]
    if not targets and not reading.deletes_here:
        return None
    roots = protected_roots(where)
    verdict: Effect | None = None
    if reading.deletes_here and any(_is_root(c, roots) for c in cwds):
        return Effect.DENY
    for word in targets:
        found = expand(word, where, cwds)
        if found is None or (not cwd_known and not _absolute(word)):
            verdict = Effect.ASK
            continue
        if any(_is_root(p, roots) for p in found):
            return Effect.DENY
    if reading.maybe_recursive and verdict is None and any(w.value is None for w in targets):
        verdict = Effect.ASK
    return verdict


def protected_roots(where: Where) -> set[Path]:
    """``/``, the home folders (the person's and every user's under ``/home`` and ``/root``) and
    the workspaces: deleting one of them, or a folder holding one, is never what was meant."""
    roots = {Path("/"), where.home, Path(os.path.realpath(where.home)), Path("/root"), *where.workspaces}
    try:
        roots |= {Path("/home") / name for name in os.listdir("/home")}
    except OSError:
        pass
    return roots


def _is_root(path: Path, roots: set[Path]) -> bool:
    return path in roots or any(path in r.parents for r in roots)


def _absolute(word: Word) -> bool:
    text = (word.value if word.value is not None else word.raw).strip("\"'")
    return text.startswith(("/", "~", "$HOME", "${HOME}"))


def expand(word: Word, where: Where, cwds: Sequence[Path]) -> list[Path] | None:
    """Where a word naming a path points, as bash expands it, from each working folder: the
    lexical path and where its symlinks lead. ``None`` when only known when it runs."""
    texts = _texts(word, where, cwds)
    if texts is None:
        return None
    found: list[Path] = []
    for text, base in texts:
        if text.startswith("//"):
            text = "/" + text.lstrip("/")
        joined = Path(text) if os.path.isabs(text) else base / text
        lexical = Path(os.path.normpath(joined))
        found += [lexical, Path(os.path.realpath(joined))]
    return found


def _texts(word: Word, where: Where, cwds: Sequence[Path]) -> list[tuple[str, Path]] | None:
    """The word as path texts, each with the folder a relative one is taken from."""
    if word.value is None:
        raw = word.raw
        if raw.startswith('"') and raw.endswith('"') and len(raw) > 1:
            raw = raw[1:-1]
        match = _VARIABLE.match(raw)
        if match is not None:
            rest = match.group(3) or ""
            if match.group(2) == "HOME":
                return [(str(where.home) + rest, c) for c in cwds]
            return [(str(c) + rest, c) for c in cwds]  # $PWD, $OLDPWD: one of the folders it ran in
        # A glob of a folder's contents (`dir/*`, `*`, `.*`) empties that folder.
        glob = _CONTENTS.match(raw)
        if glob is not None and not any(c in (glob.group(1) or "") for c in "$`*?[{\\\"'"):
            folder = glob.group(1) or "."
            return _texts(Word(folder, folder), where, cwds)
        # A brace expansion is known before it runs: `{/,x}` is `/` and `x`.
        spelled = _braces(raw)
        if spelled is not None:
            found: list[tuple[str, Path]] = []
            for one in spelled:
                texts = _texts(Word(one, one), where, cwds)
                if texts is None:
                    return None
                found += texts
            return found
        return None
    value = word.value
    if value == "~" or value.startswith("~/"):
        return [(str(where.home) + value[1:], c) for c in cwds]
    if value.startswith(("~+", "~-")) and (len(value) == 2 or value[2] == "/"):
        return [(str(c) + value[2:], c) for c in cwds]
    if value.startswith("~"):
        user, _, rest = value[1:].partition("/")
        try:
            home = pwd.getpwnam(user).pw_dir
        except (KeyError, ValueError):
            return [(value, c) for c in cwds]  # no such user: bash keeps the word as it is
        return [(home + ("/" + rest if rest else ""), c) for c in cwds]
    return [(value, c) for c in cwds]


def _braces(raw: str, limit: int = 64) -> list[str] | None:
    """The words a brace expansion of plain text spells (``a{b,c}`` → ``ab``, ``ac``), or
    ``None`` when the word holds anything else only known when it runs."""
    if "{" not in raw or any(c in raw for c in "$`*?[\\\"'"):
        return None
    words = [raw]
    while any(_BRACE.search(w) for w in words):
        expanded: list[str] = []
        for word in words:
            match = _BRACE.search(word)
            if match is None:
                expanded.append(word)
                continue
            expanded += [word[:match.start()] + part + word[match.end():] for part in match.group(1).split(",")]
        if len(expanded) > limit:
            return None
        words = expanded
    return words


def inside(path: Path, folders: tuple[Path, ...]) -> bool:
    return any(path == f or f in path.parents for f in folders)
