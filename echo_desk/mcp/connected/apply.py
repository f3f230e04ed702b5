"""Carry out a plan: back up the client's file, import the servers, write the file, record it.

Order matters, so a failure leaves things as they were: the backup first; then the secrets to
the keyring and the servers into Echo Desk's mcp.json; the client's file last, atomically, with
its mode kept and only if it still is exactly what the plan was made from (else nothing is
written and mcp.json is put back). Undo runs the same way in reverse.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

from echo_desk.i18n import N_, Deferred, deferred
from echo_desk.mcp.config import ServerConfig, config_path, update_config
from echo_desk.mcp.connected.plan import InstallPlan, PlanError, UninstallPlan, sha256
from echo_desk.mcp.connected.records import InstallRecord, MovedEntry, Records, backups_dir, write_private
from echo_desk.tools.secrets import secret_store


@dataclass(frozen=True, kw_only=True)
class InstallOutcome:
    record: InstallRecord
    #: Servers added to Echo Desk's mcp.json (they wait for their first-start approval).
    added: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class UninstallOutcome:
    removed_from_echo_desk: tuple[str, ...]
    #: Where the file was kept before the undo wrote it.
    backup: str


#: The cause alone: whoever shows a ``PlanError`` says the outcome ("not changed", "Nothing was
#: changed") and the path, so a reason that said them too read them twice.
CHANGED_SINCE_THE_DIFF = N_("the file changed since the diff was made; look at it again")


def _stamp() -> str:
    return time.strftime("%Y%m%dT%H%M%S", time.localtime()) + f"-{time.time_ns() % 1_000_000:06d}"


def _backup(client: str, path: Path, data: bytes, what: str) -> Path:
    target = backups_dir() / f"{client}-{_stamp()}-{what}-{path.name}"
    write_private(target, data)
    return target


def write_client_file(path: Path, text: str, expect_sha256: str) -> None:
    """Replace the client's file atomically, keeping its mode, if it still hashes to
    ``expect_sha256`` (``""``: it must not exist). Follows a symlink to the file it names (a
    dotfiles folder), which stays a symlink. ``PlanError`` when it changed: nothing is written."""
    from echo_desk.common.atomic import ABSENT, ChangedSincePreview, atomic_write
    from echo_desk.common.fs import Resolved
    from echo_desk.mcp.connected.plan import refuse_own_places
    from echo_desk.tools import ToolError

    refuse_own_places(path)  # again: a link can be changed after the plan
    real = Path(os.path.realpath(path))
    try:
        atomic_write(Resolved(path=real, root=real.parent), text.encode("utf-8"),
                     expect_sha256=expect_sha256 or ABSENT, allow_hardlink=True)
    except ChangedSincePreview:
        raise PlanError(deferred(CHANGED_SINCE_THE_DIFF)) from None
    except ToolError as exc:
        # The cause stays chained for the technical detail (the system's own words).
        raise PlanError(_why_not_written(exc.message)) from exc


def _why_not_written(message: str) -> str:
    """Why the write failed, without the path or the outcome that its message also says (they
    would be said twice: "…: not changed: could not write …; the original file is unchanged")."""
    error = message.params.get("error") if isinstance(message, Deferred) else None
    said = error if isinstance(error, Deferred) else message
    why = said.params.get("why") if isinstance(said, Deferred) else None
    if isinstance(why, str):
        return why
    # The file was swapped for a link or a special file between the check and the write.
    return deferred(N_("it became a link or a special file while Echo Desk was writing it"))


def apply_install(plan: InstallPlan, *, records: Records | None = None) -> InstallOutcome:
    records = records or Records()
    location = plan.location
    client = location.client
    stamp_data = plan.before.encode("utf-8")
    if plan.existed and sha256(stamp_data) != plan.before_sha256:
        raise PlanError(deferred(CHANGED_SINCE_THE_DIFF))
    backup = _backup(client, location.path, stamp_data, "before") if plan.existed else None
    written = _backup(client, location.path, plan.after.encode("utf-8"), "written")
    mcp_json = config_path()
    previous_mcp = mcp_json.read_bytes() if mcp_json.exists() else None
    moving = [move for move in plan.moves if not move.already]
    store = secret_store()
    for move in moving:
        for ref, value in move.secrets.items():
            store.set(ref, value)
    added = [move.echo_name for move in moving]
    if moving:
        update_config(lambda current: current.update({move.echo_name: move.config for move in moving}))
    try:
        write_client_file(location.path, plan.after, plan.before_sha256 if plan.existed else "")
    except BaseException:
        _restore_mcp_json(mcp_json, previous_mcp)
        raise
    record = InstallRecord(
        location_id=location.id,
        client=client,
        path=str(location.path),
        key_path=location.key_path,
        when=time.strftime("%Y-%m-%d %H:%M:%S"),
        backup=str(backup) if backup else "",
        written=str(written),
        before_sha256=plan.before_sha256,
        after_sha256=sha256(plan.after.encode("utf-8")),
        entry=plan.entry,
        moved=tuple(MovedEntry(name=m.name, echo_name=m.echo_name, source=m.source, value=m.value,
                               added=not m.already, fingerprint=m.config.fingerprint()) for m in plan.moves),
    )
    previous = records.get(location.id)
    if previous is not None:  # a second move of the same list: undo puts back both
        record = _merged(previous, record)
    records.put(record)
    return InstallOutcome(record=record, added=tuple(added))


def _merged(first: InstallRecord, second: InstallRecord) -> InstallRecord:
    from dataclasses import replace

    return replace(second, backup=first.backup, before_sha256=first.before_sha256,
                   entry=first.entry if second.entry is None else second.entry, moved=first.moved + second.moved)


def _restore_mcp_json(path: Path, previous: bytes | None) -> None:
    from echo_desk.store.settings import write_atomically

    with contextlib.suppress(OSError):
        if previous is None:
            path.unlink(missing_ok=True)
        else:
            write_atomically(path, previous)


def apply_uninstall(plan: UninstallPlan, *, records: Records | None = None) -> UninstallOutcome:
    records = records or Records()
    location = plan.location
    data = plan.before.encode("utf-8")
    backup = _backup(location.client, location.path, data, "before-undo")
    if plan.delete_file:
        # Echo Desk made this file and nobody changed it since: undo removes it.
        now = location.path.read_bytes() if location.path.exists() else b""
        if sha256(now) != plan.before_sha256:
            raise PlanError(deferred(CHANGED_SINCE_THE_DIFF))
        location.path.unlink()
    else:
        write_client_file(location.path, plan.after, plan.before_sha256)
    removed: list[str] = []
    if plan.remove_from_echo_desk:
        def remove(current: dict[str, ServerConfig]) -> None:
            removed.extend(name for name in plan.remove_from_echo_desk if current.pop(name, None) is not None)

        update_config(remove)
    records.drop(location.id)
    return UninstallOutcome(removed_from_echo_desk=tuple(removed), backup=str(backup))
