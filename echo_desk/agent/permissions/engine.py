"""``PermissionEngine``: loads the rule layers, keeps the grants, and answers for one call.

One instance per app (``Runtime`` owns it); thread-safe for reads. Every consumer — the
dispatcher's policy step, ``echo-desk rules check``, the Permissions page's tester — calls
``evaluate`` (or the ``check_*`` helpers, which build the same ``Subject`` and call it), so
what the tester shows is what ``execute_tool`` does.

Layer files are re-read when their size, mtime or inode changes; they are looked at (a ``stat``
each) at most every ``FILE_CHECK_SECONDS``, so an edit made outside Echo Desk applies within
half a second, and at once when made through the engine (``grant``, ``trust``, ``refresh``).
Grants are checked on every call (a ``stat`` of the grant database, re-read when anyone
committed), so a revoke or an expiry applies to the very next call.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from echo_desk.agent.permissions import decide, floor
from echo_desk.agent.permissions.compiled import Compiled, NamedGrammar, compile_pattern, family_of
from echo_desk.agent.permissions.loader import parse_rule_bytes, parse_rules, read_rule_file
from echo_desk.agent.permissions.matchers import PathPattern
from echo_desk.agent.permissions.model import (
    Effect,
    Examples,
    Family,
    Grant,
    GrantScope,
    Inactive,
    Layer,
    LoadProblem,
    LoadReport,
    Part,
    ProblemKind,
    Rule,
    Severity,
    Suggestion,
    Verdict,
)
from echo_desk.agent.permissions.shell_verdict import covers_line, rule_catches, shell_verdict
from echo_desk.agent.permissions.subjects import PathUse, Subject
from echo_desk.agent.permissions.tokens import Match, PatternError, TokenPattern
from echo_desk.agent.permissions.trust import TrustFile, TrustSnapshot, check_unchanged
from echo_desk.store.grants import GrantStore
from echo_desk.store.private import write_private

USER_FILE = "permissions.toml"
WORKSPACE_DIR = ".echo-desk"
WORKSPACE_FILE = "permissions.toml"
WORKSPACE_LOCAL_FILE = "permissions.local.toml"


def workspace_files(workspace: Path) -> tuple[Path, Path]:
    """The committed and the personal rule file of ``workspace``."""
    base = workspace / WORKSPACE_DIR
    return base / WORKSPACE_FILE, base / WORKSPACE_LOCAL_FILE


def file_sha256(path: Path) -> str | None:
    """The sha256 of a rule file's bytes (``None`` when it does not exist)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None



@dataclass(frozen=True)
class _FileState:
    stamp: tuple[int, ...] | None  # (mtime_ns, ctime_ns, size, inode); None = missing
    rules: tuple[Compiled, ...]
    problems: tuple[LoadProblem, ...]
    sha256: str | None
    serial: int  # distinct for every load (an index is keyed by these, never by id())


@dataclass(frozen=True)
class _Index:
    """Active rules by the ``tool`` value they name, for one set of workspaces."""

    report: LoadReport
    by_tool: dict[str, tuple[Compiled, ...]]
    #: The rules for a set of ``tool`` names and a caller, by effect and indexed (built on first use).
    per_subject: dict[tuple[frozenset[str], str], decide.Rules]
    #: Allow rules of untrusted workspace files, by ``tool`` (for ``Verdict.untrusted_allow``).
    untrusted: dict[str, tuple[Compiled, ...]]

    def rules_for(self, names: frozenset[str], client: str = "") -> decide.Rules:
        """``client``: the MCP client calling ('' = Echo Desk's own agent); rules naming other
        clients are left out."""
        found = self.per_subject.get((names, client))
        if found is None:
            mine = [c for n in sorted(names) for c in self.by_tool.get(n, ()) if _speaks_for(c, client)]
            found = decide.Rules(
                deny=[c for c in mine if c.rule and c.rule.effect is Effect.DENY],
                ask=[c for c in mine if c.rule and c.rule.effect is Effect.ASK],
                allow=[c for c in mine if c.rule and c.rule.effect is Effect.ALLOW],
                grants=[],
                sandbox_allow=[c for c in mine if c.rule and c.rule.effect is Effect.ALLOW_IN_SANDBOX],
                write=tuple(c for c in self.by_tool.get("write", ()) if _speaks_for(c, client)),
                read=tuple(c for c in self.by_tool.get("read", ()) if _speaks_for(c, client)),
            )
            for name in ("deny", "ask", "allow", "sandbox_allow"):
                found.bucket(name)
            self.per_subject[(names, client)] = found
        return found


#: How often rule files are looked at for changes (a stat each), at most.
FILE_CHECK_SECONDS = 0.5

#: A stand-in workspace root for checking a rule's own examples (``@workspace/src/a.py``).
EXAMPLE_WORKSPACE = Path("/__workspace__")


class PermissionEngine:
    """Rules from every layer + grants → a ``Verdict`` per call.

    ``config_dir`` holds the user's ``permissions.toml`` (and Echo Desk's settings, which the
    floor protects); ``grants`` stores grants and workspace trust; ``clock`` (seconds since the
    epoch) is injectable for tests and should be the ``GrantStore``'s clock.
    """

    def __init__(
        self,
        *,
        config_dir: Path,
        grants: GrantStore,
        clock: Callable[[], float] | None = None,
        protected_dirs: tuple[Path, ...] = (),
        home: Path | None = None,
        tools: NamedGrammar | None = None,
    ) -> None:
        self.config_dir = Path(config_dir)
        self.grants = grants
        self.clock = clock or grants.clock
        self.home = Path(home) if home is not None else Path.home()
        #: The grammar of a rule naming a registered tool (its declared family; the runtime
        #: answers from the registry). Without it a tool's name takes no pattern.
        self.named = tools
        #: Folders no rule may let anything write to (Echo Desk's own settings, and others given).
        self.protected_dirs = tuple(Path(os.path.realpath(p)) for p in (self.config_dir, *protected_dirs))
        self._lock = threading.Lock()
        self._files: dict[Path, _FileState] = {}
        self._serial = 0
        #: Per set of workspaces: the index and when its files were last looked at.
        self._recent: dict[tuple[Path, ...], tuple[float, _Index]] = {}
        self._indexes: dict[tuple[Any, ...], _Index] = {}

    @property
    def user_file(self) -> Path:
        """``<config dir>/permissions.toml``."""
        return self.config_dir / USER_FILE

    # -- loading -----------------------------------------------------------------------------
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
            rules, problems, text = read_rule_file(path, layer, self.example_matches, named=self.named)
            sha = hashlib.sha256(text.encode("utf-8")).hexdigest() if text or not problems else file_sha256(path)
            state = _FileState(stamp, tuple(rules), tuple(problems), sha, self._serial)
        self._files[path] = state
        return state

    def refresh(self) -> None:
        """Look at the rule files again on the next call (after editing them)."""
        with self._lock:
            self._recent.clear()

    def _index(self, workspaces: tuple[Path, ...]) -> _Index:
        recent = self._recent.get(workspaces)
        now = time.monotonic()
        if recent is not None and now - recent[0] < FILE_CHECK_SECONDS:
            return recent[1]
        index = self._build_index(workspaces)
        if len(self._recent) > 64:
            self._recent.clear()
        self._recent[workspaces] = (now, index)
        return index

    def _build_index(self, workspaces: tuple[Path, ...]) -> _Index:
        with self._lock:
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
                and self.grants.trusted_hash(_trust_key(ws, layer)) == state.sha256
                for state, layer, ws in states if layer in _NEEDS_TRUST
            )
            key = (workspaces, tuple(s.serial for s, _, _ in states), trusted)
            index = self._indexes.get(key)
            if index is not None:
                return index
            rules: list[Compiled] = []
            problems: list[LoadProblem] = []
            trust_iter = iter(trusted)
            for state, layer, _ws in states:
                problems.extend(state.problems)
                if layer in _NEEDS_TRUST and not next(trust_iter):
                    rules.extend(_deactivate(c) for c in state.rules)
                else:
                    rules.extend(state.rules)
            problems.extend(_shadowed(rules))
            by_tool: dict[str, list[Compiled]] = {}
            untrusted: dict[str, list[Compiled]] = {}
            for c in rules:
                if c.rule is not None and c.rule.active:
                    by_tool.setdefault(c.tool, []).append(c)
                elif c.rule is not None:
                    untrusted.setdefault(c.tool, []).append(c)
            report = LoadReport(rules=tuple(floor.FLOOR_RULES) + tuple(c.rule for c in rules if c.rule is not None),
                                problems=tuple(problems))
            index = _Index(report=report, by_tool={k: tuple(v) for k, v in by_tool.items()}, per_subject={},
                           untrusted={k: tuple(v) for k, v in untrusted.items()})
            if len(self._indexes) > 64:
                self._indexes.clear()
            self._indexes[key] = index
            return index

    def load(self, workspaces: tuple[Path, ...] = ()) -> LoadReport:
        """Every rule of every layer for these workspaces (the floor first, then user, workspace,
        workspace-local), inactive ones marked, and every load error and warning. Cheap when no
        file changed (one ``stat`` per file)."""
        return self._index(_norm(workspaces)).report

    def mentions(self, names: frozenset[str], workspaces: tuple[Path, ...] = ()) -> bool:
        """Whether any active rule or grant names one of ``names`` (the dispatcher's fast path)."""
        index = self._index(_norm(workspaces))
        if any(n in index.by_tool for n in names):
            return True
        return any(g.tool in names for g in self.grants.active())

    # -- evaluation --------------------------------------------------------------------------
    def evaluate(
        self,
        subject: Subject,
        *,
        workspaces: tuple[Path, ...] = (),
        conversation_id: str = "",
        cwd: Path | None = None,
        record_use: bool = True,
    ) -> Verdict:
        """The rules' and grants' verdict for one call. ``effect None`` = nothing spoke (the
        tool's policy and risk defaults decide). Never raises on odd input: what it cannot
        understand is never allowed."""
        workspaces = _norm(workspaces)
        index = self._index(workspaces)
        now = self.clock()
        ws_names = tuple(str(w) for w in workspaces)
        grants = [g for g in self.grants.active()
                  if g.applies(now=now, conversation_id=conversation_id, workspaces=ws_names)]
        where = floor.Where(cwd=Path(cwd) if cwd else (workspaces[0] if workspaces else Path.cwd()),
                            home=self.home, workspaces=workspaces, protected=self.protected_dirs)
        names = subject.names
        base = index.rules_for(names, subject.client)
        compiled_grants = [(g.tool, c) for g in grants if (c := _compile_grant(g, self.named)) is not None]
        my_grants = [c for tool, c in compiled_grants if tool in names]
        write_grants = tuple(c for tool, c in compiled_grants if tool == "write")
        rules = replace(base, grants=my_grants, write=tuple(base.write) + write_grants)
        if subject.family is Family.SHELL:
            verdict = shell_verdict(subject, rules, where)
        elif subject.family in (Family.READ, Family.WRITE):
            parts: list[Part] = []
            suggestions: list[Suggestion] = []
            for use, path_rules in self._path_rules(subject, index, compiled_grants):
                v = decide.path_verdict(decide.resolve_paths(use.raw, where), use.family is Family.WRITE, path_rules,
                                        where, text=use.raw)
                parts.extend(v.parts)
                suggestions.extend(self._path_suggestion(use, where))
            verdict = decide.combine(parts, tuple(suggestions))
        else:
            verdict = decide.simple_verdict(subject, rules)
        waiting = [c for n in names for c in index.untrusted.get(n, ()) if _speaks_for(c, subject.client)]
        if verdict.effect is None and waiting:
            verdict = replace(verdict, untrusted_allow=self._would_allow(subject, rules, waiting, where,
                                                                         index, compiled_grants))
        if record_use:
            used = {p.provenance.grant.id: p.provenance.grant for p in verdict.parts
                    if p.provenance.grant is not None}
            if verdict.effect is Effect.ALLOW:
                for grant in used.values():
                    self.grants.record_use(grant)
        return verdict

    @staticmethod
    def _path_rules(subject: Subject, index: _Index, grants: list[tuple[str, Compiled]],
                    ) -> list[tuple[PathUse, decide.Rules]]:
        """Each path of a files call with the rules that judge it: those naming the tool and
        those of the path's own family (``read`` for the source of a copy, ``write`` for its
        destination), with the grants of the same names."""
        out: list[tuple[PathUse, decide.Rules]] = []
        for use in subject.paths or (PathUse(raw=".", family=subject.family),):
            names = frozenset({subject.tool, use.family.value})
            out.append((use, replace(index.rules_for(names), grants=[c for tool, c in grants if tool in names])))
        return out

    def _would_allow(self, subject: Subject, rules: decide.Rules, waiting: list[Compiled], where: floor.Where,
                     index: _Index, grants: list[tuple[str, Compiled]]) -> bool:
        """Whether the untrusted workspace's allow rules would allow this call once trusted."""
        def trial_of(base: decide.Rules, pending: list[Compiled]) -> decide.Rules:
            plain = [c for c in pending if c.rule is None or c.rule.effect is not Effect.ALLOW_IN_SANDBOX]
            return decide.Rules(deny=base.deny, ask=base.ask, allow=[*base.allow, *plain], grants=base.grants,
                                sandbox_allow=[*base.sandbox_allow, *(c for c in pending if c not in plain)],
                                write=base.write, read=base.read)

        if subject.family is Family.SHELL:
            said = shell_verdict(subject, trial_of(rules, waiting), where, suggest=False).effect
            return said is not None and said.allows
        if subject.family in (Family.READ, Family.WRITE):
            return all(
                decide.path_verdict(decide.resolve_paths(use.raw, where), use.family is Family.WRITE,
                                    trial_of(path_rules, [c for c in waiting if c.tool in (subject.tool,
                                                                                          use.family.value)]),
                                    where, text=use.raw).effect is Effect.ALLOW
                for use, path_rules in self._path_rules(subject, index, grants))
        return decide.simple_verdict(subject, trial_of(rules, waiting)).effect is Effect.ALLOW

    def _path_suggestion(self, use: PathUse, where: floor.Where) -> list[Suggestion]:
        family, raw = use.family.value, use.raw
        lexical = decide.resolve_paths(raw, where)[0]
        for ws in where.workspaces:
            if lexical == ws or ws in lexical.parents:
                rel = lexical.relative_to(ws).as_posix()
                pattern = "@workspace/" + (rel if rel != "." else "**")
                break
        else:
            if lexical == self.home or self.home in lexical.parents:
                pattern = "~/" + lexical.relative_to(self.home).as_posix()
            else:
                pattern = "/" + lexical.as_posix()
        if any(c in pattern for c in "*?[]!\\") and not pattern.endswith("/**"):
            return []
        return [Suggestion(tool=family, pattern=pattern, label=raw)]

    # -- the tester and the CLI ------------------------------------------------------------
    def check_command(self, command: str, *, workspace: Path | None = None, conversation_id: str = "",
                      cwd: Path | None = None) -> Verdict:
        """``run_command``'s verdict for ``command`` run in ``workspace`` (nothing recorded)."""
        subject = Subject(tool="run_command", family=Family.SHELL, names=frozenset({"run_command", "shell"}),
                          command=command)
        return self.evaluate(subject, workspaces=_ws(workspace), conversation_id=conversation_id, cwd=cwd,
                             record_use=False)

    def check_path(self, path: str, *, write: bool, workspace: Path | None = None) -> Verdict:
        """A file tool's verdict for reading (``write=False``) or writing ``path``."""
        tool = "write_file" if write else "read_file"
        family = Family.WRITE if write else Family.READ
        subject = Subject(tool=tool, family=family, names=frozenset({tool, family.value}),
                          paths=(PathUse(raw=path, family=family),))
        return self.evaluate(subject, workspaces=_ws(workspace), record_use=False)

    def check_url(self, url: str, *, method: str = "GET", workspace: Path | None = None) -> Verdict:
        """``fetch_url``'s verdict for ``url``."""
        subject = Subject(tool="fetch_url", family=Family.FETCH, names=frozenset({"fetch_url", "fetch"}), url=url,
                          method=method.upper())
        return self.evaluate(subject, workspaces=_ws(workspace), record_use=False)

    def check_mcp(self, server: str, tool: str, arguments: Mapping[str, Any], *,
                  workspace: Path | None = None) -> Verdict:
        """An MCP tool call's verdict (server, the server's own tool name, arguments)."""
        subject = Subject(tool=f"{server}__{tool}", family=Family.MCP,
                          names=frozenset({f"mcp:{server}", f"mcp:{server}/{tool}"}), server=server, mcp_tool=tool,
                          arguments=dict(arguments))
        return self.evaluate(subject, workspaces=_ws(workspace), record_use=False)

    # -- a rule's own examples ---------------------------------------------------------------
    def example_matches(self, item: Compiled, example: str) -> bool:
        """Whether ``item`` matches its example: for an allow, the rule alone allows the whole
        example; for deny/ask, the rule catches some part of it."""
        family, matcher = item.family, item.matcher
        rule = item.rule
        effect = rule.effect if rule else Effect.ALLOW
        if family is Family.SHELL:
            where = floor.Where(cwd=EXAMPLE_WORKSPACE, home=self.home, workspaces=(EXAMPLE_WORKSPACE,),
                                protected=self.protected_dirs)
            return covers_line(item, example, where) if effect.allows else rule_catches(item, example, where)
        if family in (Family.READ, Family.WRITE):
            if matcher is None:
                return True
            text = example.replace("@workspace", str(EXAMPLE_WORKSPACE), 1) if example.startswith("@workspace") \
                else example
            if text.startswith("~"):
                text = str(self.home) + text[1:]
            assert isinstance(matcher, PathPattern)
            return matcher.match(Path(os.path.normpath(text)), workspaces=(EXAMPLE_WORKSPACE,),
                                 home=self.home) is Match.YES
        if matcher is None:
            return True
        if family is Family.FETCH:
            words = example.split()
            method, url = (words[0], words[1]) if len(words) == 2 else ("GET", example)
            return bool(matcher.match(url, method) is Match.YES)
        if family is Family.MCP:
            try:
                arguments = json.loads(example)
            except json.JSONDecodeError:
                return False
            return isinstance(arguments, dict) and matcher.match(arguments) is Match.YES
        if family is Family.DB:
            return bool(matcher.match(example.strip()) is Match.YES)
        return True

    def validate(self, text: str, *, path: Path | None = None, layer: Layer = Layer.USER) -> LoadReport:
        """Check a rule file's text without saving it (the editor's validation as you type)."""
        compiled, problems = parse_rules(text, path or self.user_file, layer, self.example_matches, named=self.named)
        return LoadReport(rules=tuple(c.rule for c in compiled if c.rule), problems=tuple(problems))

    # -- grants and trust ------------------------------------------------------------------
    def grant(self, suggestion: Suggestion, scope: GrantScope, *, call_id: str, conversation_id: str = "",
              workspace: Path | None = None) -> Grant | Rule | None:
        """Turn an approval choice into data: ``ONCE`` → nothing stored (``None``); ``ALWAYS`` →
        a rule appended to the user's ``permissions.toml`` (returned); the rest → a stored
        ``Grant`` (returned). ``ValueError`` when the suggestion's pattern is invalid or the
        user's file is broken (then nothing is written)."""
        family = family_of(suggestion.tool, self.named)
        try:
            compile_pattern(family, suggestion.pattern)
        except PatternError as exc:
            raise ValueError(str(exc)) from None
        if scope is GrantScope.ONCE:
            return None
        if scope is GrantScope.ALWAYS:
            return self._append_rule(suggestion, call_id)
        return self.grants.add(tool=suggestion.tool, pattern=suggestion.pattern, scope=scope, created_by_call=call_id,
                               conversation_id=conversation_id,
                               workspace=str(_norm((workspace,))[0]) if workspace is not None else "",
                               reason=suggestion.label[:200])

    def _append_rule(self, suggestion: Suggestion, call_id: str) -> Rule:
        path = self.user_file
        with self._lock:
            try:
                old = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                old = ""
            lines = ["", "[[rule]]", 'effect = "allow"', f"tool = {_toml(suggestion.tool)}"]
            if suggestion.pattern is not None:
                lines.append(f"pattern = {_toml(suggestion.pattern)}")
            stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.clock()))
            lines.append(f"reason = {_toml(f'always allowed in an approval ({call_id}, {stamp})')}")
            new = (old if not old or old.endswith("\n") else old + "\n") + "\n".join(lines) + "\n"
            compiled, problems = parse_rules(new, path, Layer.USER, self.example_matches, named=self.named)
            errors = [p for p in problems if p.severity is Severity.ERROR]
            if errors:
                raise ValueError(f"{path} has errors; fix them first: {errors[0].describe()}")
            write_private(path, new)
            self._recent.clear()
        rule = compiled[-1].rule
        assert rule is not None
        return rule

    def active_grants(self) -> list[Grant]:
        """Grants in force now (expired ones are gone)."""
        return self.grants.active()

    def revoke(self, grant_id: str) -> bool:
        """Remove one grant; the very next call no longer sees it."""
        return self.grants.revoke(grant_id)

    def revoke_all(self) -> int:
        return self.grants.revoke_all()

    def is_trusted(self, workspace: Path) -> bool:
        """Whether the person trusted ``workspace``'s rule files *as they are now* (hash-bound):
        each of ``permissions.toml`` and ``permissions.local.toml`` trusted or absent, one present."""
        ws = _norm((workspace,))[0]
        present = [(path, layer) for path, layer in _workspace_layers(ws) if file_sha256(path) is not None]
        return bool(present) and all(self._file_trusted(ws, path, layer) for path, layer in present)

    def _file_trusted(self, ws: Path, path: Path, layer: Layer) -> bool:
        sha = file_sha256(path)
        return sha is not None and self.grants.trusted_hash(_trust_key(ws, layer)) == sha

    def trust_snapshot(self, workspace: Path) -> TrustSnapshot:
        """Both workspace rule files read once: what to show before trusting (their text, the
        allow rules they would make active) and what ``trust`` binds to (their sha256)."""
        ws = _norm((workspace,))[0]
        files: list[TrustFile] = []
        for path, layer in _workspace_layers(ws):
            try:
                raw = path.read_bytes()
            except FileNotFoundError:
                files.append(TrustFile(path=path, layer=layer, sha256=None, text="", allows=()))
                continue
            except OSError as exc:
                raise ValueError(f"{path} cannot be read: {exc}") from None
            rules, problems, _text = parse_rule_bytes(raw, path, layer, self.example_matches, named=self.named)
            errors = [p for p in problems if p.severity is Severity.ERROR]
            files.append(TrustFile(
                path=path, layer=layer, sha256=hashlib.sha256(raw).hexdigest(), text=raw.decode("utf-8", "replace"),
                allows=tuple(c.rule for c in rules if c.rule is not None and c.rule.effect.allows),
                error=errors[0] if errors else None))
        return TrustSnapshot(workspace=ws, files=tuple(files))

    def trust_preview(self, workspace: Path) -> tuple[Rule, ...]:
        """The allow rules that trusting ``workspace`` now would make active."""
        return self.trust_snapshot(workspace).allows

    def trust(self, snapshot: TrustSnapshot) -> tuple[Rule, ...]:
        """Trust the workspace's rule files exactly as ``snapshot`` showed them (each bound to the
        sha256 of the bytes shown); returns the allow rules that became active. ``ValueError``
        (``TrustChanged`` when a file changed, appeared or went since it was shown) when there
        is no file or one has errors: then nothing is trusted."""
        present = snapshot.present
        if not present:
            raise ValueError(f"{workspace_files(snapshot.workspace)[0]} does not exist: nothing to trust")
        for shown in present:
            if shown.error is not None:
                raise ValueError(f"{shown.path} has errors; nothing was trusted: {shown.error.describe()}")
        with self._lock:
            check_unchanged(snapshot)
            for shown in present:
                assert shown.sha256 is not None
                self.grants.trust(_trust_key(snapshot.workspace, shown.layer), shown.sha256)
        self.refresh()
        return snapshot.allows

    def personal_file_trusted(self, workspace: Path, content: bytes | None = None) -> bool:
        """Whether the workspace's ``permissions.local.toml`` is absent or trusted as it is now
        (or, given ``content``, whether those bytes as read are: empty counts as absent)."""
        ws = _norm((workspace,))[0]
        if content is not None:
            trusted = self.grants.trusted_hash(_trust_key(ws, Layer.WORKSPACE_LOCAL))
            return not content or trusted == hashlib.sha256(content).hexdigest()
        local = workspace_files(ws)[1]
        return file_sha256(local) is None or self._file_trusted(ws, local, Layer.WORKSPACE_LOCAL)

    def trust_own_edit(self, workspace: Path, written: bytes) -> None:
        """Echo Desk itself just wrote ``written`` to the workspace's personal file, from a
        trusted one (the Sandbox page's box): trust exactly those bytes, so the person's own
        choice takes effect (whatever else is there now is not vouched for)."""
        ws = _norm((workspace,))[0]
        self.grants.trust(_trust_key(ws, Layer.WORKSPACE_LOCAL), hashlib.sha256(written).hexdigest())
        self.refresh()

    def untrust(self, workspace: Path) -> None:
        ws = _norm((workspace,))[0]
        for _path, layer in _workspace_layers(ws):
            self.grants.untrust(_trust_key(ws, layer))
        self.refresh()


#: Rule files that live in a workspace (so may come with a cloned repository) and wait for trust.
_NEEDS_TRUST = frozenset({Layer.WORKSPACE, Layer.WORKSPACE_LOCAL})


def _workspace_layers(ws: Path) -> tuple[tuple[Path, Layer], ...]:
    committed, local = workspace_files(ws)
    return (committed, Layer.WORKSPACE), (local, Layer.WORKSPACE_LOCAL)


def _trust_key(ws: Path, layer: Layer) -> str:
    """Where the trust of a workspace's rule file is kept: the folder for the shared file (as it
    always was), the folder plus a marker no path contains for the personal one."""
    return str(ws) if layer is Layer.WORKSPACE else f"{ws}\x00local"


def _toml(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


_NORMALISED: dict[tuple[Path, ...], tuple[Path, ...]] = {}


def _norm(workspaces: tuple[Path, ...]) -> tuple[Path, ...]:
    """Workspaces as real paths (remembered: scopes already hold resolved roots)."""
    found = _NORMALISED.get(workspaces)
    if found is None:
        if len(_NORMALISED) > 256:
            _NORMALISED.clear()
        found = _NORMALISED[workspaces] = tuple(Path(os.path.realpath(w)) for w in workspaces)
    return found


def _ws(workspace: Path | None) -> tuple[Path, ...]:
    return (workspace,) if workspace is not None else ()


def _speaks_for(item: Compiled, client: str) -> bool:
    """Whether a rule (grants always do) is about calls from ``client``."""
    return item.rule is None or item.rule.applies_to(client)


def _deactivate(item: Compiled) -> Compiled:
    rule = item.rule
    if rule is None or not rule.effect.allows:
        return item
    return replace(item, rule=replace(rule, inactive=Inactive.UNTRUSTED_WORKSPACE))


def _compile_grant(grant: Grant, named: NamedGrammar | None) -> Compiled | None:
    try:
        family = family_of(grant.tool, named)
        matcher = compile_pattern(family, grant.pattern)
    except (ValueError, PatternError):
        return None  # a grant that no longer compiles grants nothing
    return Compiled(tool=grant.tool, family=family, matcher=matcher, grant=grant)


def _shadowed(rules: list[Compiled]) -> list[LoadProblem]:
    """Allow/ask rules that a deny (or an allow that an ask) with the same tool and a pattern
    covering it always overrides: they can never decide anything."""
    out: list[LoadProblem] = []
    active = [c for c in rules if c.rule is not None and c.rule.active]
    for c in active:
        rule = c.rule
        assert rule is not None
        if rule.effect is Effect.DENY or rule.source.path is None:
            continue
        for other in active:
            o = other.rule
            assert o is not None
            if o.tool != rule.tool or o.effect.rank <= rule.effect.rank or (o.effect.allows and rule.effect.allows):
                # An allow is consulted before an allow-in-sandbox: neither hides the other.
                continue
            if not _covers_callers(o.clients, rule.clients):
                continue  # the stronger rule speaks for fewer callers: the weaker one still decides some
            if o.pattern is None or o.pattern == rule.pattern or _covers(other, c):
                out.append(LoadProblem(
                    severity=Severity.WARNING, kind=ProblemKind.SHADOWED, path=rule.source.path,
                    line=rule.source.line,
                    message=f"{rule.describe()} is never consulted: {o.describe()} ({o.source.describe()}) "
                            "always wins over it"))
                break
    return out


def _covers_callers(stronger: tuple[str, ...], weaker: tuple[str, ...]) -> bool:
    """Whether a rule for the callers ``stronger`` speaks for every caller one for ``weaker`` does
    (empty: every caller; ``*``: any MCP client)."""
    if not stronger:
        return True
    if not weaker or ("*" in weaker and "*" not in stronger):
        return False
    return "*" in stronger or set(weaker) <= set(stronger)


def _covers(stronger: Compiled, weaker: Compiled) -> bool:
    """Shell, for the warning only: the stronger rule matches two representative commands of
    the weaker pattern (each ``**`` taken as nothing, then as an extra token)."""
    rule = weaker.rule
    if not isinstance(stronger.matcher, TokenPattern) or rule is None or rule.pattern is None:
        return False
    tokens = rule.pattern.split()
    if any(t.startswith("!") or any(c in t for c in "[]|'\"") for t in tokens):
        return False
    short = [("x" if t == "*" else t) for t in tokens if t != "**"]
    long = [("x" if t == "*" else "zz-extra" if t == "**" else t) for t in tokens]
    return all(stronger.matcher.match(argv) is Match.YES for argv in (short, long))


__all__ = ["EXAMPLE_WORKSPACE", "Examples", "PermissionEngine", "file_sha256", "workspace_files"]
