"""``PermissionEngine``: the façade over the rule layers, the grants and trust; answers for one call.

One instance per app (``Runtime`` owns it); thread-safe for reads. Every consumer — the
dispatcher's policy step, ``echo-desk rules check``, the Permissions page's tester — calls
``evaluate`` (or the ``check_*`` helpers, which build the same ``Subject`` and call it), so
what the tester shows is what ``execute_tool`` does.

The parts, each in its module: ``layers`` (the files, re-read when they change, and their
index), ``evaluation`` (one call's verdict), ``examples`` (a rule's own examples),
``rule_files`` (where the files are and the one way they are written), ``trust``.
Grants are checked on every call (a ``stat`` of the grant database, re-read when anyone
committed), so a revoke or an expiry applies to the very next call.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from echo_desk.agent.permissions.compiled import Compiled, NamedGrammar, compile_pattern, family_of
from echo_desk.agent.permissions.evaluation import verdict_for, where_for
from echo_desk.agent.permissions.examples import EXAMPLE_WORKSPACE, example_matches
from echo_desk.agent.permissions.layers import FILE_CHECK_SECONDS, LayerCache, norm_workspaces
from echo_desk.agent.permissions.loader import parse_rule_bytes, parse_rules, read_rule_file
from echo_desk.agent.permissions.model import (
    OWN_AGENT,
    Effect,
    Examples,
    Family,
    Grant,
    GrantScope,
    Layer,
    LoadProblem,
    LoadReport,
    Rule,
    Severity,
    Suggestion,
    Verdict,
)
from echo_desk.agent.permissions.rule_files import (
    USER_FILE,
    file_sha256,
    read_rule_text,
    trust_key,
    workspace_files,
    workspace_layers,
    write_rule_file,
)
from echo_desk.agent.permissions.subjects import PathUse, Subject
from echo_desk.agent.permissions.tokens import PatternError
from echo_desk.agent.permissions.trust import TrustFile, TrustSnapshot, check_unchanged
from echo_desk.i18n import N_, for_person
from echo_desk.store.grants import GrantStore


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
        self._layers = LayerCache(self.user_file, grants, self._read_file)

    @property
    def user_file(self) -> Path:
        """``<config dir>/permissions.toml``."""
        return self.config_dir / USER_FILE

    def _read_file(self, path: Path, layer: Layer) -> tuple[list[Compiled], list[Any], str]:
        return read_rule_file(path, layer, self.example_matches, named=self.named)

    # -- loading -----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Look at the rule files again on the next call (after editing them)."""
        self._layers.refresh()

    def load(self, workspaces: tuple[Path, ...] = ()) -> LoadReport:
        """Every rule of every layer for these workspaces (the floor first, then user, workspace,
        workspace-local), inactive ones marked, and every load error and warning. Cheap when no
        file changed (one ``stat`` per file)."""
        return self._layers.index(norm_workspaces(workspaces)).report

    def generation(self, workspaces: tuple[Path, ...] = ()) -> tuple[int, int]:
        """Changes whenever a verdict for a call in these workspaces may change: a rule file
        edited or trusted (looked at as ``evaluate`` looks), a grant given, used, revoked or
        expired. A verdict worked out under one value may be reused while it stays."""
        index = self._layers.index(norm_workspaces(workspaces))
        return index.serial, self.grants.generation()

    def mentions(self, names: frozenset[str], workspaces: tuple[Path, ...] = ()) -> bool:
        """Whether any active rule or grant names one of ``names`` (the dispatcher's fast path)."""
        index = self._layers.index(norm_workspaces(workspaces))
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
        workspaces = norm_workspaces(workspaces)
        index = self._layers.index(workspaces)
        now = self.clock()
        ws_names = tuple(str(w) for w in workspaces)
        grants = [g for g in self.grants.active()
                  if g.applies(now=now, conversation_id=conversation_id, workspaces=ws_names, client=subject.client)]
        where = where_for(workspaces, cwd, self.home, self.protected_dirs)
        verdict = verdict_for(subject, index, grants, where, self.named)
        if record_use and verdict.effect is Effect.ALLOW:
            used = {p.provenance.grant.id: p.provenance.grant for p in verdict.parts
                    if p.provenance.grant is not None}
            for grant in used.values():
                self.grants.record_use(grant)
        return verdict

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
        return example_matches(item, example, home=self.home, protected=self.protected_dirs)

    def validate(self, text: str, *, path: Path | None = None, layer: Layer = Layer.USER) -> LoadReport:
        """Check a rule file's text without saving it (the editor's validation as you type)."""
        compiled, problems = parse_rules(text, path or self.user_file, layer, self.example_matches, named=self.named)
        return LoadReport(rules=tuple(c.rule for c in compiled if c.rule), problems=tuple(problems))

    # -- rule files ----------------------------------------------------------------------------
    def save_rules(self, path: Path, text: str, *, expect_sha256: str, layer: Layer = Layer.USER) -> bytes:
        """Write a rule file whole (the editor's save, the Sandbox page's box) if ``text`` has
        no errors and the file still holds what was read (``expect_sha256``, from
        ``rule_files.read_rule_text``); returns the bytes written. ``ValueError`` otherwise,
        with nothing written."""
        errors = [p for p in self.validate(text, path=path, layer=layer).problems if p.severity is Severity.ERROR]
        if errors:
            raise ValueError(_has_errors(path, errors[0]))
        with self._layers.lock:
            written = write_rule_file(path, text, expect_sha256=expect_sha256)
            self._layers.forget_recent()
        return written

    # -- grants and trust ------------------------------------------------------------------
    def grant(self, suggestion: Suggestion, scope: GrantScope, *, call_id: str, conversation_id: str = "",
              workspace: Path | None = None, client: str = "") -> Grant | Rule | None:
        """Turn an approval choice into data: ``ONCE`` → nothing stored (``None``); ``ALWAYS`` →
        a rule appended to the user's ``permissions.toml`` (returned); the rest → a stored
        ``Grant`` (returned). ``ValueError`` when the suggestion's pattern is invalid or the
        user's file is broken (then nothing is written). ``client``: the MCP client whose
        dialog it was chosen in ('' = Echo Desk's own chat, whose rule says ``client = "@chat"``);
        the grant, or the rule, is its alone."""
        family = family_of(suggestion.tool, self.named)
        try:
            compile_pattern(family, suggestion.pattern)
        except PatternError as exc:
            raise ValueError(str(exc)) from None
        if scope is GrantScope.ONCE:
            return None
        if scope is GrantScope.ALWAYS:
            return self._append_rule(suggestion, call_id, client)
        return self.grants.add(tool=suggestion.tool, pattern=suggestion.pattern, scope=scope, created_by_call=call_id,
                               conversation_id=conversation_id, client=client,
                               workspace=str(norm_workspaces((workspace,))[0]) if workspace is not None else "",
                               reason=suggestion.label[:200])

    def _append_rule(self, suggestion: Suggestion, call_id: str, client: str = "") -> Rule:
        path = self.user_file
        with self._layers.lock:
            old, read_sha = read_rule_text(path)
            lines = ["", "[[rule]]", 'effect = "allow"', f"tool = {_toml(suggestion.tool)}"]
            if suggestion.pattern is not None:
                lines.append(f"pattern = {_toml(suggestion.pattern)}")
            # Allowed in that caller's dialog: the rule speaks for it alone, as the dialog's
            # narrower choices do (the chat's for the chat, not for every gateway client).
            lines.append(f"client = {_toml(client or OWN_AGENT)}")
            stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.clock()))
            lines.append(f"reason = {_toml(f'always allowed in an approval ({call_id}, {stamp})')}")
            new = (old if not old or old.endswith("\n") else old + "\n") + "\n".join(lines) + "\n"
            compiled, problems = parse_rules(new, path, Layer.USER, self.example_matches, named=self.named)
            errors = [p for p in problems if p.severity is Severity.ERROR]
            if errors:
                raise ValueError(_has_errors(path, errors[0]))
            write_rule_file(path, new, expect_sha256=read_sha)
            self._layers.forget_recent()
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
        ws = norm_workspaces((workspace,))[0]
        present = [(path, layer) for path, layer in workspace_layers(ws) if file_sha256(path) is not None]
        return bool(present) and all(self._file_trusted(ws, path, layer) for path, layer in present)

    def _file_trusted(self, ws: Path, path: Path, layer: Layer) -> bool:
        sha = file_sha256(path)
        return sha is not None and self.grants.trusted_hash(trust_key(ws, layer)) == sha

    def trust_snapshot(self, workspace: Path) -> TrustSnapshot:
        """Both workspace rule files read once: what to show before trusting (their text, the
        allow rules they would make active) and what ``trust`` binds to (their sha256)."""
        ws = norm_workspaces((workspace,))[0]
        files: list[TrustFile] = []
        for path, layer in workspace_layers(ws):
            try:
                raw = path.read_bytes()
            except FileNotFoundError:
                files.append(TrustFile(path=path, layer=layer, sha256=None, text="", allows=()))
                continue
            except OSError as exc:
                raise ValueError(for_person(f"{path} cannot be read: {exc}", N_("{file} could not be read"),
                                            file=path.name)) from exc
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
            missing = workspace_files(snapshot.workspace)[0]
            raise ValueError(for_person(f"{missing} does not exist: nothing to trust",
                                        N_("{file} does not exist: there is nothing to trust"), file=missing.name))
        for shown in present:
            if shown.error is not None:
                raise ValueError(_has_errors(shown.path, shown.error, "nothing was trusted"))
        with self._layers.lock:
            check_unchanged(snapshot)
            for shown in present:
                assert shown.sha256 is not None
                self.grants.trust(trust_key(snapshot.workspace, shown.layer), shown.sha256)
        self.refresh()
        return snapshot.allows

    def personal_file_trusted(self, workspace: Path, content: bytes | None = None) -> bool:
        """Whether the workspace's ``permissions.local.toml`` is absent or trusted as it is now
        (or, given ``content``, whether those bytes as read are: empty counts as absent)."""
        ws = norm_workspaces((workspace,))[0]
        if content is not None:
            trusted = self.grants.trusted_hash(trust_key(ws, Layer.WORKSPACE_LOCAL))
            return not content or trusted == hashlib.sha256(content).hexdigest()
        local = workspace_files(ws)[1]
        return file_sha256(local) is None or self._file_trusted(ws, local, Layer.WORKSPACE_LOCAL)

    def trust_own_edit(self, workspace: Path, written: bytes) -> None:
        """Echo Desk itself just wrote ``written`` to the workspace's personal file, from a
        trusted one (the Sandbox page's box): trust exactly those bytes, so the person's own
        choice takes effect (whatever else is there now is not vouched for)."""
        ws = norm_workspaces((workspace,))[0]
        self.grants.trust(trust_key(ws, Layer.WORKSPACE_LOCAL), hashlib.sha256(written).hexdigest())
        self.refresh()

    def untrust(self, workspace: Path) -> None:
        ws = norm_workspaces((workspace,))[0]
        for _path, layer in workspace_layers(ws):
            self.grants.untrust(trust_key(ws, layer))
        self.refresh()


def _has_errors(path: Path, problem: LoadProblem, outcome: str = "fix them first") -> str:
    """Why a rule file with errors is refused: the problem's English for the CLI and the model;
    for the person, where (the problem itself is listed under the rules, in their language)."""
    english = f"{path} has errors; {outcome}: {problem.describe()}"
    if problem.line:
        return for_person(english, N_("{file} has errors (line {line}); fix them first"), file=path.name,
                          line=problem.line)
    return for_person(english, N_("{file} has errors; fix them first"), file=path.name)


def _toml(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _ws(workspace: Path | None) -> tuple[Path, ...]:
    return (workspace,) if workspace is not None else ()


__all__ = ["EXAMPLE_WORKSPACE", "FILE_CHECK_SECONDS", "Examples", "PermissionEngine", "file_sha256",
           "workspace_files"]
