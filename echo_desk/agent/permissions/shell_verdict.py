"""The verdict for a shell line (``run_command``): every part of it, deny first.

For each command the line would run — and every command those run in turn (wrappers, ``bash
-c``, ``find -exec``…, see ``programs``) — in this order: the floor (a recursive delete of a
protected root) → deny rules (any spelling: ``/bin/rm`` is ``rm``, ``sort --o=F`` is ``sort -o
F``) → a command deny rules cannot see (asks when there are deny rules) → a word naming a path a
read/write rule denies → ask rules → elevation → opaque → an allow rule or grant that covers the
command *and* everything it runs → allow-in-sandbox → nothing. Redirections are judged by the
write (and read) rules on the lexical and the resolved path, from every folder the line may be
in after a ``cd``.

A line is allowed only when it is plain (``Analysis.allowable``), every command in it is covered
by its own allow rule or grant (there is no "transparent" command), and every redirection is
allowed. It never gets more than that: whatever the engine cannot read asks.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import shlex
import stat
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from echo_desk.agent.permissions import (
    default_folders,
    editor_settings,
    floor,
    folder_moves,
    git_configured_places,
    git_foreach,
    git_reading,
    git_repositories,
    git_unnamed_reads,
    git_whole_reads,
    git_worktree_updates,
    hg_extension_writes,
    hg_extensions,
    hg_unaudited,
    install_records,
    line_changes,
    line_environment,
    listed_files,
    named_files,
    option_variables,
    path_search,
    programs,
    settings_commands,
    settings_files,
    suggested_variables,
    this_verdict,
)
from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.below_reach import reaches_below
from echo_desk.agent.permissions.compiled import Compiled
from echo_desk.agent.permissions.data_variables import reads_as_data
from echo_desk.agent.permissions.decide import (
    Bucket,
    Rules,
    both_readings,
    combine,
    path_verdict,
    provenance_of,
)
from echo_desk.agent.permissions.git_index import repository_roots
from echo_desk.agent.permissions.literal_tilde import LiteralTildes, left_by_shell
from echo_desk.agent.permissions.long_prefixes import long_prefix
from echo_desk.agent.permissions.matchers import PathPattern
from echo_desk.agent.permissions.model import (
    Decider,
    Effect,
    Examples,
    Family,
    Layer,
    Opaque,
    Part,
    PartKind,
    Provenance,
    Rule,
    RuleSource,
    Suggestion,
    Verdict,
)
from echo_desk.agent.permissions.options import read_options
from echo_desk.agent.permissions.programs import Reading
from echo_desk.agent.permissions.reading import Flag
from echo_desk.agent.permissions.removed_folders import landings, removed_folders
from echo_desk.agent.permissions.repository_tops import repository_tops
from echo_desk.agent.permissions.shell import (
    INERT_ASSIGNMENTS,
    Analysis,
    Command,
    Redirect,
    Word,
    analyse,
    inert_value,
)
from echo_desk.agent.permissions.subjects import Subject
from echo_desk.agent.permissions.tokens import Match, TokenPattern, compile_tokens, names_all, names_setting
from echo_desk.sandbox.shell import Grammar, command_shell

#: Redirection targets that are never files anyone cares about.
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
#: Of those, the ones naming a descriptor: as harmless only as what the line leaves on it
#: (``Analysis.may_reopen_output``: `tee /dev/stdout 1< ../keep.txt` writes keep.txt).
DESCRIPTOR_TARGETS = frozenset({"/dev/stdout", "/dev/stderr"})
#: Programs that write a path only by opening it and writing into it, as a redirection does: one
#: of ``HARMLESS_TARGETS`` is as harmless to them. Any other program writing one may remove,
#: rename, replace it, or change its mode or owner (`rm -f /dev/null`, `mv x /dev/stdout`,
#: `chmod 600 /dev/null`: strace, coreutils 9.1, s303): the write rules judge it as any path.
CONTENT_WRITERS = frozenset({"tee", "dd", "touch", "truncate", "sed", "sort", "tar", "find"})
#: Devices a redirection may read from without a rule (bash opens /dev/tcp/HOST/PORT itself).
READABLE_DEVICES = frozenset({"/dev/null", "/dev/zero", "/dev/stdin", "/dev/urandom", "/dev/random"})
#: Wrappers inside wrappers (``env bash -c 'sudo …'``): deeper is never allowed, and asks.
MAX_DEPTH = 4
#: Programs the floor reads (recursive deletes), and how many words of an unknown program's are
#: looked at as a command it may run.
_DELETERS = frozenset({"rm", "find", "rsync"})
_MAYBE_WORDS = 32
_GLOB_CHARS = "*?["
_MAX_GLOB_PATHS = 4096
_MAX_WALK = 20_000


def shell_verdict(subject: Subject, rules: Rules, where: floor.Where, *, suggest: bool = True,
                  grammar: Grammar | None = None) -> Verdict:
    """The rules' verdict for running ``subject.command`` with the shell of this machine, in
    the environment ``run_command`` gives it (``line_environment``)."""
    with line_environment.inheriting(), this_verdict.looking_once():
        return _shell_verdict(subject, rules, where, suggest=suggest, grammar=grammar)


def _shell_verdict(subject: Subject, rules: Rules, where: floor.Where, *, suggest: bool,
                   grammar: Grammar | None) -> Verdict:
    analysis = analyse(subject.command, grammar=grammar or command_shell().grammar)
    judge = _Judge(rules, where, analysis)
    parts: list[Part] = []
    undecided: list[Command] = []
    for command in analysis.commands:
        parts.append(judge.command_part(command))
        if parts[-1].effect is None:
            undecided.append(command)
    for redirect in analysis.redirects:
        parts.append(judge.redirect_part(redirect))
    if analysis.opaque is not None:
        parts.append(Part(text=subject.command[:200], effect=Effect.ASK, kind=PartKind.COMMAND, opaque=analysis.opaque,
                          provenance=Provenance(kind=Decider.OPAQUE, detail=analysis.opaque.value)))
    suggestions = _suggestions(analysis, undecided, judge) if suggest else ()
    if not suggestions:
        return combine(parts, (), opaque_line=analysis.opaque is not None)
    kept, still_asks = _kept_promises(subject, rules, where, grammar, suggestions)
    verdict = combine(parts, kept, opaque_line=analysis.opaque is not None)
    return replace(verdict, still_asks=still_asks) if kept and still_asks else verdict


def _kept_promises(subject: Subject, rules: Rules, where: floor.Where, grammar: Grammar | None,
                   suggestions: tuple[Suggestion, ...]) -> tuple[tuple[Suggestion, ...], tuple[str, ...]]:
    """The suggestions that keep their promise: the line judged again with them all added, each
    is kept where the command it was made from is then allowed (a wrapper's rule and its
    command's are tried together), or where what keeps it asking is named (``also_runs``: the
    editor ``git commit`` starts; for each rule of that command). One that would allow nothing
    more (``xargs``'s words read from another command, a rule already in force) is not offered:
    the dialog would promise the next call allowed and it would ask again. Also the parts of
    the line that would still ask with them all and that no kept suggestion explains
    (``Verdict.still_asks``)."""
    tried = [_tried_rule(s) for s in suggestions]
    trial = _shell_verdict(subject, rules.trying(tried), where, suggest=False, grammar=grammar)
    allowed = {p.text for p in trial.parts if p.kind is PartKind.COMMAND and p.effect is Effect.ALLOW}
    also: dict[str, tuple[str, ...]] = {}  # (a wrapper's command: what any of its rules leaves)
    for s in suggestions:
        also[s.label] = tuple(dict.fromkeys((*also.get(s.label, ()), *s.also_runs)))
    # (a rule in force already: offered again, it would add nothing)
    held = {c.rule.pattern if c.rule is not None else c.grant.pattern if c.grant is not None else None
            for c in (*rules.allow, *rules.grants) if c.tool == "shell"}
    kept = tuple(replace(s, also_runs=() if s.label in allowed else also[s.label])
                 for s in suggestions if (s.label in allowed or also[s.label]) and s.pattern not in held)
    # (a command whose rule says what else it runs is told under that rule, not again)
    told = {s.label for s in kept if s.also_runs}
    still = () if trial.effect is Effect.ALLOW else tuple(dict.fromkeys(
        p.text for p in trial.parts if p.effect is not Effect.ALLOW and p.text not in told))
    return _with_partners(subject, rules, where, grammar, kept, allowed), still


def _with_partners(subject: Subject, rules: Rules, where: floor.Where, grammar: Grammar | None,
                   kept: tuple[Suggestion, ...], allowed: set[str]) -> tuple[Suggestion, ...]:
    """Each kept rule of a command offered several (a wrapper's ``nice **`` and ``make test **``
    for ``nice -n 5 make test``) names the others when, tried alone, it leaves its command
    asking (``Suggestion.needs``): the dialog says so rather than offer the wrapper's rule as if
    it allowed the command. One more verdict per such rule."""
    by_command: dict[str, list[Suggestion]] = {}
    for s in kept:
        by_command.setdefault(s.label, []).append(s)
    out = []
    for s in kept:
        others = tuple(o.pattern for o in by_command[s.label] if o is not s and o.pattern is not None)
        if others and s.label in allowed:
            alone = _shell_verdict(subject, rules.trying([_tried_rule(s)]), where, suggest=False, grammar=grammar)
            if not any(p.kind is PartKind.COMMAND and p.text == s.label and p.effect is Effect.ALLOW
                       for p in alone.parts):
                s = replace(s, needs=others)
        out.append(s)
    return tuple(out)


def _tried_rule(suggestion: Suggestion) -> Compiled:
    """The allow rule ``suggestion`` would add, as the engine holds one (to try it)."""
    pattern = suggestion.pattern or ""
    return Compiled(tool="shell", family=Family.SHELL, matcher=compile_tokens(pattern),
                    rule=Rule(effect=Effect.ALLOW, tool="shell", family=Family.SHELL, pattern=pattern,
                              reason="", examples=Examples(), source=RuleSource(layer=Layer.GRANT)))


def covers_line(item: Compiled, line: str, where: floor.Where) -> bool:
    """Whether the allow rule ``item`` alone allows every command of ``line`` (a rule's example)."""
    rules = Rules(deny=(), ask=(), allow=(item,), grants=())
    analysis = analyse(line)
    if not analysis.allowable or not analysis.commands:
        return False
    judge = _Judge(rules, where, analysis)
    return all(judge.covered(c.argv, sandbox=False) is not None for c in analysis.commands)


def rule_catches(item: Compiled, line: str, where: floor.Where) -> bool:
    """Whether the deny or ask rule ``item`` catches some command of ``line`` (a rule's example)."""
    analysis = analyse(line)
    judge = _Judge(Rules(deny=(), ask=(), allow=(), grants=()), where, analysis)
    return any(loose_match(item.matcher, judge.forms(c.argv).argvs or [(None,)]) is not Match.NO
               for c in analysis.commands)


def loose_match(matcher: TokenPattern | None, argvs: Sequence[Sequence[str | None]]) -> Match:
    """How well a deny/ask pattern matches any of ``argvs`` (spellings of a command)."""
    if matcher is None:
        return Match.YES
    best = Match.NO
    for argv in argvs:
        best = max(best, matcher.match(argv))
        if best is Match.YES:
            break
    return best


def allows(matcher: TokenPattern | None, argv: Sequence[str | None], reading: Reading) -> bool:
    """Whether an allow pattern covers ``argv`` as written, naming each option it never covers
    by ``**`` (one that runs, writes or reads code, or one the engine does not know)."""
    if matcher is None:
        return not reading.flags
    if matcher.match(argv) is not Match.YES:
        return False
    # One alternative that matches must name them all.
    return any(_names_every(words, reading.flags) for words in matcher.matching(argv))


def _names_every(words: frozenset[str], flags: Sequence[Flag]) -> bool:
    """Whether one alternative's ``words`` name every flag (a setting: by its key, see ``Flag``)."""
    return names_all(words, (f.names for f in flags if f.setting is None)) and all(
        names_setting(words, f.setting) for f in flags if f.setting is not None)


@dataclass
class _Forms:
    """A command and everything it runs, for deny, ask and floor rules."""

    argvs: list[tuple[str | None, ...]] = field(default_factory=list)
    commands: list[tuple[tuple[Word, ...], Reading]] = field(default_factory=list)
    writes: list[Redirect] = field(default_factory=list)
    #: It runs something that cannot be read (deny rules cannot see it).
    unknown: bool = False
    elevates: bool = False
    #: What a program the engine does not know might run: its later words (deny rules ask).
    maybe: list[tuple[str | None, ...]] = field(default_factory=list)
    maybe_commands: list[tuple[tuple[Word, ...], Reading]] = field(default_factory=list)
    #: Which of ``commands`` may run more than once (``Inner.once``): by their index there.
    again: set[int] = field(default_factory=set)
    #: What the line gives a command of ``commands`` (by its place there) to run with
    #: (``A=1 git y``, ``env A=1 git y``): the settings git reads from ``GIT_CONFIG_*``.
    given: dict[int, line_environment.Given] = field(default_factory=dict)


class _Judge:
    def __init__(self, rules: Rules, where: floor.Where, analysis: Analysis) -> None:
        self.rules = rules
        self.where = where
        self.cwds, self.cwd_known, self.cd_outside, passed = _working_folders(analysis, where)
        self.path_denies = [c for c in (*rules.read, *rules.write) if _path_deny(c)]
        #: The read denies among them: what a program opens by names not on the line is only read.
        self.read_denies = [c for c in rules.read if _path_deny(c)]
        #: The programs deny rules start with (``None``: one may start with any program).
        self.deny_heads = rules.bucket("deny").heads
        #: ``agent_settings`` by command: asked for a command's part and again when its rule is
        #: looked for.
        self._agent_settings: dict[tuple[str | None, ...], list[Path]] = {}
        #: ``variables_of`` by command and what the line gives it.
        self._variables: dict[tuple[Hashable, ...], option_variables.FromEnvironment] = {}
        #: What ``path_search`` found, by what it depends on: each command of a line asks the same
        #: of the same PATH (a realpath per folder each time was half of a verdict's time).
        self._path_found: dict[tuple[Hashable, ...], list[Path] | None] = {}
        self._real_folders: dict[str, str] = {}
        #: What each settings place gave ``writable_places`` under these rules: every command of a
        #: line has the folders of PATH among its places, and making the write rules' patterns
        #: concrete under each was most of a verdict's time with a write rule.
        self._writable_found: dict[settings_files.Place, list[Path]] = {}
        #: What git's settings files give a git command reading them, once a verdict.
        self._git_reads = git_unnamed_reads.OncePerVerdict(where.home)
        self.analysis = analysis
        #: The git commands of the line that may change the index (``index_changes``).
        self._index_changers: list[tuple[str | None, ...]] | None = None
        #: A command judged without its change-folder options, where it works (``folder_moves``),
        #: by the command as the line gives it: its own writes are no other command's.
        self._written_as: dict[tuple[str | None, ...], tuple[str | None, ...]] = {}
        #: The words whose leading ``~`` the shell leaves for the program (``literal_tilde``).
        self.tildes = LiteralTildes()
        #: What the line's commands may change before another of them runs (``line_changes``).
        self.changes = line_changes.changes(self._line_writes(), self.cwds, self.cwd_known, where.home)
        if any(self.changes.through_link(c) for c in (*self.cwds[1:], *passed)):
            # `ln -s ~ out/h && cd out/h`: the folder a cd goes to may be a link the line makes,
            # which leads anywhere (out of the workspaces too); so may one it passes on the way:
            # `ln -s ~/.ssh up; cd -P up/..` is the home folder (and so is bash's logical
            # `cd up/../.ssh`, which, the workspace having no .ssh, goes the physical way).
            self.cwd_known, self.cd_outside = False, True
        #: The folders each command of an `&&` chain runs in, by its id (``_chain_folders``).
        self._chain = _chain_folders(analysis, where) if self.cwd_known else {}

    def _line_writes(self) -> list[line_changes.Written]:
        """What every command of the line (and every command those run) writes, and the line's
        redirections."""
        found: list[line_changes.Written] = []
        for command in self.analysis.commands:
            forms = self.forms(command.argv)
            for words, reading in forms.commands:
                found += line_changes.of_command(tuple(w.value for w in words), reading)
            found += [line_changes.Written(None, (r.target.value,)) for r in forms.writes]
        found += [line_changes.Written(None, (r.target.value,)) for r in self.analysis.redirects if r.write]
        return [replace(w, paths=tuple(s for p in w.paths for s in ([p] if p is None else self.tildes.spellings(p))))
                for w in found]

    # -- what a command runs -------------------------------------------------------------------
    def forms(self, argv: tuple[Word, ...], depth: int = 0, found: _Forms | None = None,
              given: line_environment.Given | None = None, *, again: bool = False) -> _Forms:
        """``argv`` and what it runs; ``again``: ``argv`` may run more than once."""
        found = found or _Forms()
        self.tildes.note(argv)
        values = tuple(w.value for w in argv)
        if not values:
            return found
        reading = programs.read(values)
        if reading.values and values[0] is not None and programs.base(values[0]) == "git":
            # (the files git's settings include are read, and printed by `git config --list`, too;
            # so is the file a credential helper they set names)
            reading = replace(reading, values=(*reading.values, *self._git_reads.included(reading.values),
                                               *self._git_reads.helper_files(reading.values, self.cwds)))
        found.argvs.append(values)
        if values[0] is not None and "/" in values[0]:
            found.argvs.append((programs.base(values[0]), *values[1:]))
        found.argvs.extend(reading.spellings)
        if reading.program_form is not None:  # (`deny pip install **` sees `python -m pip install`)
            found.argvs.append(reading.program_form)
        if given is not None:
            found.given[len(found.commands)] = given
        found.commands.append((argv, reading))
        if again:
            found.again.add(len(found.commands) - 1)
        found.writes.extend(Redirect(target=argv[k], write=True, text=argv[k].raw) for k in reading.writes
                            if k < len(argv))
        found.unknown |= reading.unreadable or values[0] is None
        found.elevates |= reading.never is Opaque.ELEVATION
        if not reading.known:
            self._maybe_runs(argv, values, found)
        if reading.inners and depth >= MAX_DEPTH:
            found.unknown = True
            return found
        for inner in reading.inners:
            inner_given = given
            if inner.environment or inner.cleared:
                mine = line_environment.Given(dict(inner.environment), inner.cleared)
                inner_given = mine if given is None else given.then(mine)
            if inner.line is not None:
                nested = analyse(inner.line)
                found.unknown |= nested.opaque is not None  # it may hide commands the walk missed
                for command in nested.commands:
                    self.forms(command.argv, depth + 1, found, inner_given, again=again or not inner.once)
                found.writes.extend(r for r in nested.redirects if r.write)
            else:
                self.forms(_inner_words(argv, inner), depth + 1, found, inner_given, again=again or not inner.once)
        return found

    def _maybe_runs(self, argv: tuple[Word, ...], values: tuple[str | None, ...], found: _Forms) -> None:
        """A program the engine does not know may run any of its later words as a command
        (`prlimit rm -rf src`): those a deny rule or the floor could be about are looked at (the
        first few words)."""
        for k in range(1, min(len(argv), _MAYBE_WORDS)):
            raw = argv[k].value
            word = programs.base(raw)
            if raw is None or word is None or raw.startswith("-"):
                continue
            if self.deny_heads is None or word in self.deny_heads or raw in self.deny_heads:
                found.maybe.append(values[k:])
            if word in _DELETERS:
                found.maybe_commands.append((argv[k:], programs.read(values[k:])))

    # -- one command -----------------------------------------------------------------------------
    def command_part(self, command: Command) -> Part:
        values = [w.value for w in command.argv]

        def part(effect: Effect | None, provenance: Provenance, opaque: Opaque | None = None) -> Part:
            return Part(text=command.text, effect=effect, provenance=provenance, argv=tuple(v or "" for v in values),
                        opaque=opaque or command.opaque)

        forms = self.forms(command.argv)
        decided = self._where_a_grep_runs(command, forms, lambda: self._from_moved_folders(
            forms, lambda: self.refused(forms) or self.asked(forms)))
        if decided is not None:
            made = part(*decided)
            return replace(made, also=self._also_asking(command)) if made.effect is Effect.ASK else made
        folders = self._chain.get(id(command))
        if folders is None or folders == self.cwds:
            return self.by_allow_rules(command, part)
        # (`cd out && gcc -c ../src/a.c`: gcc runs in out only, and writes out/a.o; deny and ask
        # rules above were judged from every folder of the line all the same)
        saved = self.cwds, self._agent_settings
        self.cwds, self._agent_settings = folders, {}
        try:
            return self.by_allow_rules(command, part)
        finally:
            self.cwds, self._agent_settings = saved

    def _where_a_grep_runs(self, command: Command, forms: _Forms,
                           decide: Callable[[], _Decided | None]) -> _Decided | None:
        """``decide`` from the folders an ``&&`` chain's cds lead to alone (``_chain_folders``),
        for a git grep that searches only below the folder it runs in (``default_folders``:
        ``cd out && git grep KEY`` searched out/ only, s302) in the repository git finds from
        where the line runs (``_finds_the_line_repository``); anything else from every folder of
        the line."""
        folders = self._chain.get(id(command))
        values = tuple(w.value for w in command.argv)
        if (folders is None or folders == self.cwds or len(forms.commands) != 1 or command.environment
                or not values or values[0] is None
                or not default_folders.greps_below_its_folder(programs.base(values[0]), values[1:])
                or not self._finds_the_line_repository(folders)):
            return decide()
        saved = self.cwds
        self.cwds = folders
        try:
            return decide()
        finally:
            self.cwds = saved

    def _finds_the_line_repository(self, folders: Sequence[Path]) -> bool:
        """Whether git run in each of ``folders`` finds the repository it finds where the line
        runs: no ``.git`` on the way up that it could take instead, as the folders stand or as
        the line may make one (with ``out/.git`` holding ``gitdir: ../.git``, out/ is that
        repository's top and ``git grep --cached KEY`` there printed src/main.py's lines: s302)."""
        found = repository_roots(self.where.cwd)
        return all(repository_roots(folder) == found and not any(
            self.changes.touches(above / ".git") for above in (folder, *folder.parents)) for folder in folders)

    def _from_moved_folders(self, forms: _Forms, decide: Callable[[], _Decided | None]) -> _Decided | None:
        """``decide`` with the folders the commands change into by an option of their own
        (``folder_moves``) among the line's: a word they write or read is found from there too
        (``hg --cwd sub cat -o ../keep/x`` writes keep/x)."""
        moved: list[Path] = []
        for words, _ in forms.commands:
            moves = self.moves_of(words)
            moved += (self._git_reached(moves) or []) if moves.words else []
        if not moved:
            return decide()
        saved = self.cwds
        self.cwds = list(dict.fromkeys([*self.cwds, *moved]))
        try:
            return decide()
        finally:
            self.cwds = saved

    def _as_written(self, own: tuple[str | None, ...] | None) -> tuple[str | None, ...] | None:
        return self._written_as.get(own, own) if own is not None else None

    def _also_asking(self, command: Command) -> tuple[Opaque, ...]:
        """Why a command a deny or ask decided would ask all the same, where the reason shown does
        not tell it: the settings the agent may write that it reads (found only after the rules)."""
        if command.opaque is not None or command.program is None:
            return ()
        return (Opaque.AGENT_SETTINGS,) if self.agent_settings(tuple(w.value for w in command.argv)) else ()

    def refused(self, forms: _Forms) -> _Decided | None:
        """The floor, a write the write rules deny, a deny rule (one that may match: ask)."""
        for words, reading in forms.commands:
            if floor.delete_effect(words, reading, self.where, self.cwds, self.cwd_known) is Effect.DENY:
                return Effect.DENY, _floor(floor.RM_ROOTS), None
        for redirect in forms.writes:
            effect, provenance = self.redirect_effect(redirect)
            if effect is Effect.DENY:
                return Effect.DENY, provenance, None
        argvs = forms.argvs or [(None,)]
        for item in self.rules.bucket("deny").for_argvs(argvs):
            found = loose_match(item.matcher, argvs)
            if found is not Match.NO:
                return (Effect.DENY if found is Match.YES else Effect.ASK), provenance_of(item), None
        return None

    def asked(self, forms: _Forms) -> _Decided | None:
        """What asks: a deny rule that may match what an unknown program runs, a command deny
        rules cannot see, a word naming a denied path, a delete target only known when it runs,
        an ask rule, elevation."""
        if forms.maybe:
            for item in self.rules.bucket("deny").for_argvs(forms.maybe):
                if loose_match(item.matcher, forms.maybe) is not Match.NO:
                    return Effect.ASK, provenance_of(item), None
        if forms.unknown and self.rules.deny:
            return (Effect.ASK, Provenance(kind=Decider.OPAQUE, detail=Opaque.RUNS_OTHER_COMMAND.value),
                    Opaque.RUNS_OTHER_COMMAND)
        asking = self.names_denied_path(forms)
        if asking is not None:
            return Effect.ASK, asking, None
        if any(floor.delete_effect(words, reading, self.where, self.cwds, self.cwd_known) is not None
               for words, reading in (*forms.commands, *forms.maybe_commands)):
            return Effect.ASK, _floor(floor.RM_ROOTS, "target only known when it runs"), None
        argvs = forms.argvs or [(None,)]
        for item in self.rules.bucket("ask").for_argvs(argvs):
            if loose_match(item.matcher, argvs) is not Match.NO:
                return Effect.ASK, provenance_of(item), None
        if forms.elevates:
            return Effect.ASK, Provenance(kind=Decider.OPAQUE, detail=Opaque.ELEVATION.value), Opaque.ELEVATION
        return None

    def by_allow_rules(self, command: Command, part: _PartMaker) -> Part:
        """What no floor, deny or ask rule decided: only an allow rule, a grant or allow-in-sandbox."""
        if command.opaque is not None:
            return part(None, Provenance(kind=Decider.OPAQUE, detail=command.opaque.value))
        reading = self.read_with_settings(tuple(w.value for w in command.argv))
        if reading.never is not None:
            return part(None, Provenance(kind=Decider.OPAQUE, detail=reading.never.value), reading.never)
        if command.directory_change is not None and self.cd_outside:
            return part(None, Provenance(kind=Decider.OPAQUE, detail=Opaque.CD_OUTSIDE.value), Opaque.CD_OUTSIDE)
        if self._moves_outside(tuple(w.value for w in command.argv)) or self._given_moves_outside(command.argv):
            return part(None, Provenance(kind=Decider.OPAQUE, detail=Opaque.CD_OUTSIDE.value), Opaque.CD_OUTSIDE)
        if command.program is None:
            return part(None, Provenance(kind=Decider.OPAQUE, detail=Opaque.EXPANSION_IN_COMMAND.value),
                        Opaque.EXPANSION_IN_COMMAND)
        if self.agent_settings(tuple(w.value for w in command.argv)):
            return part(None, Provenance(kind=Decider.OPAQUE, detail=Opaque.AGENT_SETTINGS.value), Opaque.AGENT_SETTINGS)
        chosen = self.covered(command.argv, sandbox=False)
        if chosen is not None:
            return part(Effect.ALLOW, provenance_of(chosen))
        if self.rules.sandbox_allow:
            chosen = self.covered(command.argv, sandbox=True)
            if chosen is not None:
                return part(Effect.ALLOW_IN_SANDBOX, provenance_of(chosen))
        if reading.flags and self._would_match(command):
            return part(None, Provenance(kind=Decider.OPAQUE, detail=Opaque.DANGEROUS_OPTION.value),
                        Opaque.DANGEROUS_OPTION)
        return part(None, Provenance(kind=Decider.DEFAULT, detail="no rule matches"))

    def _would_match(self, command: Command) -> bool:
        values = tuple(w.value for w in command.argv)
        pools: list[Sequence[Compiled]] = [self.rules.allow, self.rules.grants, self.rules.sandbox_allow]
        return any(c.matcher is not None and c.matcher.match(values) is Match.YES for pool in pools for c in pool)

    def covered(self, argv: tuple[Word, ...], *, sandbox: bool, depth: int = 0) -> Compiled | None:
        """The allow rule or grant covering ``argv`` and everything it runs (each by a rule of its
        own), or ``None``. ``sandbox``: allow-in-sandbox rules count too."""
        self.tildes.note(argv)
        values = tuple(w.value for w in argv)
        if not values or values[0] is None:
            return None
        # The options its environment gives it (`TOX_CONFIG_FILE`): one not understood asks,
        # the rest are judged as the line's own (`option_variables`).
        given = self.variables_of(values)
        if given.unknown:
            return None
        if given.words:
            argv = (argv[0], *(Word(w, shlex.quote(w)) for w in given.words), *argv[1:])
            values = tuple(w.value for w in argv)
        if self._moves_outside(values):
            return None  # (also for a command a wrapper runs: `timeout 9 hg -R ../other update`)
        if not self._git_data_writable(values, sandbox):
            return None
        program = programs.base(values[0])
        moved = folder_moves.moves(program, values)
        if moved.words and program == "git":
            return self._covered_moved(argv, moved, sandbox=sandbox, depth=depth)
        if moved.words:
            return self._covered_where_it_works(argv, moved, sandbox=sandbox, depth=depth)
        return self._covered_here(argv, sandbox=sandbox, depth=depth)

    def _covered_where_it_works(self, argv: tuple[Word, ...], moved: git_repositories.Moves, *, sandbox: bool,
                                depth: int) -> Compiled | None:
        """``ninja -C DIR rest`` (make's ``-C``, hg's ``--cwd``: ``folder_moves``) covered as the
        line gives it, and judged again as ``cd DIR && ninja rest``, where it works: the file
        ``-f`` names, what it writes and the settings it reads are found from DIR (``ninja -C src
        -f ../out/x.ninja`` runs out/x.ninja). DIR must be a folder of the workspaces known before
        the line runs. The rule is the one covering the command as written: an option a rule
        covers only by naming it (make's ``-C``) still needs naming."""
        folders = self._git_moves(moved)
        if folders is None:
            return None
        as_written = self._covered_here(argv, sandbox=sandbox, depth=depth)
        if as_written is None:
            return None
        rest = self._without(argv, moved)
        # (`make -C * **` does not cover `make all`: judged as written there too)
        return as_written if self._covered_there(folders, argv, rest, sandbox=sandbox, depth=depth) else None

    def _covered_there(self, folders: list[Path], argv: tuple[Word, ...], rest: tuple[Word, ...], *, sandbox: bool,
                       depth: int) -> bool:
        """Whether from each of ``folders``, where the program works, a rule covers the command:
        as it runs there (``rest``, without its change-folder options) or as a rule naming those
        options has it (``argv``). The files its options name are found from there."""
        return self._in_folders(folders, lambda: any(
            self._covered_here(words, sandbox=sandbox, depth=depth) is not None for words in (rest, argv)))

    def _without(self, argv: tuple[Word, ...], moved: git_repositories.Moves) -> tuple[Word, ...]:
        """``argv`` without its change-folder options, known as the command ``argv`` is."""
        rest = tuple(w for k, w in enumerate(argv) if k not in moved.words)
        values = tuple(w.value for w in rest)
        if not any(tuple(w.value for w in c.argv) == values for c in self.analysis.commands):
            self._written_as[values] = tuple(w.value for w in argv)
        return rest

    def _covered_moved(self, argv: tuple[Word, ...], moved: git_repositories.Moves, *, sandbox: bool,
                       depth: int) -> Compiled | None:
        """``git -C DIR rest`` judged as ``cd DIR && git rest``: DIR must be a folder of the
        workspaces known before the line runs, and ``rest`` is matched as run there (a rule
        naming ``-C`` still matches the command as written, under the same conditions)."""
        folders = self._git_moves(moved)
        if folders is None:
            return None
        rest = self._without(argv, moved)
        as_written = self._covered_here(argv, sandbox=sandbox, depth=depth)
        if as_written is not None:
            # (and from DIR: a relative file an option names is written there, `git -C src diff
            # --output=x` writes src/x, `git -C src config --file ../out/c` writes out/c)
            return as_written if self._covered_there(folders, argv, rest, sandbox=sandbox, depth=depth) else None
        found: list[Compiled] = []

        def judge() -> bool:
            rule = self._covered_here(rest, sandbox=sandbox, depth=depth)
            found.extend([rule] if rule is not None else [])
            return rule is not None

        return found[0] if self._in_folders(folders, judge) and found else None

    def _git_moves(self, moved: git_repositories.Moves) -> list[Path] | None:
        """The folders ``-C`` leads to (``_git_reached``), or ``None``: one only known when the
        line runs, one outside the workspaces, or one through a link the line may make."""
        reached = self._git_reached(moved)
        if reached is None or any(not floor.inside(f, self.where.workspaces) or self.changes.through_link(f)
                                  for f in reached):
            return None
        return reached

    def _moves_outside(self, values: tuple[str | None, ...]) -> bool:
        """Whether the command ``values`` changes into a known folder outside the workspaces
        through an option of its own, as a ``cd`` there does: git's ``-C``, ``--git-dir`` and
        ``--work-tree`` (``git --work-tree=../other checkout .`` overwrites the files there), the
        options of ``program_options.FOLDER_OPTIONS`` (``hg -R ../other update null``, ``ninja
        -C ../other``: another repository's files, another project's build)."""
        if not values or values[0] is None or not self.cwd_known:
            return False
        if any(self._wrapped_elsewhere(inner) for inner in programs.read(values).inners if inner.folders):
            return True
        program = programs.base(values[0])
        if program == "git":
            reached = self._git_places(values)
        elif program is None:
            return False
        else:
            reached = settings_files.option_folders(program, values[1:], self.cwds, self.where.home)
        return reached is None or any(not floor.inside(f, self.where.workspaces) for f in reached)

    def _given_moves_outside(self, argv: tuple[Word, ...]) -> bool:
        """Whether a command a wrapper runs with the variables it gives moves into a folder
        outside the workspaces (``env GIT_DIR=../other git log``), as ``_moves_outside`` judges
        a command itself: the line asks either way, and the person is told why."""
        for inner in programs.read(tuple(w.value for w in argv)).inners:
            if inner.line is not None or inner.folders:
                continue
            words = _inner_words(argv, inner)
            given = bool(inner.environment) or inner.cleared
            with line_environment.giving(inner.environment, inner.cleared):
                if (given and self._moves_outside(tuple(w.value for w in words))) or self._given_moves_outside(words):
                    return True
        return False

    def _wrapped_elsewhere(self, inner: programs.Inner) -> bool:
        """Whether the folders a wrapper changes into before it runs ``inner`` (``env -C
        ../other make``) are not all known folders of the workspaces, the line's links aside."""
        reached = self._changed_into(inner.folders)
        return reached is None or any(not floor.inside(f, self.where.workspaces) or self.changes.through_link(f)
                                      for f in reached)

    def _git_data_writable(self, values: tuple[str | None, ...], sandbox: bool) -> bool:
        """Whether the write rules let git write the index file and the object folders its
        environment names (``git_variables``: ``GIT_INDEX_FILE=src/idx git add -A`` writes
        src/idx), as they judge ``cargo --target-dir``; not a git command: nothing to judge."""
        if programs.base(values[0]) != "git":
            return True
        data = git_repositories.folders(values, self.cwds).data
        return (self.cwd_known or not data) and all(self._writes_allowed(str(p / below), sandbox, values) for p in data for below in ("", _ANY_BELOW[0]))

    def _git_places(self, values: tuple[str | None, ...]) -> list[Path] | None:
        """The folders the git command ``values`` moves to by its options (``-C``, then
        ``--git-dir`` and ``--work-tree`` from there) and by the variables that do the same
        (``git_variables``: ``GIT_WORK_TREE=../other``, the index and object folders too), or
        ``None``: one in another account's home, or a variable's folder not known here. A folder
        only known when the line runs is left out (``_covered_moved`` asks for it)."""
        moved = git_repositories.moves(values)
        reached = self._git_reached(moved) if moved.words else list(self.cwds)
        if reached is None:
            return []
        rest = [v for i, v in enumerate(values) if i not in moved.words]
        readings = [rest]
        if any(v and (v.startswith("~") or "=~" in v) for v in rest):
            # (bash expands a leading ~ of a word and one after --git-dir=; dash only the first)
            expanded = [_home_after_equals(v, self.where.home) if v else v for v in rest]
            if any(v is not None and e is None for v, e in zip(rest, expanded, strict=True)):
                return None
            readings.append(expanded)
        places = [] if not moved.words else list(reached)
        for reading in readings:
            where = git_repositories.folders(reading, reached)
            if where.unknown:
                return None  # (a word only known when it runs, a variable's `~`: `GIT_DIR=~/r`)
            places += [n.git_dir for n in where.named] + list(where.worktrees) + list(where.data)
        return list(dict.fromkeys(t for f in places for t in (f, Path(os.path.realpath(f)))))

    def _git_reached(self, moved: git_repositories.Moves) -> list[Path] | None:
        """The folders ``-C`` leads to from each of the line's folders, each relative to the last
        (logical and physical, as a ``cd``), or ``None``: one only known when the line runs."""
        return self._changed_into(moved.folders)

    def _changed_into(self, values: Sequence[str | None]) -> list[Path] | None:
        """The folders a program changing into each of ``values`` in turn reaches from each of
        the line's folders (git's ``-C``, env's ``-C``), or ``None``: one only known when the line
        runs."""
        if not self.cwd_known:
            return None
        folders = list(self.cwds)
        for value in values:
            if value is None:
                return None
            if not value:
                continue  # (git ignores `-C ""`)
            # (a leading ~ is the home folder, or a folder named ~ if the shell left it: both count)
            spellings = [value, _home_expanded(value, self.where.home)] if value.startswith("~") else [value]
            if None in spellings:
                return None
            # (git's chdir is physical at each step: `-C out/l -C ..` is the folder above where l leads)
            folders = list(dict.fromkeys(t for f in folders for s in spellings if s is not None
                                         for t in (Path(os.path.normpath(f / s)), Path(os.path.realpath(f / s)))))
        return list(dict.fromkeys(t for f in folders for t in (f, Path(os.path.realpath(f)))))

    def _covered_here(self, argv: tuple[Word, ...], *, sandbox: bool, depth: int) -> Compiled | None:
        values = tuple(w.value for w in argv)
        reading = self.read_with_settings(values)
        if reading.never is not None or reading.unreadable or self._fed_commands(reading, depth):
            return None
        matched = reading.matched or values
        pools: list[Bucket | Sequence[Compiled]] = [self.rules.bucket("allow"), self.rules.grants]
        if sandbox:
            pools.append(self.rules.bucket("sandbox_allow"))
        # `python -m pip config list` is also `pip config list`, by pip's own rules and options;
        # the settings python -m reads (the current folder's modules among them) count too.
        own = _program_form(reading)
        forms = [(matched, reading), *([(own.matched or reading.program_form, own)]
                                       if own is not None and reading.program_form is not None else [])]
        rule = next((c for pool in pools for words, way in forms
                     for c in (pool.for_argvs([words]) if isinstance(pool, Bucket) else pool)
                     if allows(c.matcher, words, way)), None)
        if rule is None or (reading.inners and depth >= MAX_DEPTH):
            return None
        if self.agent_settings(values):
            return None
        if not all(self._inner_covered(argv, inner, rule, sandbox=sandbox, depth=depth) for inner in reading.inners):
            return None
        for k in reading.writes:
            if k < len(argv) and not self._allowed(self._write_effect(argv[k], values), sandbox):
                return None
        if not self._writes_all_allowed(reading, values, sandbox):
            return None
        if not self._variables_allowed(reading, values, sandbox):
            return None
        if own is not None and reading.program_form is not None and (
                self.agent_settings(reading.program_form) or not self._writes_all_allowed(own, values, sandbox)):
            return None
        return rule

    def read_with_settings(self, values: tuple[str | None, ...]) -> Reading:
        """``programs.read``, with what the program's settings where it runs make of its words:
        an hg command an extension may give is a flag a rule covers only by naming it
        (``hg_extensions``), one enabled that wraps hg's own commands writes its cache
        (``hg_extension_writes``), and one the engine has not audited asks (``hg_unaudited``); the
        editor git's or hg's settings name, where it starts one (``editor_settings``)."""
        reading = programs.read(values)
        program = programs.base(values[0]) if values and values[0] is not None else None
        if program is not None and program in ("git", "hg"):
            reading = editor_settings.with_set_editors(reading, values, program, self.cwds, self.where.home)
        if program == "hg":
            foreign = [*hg_extensions.foreign_flags(values, self.cwds, self.where.home),
                       *hg_unaudited.unaudited_flags(values, self.cwds, self.where.home)]
            if foreign:
                reading = replace(reading, flags=(*reading.flags, *foreign))
            cached = hg_extension_writes.cache_folders(tuple(values[1:]), self.cwds, self.where.home, values[0])
            if cached:
                reading = replace(reading, written_below=(*reading.written_below, *cached))
        return reading

    def _variables_allowed(self, reading: Reading, values: tuple[str | None, ...], sandbox: bool) -> bool:
        """Whether the write rules let the command write where its option variables say
        (``PIP_TARGET``), also as the program it runs (``python -m pip``), and it understands them."""
        forms = (values, *([reading.program_form] if reading.program_form is not None else []))
        for form in forms:
            given = self.variables_of(form)
            if given.unknown or not self._writes_all_allowed(
                    Reading(reading.program, written=given.written, written_below=given.written_below), values, sandbox):
                return False
        return True

    def _writes_all_allowed(self, reading: Reading, values: tuple[str | None, ...], sandbox: bool) -> bool:
        """Whether the write rules let the command (``values``) write every path ``reading``
        says it writes: files, the nearest of some, and anything below some folders (with the
        folders its settings name: ``settings_files.written_folders``)."""
        named = settings_files.written_folders(values, self.cwds, self.where.home)
        if named:
            reading = replace(reading, written_below=(*reading.written_below, *named))
        if not all(self._writes_allowed(path, sandbox, values) for path in _written_paths(reading)):
            return False
        if not all(self._writes_allowed(path, sandbox, values)
                   for path in self._nearest(reading.written_nearest, values)):
            return False
        if any(self._below_refused(folder) for folder in reading.written_below if folder is not None):
            return False
        if any(self._removal_refused(folder, values) for folder in removed_folders(values, reading)):
            return False
        if any(self._landing_refused(source, destination, values)
               for source, destination in landings(values, reading)):
            return False
        if any(self._below_refused(top, repository_aside=True) for top in self._worktree_tops(values)):
            return False
        links = [p for folder in reading.written_below if folder is not None for p in self._links_below(folder)]
        if not all(self._writes_allowed(path, sandbox, values) for path in links):
            return False
        return all(self._rewritten_allowed(target) for target in reading.rewritten)

    def _worktree_tops(self, values: tuple[str | None, ...]) -> list[str | None]:
        """The tops of the worktrees a git command writes files below from a tree git chooses
        (``git_worktree_updates``: ``git checkout BRANCH``, ``git merge``); ``None``: one only
        known when the line runs."""
        if not values or programs.name_of(values[0] or "") != "git" or not git_worktree_updates.updates_worktree(values):
            return []
        if not self.cwd_known:
            return [None]
        return git_worktree_updates.tops(values, self.cwds)

    def _rewritten_allowed(self, target: str | None) -> bool:
        """Whether a program may rewrite ``target`` in place (``Reading.rewritten``): it, and
        where it leads, inside a workspace. (ruff walks a folder without following the links in
        it, but follows one it is given: ruff 0.17.) The write rules inside the workspace are
        not asked: ``ruff check .`` stays allowed beside a denied ``.git/**``, which ruff skips."""
        if target is None:
            return False
        texts = [_home_expanded(f, self.where.home) for f in self.tildes.spellings(target)]
        if None in texts:
            return False
        places = [Path(t) if os.path.isabs(t) else c / t for t in texts if t is not None for c in self.cwds]
        return all(floor.inside(Path(os.path.normpath(p)), self.where.workspaces)
                   and floor.inside(Path(os.path.realpath(p)), self.where.workspaces) for p in places)

    def _fed_commands(self, reading: Reading, depth: int) -> bool:
        """Whether the line may give a program commands on its input (``Reading.commands_from_input``):
        a pipe or a ``<`` of the line; run by another program (depth > 0), whatever that program
        is given or makes (``bash -c``'s own input, ``xargs -o``)."""
        return reading.commands_from_input and (depth > 0 or self.analysis.gives_input)

    def _links_below(self, folder: str) -> list[str | None]:
        """The links already below a folder a program writes anywhere below (``tar -x``): it
        writes through them (a member ``l/.bashrc`` lands where ``l`` leads), so each link, and
        a file through it, is a path it writes. ``None``: too many names to look at."""
        texts = [_home_expanded(f, self.where.home) for f in self.tildes.spellings(folder)]
        if None in texts:  # ~user: another account's home, not known here
            return [None]
        found: list[str | None] = []
        seen = 0
        for top in (t if os.path.isabs(t) else str(c / t) for t in texts if t is not None
                    for c in ([Path("/")] if os.path.isabs(t) else self.cwds)):
            if not os.path.isdir(top):
                continue
            for dirpath, dirnames, filenames in os.walk(top):
                seen += len(dirnames) + len(filenames)
                if seen > _MAX_WALK:
                    return [None]
                for name in (*dirnames, *filenames):
                    path = os.path.join(dirpath, name)
                    if os.path.islink(path):
                        found += [path, os.path.join(path, _ANY_BELOW[0])]
        return found

    def _nearest(self, names: tuple[str, ...], own: tuple[str | None, ...]) -> list[str | None]:
        """``Reading.written_nearest`` as paths: the files in the nearest folder, at or above each
        folder the command (``own``) may run in, holding the first name (none: the folder it runs
        in). A folder where another command of the line may create, delete or move that file (or
        a folder above it: ``rm go.mod && go mod tidy``) may or may not be the one it finds: its
        files count, and so do those of the folders above, up to one the line leaves alone.
        ``None``: where it runs is not known."""
        if not names:
            return []
        if not self.cwd_known:
            return [None]
        found: list[str | None] = []
        for cwd in self.cwds:
            folders: list[Path] = []
            for folder in (cwd, *cwd.parents):
                if self.changes.touches(folder / names[0], self._as_written(own)):
                    folders.append(folder)
                elif os.path.lexists(folder / names[0]):
                    folders.append(folder)
                    break
            else:
                folders.append(cwd)
            found += [str(folder / name) for folder in dict.fromkeys(folders) for name in names]
        return found

    def _below_refused(self, folder: str | None, *, repository_aside: bool = False) -> bool:
        """Whether a deny or ask write rule may match something below a folder a program writes
        anywhere below (``tar -x -C out`` beside ``@workspace/**/.github/**`` denied): the names
        standing for what it writes there match no glob starting above the folder, so the rules'
        starting folders are judged (``below_reach``), and the protected places there, for the
        folder as written and as the kernel reads it. ``None``: a folder only known when the
        line runs. ``repository_aside``: a worktree's top git writes from a tree (see
        ``below_reach.reaches_below``)."""
        places = self._places(folder)
        if places is None:
            return True
        refusing = [c for c in self.rules.write if c.rule is not None and c.rule.effect in (Effect.DENY, Effect.ASK)]
        return any(reaches_below(c, place, self.where, repository_aside=repository_aside) for c in refusing
                   for place in places) or any(place == p or place in p.parents
                                               for place in places for p in self.where.protected)

    def _removal_refused(self, folder: str | None, values: tuple[str | None, ...]) -> bool:
        """Whether a deny or ask write rule may match a file below a folder the command removes
        or moves away whole (``removed_folders``: ``rm -r out/d`` beside ``@workspace/**/*.env``
        denied). A path that is a plain file now, which no other command of the line changes,
        holds nothing below it: ``mv a.txt b.txt`` is judged by its words alone."""
        return self._may_hold_files(folder, values) and self._below_refused(folder)

    def _landing_refused(self, source: str | None, destination: str | None, values: tuple[str | None, ...]) -> bool:
        """Whether a deny or ask write rule may match a file where a folder the command moves
        whole lands (``removed_folders.landings``: ``mv out/d prod`` beside ``@workspace/prod/*.env``
        denied put ``out/d/x.env`` at ``prod/x.env``): anywhere below the destination, which
        holds ``prod/d/…`` too. A plain file moved is judged by its words alone."""
        return self._may_hold_files(source, values) and self._below_refused(destination)

    def _may_hold_files(self, folder: str | None, values: tuple[str | None, ...]) -> bool:
        """Whether a path the command (``values``) removes or moves whole may be a folder with
        files below it when it runs: not a plain file now that no other command of the line
        changes (``None``: a path only known when it runs may be)."""
        places = self._places(folder)
        if places is None:
            return True
        return not all(_plain_file(p) and not self.changes.touches(p, values) for p in places)

    def _places(self, folder: str | None) -> list[Path] | None:
        """Where a folder word of the command leads, from each folder the line may run in: the
        path as written (``..`` taken lexically) and as the kernel reads it; ``None`` when only
        known when the line runs (a relative one after a ``cd`` to a folder not known, ``~user``)."""
        if folder is None:
            return None
        texts = [_home_expanded(f, self.where.home) for f in self.tildes.spellings(folder)]
        if None in texts or (not self.cwd_known and any(not os.path.isabs(t) for t in texts if t is not None)):
            return None
        joined = [t if os.path.isabs(t) else str(c / t) for t in texts if t is not None
                  for c in ([Path("/")] if os.path.isabs(t) else self.cwds)]
        return list(dict.fromkeys(p for j in joined for p in both_readings(j)))

    def _writes_allowed(self, path: str | None, sandbox: bool, own: tuple[str | None, ...] | None = None) -> bool:
        """Whether the write rules let a program (``own``) write ``path`` (``None``: only known
        when it runs)."""
        return self._allowed(self._write_effect(Word(path, path if path is not None else ""), own), sandbox)

    def _write_effect(self, word: Word, own: tuple[str | None, ...] | None = None) -> Effect | None:
        """What the write rules say of a program (``own``) writing ``word``, judged as a
        redirection to it."""
        return self.redirect_effect(Redirect(word, True, word.raw), own)[0]

    def _inner_covered(self, argv: tuple[Word, ...], inner: programs.Inner, rule: Compiled, *, sandbox: bool,
                       depth: int) -> bool:
        """Whether a command the covered wrapper runs is covered too: by rules of its own, or by
        the wrapper's rule naming it (``npx tsc **``); judged with the variables the wrapper
        gives it (``env NAME=value CMD``: ``line_environment``)."""
        if inner.folders:
            # (`env -C src git status`: judged as run there, as `cd src && git status` is)
            if self._wrapped_elsewhere(inner):
                return False
            folders = self._changed_into(inner.folders) or []
            return self._in_folders(folders, functools.partial(
                self._inner_covered, argv, replace(inner, folders=()), rule, sandbox=sandbox, depth=depth))
        if not inner.environment and not inner.cleared:
            return self._inner_covered_as_given(argv, inner, rule, sandbox=sandbox, depth=depth)
        with line_environment.giving(inner.environment, inner.cleared):
            return self._inner_covered_as_given(argv, inner, rule, sandbox=sandbox, depth=depth)

    def _inner_covered_as_given(self, argv: tuple[Word, ...], inner: programs.Inner, rule: Compiled, *,
                                sandbox: bool, depth: int) -> bool:
        if inner.line is not None and inner.elsewhere:
            check = functools.partial(self.line_covered, inner.line or "", inner.grammar, sandbox=sandbox, depth=depth + 1)
            values = tuple(w.value for w in argv)
            # (`git submodule foreach`: each submodule's folder, when the index says which)
            folders = git_foreach.folders(values, self.cwds) if self.cwd_known else None
            if folders is not None and not self.index_changes(values):
                return self._in_folders(folders, check)
            return self._elsewhere(check)
        if inner.line is not None:
            return self.line_covered(inner.line, inner.grammar, sandbox=sandbox, depth=depth + 1)
        if _fills_an_option(argv, inner):
            return False
        words = _inner_words(argv, inner)
        if self.covered(words, sandbox=sandbox, depth=depth + 1) is not None:
            return True
        # The wrapper's rule names the words, not the settings the agent may have written that
        # the inner command reads (`timeout 600 pytest out` imports out/conftest.py, as
        # `pytest out` does).
        return _names_inner(rule, inner, words) and not self.agent_settings(tuple(w.value for w in words))

    def _elsewhere(self, check: Callable[[], bool]) -> bool:
        """``check`` judged as run in a folder not known here (``Inner.elsewhere``): a relative
        path, and the settings a program finds from where it runs, are not known either (the
        settings found from the line's folders are not kept for it)."""
        saved = self.cwd_known, self._agent_settings
        self.cwd_known, self._agent_settings = False, {}
        try:
            return check()
        finally:
            self.cwd_known, self._agent_settings = saved

    def _in_folders(self, folders: list[Path], check: Callable[[], bool]) -> bool:
        """``check`` judged as run in each of ``folders`` (none: nothing runs), with the
        settings found from there."""
        if not folders:
            return True
        saved = self.cwds, self._agent_settings
        self.cwds, self._agent_settings = folders, {}
        try:
            return check()
        finally:
            self.cwds, self._agent_settings = saved

    def agent_settings(self, values: tuple[str | None, ...]) -> list[Path]:
        """Settings files the command reads that the write rules let the agent write (see
        ``settings_files``); every place is one when the folder it runs in is not known."""
        if line_environment.given() is not None:
            return self._find_agent_settings(values)  # (with the line's variables: not kept)
        known = self._agent_settings.get(values)
        if known is None:
            known = self._agent_settings[values] = self._find_agent_settings(values)
        return known

    def variables_of(self, values: tuple[str | None, ...]) -> option_variables.FromEnvironment:
        """What the option variables of the command ``values`` make of it
        (``option_variables.from_environment``), worked out once for each command and what the
        line gives it: where its rule is looked for, where it writes and which settings it reads
        all need it. (The environment it inherits is the same for the whole verdict.)"""
        given = line_environment.given()
        key = (values, None if given is None else given.key())
        found = self._variables.get(key)
        if found is None:
            found = self._variables[key] = option_variables.from_environment(values)
        return found

    def _find_agent_settings(self, values: tuple[str | None, ...]) -> list[Path]:
        git = bool(values) and programs.base(values[0]) == "git"
        with line_environment.reading() as read:
            variables = self.variables_of(values)
            read.update(variables.read)
            found = settings_files.places(values, self.cwds, self.where.home,
                                          index_changes=git and self.index_changes(values), variables=variables)
            programs.read(values)  # (where its settings commands write: read again, see programs.read)
        if _loose_variables(values, read, bool(found)):
            found.append(settings_files.ANY_FILE)
        # The program itself, when found on PATH: a file of its name the agent may plant in a
        # folder searched before the real one is what runs (``path_search``, s319).
        # Its children look names up on the same PATH (``make`` runs ``cc``, a ``#!/usr/bin/env
        # python3`` script ``python3``): any file of any folder on it may run (s321).
        word = values[0] if values else None
        run, searched = self._on_path(word)
        ran = ([settings_files.ANY_FILE] if run is None or searched is None else
               [settings_files.Place(p.parent, (p.name,)) for p in run]
               + [settings_files.Place(folder, (), suffixes=("",)) for folder in searched])
        if not found and not ran:
            return []
        if not self.cwd_known and (found or path_search.searches_the_working_folder()):
            return [(found or ran)[0].folder]
        found += ran
        allows = [c for c in self.rules.write
                  if c.grant is not None or (c.rule is not None and c.rule.effect is Effect.ALLOW)]
        allowing = [c.matcher for c in allows if isinstance(c.matcher, PathPattern)]
        # An allow needs a rule or grant matching the path itself: with none for the whole
        # family, a path none of the patterns matches is not writable, and the full verdict
        # (every deny, ask and the floor too) is only worked out for the rest.
        unbounded = any(c.matcher is None for c in allows)
        if not unbounded and not allowing:
            return []  # (no path is writable: the places need not be made concrete)
        where = self.where

        def writable(path: Path) -> bool:
            if not unbounded and not any(p.match(path, workspaces=where.workspaces, home=where.home,
                                                 contents=False) is Match.YES for p in allowing):
                return False
            return path_verdict([path], True, self.rules.write, where, text=str(path)).effect is Effect.ALLOW

        def bases(pattern: PathPattern) -> list[Path]:
            return pattern.bases(workspaces=self.where.workspaces, home=self.where.home)

        return settings_files.writable_places(found, writable, allowing, bases, self._writable_found)

    def _on_path(self, word: str | None) -> tuple[list[Path] | None, list[Path] | None]:
        """``path_search.candidates`` and ``path_folders`` for ``word``, each worked out once a
        verdict for the same PATH, folders and word (the folders do not depend on the word)."""
        at = (line_environment.get("PATH"), tuple(self.cwds), self.where.home)
        run_key = ("run", word, *at)
        if run_key not in self._path_found:
            self._path_found[run_key] = path_search.candidates(word, self.cwds, self.where.home, self._real_folders)
        if not path_search.looked_up(word):
            return self._path_found[run_key], []
        folders_key = ("folders", *at)
        if folders_key not in self._path_found:
            self._path_found[folders_key] = path_search.path_folders(word, self.cwds, self.where.home,
                                                                      self._real_folders)
        return self._path_found[run_key], self._path_found[folders_key]

    def index_changes(self, values: tuple[str | None, ...]) -> bool:
        """Whether a git command of the line other than ``values`` (or ``values`` run again) may
        add entries to git's index first: the submodules read from the index before the line
        runs are then not all the folders its git commands may run git in."""
        if self._index_changers is None:
            changers: list[tuple[str | None, ...]] = []
            for command in self.analysis.commands:
                forms = self.forms(command.argv)
                for k, (words, _) in enumerate(forms.commands):
                    argv = tuple(w.value for w in words)
                    if argv and programs.base(argv[0]) == "git" and git_reading.changes_index(argv):
                        # (`xargs -n1 git add` may run it again; `env git add` runs it once)
                        changers += [argv, argv] if k in forms.again else [argv]
            self._index_changers = changers
        others = list(self._index_changers)
        if values in others:
            others.remove(values)
        return bool(others)

    def line_covered(self, line: str, grammar: Grammar | None, *, sandbox: bool, depth: int) -> bool:
        """A shell line a command runs (``bash -c LINE``): plain in its shell's grammar, with every
        command and redirection covered; it may not change directory."""
        if grammar is None:
            return False
        nested = analyse(line, grammar=grammar)
        if not nested.allowable or not nested.commands or nested.changes_directory:
            return False
        if any(not self._allowed(self.redirect_effect(r)[0], sandbox) for r in nested.redirects):
            return False
        return all(self.covered(c.argv, sandbox=sandbox, depth=depth) is not None for c in nested.commands)

    def would_cover(self, pattern: str, words: tuple[Word, ...], reading: Reading) -> tuple[str, ...] | None:
        """Whether an allow rule ``pattern`` would cover ``words`` (for a wrapper: its own form;
        what it runs as words of the line gets a suggestion of its own): ``None`` when it would not;
        else the programs of the shell lines the command runs (an editor, ``sh -c``) that the rule
        does not cover and the rules do not allow yet, each needing a rule of its own (empty: the
        rule allows the command). ``None`` too when such a line cannot be named program by program."""
        matcher = compile_tokens(pattern)
        values = tuple(w.value for w in words)
        moved = self.moves_of(words)
        rest = tuple(v for k, v in enumerate(values) if k not in moved.words)
        # (git -C: the rule is matched against what runs where it works, see `_covered_moved`)
        if not allows(matcher, reading.matched or values, reading) and not (
                moved.words and values[0] is not None and programs.base(values[0]) == "git"
                and allows(matcher, rest, programs.read(rest))):
            return None
        rule = Rule(effect=Effect.ALLOW, tool="shell", family=Family.SHELL, pattern=pattern, reason="",
                    examples=Examples(), source=RuleSource(layer=Layer.GRANT))
        suggested = Compiled(tool="shell", family=Family.SHELL, matcher=matcher, rule=rule)
        lines = [inner for inner in reading.inners if inner.line is not None]
        if reading.inners and not lines:
            return ()
        if not reading.inners:
            trial = self._trial(replace(self.rules, allow=(suggested,), grants=(), buckets=None))
            return () if trial.covered(words, sandbox=False) is not None else None
        # What it runs as a line needs rules of its own: the rule with the rules in force, to
        # say which of its programs still have none (a rule for ``vi`` allows ``git commit``'s editor).
        trial = self._trial(self.rules.trying([suggested]))
        if trial.covered(words, sandbox=False) is not None:
            return ()
        missing: list[str] = []
        for inner in lines:
            uncovered = trial.line_programs_uncovered(inner)
            if uncovered is None:
                return None
            missing += uncovered
        # (none named: what keeps it asking is not a program of those lines; no suggestion then)
        return tuple(dict.fromkeys(missing)) or None

    def _trial(self, rules: Rules) -> _Judge:
        """A judge of the same line under ``rules`` (a suggested rule tried)."""
        trial = _Judge(rules, self.where, Analysis(line=""))
        trial.cwds, trial.cwd_known = self.cwds, self.cwd_known
        trial._path_found, trial._real_folders = self._path_found, self._real_folders  # (no rule changes PATH)
        return trial

    def line_programs_uncovered(self, inner: programs.Inner) -> list[str] | None:
        """The programs of the shell line ``inner`` whose commands no rule covers, by name;
        ``None`` when the line is not one to name so (not read, not plain, leaving its folder,
        redirecting, a program named by no plain word)."""
        if inner.grammar is None or not inner.line or inner.folders or inner.environment or inner.cleared:
            return None
        nested = analyse(inner.line, grammar=inner.grammar)
        if not nested.allowable or not nested.commands or nested.changes_directory or nested.redirects:
            return None
        names: list[str] = []
        for command in nested.commands:
            program = command.argv[0].value if command.argv else None
            if program is None or not _plain(program):
                return None
            if self.covered(command.argv, sandbox=False, depth=1) is None:
                names.append(program)
        return names

    @staticmethod
    def _allowed(effect: Effect | None, sandbox: bool) -> bool:
        return effect is Effect.ALLOW or (sandbox and effect is Effect.ALLOW_IN_SANDBOX)

    # -- paths -----------------------------------------------------------------------------------
    def names_denied_path(self, forms: _Forms) -> Provenance | None:
        """Why to ask when a word may name a path a read/write deny rule (or the floor's own
        settings) covers: the program might read or write it."""
        checked: set[tuple[str | None, str, bool]] = set()
        for k, (words, reading) in enumerate(forms.commands):
            given = forms.given.get(k)
            if given is None:
                found = self._names_denied_from(words, reading, checked)
            else:
                with line_environment.giving(tuple(given.values.items()), given.cleared):
                    found = self._names_denied_from(words, reading, checked)
            if found is not None:
                return found
        return None

    def _names_denied_from(self, words: tuple[Word, ...], reading: Reading,
                           checked: set[tuple[str | None, str, bool]]) -> Provenance | None:
        """``names_denied_path`` for one command, its relative words read from each folder it
        may run in: for ``git -C DIR`` (``ninja -C DIR``, ``hg --cwd DIR``: ``folder_moves``),
        the folders it changes into as well."""
        moved = self.moves_of(words)
        folders = self._git_moves(moved) if moved.words else None
        if not folders:
            return self._names_denied_here(words, reading, checked)
        saved = self.cwds
        if default_folders.greps_below_its_folder(programs.base(words[0].value or ""),
                                                  tuple(w.value for w in words[1:])) and self._finds_the_line_repository(folders):
            # git changes into each -C folder before it reads any other word, and stops if it
            # cannot (``git -C out grep KEY -- .`` searched out/ only: strace, git 2.39, s299;
            # ``git -C out grep KEY`` too, s302): the -C words are judged from where the line
            # runs, the plain pathspecs (or the folder, given none) from there alone. (Not a glob:
            # ``-- '../*'`` matched ../src/main.py, and its word names no file.)
            found = self._names_denied_here((words[0], *(words[k] for k in sorted(moved.words))), reading, set())
            if found is not None:
                return found
            self.cwds = folders
        else:
            self.cwds = list(dict.fromkeys([*self.cwds, *folders]))
        try:
            return self._names_denied_here(words, reading, set())
        finally:
            self.cwds = saved

    @staticmethod
    def moves_of(words: tuple[Word, ...]) -> git_repositories.Moves:
        """The change-folder options of the command ``words`` (``folder_moves``)."""
        values = tuple(w.value for w in words)
        return folder_moves.moves(programs.base(values[0]) if values and values[0] is not None else None, values)

    def _names_denied_here(self, words: tuple[Word, ...], reading: Reading,
                           checked: set[tuple[str | None, str, bool]]) -> Provenance | None:
        shallow = lists_entries_only(words)
        values = tuple(w.value for w in words)
        named_only = named_files.reads_named_files_only(programs.name_of(values[0]) if values else None, values[1:])
        reading, found = self._git_settings_read(words, reading)
        if found is not None:
            return found
        found = self._unnamed_denied(words, reading, shallow=shallow)
        if found is not None:
            return found
        working = _working_words(values, reading)
        for k, word in enumerate((*words[1:], *(Word(v, v) for v in reading.values)), start=1):
            runs_there = k in working
            key = (word.value, word.raw, reading.reads_only)
            if key in checked:
                continue  # the same word again (`ls a a a …`)
            if not runs_there:  # (judged more narrowly: the same word as an operand is judged again)
                checked.add(key)
            entries = False
            if word.value is None:
                folder = _glob_folder(word)
                if folder is not None:
                    found = self._glob_denied(word, reading, shallow=shallow, named_only=named_only)
                    if found is not None:
                        return found
                    # Its matches are inside that folder: for a reader of named files, the ones
                    # the line may add there count, not what is further down. (A folder named
                    # outright, ``wc -l ~/.ssh/``, still asks: the line asks for what it holds.)
                    entries = named_only and "/" not in word.raw[len(folder) if folder != "." else 0:]
                    word = Word(folder, folder)
                elif self.path_denies and not word.raw.startswith(("<(", ">(")):
                    return provenance_of(self.path_denies[0])  # only known when it runs: may be one
                else:
                    continue
            if self.path_denies and self._through_proc(word.value):
                return provenance_of(self.path_denies[0])  # which file depends on the process
            for target in self._paths_of(word):
                if floor.inside(target, self.where.protected):
                    return _floor(floor.OWN_SETTINGS_NAMED)
                found = self._denied(target, reading, shallow=shallow or entries, runs_there=runs_there)
                if found is not None:
                    return found
        return None

    def _git_settings_read(self, words: tuple[Word, ...], reading: Reading) -> tuple[Reading, Provenance | None]:
        """For a git command reading its settings (``git_unnamed_reads``), run in ``self.cwds``
        (where ``-C`` leads, here): ``reading`` with the files the credential helpers of the
        repository found there name (``git -C DIR credential fill`` runs DIR's, s322) and the
        local repositories its configured remotes lead it to (``git_configured_places``), and the
        read deny a settings file not read here may hide (``settings_unread``: git reads it all
        the same, and may run a helper or include a file it names)."""
        if not reading.values or not words or programs.base(words[0].value or "") != "git":
            return reading, None
        if self.read_denies and self._git_reads.settings_unread(reading.values, self.cwds):
            return reading, provenance_of(self.read_denies[0])
        # (a fetch from a remote whose URL is a path reads that repository: s325)
        ends = git_configured_places.read(tuple(w.value for w in words), self.cwds, self.where.home)
        if ends is None and self.read_denies:
            return reading, provenance_of(self.read_denies[0])
        more = [v for v in (*self._git_reads.helper_files(reading.values, self.cwds), *(ends or ()))
                if v not in reading.values]
        return (replace(reading, values=(*reading.values, *more)) if more else reading), None

    def _unnamed_denied(self, words: tuple[Word, ...], reading: Reading, *, shallow: bool) -> Provenance | None:
        """The deny rule reached by what the command reads without its words naming it: files
        listed elsewhere, links below the folders it reads, the folder it runs in."""
        if self.read_denies and listed_files.reads_listed_files([w.value for w in words]):
            return provenance_of(self.read_denies[0])  # the files it reads are named elsewhere
        if self.path_denies and _follows_links(words):
            found = self._linked_denied(words, reading)
            if found is not None:
                return found
        return self._working_folder_denied(tuple(w.value for w in words), reading, shallow=shallow)

    def _working_folder_denied(self, values: tuple[str | None, ...], reading: Reading, *,
                               shallow: bool) -> Provenance | None:
        """The read deny a program reaches reading the folder it runs in without the line
        naming it (``grep -r KEY``, ``rg KEY``: ``default_folders``), judged as ``.`` would be.
        It only reads there: the write rules are not its business."""
        if not self.read_denies or not values:
            return None
        program = programs.name_of(values[0])
        folders = list(self._paths_of(Word(".", ".")))
        if default_folders.reads_repository(program, values[1:], folders, self.where.home, runner=values[0],
                                            is_path=functools.partial(self._git_path, folders)):
            folders += [top for folder in folders for top in repository_tops(folder, program)]
        elif not default_folders.reads_working_folder(program, values[1:]):
            return None
        for target in folders:
            found = self._denied(target, reading, shallow=shallow, denies=self.read_denies)
            if found is not None:
                return found
        return None

    def _git_path(self, folders: list[Path], word: str) -> bool:
        """Whether git, run in any of ``folders``, takes ``word`` before ``--`` as the path of a
        file (``git_whole_reads.names_a_file``) when it runs: the line's other commands
        (``cd`` aside) and its writes could remove the file or make a ref of its name first."""
        others = [c for c in self.analysis.commands if programs.name_of(c.argv[0].value if c.argv else None) != "cd"]
        return len(others) == 1 and all(
            git_whole_reads.names_a_file(word, folder) and not self.changes.touches(folder / word) for folder in folders)

    def _denied(self, target: Path, reading: Reading, *, shallow: bool = False, runs_there: bool = False,
                named_only: bool = False, denies: Sequence[Compiled] | None = None) -> Provenance | None:
        """The deny rule reached by a program reading (or writing) ``target``: the rule matches
        it or what it holds, or (a folder above what the rule denies) the program reaches it
        going down. ``shallow``: the program reads only the names and details of a folder's
        entries (``lists_entries_only``), so a folder two levels down is out of its reach, and
        an entry counts only where the rule names the entry itself (``~/.ssh``, not ``~/.ssh/**``).
        ``runs_there``: ``target`` is the folder the program works in (``ninja -C DIR``:
        ``folder_moves.working_folder_words``), judged as the folder a program runs in is: only a
        rule matching it or what it holds, not one below it (``ninja -C ..`` from src beside a
        denied ``.git/**``, as ``ninja`` at the workspace's top). ``denies``: the rules to judge
        by (the path denies unless given). ``named_only``: the program reads ``target`` only if it
        is a file, nothing a folder holds (``named_files``)."""
        real = Path(os.path.realpath(target))
        forms = {target, real} if named_only else {target, real, target / "any-file", real / "any-file"}
        where = self.where
        for item in self.path_denies if denies is None else denies:
            assert item.matcher is not None
            if any(item.matcher.match(f, workspaces=where.workspaces, home=where.home) is Match.YES for f in forms):
                return provenance_of(item)
            # A folder above what the rule denies: a program that reads (or, for a write rule,
            # writes) recursively reaches it — unless the program only reads and it is a write rule.
            if named_only or runs_there or (reading.reads_only and item in self.rules.write):
                continue
            bases = item.matcher.bases(workspaces=where.workspaces, home=where.home)
            if shallow:
                if any(b == f or (b.parent == f and self._names_entry(item, b)) for b in bases for f in (target, real)):
                    return provenance_of(item)
            elif any(b == f or f in b.parents for b in bases for f in (target, real)):
                return provenance_of(item)
        return None

    def _names_entry(self, item: Compiled, entry: Path) -> bool:
        """Whether a deny rule covers ``entry`` itself, as a listing of its folder shows it (its
        name and details); a pattern ending in ``/`` names the folder itself too."""
        assert isinstance(item.matcher, PathPattern)
        found = item.matcher.match(entry, workspaces=self.where.workspaces, home=self.where.home)
        return found is Match.YES or item.matcher.text.endswith("/")

    def _glob_denied(self, word: Word, reading: Reading, *, shallow: bool = False,
                     named_only: bool = False) -> Provenance | None:
        """A glob's matches may be links that lead elsewhere (`out/*/.ssh/key`, out/home a link):
        every name it could match is checked, as the program reads it."""
        if not self.path_denies:
            return None
        matches = self._glob_matches(word.raw)
        if matches is None:
            return provenance_of(self.path_denies[0])
        for target in matches:
            found = self._denied(target, reading, shallow=shallow, named_only=named_only)
            if found is not None:
                return found
        return None

    def _glob_matches(self, raw: str) -> list[Path] | None:
        """Every path a glob could match (a superset of bash's: hidden names match too, and `.`
        and `..` for a pattern that starts with a dot), or None when there are too many to check."""
        text = _home_expanded(raw, self.where.home)
        if text is None:
            return None
        current = [Path("/")] if os.path.isabs(text) else list(self.cwds)
        for part in text.split("/"):
            if part in ("", "."):
                continue
            if not any(c in part for c in _GLOB_CHARS):
                current = [Path(os.path.join(c, part)) for c in current]
                continue
            pattern = part.replace("[^", "[!")  # bash's two spellings of a negated class
            # A pattern that starts with a dot matches `.` and `..` too in dash and in bash
            # before 5.2 (no globskipdots): `src/.*/link-home/.ssh/key` climbs out of src.
            dots = (".", "..") if pattern.startswith(".") else ()
            found: list[Path] = []
            for folder in current:
                try:
                    found += [Path(os.path.join(folder, name)) for name in (*dots, *os.listdir(folder))
                              if fnmatch.fnmatchcase(name, pattern)]
                except OSError:
                    continue
                if len(found) > _MAX_GLOB_PATHS:
                    return None
            current = found
        return current

    def _linked_denied(self, words: tuple[Word, ...], reading: Reading) -> Provenance | None:
        """For a program that follows links while it reads folders (``grep -R``, ``rg -L``, ``diff -r``): a
        link below a folder it is given (none given: the current one) that leads to a denied path."""
        folders = [c / w.value if not os.path.isabs(w.value) else Path(w.value)
                   for w in words[1:] if w.value and not w.value.startswith("-") for c in self.cwds]
        folders = [f for f in folders if os.path.isdir(f)] or list(self.cwds)  # none named: the current one
        seen = 0
        for top in folders:
            for dirpath, dirnames, filenames in os.walk(top):
                seen += len(dirnames) + len(filenames)
                if seen > _MAX_WALK:
                    return provenance_of(self.path_denies[0])
                for name in (*dirnames, *filenames):
                    path = os.path.join(dirpath, name)
                    if os.path.islink(path):
                        found = self._denied(Path(path), reading)
                        if found is not None:
                            return found
        return None

    def _through_proc(self, value: str | None) -> bool:
        if not value or value.startswith("-") or value in READABLE_DEVICES or value in HARMLESS_TARGETS:
            return False
        expanded = _home_expanded(value, self.where.home)
        return expanded is not None and any(through_proc(expanded, c) for c in self.cwds)

    def _paths_of(self, word: Word) -> list[Path]:
        value = word.value
        if value is None or not value or value.startswith("-"):
            return []
        # (a `~` the shell left: the program may open the home folder's path or the folder's named ~)
        texts = ([value, "./" + value] if left_by_shell(word) else self.tildes.spellings(value))
        return list(dict.fromkeys(p for text in texts for p in self._paths_of_text(text)))

    def _paths_of_text(self, value: str) -> list[Path]:
        if value.startswith("~"):
            expanded = _home_expanded(value, self.where.home)
            if expanded is None:
                return []
            value = expanded
        elif "/" not in value and not value.startswith("."):
            # A plain word names a path only if there is one by that name (a link, say); that
            # matters only to path deny rules.
            if not self.path_denies:
                return []
            return [Path(os.path.normpath(c / value)) for c in self.cwds if os.path.lexists(c / value)]
        if os.path.isabs(value):
            return list(dict.fromkeys(both_readings(value)))
        return list(dict.fromkeys(p for c in self.cwds for p in both_readings(str(c / value))))

    def redirect_effect(self, redirect: Redirect, own: tuple[str | None, ...] | None = None,
                        ) -> tuple[Effect | None, Provenance]:
        """What the rules say of the redirection (or of the command ``own`` writing a path,
        judged as one)."""
        value = redirect.target.value
        if value in HARMLESS_TARGETS and (own is None or (programs.base(own[0]) if own else None) in CONTENT_WRITERS) \
                and not (value in DESCRIPTOR_TARGETS and self.analysis.may_reopen_output):
            return Effect.ALLOW, Provenance(kind=Decider.DEFAULT, detail="harmless target")
        family = self.rules.write if redirect.write else self.rules.read
        if value is None:
            return (Effect.ASK if family else None), Provenance(kind=Decider.OPAQUE,
                                                                detail=Opaque.DYNAMIC_ARGUMENT.value)
        # (a `~` the shell left: the home folder's path or the folder's named ~, see literal_tilde)
        spelled = [value, "./" + value] if left_by_shell(redirect.target) else self.tildes.spellings(value)
        texts = [str(self.where.home) + v[1:] if v == "~" or v.startswith("~/") else v for v in spelled]
        text = texts[0]
        if family and value not in READABLE_DEVICES and any(through_proc(t, c) for t in texts for c in self.cwds):
            return Effect.ASK, Provenance(kind=Decider.OPAQUE, detail="a path through /proc")
        if not self.cwd_known and any(not os.path.isabs(t) for t in texts):
            return None, Provenance(kind=Decider.OPAQUE, detail="relative target after cd")
        paths: list[Path] = []
        for t in texts:
            for cwd in self.cwds if not os.path.isabs(t) else self.cwds[:1]:
                lexical = Path(os.path.normpath(cwd / t))
                paths += [lexical, Path(os.path.realpath(lexical)), *both_readings(str(cwd / t))[1:]]
        if redirect.write and family and any(self.changes.through_link(p, self._as_written(own)) for p in paths):
            # `ln -s ~ out/h && echo x > out/h/.bashrc`: a link another command makes leads anywhere.
            return Effect.ASK, Provenance(kind=Decider.OPAQUE, detail="a path through a link the line may make")
        verdict = path_verdict(list(dict.fromkeys(paths)), redirect.write, family, self.where, text=redirect.text,
                               kind=PartKind.REDIRECT)
        effect = verdict.effect
        provenance = verdict.parts[0].provenance
        if not redirect.write and effect is None and (not text.startswith("/dev/") or text in READABLE_DEVICES):
            # A program may read a file no rule speaks of anyway (`cat a.txt`); bash's own
            # network "files" (/dev/tcp/…) and other devices are not files.
            return Effect.ALLOW, Provenance(kind=Decider.DEFAULT, detail="reading a file no rule denies")
        if effect is None and self.rules.sandbox_allow and all(
                floor.inside(Path(os.path.realpath(p)), self.where.workspaces) for p in paths):
            # No rule spoke about a file inside the workspace: where the sandbox contains the
            # command, its writes cannot leave the workspace anyway (deny and ask came first).
            return Effect.ALLOW_IN_SANDBOX, Provenance(kind=Decider.DEFAULT,
                                                       detail="a file inside the workspace, in the sandbox")
        return effect, provenance

    def redirect_part(self, redirect: Redirect) -> Part:
        effect, provenance = self.redirect_effect(redirect)
        opaque = Opaque.DYNAMIC_ARGUMENT if redirect.target.value is None else None
        return Part(text=redirect.text, effect=effect, kind=PartKind.REDIRECT, provenance=provenance, opaque=opaque)


def _path_deny(item: Compiled) -> bool:
    return item.rule is not None and item.rule.effect is Effect.DENY and item.matcher is not None


def _program_form(reading: Reading) -> Reading | None:
    """How the program a command runs as (``Reading.program_form``: ``python -m pip …`` as
    ``pip …``) reads it, when it runs nothing more than its own words say."""
    if reading.program_form is None:
        return None
    own = programs.read(reading.program_form)
    if own.never or own.unreadable or own.inners or own.writes or own.commands_from_input:
        return None
    return own


_Decided = tuple[Effect, Provenance, Opaque | None]


class _PartMaker(Protocol):
    def __call__(self, effect: Effect | None, provenance: Provenance, opaque: Opaque | None = None) -> Part: ...


def _home_after_equals(value: str, home: Path) -> str | None:
    """``value`` with its ``~`` made the home folder where bash expands it: leading, or after the
    ``=`` of an option (``--work-tree=~/x``); ``None`` for another account's home."""
    name, equals, rest = value.partition("=")
    if equals and name.startswith("--") and rest.startswith("~"):
        expanded = _home_expanded(rest, home)
        return None if expanded is None else f"{name}={expanded}"
    return _home_expanded(value, home)


def _home_expanded(value: str, home: Path) -> str | None:
    """``value`` with a leading ``~`` (alone or before ``/``) made the home folder, as bash does;
    ``None`` for ``~user``, another account's home, which is not known here."""
    if value == "~" or value.startswith("~/"):
        return str(home) + value[1:]
    return None if value.startswith("~") else value


#: Listers and the options with which they follow links below what they list (a letter: a short
#: option, clustered too; a name: a long option or a unique prefix of it, or find's ``-follow``).
_LISTS_THROUGH_LINKS: dict[str, frozenset[str]] = {
    "ls": frozenset({"R", "recursive", "L", "dereference"}), "tree": frozenset({"l"}),
    "du": frozenset({"L", "dereference"}), "find": frozenset({"L", "follow"}),
}


def _lister_options(program: str, values: Sequence[str | None]) -> set[str] | None:
    """Which of ``_LISTS_THROUGH_LINKS[program]`` the arguments ``values`` give (``None``: a
    word only known when the line runs, which may be any of them)."""
    ended = values.index("--") if "--" in values and program != "find" else len(values)
    if any(v is None for v in values[:ended]):
        return None
    options = [v for v in values[:ended] if v is not None]
    needs = _LISTS_THROUGH_LINKS[program]
    letters = {c for v in options if v[:1] == "-" and v[1:2] != "-" for c in v[1:]}
    longs = {v.partition("=")[0] for v in options if v.startswith("--")}
    return {n for n in needs if (len(n) == 1 and n in letters) or (len(n) > 1 and any(
        long_prefix(word, "--" + n) and len(word) > 5 for word in longs)) or ("-" + n in options)}


def lists_entries_only(words: tuple[Word, ...]) -> bool:
    """Whether the command reads, of each folder it is given, only the names and details of the
    entries (GNU ls without ``-R`` and ``-L``: it opens the folder, reads its entries and
    ``statx``es each, no file's content and no folder below; a link given, or a link to a folder
    given, it follows, and ``_denied`` judges where it leads: strace, coreutils 9.1, s193)."""
    program = programs.name_of(words[0].value) if words else None
    if program != "ls":
        return False
    found = _lister_options(program, [w.value for w in words[1:]])
    return found == set()


def _follows_links(words: tuple[Word, ...]) -> bool:
    """Whether the command reads folders recursively following the links in them (``grep -R``,
    ``rg -L``, ``diff -r``)."""
    program = programs.name_of(words[0].value) if words else None
    if program == "diff":  # diff -r follows the links in the folders it compares
        values = [w.value for w in words[1:]]
        ended = values.index("--") if "--" in values else len(values)
        return any(v is None or (long_prefix(v, "--recursive") and len(v) > 4)
                   or (v[:1] == "-" and v[1:2] != "-" and "r" in v) for v in values[:ended])
    if program in _LISTS_THROUGH_LINKS:
        # Listers that follow the links below what they list (`ls -RL`, `tree -l`, `du -L`,
        # `find -L`/`-follow`) show a denied folder's names and sizes as `ls` of it would.
        found = _lister_options(program, [w.value for w in words[1:]])
        if found is None:
            return True
        if program == "ls":
            return bool(found & {"R", "recursive"}) and bool(found & {"L", "dereference"})
        return bool(found)
    spec, names = {"grep": (table.GREP, {"-R"}), "rg": (table.RG, {"-L"})}.get(program or "", (None, set()))
    if spec is None:
        return False
    parsed = read_options([w.value for w in words[1:]], spec)
    return parsed.dynamic or any(s.option is not None and names & set(s.option.names) for s in parsed.seen)


def through_proc(value: str, cwd: Path) -> bool:
    """Whether the path ``value`` (relative to ``cwd``) passes through ``/proc`` on its way, its
    links followed one by one: ``/proc/self/cwd/..``, ``/dev/fd/../cwd`` name folders of the
    process that opens them, which no path here (resolved in this process) stands for."""
    pending = list(reversed((value if os.path.isabs(value) else os.path.join(str(cwd), value)).split("/")))
    current, hops = "/", 0
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        current = os.path.dirname(current) if part == ".." else os.path.join(current, part)
        if current == "/proc" or current.startswith("/proc/"):
            return True
        if part != ".." and os.path.islink(current):
            hops += 1
            if hops > 40:
                return True
            target = os.readlink(current)
            current = "/" if os.path.isabs(target) else os.path.dirname(current)
            pending.extend(reversed(target.split("/")))
    return False


def _names_inner(rule: Compiled, inner: programs.Inner, words: tuple[Word, ...]) -> bool:
    """Whether the wrapper's own rule also names the command it runs (``npx tsc **``,
    ``xargs grep **``): then that rule covers the inner command too, if it runs nothing further
    and every option it never covers by ``**`` is named."""
    matcher = rule.matcher
    values = tuple(w.value for w in words)
    if not isinstance(matcher, TokenPattern) or not values or values[0] is None:
        return False
    alternatives = matcher.alternatives_at(inner.start, values[0])
    if not alternatives:
        return False
    reading = programs.read(values)
    if reading.never is not None or reading.unreadable or reading.inners or reading.writes:
        return False
    return any(_names_every(words, reading.flags) for words in alternatives)


def _working_words(values: tuple[str | None, ...], reading: Reading) -> set[int]:
    """The indexes of the words naming the folder the command works in (``folder_moves``), in
    the command's words followed by its reading's option values: the same folders among the
    values its table reads (``make -C ..``) count, each once."""
    program = programs.base(values[0]) if values[0] is not None else None
    working = set(folder_moves.working_folder_words(program, values))
    unmatched = list(folder_moves.working_folder_values(program, values))
    for k, value in enumerate(reading.values, start=len(values)):
        if value in unmatched:
            unmatched.remove(value)
            working.add(k)
    return working


def _glob_folder(word: Word) -> str | None:
    """The folder a glob's matches all lie in (``src/*.py`` → ``src/``; ``*`` → ``.``), or
    ``None`` when the word is not a plain glob."""
    raw = word.raw
    first = min((raw.index(c) for c in "*?[" if c in raw), default=-1)
    if first < 0 or any(c in raw for c in "$`'\"\\{"):
        return None
    return raw[:raw.rfind("/", 0, first) + 1] or "."


def _floor(rule: object, detail: str = "") -> Provenance:
    return Provenance(kind=Decider.FLOOR, rule=rule, detail=detail)  # type: ignore[arg-type]


def _fills_an_option(argv: tuple[Word, ...], inner: programs.Inner) -> bool:
    """Whether a word xargs fills in from its input may be read as an option by the command it
    runs: words are unknown to the rules (``Word(None)``), and an unknown word reads as an
    operand, so ``echo --pre=rm | xargs rg x`` or ``echo PWNED | xargs -I{} sort -o{} a.txt``
    would pass as plain reads. Only a filled word that starts with other text (``./{}``) cannot
    be one (``--`` is not taken as ending the options: not every program reads it so)."""
    if not inner.from_input:
        return False
    if inner.tail:
        return True
    words = [w.value for w in argv[inner.start:inner.end]]
    return any(inner.placeholder is not None and value is not None and inner.placeholder in value
               and value.startswith(("-", inner.placeholder)) for value in words[1:])


def _inner_words(argv: tuple[Word, ...], inner: programs.Inner) -> tuple[Word, ...]:
    """The words of the command a wrapper runs; those filled in when it runs are unknown."""
    words = argv[inner.start:inner.end]
    if inner.placeholder is not None:
        words = tuple(Word(None, w.raw) if w.value is not None and inner.placeholder in w.value else w
                      for w in words)
    if inner.tail:
        words = (*words, Word(None, ""))
    return words


def _working_folders(analysis: Analysis, where: floor.Where) -> tuple[list[Path], bool, bool, list[Path]]:
    """The folders the line's commands may run in (the first, then each ``cd`` target), whether
    they are all known, whether a ``cd`` leaves the workspaces, and the folders a ``cd`` passes
    on the way to its target, as written (``_passed_on_the_way``). A plain ``cd DIR`` or
    ``pushd DIR`` of an ``&&`` chain goes from the folder the chain is in before it
    (``_chain_folders``: ``cd src && cd ../out`` never goes to the workspace's ``../out``); any
    other from every folder so far. A ``popd`` goes back to a folder already listed, but only
    while a ``pushd`` of the line may have put one on the stack: a line starts with an empty
    one, where ``popd`` fails, so a ``popd`` with none before it is not read here (s282)."""
    cwds = [where.cwd]
    known = True
    outside = False
    passed: list[Path] = []
    chain = _chain_folders(analysis, where)
    pushed = 0
    for command in analysis.commands:
        words = command.directory_change
        if words is None:
            continue
        if words[0].value == "popd":
            if pushed == 0:
                known, outside = False, True
            pushed = max(pushed - 1, 0)
            continue  # back to a folder already listed
        args = [w for w in words[1:] if not (w.value or "").startswith("-") or w.value is None]
        if words[0].value == "pushd" and args and not (args[0].value or "").startswith("+"):
            pushed += 1  # (`pushd` alone and `pushd +1` turn the stack; they add nothing to it)
        if not args:
            targets = [where.home] if words[0].value == "cd" else []
        elif len(args) == 1 and args[0].value is not None and args[0].value:
            value = _home_expanded(args[0].value, where.home)
            if value is None:
                known, outside = False, True
                continue
            # bash's cd is logical (`link/..` is the folder holding the link), `cd -P` physical:
            # both are folders the line may be in.
            bases = chain.get(id(command), cwds) if _plain_move(words) is not None else cwds
            targets = [t for c in bases for t in (Path(os.path.normpath(c / value)), Path(os.path.realpath(c / value)))]
            passed += [p for c in bases for p in _passed_on_the_way(c, value)]
        else:
            known, outside = False, True
            continue
        for target in targets:
            if not floor.inside(target, where.workspaces):
                outside = True
            if target not in cwds:
                cwds.append(target)
    return cwds, known, outside, passed


def _passed_on_the_way(base: Path, value: str) -> list[Path]:
    """The folders, as written, a ``cd`` from ``base`` to ``value`` passes before its target
    (``out/l/../x``: out, out/l, out): a ``..`` after one that is a link leaves the folder the
    link leads to, not the one holding it, in a physical ``cd -P`` and in bash's logical ``cd``
    when the folder as written is missing (it then goes the physical way)."""
    current = Path("/") if os.path.isabs(value) else base
    passed: list[Path] = []
    for part in [p for p in value.split("/") if p and p != "."][:-1]:
        current = Path(os.path.normpath(current / part))
        passed.append(current)
    return passed


def _chain_folders(analysis: Analysis, where: floor.Where) -> dict[int, list[Path]]:
    """The folders each command runs in (by its id) when the line is an ``&&`` chain
    (``Analysis.and_chain``): a command runs only after each ``cd`` before it succeeded, so in
    the folder the last of them leads to (logical and physical, as ``_working_folders``), not
    in the folders before it. ``pushd DIR`` goes there as ``cd DIR`` does and keeps the folder
    it left, which a plain ``popd`` goes back to (s282: ``cd src && pushd ..`` is the
    workspace's top). From a move not read here on (``cd -``, an option, ``pushd +1``, a
    ``popd`` with nothing pushed, another account's home), none: those commands are judged from
    every folder of the line."""
    if not analysis.and_chain:
        return {}
    found: dict[int, list[Path]] = {}
    current = [where.cwd]
    stack: list[list[Path]] = []
    for command in analysis.commands:
        found[id(command)] = current
        words = command.directory_change
        if words is None:
            continue
        if len(words) == 1 and words[0].value == "popd" and stack:
            current = stack.pop()
            continue
        folder = _plain_move(words)
        expanded = _home_expanded(folder, where.home) if folder is not None else None
        if expanded is None:
            break
        if words[0].value == "pushd":
            stack.append(current)
        current = list(dict.fromkeys(t for c in current for t in (Path(os.path.normpath(c / expanded)),
                                                                  Path(os.path.realpath(c / expanded)))))
    return found


def _plain_move(words: tuple[Word, ...]) -> str | None:
    """The folder of ``cd DIR`` or ``pushd DIR``, DIR known and no option (not ``cd -``, ``-P``,
    ``pushd +1``, which turns the stack), else ``None``."""
    if len(words) != 2 or words[0].value not in ("cd", "pushd"):
        return None
    value = words[1].value
    turns = ("-", "+") if words[0].value == "pushd" else ("-",)
    return value if value and not value.startswith(turns) else None


_SUBCOMMAND_PROGRAMS = frozenset({
    "git", "npm", "pnpm", "yarn", "cargo", "go", "docker", "kubectl", "pip", "pip3", "uv", "poetry", "make",
    "dotnet", "gradle", "mvn", "bundle", "rake", "brew", "apt", "systemctl", "gh", "hg", "svn", "conda",
})


def _plain(token: str) -> bool:
    return bool(token) and all(c.isalnum() or c in "._-:/@+=,%" for c in token) and token.isascii()


def _suggestions(analysis: Analysis, undecided: list[Command], judge: _Judge) -> tuple[Suggestion, ...]:
    """One narrow rule per understood command no rule decided (none for an opaque line or
    command, none that would not allow its own command — a command that writes a file no write
    rule allows gets none). A wrapper's command gets its own."""
    if not analysis.allowable:
        return ()
    seen: set[str] = set()
    out: list[Suggestion] = []
    for command in undecided:
        if command.environment:
            _suggest_named_environment(command, judge, seen, out)
            continue
        words = command.argv
        while words:
            values = tuple(w.value for w in words)
            program = values[0]
            # (with the editor git's or hg's settings name: what the rule must say it also runs, s324)
            reading = judge.read_with_settings(values)
            if program is None or not _plain(program) or reading.never is not None:
                break
            # (`git -C src status` is `git status` where it works: `git status **` covers it)
            moved = judge.moves_of(words)
            rest = tuple(v for k, v in enumerate(values) if k not in moved.words)
            patterns = dict.fromkeys(_narrow_pattern(program, given) for given in (rest, values))
            found = next(((p, also) for p in patterns if p not in seen
                          and (also := judge.would_cover(p, words, reading)) is not None), None)
            if found is not None:
                pattern, also = found
                seen.add(pattern)
                out.append(Suggestion(tool="shell", pattern=pattern, label=command.text,
                                      examples=Examples(match=(command.text,) if words is command.argv else ()),
                                      also_runs=also))
            argv_inners = [i for i in reading.inners if i.line is None]
            if len(argv_inners) != 1 or reading.inners != tuple(argv_inners):
                break
            # (`env FOO=1 make test`, `env -i …`, `env -C dir …`: `env **` does not name what env
            # is given, so one rule names it with the program's narrow pattern, s342)
            if found is None and programs.base(program) == "env" and _suggest_env_as_written(
                    command, words, argv_inners[0], judge, seen, out):
                break
            words = _inner_words(words, argv_inners[0])
    return tuple(out)


def _suggest_named_environment(command: Command, judge: _Judge, seen: set[str], out: list[Suggestion]) -> None:
    """The rule for a command whose ``NAME=value`` prefixes a rule must name: the prefixes as
    written, then its program's narrow pattern (``RAILS_ENV=test rake test **``); none where that
    would not allow it, nor for a variable that names code, a program or settings (``PATH=bin``:
    ``suggested_variables``). A rule for the program alone would not."""
    variables = [w.value.partition("=") for w in command.environment if w.value is not None]
    if len(variables) != len(command.environment) or not all(
            suggested_variables.may_name(name, value) for name, _, value in variables):
        return
    named = " ".join(w.value or "" for w in command.environment)
    _suggest_naming(command, command.argv, named, command.argv[len(command.environment) + 1:], judge, seen, out)


def _suggest_env_as_written(command: Command, words: tuple[Word, ...], inner: programs.Inner, judge: _Judge,
                            seen: set[str], out: list[Suggestion]) -> bool:
    """The rule for ``env``'s command whose options or assignments a rule must name (``env -i``,
    ``env -C dir``, ``env FOO=1``): env's words as written, then its program's narrow pattern
    (``env -i make test **``), as for a command's ``NAME=value`` prefixes; none for a variable
    ``suggested_variables`` refuses, set or unset. Whether one was offered."""
    given = words[1:inner.start]
    if any(w.value is None or not _plain(w.value) for w in given) or not all(
            suggested_variables.may_name(name, value) for name, value in inner.environment):
        return False
    named = " ".join(w.value or "" for w in (words[0], *given))
    return _suggest_naming(command, words, named, _inner_words(words, inner), judge, seen, out)


def _suggest_naming(command: Command, words: tuple[Word, ...], named: str, inner: tuple[Word, ...], judge: _Judge,
                    seen: set[str], out: list[Suggestion]) -> bool:
    """Offer ``named`` followed by the narrow pattern of the program ``inner`` runs, for
    ``words`` (the command, or what a wrapper of it runs), where it would allow them."""
    program = inner[0].value if inner else None
    if program is None or not _plain(program):
        return False
    pattern = f"{named} {_narrow_pattern(program, tuple(w.value for w in inner))}"
    values = tuple(w.value for w in words)
    also = judge.would_cover(pattern, words, judge.read_with_settings(values)) if pattern not in seen else None
    if also is None:
        return False
    seen.add(pattern)
    out.append(Suggestion(tool="shell", pattern=pattern, label=command.text,
                          examples=Examples(match=(command.text,) if words is command.argv else ()), also_runs=also))
    return True


def _narrow_pattern(program: str, values: tuple[str | None, ...]) -> str:
    """The rule suggested for the command ``values``: its program, and its subcommand where it
    has them (``git status **``)."""
    tokens = [program]
    if program in _SUBCOMMAND_PROGRAMS and len(values) > 1 and values[1] and not values[1].startswith("-") \
            and _plain(values[1]):
        tokens.append(values[1])
    return " ".join(tokens) + " **"


#: Names standing for anything a program may write below a folder (``tar -x``): a file in it,
#: and one in a folder below it.
_ANY_BELOW = ("any-file", "any-folder/any-file")


def _plain_file(path: Path) -> bool:
    """Whether ``path`` is a regular file now (not a folder, not a link to one)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _written_paths(reading: Reading) -> list[str | None]:
    """The paths a program's writing options write (``Reading.written``, ``Flag.path``), and for
    a folder it writes anywhere below (``Reading.written_below``) names standing for what it may
    create there: each must be one the write rules allow (the links below it: ``_links_below``)."""
    paths: list[str | None] = [*reading.written, *(f.path for f in reading.flags if f.writes_path)]
    for folder in reading.written_below:
        if folder is None:
            paths.append(None)
            continue
        paths += [os.path.join(folder, name) for name in _ANY_BELOW]
    return paths


def _loose_variables(values: tuple[str | None, ...], read: set[str], has_settings: bool) -> bool:
    """Whether the line gives the command ``values`` a variable that may name its settings or
    code where the engine does not look (see ``line_environment``): for a program judged by its
    settings files (``has_settings``, or one with a settings command), a variable other than the
    inert ones that the readers did not look up (``RUBYOPT=-rout/x gem list``), or whose value
    is not absolute paths (``HGRCPATH=out/h``: the readers take a path from the inherited
    environment only when it is absolute). Such a variable counts as naming any file."""
    given = line_environment.given()
    if given is None or not values:
        return False
    program = programs.name_of(values[0]) or ""
    if not has_settings and program not in settings_commands.COMMANDS:
        return False
    # (an install step's DESTDIR names where it writes, which the write rules judge: install_records)
    destinations = install_records.destination_variables(values)
    named = (program, *values[1:])
    for name, value in given.values.items():
        if value is None or ((name in INERT_ASSIGNMENTS or reads_as_data(named, name)) and inert_value(value)):
            continue  # (unset: the program looks where it would without it, which counts already)
        if name in destinations:
            continue
        if name not in read or not _absolute_paths(value):
            return True
    return False


def _absolute_paths(value: str) -> bool:
    """Whether ``value`` is empty or absolute paths (a list, ``:`` between them: HGRCPATH)."""
    return all(os.path.isabs(entry) for entry in value.split(os.pathsep)) if value else True
