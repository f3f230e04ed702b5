"""What moving a client's servers behind Echo Desk (or undoing it) would change, before anything is.

``plan_install`` and ``plan_uninstall`` read the client's file and return the exact new text and
its unified diff; nothing is written here (``apply`` does that). Every plan re-reads the new text
and checks that it parses to the old document with only the server list changed, so a splice
that went wrong is refused instead of written.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from echo_desk.common.diffs import labelled_diff
from echo_desk.i18n import N_, deferred
from echo_desk.mcp.config import ConfigError, ServerConfig, load_config, parse_server
from echo_desk.mcp.connected.clients import (
    ENTRY_NAME,
    Location,
    NotARegularFile,
    NotAServer,
    Skip,
    gateway_command,
    gateway_entry,
    is_gateway_entry,
    read_regular,
    to_echo_desk,
)
from echo_desk.mcp.connected.records import InstallRecord
from echo_desk.mcp.connected.sections import Section, SectionError, read_section
from echo_desk.mcp.explain import explained
from echo_desk.mcp.importers import PreparedImport, prepare_import

#: A client's file larger than this is not read (a config file is a few kB; ~/.claude.json a few MB).
MAX_FILE_BYTES = 64 * 1024 * 1024


class PlanError(Exception):
    """The change cannot be made; ``reason`` says why (person-facing, deferred for translation),
    ``diff`` what changed in the file since Echo Desk wrote it, when that is the reason."""

    def __init__(self, reason: str, *, diff: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.diff = diff


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


#: How many entries of Echo Desk's own folders are compared with a hard-linked client file.
_MAX_OWN_ENTRIES = 20_000


def refuse_own_places(path: Path) -> None:
    """``PlanError`` when ``path`` is, or leads to, a file of Echo Desk's own (its settings,
    data, cache or the keyrings): by a symlink (of the file or a folder above it) or by a hard
    link. A client's file that is Echo Desk's own would have a diff naming the client's path
    rewrite Echo Desk's own trust (its server list, settings, records)."""
    from echo_desk.store.paths import own_place_holding, real_own_places

    held = own_place_holding(path)
    if held is not None:
        raise PlanError(deferred(N_("it leads into Echo Desk's own folder {folder}; Echo Desk never "
                                    "rewrites its own files as another app's"), folder=str(held[1])))
    real = Path(os.path.realpath(path))
    try:
        st = os.stat(real)
    except OSError:
        return
    if st.st_nlink < 2:
        return
    places = tuple(folder for _reason, folder in real_own_places())
    # Keyed by the file's identity and change time (a new link to it changes both its link
    # count and its ctime), so a detection run again walks nothing when nothing changed.
    found = _own_file_linked_as(st.st_dev, st.st_ino, st.st_nlink, st.st_ctime_ns, places)
    if found is _TOO_MANY:
        raise PlanError(deferred(N_("it is hard-linked and Echo Desk cannot tell whether it is one "
                                    "of its own files")))
    if found is not None:
        raise PlanError(deferred(N_("it is a hard link to Echo Desk's own file {file}; Echo Desk "
                                    "never rewrites its own files as another app's"), file=found))


_TOO_MANY = "\0too many"


@functools.lru_cache(maxsize=64)
def _own_file_linked_as(dev: int, ino: int, _links: int, _ctime_ns: int, places: tuple[Path, ...]) -> str | None:
    """The entry of ``places`` that is the file ``(dev, ino)``, ``None`` when none is, or
    ``_TOO_MANY`` when there are more entries than it compares."""
    seen = 0
    for folder in places:
        for root, dirs, files in os.walk(folder):
            for name in (*files, *dirs):
                seen += 1
                if seen > _MAX_OWN_ENTRIES:
                    return _TOO_MANY
                try:
                    st = os.stat(os.path.join(root, name), follow_symlinks=False)
                except OSError:
                    continue
                if (st.st_dev, st.st_ino) == (dev, ino):
                    return os.path.join(root, name)
    return None


def shown_path(path: Path) -> str:
    """``path``, and where it leads when that is another file (a symlinked dotfile)."""
    real = os.path.realpath(path)
    return str(path) if real == str(path) else f"{path} → {real}"


def read_text(path: Path) -> tuple[str, bytes] | None:
    """The file's text and bytes, ``None`` when it does not exist; ``PlanError`` when unreadable
    or when it is one of Echo Desk's own files."""
    refuse_own_places(path)
    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        return None
    except NotARegularFile:
        raise PlanError(deferred(N_("it is not a regular file (a named pipe, a device or a folder)"))) from None
    except OSError as exc:
        raise PlanError(deferred(N_("cannot read it: {error}"), error=explained(exc, quote_detail=False))) from exc
    if len(data) > MAX_FILE_BYTES:
        raise PlanError(deferred(N_("the file is larger than {size} MB"), size=MAX_FILE_BYTES // (1024 * 1024)))
    try:
        return data.decode("utf-8"), data
    except UnicodeDecodeError:
        raise PlanError(deferred(N_("the file is not UTF-8 text"))) from None


def section_of(location: Location, text: str) -> Section:
    try:
        return read_section(location, text)
    except SectionError as exc:
        raise PlanError(deferred(N_("Echo Desk cannot read this file faithfully: {why}"), why=explained(exc))) from exc


def unified_diff(path: Path, before: str, after: str) -> str:
    shown = shown_path(path)
    return labelled_diff(before, after, f"{shown} (now)", f"{shown} (after)")


# -- what is in a file -------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Inspection:
    """One list of servers as it is now."""

    location: Location
    exists: bool
    #: Why the file cannot be read or edited (empty when it can).
    problem: str = ""
    #: The entries that are MCP servers (Echo Desk's own entry not counted).
    servers: tuple[str, ...] = ()
    #: Echo Desk's entry is in the list.
    protected: bool = False


def inspect(location: Location) -> Inspection:
    try:
        read = read_text(location.path)
        if read is None:
            return Inspection(location=location, exists=False)
        section = section_of(location, read[0])
    except PlanError as exc:
        return Inspection(location=location, exists=True, problem=exc.reason)
    servers: list[str] = []
    protected = False
    for name, raw in section.entries.items():
        if is_gateway_entry(location.dialect, raw):
            protected = True
            continue
        try:
            to_echo_desk(location.dialect, raw)
        except NotAServer:
            continue
        except Skip:
            pass
        servers.append(name)
    return Inspection(location=location, exists=True, servers=tuple(servers), protected=protected)


# -- moving servers behind Echo Desk ---------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Move:
    """One server that goes from the client's file to Echo Desk's mcp.json."""

    name: str
    echo_name: str
    config: ServerConfig
    #: Echo Desk already has it, configured the same way: nothing is added.
    already: bool
    source: str
    value: Any
    to_keyring: tuple[str, ...] = ()
    #: Values left in Echo Desk's mcp.json as they were: the keyring was asked for, and there is none.
    left_in_file: tuple[str, ...] = ()
    needs_secrets: tuple[str, ...] = ()
    secrets: dict[str, str] = field(default_factory=dict, repr=False)


@dataclass(frozen=True, kw_only=True)
class Stay:
    """One server left in the client's file, and why."""

    name: str
    reason: str
    #: The person chose to leave it (it could move).
    by_choice: bool = False


@dataclass(frozen=True, kw_only=True)
class InstallPlan:
    location: Location
    before: str
    before_sha256: str
    after: str
    moves: tuple[Move, ...]
    stays: tuple[Stay, ...]
    #: Echo Desk's entry as added (``None``: the file has one already).
    entry: dict[str, Any] | None
    existed: bool

    @property
    def diff(self) -> str:
        return unified_diff(self.location.path, self.before, self.after)


def _same(a: ServerConfig, b: ServerConfig) -> bool:
    return a.fingerprint() == b.fingerprint() and a.to_json() == b.to_json()


def _prepared(name: str, parsed: ServerConfig, use_keyring: bool, sandbox: Mapping[str, bool] | None,
              echo_name: str) -> PreparedImport:
    prepared = prepare_import(echo_name, replace(parsed, name=echo_name), use_keyring)
    if sandbox is not None and name in sandbox and prepared.config.is_stdio:
        return prepared._replace(config=replace(prepared.config, sandbox=sandbox[name]))
    return prepared


def _echo_name(name: str, client: str, taken: dict[str, ServerConfig],
               prepare: Callable[[str], ServerConfig]) -> tuple[str, bool]:
    """Its name in Echo Desk: its own when free (or the same server is there already, as an
    earlier move left it), else ``name-client``, ``name-client-2``…"""
    candidates = [name, f"{name}-{client}", *(f"{name}-{client}-{n}" for n in range(2, 100))]
    for candidate in candidates:
        existing = taken.get(candidate)
        if existing is None:
            return candidate, False
        if _same(existing, prepare(candidate)):
            return candidate, True
    raise PlanError(deferred(N_("no free name in Echo Desk for the server “{name}”"), name=name))


def plan_install(
    location: Location,
    *,
    keep: frozenset[str] = frozenset(),
    sandbox: Mapping[str, bool] | None = None,
    use_keyring: bool = True,
    current: dict[str, ServerConfig] | None = None,
    command: list[str] | None = None,
) -> InstallPlan:
    """Move every server of ``location`` that can move (but those in ``keep``) into Echo Desk and
    leave one Echo Desk entry in their place. ``sandbox`` overrides, per server, whether a stdio
    server starts in the sandbox (default: on, as for every imported server)."""
    if location.read_only:
        raise PlanError(location.read_only)
    read = read_text(location.path)
    if read is None and not location.path.parent.is_dir():
        raise PlanError(deferred(N_("the folder {folder} does not exist"), folder=str(location.path.parent)))
    before, data = read if read is not None else ("", b"")
    section = section_of(location, before or _empty_document(location))
    if current is None:
        try:
            current = load_config()
        except ConfigError as exc:
            raise PlanError(deferred(N_("Echo Desk's own mcp.json cannot be read: {error}"), error=explained(exc))) from exc
    moves, stays, has_entry = _classify(location, section, dict(current), keep, sandbox, use_keyring)
    if has_entry and not moves:
        raise PlanError(deferred(N_("its servers are already behind Echo Desk")))
    if ENTRY_NAME in section.entries and not has_entry:
        raise PlanError(deferred(N_("the file already has a server named “{name}” that is not Echo Desk's"),
                                 name=ENTRY_NAME))
    entry: dict[str, Any] | None = None if has_entry else gateway_entry(location.dialect, location.client, command or gateway_command())
    after = before or _empty_document(location)
    expected = _document(section)
    for move in moves:
        after = section_of(location, after).without(move.name)
        _drop(expected, location.key_path, move.name)
    if entry is not None:
        after = section_of(location, after).with_entry(ENTRY_NAME, entry)
        _add(expected, location.key_path, ENTRY_NAME, entry)
    _check(location, after, expected)
    return InstallPlan(location=location, before=before, before_sha256=sha256(data) if read else "", after=after,
                       moves=tuple(moves), stays=tuple(stays), entry=entry, existed=read is not None)


def _classify(
    location: Location,
    section: Section,
    taken: dict[str, ServerConfig],
    keep: frozenset[str],
    sandbox: Mapping[str, bool] | None,
    use_keyring: bool,
) -> tuple[list[Move], list[Stay], bool]:
    """Which entries move (and under which name in Echo Desk), which stay and why, and whether
    Echo Desk's own entry is there already."""
    moves: list[Move] = []
    stays: list[Stay] = []
    has_entry = False
    for name, raw in section.entries.items():
        if is_gateway_entry(location.dialect, raw):
            has_entry = True
            continue
        try:
            converted = to_echo_desk(location.dialect, raw)
            if name in keep:
                stays.append(Stay(name=name, reason=deferred(N_("you chose to leave it here")), by_choice=True))
                continue
            parsed = parse_server(name, converted)
        except NotAServer:
            continue
        except Skip as exc:
            stays.append(Stay(name=name, reason=exc.reason))
            continue
        except ConfigError as exc:
            stays.append(Stay(name=name, reason=explained(exc)))
            continue
        echo_name, already = _echo_name(
            name, location.client, taken,
            lambda candidate, n=name, p=parsed: _prepared(n, p, use_keyring, sandbox, candidate).config)  # type: ignore[misc]
        prepared = _prepared(name, parsed, use_keyring, sandbox, echo_name)
        if already:
            prepared = PreparedImport(taken[echo_name], (), (), {})
        taken[echo_name] = prepared.config
        moves.append(Move(name=name, echo_name=echo_name, config=prepared.config, already=already,
                          source=section.source_of(name), value=raw, to_keyring=prepared.to_keyring,
                          left_in_file=prepared.left_in_file, needs_secrets=prepared.needs_secrets,
                          secrets=prepared.secrets))
    return moves, stays, has_entry


def _empty_document(location: Location) -> str:
    return "" if location.format.value == "yaml" else "{}\n"


def _document(section: Section) -> Any:
    import copy

    return copy.deepcopy(section.document if section.document is not None else {})


def _container(document: Any, keys: tuple[str, ...], create: bool) -> dict[str, Any] | None:
    node = document
    for key in keys:
        if not isinstance(node.get(key), dict):
            if not create:
                return None
            node[key] = {}
        node = node[key]
    return node if isinstance(node, dict) else None


def _drop(document: Any, keys: tuple[str, ...], name: str) -> None:
    container = _container(document, keys, create=False)
    if container is not None:
        container.pop(name, None)


def _add(document: Any, keys: tuple[str, ...], name: str, value: Any) -> None:
    container = _container(document, keys, create=True)
    assert container is not None
    container[name] = value


def _check(location: Location, text: str, expected: Any) -> None:
    """The new text must read back as the old document with only the planned change."""
    got = section_of(location, text).document
    if got != expected:
        raise PlanError(deferred(N_("Echo Desk could not change this file without changing something else")))


# -- undoing it --------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class UninstallPlan:
    location: Location
    record: InstallRecord
    before: str
    before_sha256: str
    after: str
    #: Servers taken out of Echo Desk's mcp.json again (those the move added and nobody changed).
    remove_from_echo_desk: tuple[str, ...]
    #: Servers left in Echo Desk, with why.
    kept_in_echo_desk: tuple[tuple[str, str], ...]
    #: Echo Desk created the file and nobody changed it since: undo removes it.
    delete_file: bool = False

    @property
    def diff(self) -> str:
        return unified_diff(self.location.path, self.before, self.after)


def plan_uninstall(
    location: Location,
    record: InstallRecord,
    *,
    current: dict[str, ServerConfig] | None = None,
    others: list[InstallRecord] = (),  # type: ignore[assignment]
) -> UninstallPlan:
    """Put the moved servers back into the client's file and take Echo Desk's entry out.

    When the file is exactly as Echo Desk wrote it, the result is the original file byte for
    byte. When it changed since, the servers are put back around the change if nothing would be
    lost; otherwise ``PlanError`` says what changed (with its diff) and nothing is planned."""
    read = read_text(location.path)
    if read is None:
        raise PlanError(deferred(N_("the file is gone; the copy from before is at {backup}"),
                                 backup=record.backup or "-"))
    text, data = read
    written = _read_optional(record.written)
    after = ""
    if sha256(data) == record.after_sha256:
        original = _read_optional(record.backup) if record.backup else b""
        if record.backup and original is not None and sha256(original) == record.before_sha256:
            after = original.decode("utf-8")
    delete_file = not record.before_sha256 and sha256(data) == record.after_sha256
    if not after and not delete_file:
        after = _splice_back(location, record, text, written)
    if current is None:
        try:
            current = load_config()
        except ConfigError:
            current = {}
    still_used = {m.echo_name for other in others if other.location_id != record.location_id for m in other.moved}
    remove: list[str] = []
    kept: list[tuple[str, str]] = []
    for moved in record.moved:
        if not moved.added:
            continue
        cfg = current.get(moved.echo_name)
        if cfg is None:
            continue
        if moved.echo_name in still_used:
            kept.append((moved.echo_name, deferred(N_("another app's servers moved behind Echo Desk use it too"))))
        elif cfg.fingerprint() != moved.fingerprint:
            kept.append((moved.echo_name, deferred(N_("it was changed in Echo Desk since"))))
        else:
            remove.append(moved.echo_name)
    return UninstallPlan(location=location, record=record, before=text, before_sha256=sha256(data), after=after,
                         remove_from_echo_desk=tuple(remove), kept_in_echo_desk=tuple(kept), delete_file=delete_file)


def _read_optional(path: str) -> bytes | None:
    if not path:
        return None
    try:
        return Path(path).read_bytes()
    except OSError:
        return None


def _splice_back(location: Location, record: InstallRecord, text: str, written: bytes | None) -> str:
    section = section_of(location, text)
    expected = _document(section)

    def refuse(reason: str) -> PlanError:
        shown = written.decode("utf-8", "replace") if written is not None else ""
        diff = unified_diff(location.path, shown, text) if written is not None else ""
        return PlanError(reason, diff=diff)

    after = text
    if record.entry is not None and ENTRY_NAME in section.entries:
        if section.entries[ENTRY_NAME] != record.entry:
            raise refuse(deferred(N_("Echo Desk's entry in the file was changed since; undoing would lose "
                                     "that change")))
        after = section.without(ENTRY_NAME)
        _drop(expected, location.key_path, ENTRY_NAME)
    for moved in record.moved:
        present = section_of(location, after)
        if moved.name in present.entries:
            if present.entries[moved.name] == moved.value:
                continue  # already back as it was
            raise refuse(deferred(N_("the file has a server named “{name}” again, with other settings; "
                                     "undoing would overwrite it"), name=moved.name))
        if not present.entries and not _has_list(present, location):
            raise refuse(deferred(N_("the list of servers is gone from the file")))
        after = present.with_source(moved.name, moved.source)
        _add(expected, location.key_path, moved.name, moved.value)
    _check(location, after, expected)
    return after


def _has_list(section: Section, location: Location) -> bool:
    return _container(_document(section), location.key_path, create=False) is not None
