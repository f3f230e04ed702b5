"""The rule layers as files: each read again only when its stamp changes, indexed by the
``tool`` value the rules name, one index per set of workspaces.

Layer files are looked at (a ``stat`` each) at most every ``FILE_CHECK_SECONDS``, so an edit
made outside Echo Desk applies within half a second, and at once after ``refresh``. A
workspace's files count only once the person trusted them as they are (their sha256).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from echo_desk.agent.permissions import floor
from echo_desk.agent.permissions.compiled import Compiled
from echo_desk.agent.permissions.decide import Rules
from echo_desk.agent.permissions.model import Effect, Inactive, Layer, LoadProblem, LoadReport
from echo_desk.agent.permissions.rule_files import NEEDS_TRUST, file_sha256, trust_key, workspace_files
from echo_desk.agent.permissions.shadowing import shadowed
from echo_desk.store.grants import GrantStore

#: How often rule files are looked at for changes (a stat each), at most.
FILE_CHECK_SECONDS = 0.5

#: Reads one layer file: its compiled rules, its problems and its text.
ReadFile = Callable[[Path, Layer], tuple[list[Compiled], list[LoadProblem], str]]


@dataclass(frozen=True)
class _FileState:
    stamp: tuple[int, ...] | None  # (mtime_ns, ctime_ns, size, inode); None = missing
    rules: tuple[Compiled, ...]
    problems: tuple[LoadProblem, ...]
    sha256: str | None
    serial: int  # distinct for every load (an index is keyed by these, never by id())


@dataclass(frozen=True)
class RuleIndex:
    """Active rules by the ``tool`` value they name, for one set of workspaces."""

    report: LoadReport
    by_tool: dict[str, tuple[Compiled, ...]]
    #: The rules for a set of ``tool`` names and a caller, by effect and indexed (built on first use).
    per_subject: dict[tuple[frozenset[str], str], Rules]
    #: Allow rules of untrusted workspace files, by ``tool`` (for ``Verdict.untrusted_allow``).
    untrusted: dict[str, tuple[Compiled, ...]]
    #: Distinct for every index built (an index is never changed once built): what a verdict
    #: kept for reuse was worked out from (``PermissionEngine.generation``).
    serial: int = 0

    def rules_for(self, names: frozenset[str], client: str = "") -> Rules:
        """``client``: the MCP client calling ('' = Echo Desk's own agent); rules naming other
        clients are left out."""
        found = self.per_subject.get((names, client))
        if found is None:
            mine = [c for n in sorted(names) for c in self.by_tool.get(n, ()) if speaks_for(c, client)]
            found = Rules(
                deny=[c for c in mine if c.rule and c.rule.effect is Effect.DENY],
                ask=[c for c in mine if c.rule and c.rule.effect is Effect.ASK],
                allow=[c for c in mine if c.rule and c.rule.effect is Effect.ALLOW],
                grants=[],
                sandbox_allow=[c for c in mine if c.rule and c.rule.effect is Effect.ALLOW_IN_SANDBOX],
                write=tuple(c for c in self.by_tool.get("write", ()) if speaks_for(c, client)),
                read=tuple(c for c in self.by_tool.get("read", ()) if speaks_for(c, client)),
            )
            for name in ("deny", "ask", "allow", "sandbox_allow"):
                found.bucket(name)
            self.per_subject[(names, client)] = found
        return found

    def waiting_for_trust(self, names: frozenset[str], client: str) -> list[Compiled]:
        """The untrusted workspaces' allow rules that name one of ``names`` for ``client``."""
        return [c for n in names for c in self.untrusted.get(n, ()) if speaks_for(c, client)]


class LayerCache:
    """The user's file and each workspace's two files, read when they change."""

    def __init__(self, user_file: Path, grants: GrantStore, read_file: ReadFile) -> None:
        self.user_file = user_file
        self.grants = grants
        self.read_file = read_file
        #: Held while reading files and while Echo Desk writes or trusts one.
        self.lock = threading.Lock()
        self._files: dict[Path, _FileState] = {}
        self._serial = 0
        self._built = 0
        #: Per set of workspaces: the index and when its files were last looked at.
        self._recent: dict[tuple[Path, ...], tuple[float, RuleIndex]] = {}
        self._indexes: dict[tuple[object, ...], RuleIndex] = {}

    def refresh(self) -> None:
        """Look at the rule files again on the next call (after editing them)."""
        with self.lock:
            self.forget_recent()

    def forget_recent(self) -> None:
        """``refresh`` for a caller already holding ``lock``."""
        self._recent.clear()

    def index(self, workspaces: tuple[Path, ...]) -> RuleIndex:
        """The index for these (normalised) workspaces; its files looked at if not lately."""
        recent = self._recent.get(workspaces)
        now = time.monotonic()
        if recent is not None and now - recent[0] < FILE_CHECK_SECONDS:
            return recent[1]
        index = self._build(workspaces)
        if len(self._recent) > 64:
            self._recent.clear()
        self._recent[workspaces] = (now, index)
        return index

    def _file(self, path: Path, layer: Layer) -> _FileState:
        try:
            st = os.stat(path)
            stamp: tuple[int, ...] | None = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
        except OSError:
            stamp = None
        cached = self._files.get(path)
        if cached is not None and cached.stamp == stamp:
            return cached
        self._serial += 1
        if stamp is None:
            state = _FileState(None, (), (), None, self._serial)
        else:
            rules, problems, text = self.read_file(path, layer)
            sha = hashlib.sha256(text.encode("utf-8")).hexdigest() if text or not problems else file_sha256(path)
            state = _FileState(stamp, tuple(rules), tuple(problems), sha, self._serial)
        self._files[path] = state
        return state

    def _build(self, workspaces: tuple[Path, ...]) -> RuleIndex:
        with self.lock:
            states: list[tuple[_FileState, Layer, Path | None]] = [(self._file(self.user_file, Layer.USER), Layer.USER,
                                                                     None)]
            for ws in workspaces:
                committed, local = workspace_files(ws)
                states.append((self._file(committed, Layer.WORKSPACE), Layer.WORKSPACE, ws))
                states.append((self._file(local, Layer.WORKSPACE_LOCAL), Layer.WORKSPACE_LOCAL, ws))
            # Both workspace files wait for trust: a cloned repository can carry the personal
            # file as easily as the shared one.
            trusted = tuple(
                ws is not None and state.sha256 is not None
                and self.grants.trusted_hash(trust_key(ws, layer)) == state.sha256
                for state, layer, ws in states if layer in NEEDS_TRUST
            )
            key = (workspaces, tuple(s.serial for s, _, _ in states), trusted)
            index = self._indexes.get(key)
            if index is not None:
                return index
            self._built += 1
            index = replace(_index_of(states, trusted), serial=self._built)
            if len(self._indexes) > 64:
                self._indexes.clear()
            self._indexes[key] = index
            return index


def _index_of(states: list[tuple[_FileState, Layer, Path | None]], trusted: tuple[bool, ...]) -> RuleIndex:
    rules: list[Compiled] = []
    problems: list[LoadProblem] = []
    trust_iter = iter(trusted)
    for state, layer, _ws in states:
        problems.extend(state.problems)
        if layer in NEEDS_TRUST and not next(trust_iter):
            rules.extend(_deactivate(c) for c in state.rules)
        else:
            rules.extend(state.rules)
    problems.extend(shadowed(rules))
    by_tool: dict[str, list[Compiled]] = {}
    untrusted: dict[str, list[Compiled]] = {}
    for c in rules:
        if c.rule is not None and c.rule.active:
            by_tool.setdefault(c.tool, []).append(c)
        elif c.rule is not None:
            untrusted.setdefault(c.tool, []).append(c)
    report = LoadReport(rules=tuple(floor.FLOOR_RULES) + tuple(c.rule for c in rules if c.rule is not None),
                        problems=tuple(problems))
    return RuleIndex(report=report, by_tool={k: tuple(v) for k, v in by_tool.items()}, per_subject={},
                     untrusted={k: tuple(v) for k, v in untrusted.items()})


_NORMALISED: dict[tuple[Path, ...], tuple[Path, ...]] = {}


def norm_workspaces(workspaces: tuple[Path, ...]) -> tuple[Path, ...]:
    """Workspaces as real paths (remembered: scopes already hold resolved roots)."""
    found = _NORMALISED.get(workspaces)
    if found is None:
        if len(_NORMALISED) > 256:
            _NORMALISED.clear()
        found = _NORMALISED[workspaces] = tuple(Path(os.path.realpath(w)) for w in workspaces)
    return found


def speaks_for(item: Compiled, client: str) -> bool:
    """Whether a rule (grants always do) is about calls from ``client``."""
    return item.rule is None or item.rule.applies_to(client)


def _deactivate(item: Compiled) -> Compiled:
    rule = item.rule
    if rule is None or not rule.effect.allows:
        return item
    return replace(item, rule=replace(rule, inactive=Inactive.UNTRUSTED_WORKSPACE))
