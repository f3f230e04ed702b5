"""Built-in floor rules: always in force, no file can switch them off, checked before any rule.

- ``rm`` with a recursive option whose target is ``/``, ``~``/``$HOME``, or a workspace root
  (wherever ``rm`` appears in the command: behind ``sudo``, ``xargs``, ``find -exec``…) → deny;
  a target only known at run time (``rm -rf "$DIR"``) → ask.
- Writing into Echo Desk's own settings folder (file tools or a shell redirection) → deny; a
  shell command naming a path inside it → ask.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from echo_desk.agent.permissions.model import Effect, Examples, Family, Layer, Rule, RuleSource
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


@dataclass(frozen=True)
class Where:
    """What the floor needs to know about where a command runs."""

    cwd: Path
    home: Path
    workspaces: tuple[Path, ...]
    protected: tuple[Path, ...]


def _recursive(token: str) -> bool:
    if token in ("--recursive", "-R", "-r"):
        return True
    return token.startswith("-") and not token.startswith("--") and ("r" in token or "R" in token)


def _target(word: Word, where: Where) -> Path | None:
    """Where an rm argument points (``None`` when it can only be known at run time)."""
    raw = word.raw.strip("\"'")
    for home in ("$HOME", "${HOME}"):
        if raw == home or raw.startswith(home + "/"):
            raw = "~" + raw[len(home):]
            break
    else:
        if word.value is None:
            stripped = raw.rstrip("*").rstrip("/")
            if raw.endswith("*") and "$" not in stripped and "*" not in stripped and "`" not in stripped:
                raw = stripped or "/"
            else:
                return None
        else:
            raw = word.value
    if raw.startswith("~"):
        raw = str(where.home) + raw[1:]
    path = Path(raw) if os.path.isabs(raw) else where.cwd / raw
    return Path(os.path.normpath(path))


def rm_effect(argv: tuple[Word, ...], where: Where, *, moved: bool = False) -> Effect | None:
    """DENY / ASK when ``argv`` holds an ``rm -r`` of a protected root (see module doc).
    ``moved``: the line changes directory, so a relative target's folder is not known (ASK)."""
    starts = [i for i, w in enumerate(argv) if (w.value or "").rsplit("/", 1)[-1] == "rm"]
    verdict: Effect | None = None
    roots = {Path("/"), where.home, *where.workspaces}
    for start in starts:
        args = argv[start + 1:]
        if not any(w.value is not None and _recursive(w.value) for w in args) and not any(
                w.value is None for w in args):
            continue
        recursive = any(w.value is not None and _recursive(w.value) for w in args)
        for w in args:
            if w.value is not None and w.value.startswith("-") and w.value != "-":
                continue
            target = _target(w, where)
            relative = w.value is not None and not w.value.startswith(("/", "~"))
            if recursive and moved and relative:
                verdict = Effect.ASK if verdict is None else verdict
            elif target is None:
                verdict = Effect.ASK if verdict is None else verdict
            elif recursive and target in roots:
                return Effect.DENY
    return verdict


def inside(path: Path, folders: tuple[Path, ...]) -> bool:
    return any(path == f or f in path.parents for f in folders)
