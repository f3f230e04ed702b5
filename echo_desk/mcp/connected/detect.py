"""Which MCP clients are on this machine, and where each stands with Echo Desk."""

from __future__ import annotations

import enum
import sys
from dataclasses import dataclass
from pathlib import Path

from echo_desk.i18n import N_
from echo_desk.mcp.connected.clients import CLIENTS, Client, Location
from echo_desk.mcp.connected.plan import Inspection, inspect
from echo_desk.mcp.connected.records import InstallRecord, Records


class Standing(enum.StrEnum):
    PROTECTED = "protected"
    #: Echo Desk's entry is there, but some servers still run beside it.
    PARTLY = "partly"
    NOT_PROTECTED = "not_protected"
    NO_SERVERS = "no_servers"
    UNREADABLE = "unreadable"
    READ_ONLY = "read_only"
    ABSENT = "absent"


STANDING_LABELS = {
    Standing.PROTECTED: N_("Protected by Echo Desk"),
    Standing.PARTLY: N_("Partly protected"),
    Standing.NOT_PROTECTED: N_("Not protected"),
    Standing.NO_SERVERS: N_("No MCP servers"),
    Standing.UNREADABLE: N_("File unreadable"),
    Standing.READ_ONLY: N_("Not rewritten by Echo Desk"),
    Standing.ABSENT: N_("No config file yet"),
}


@dataclass(frozen=True, kw_only=True)
class LocationReport:
    inspection: Inspection
    #: What the last move behind Echo Desk did here (what Undo puts back).
    record: InstallRecord | None = None

    @property
    def location(self) -> Location:
        return self.inspection.location

    @property
    def standing(self) -> Standing:
        found = self.inspection
        if found.problem:
            return Standing.UNREADABLE
        if not found.exists:
            return Standing.ABSENT
        if found.location.read_only:
            return Standing.READ_ONLY if found.servers else Standing.NO_SERVERS
        if found.protected:
            return Standing.PARTLY if found.servers and _movable(found) else Standing.PROTECTED
        return Standing.NOT_PROTECTED if found.servers else Standing.NO_SERVERS


def _movable(found: Inspection) -> bool:
    """Whether servers beside Echo Desk's entry could still move (not only ones that must stay)."""
    from echo_desk.mcp.connected.plan import PlanError, plan_install

    try:
        return bool(plan_install(found.location, current={}).moves)
    except PlanError:
        return False


@dataclass(frozen=True, kw_only=True)
class ClientReport:
    client: Client
    locations: tuple[LocationReport, ...]
    #: The client seems installed: one of its files, or a folder only it makes, exists.
    found: bool


def detect(*, home: Path | None = None, platform: str | None = None, records: Records | None = None) -> list[ClientReport]:
    """Every known client with each of its lists of servers (found or not)."""
    home = home or Path.home()
    platform = platform or sys.platform
    saved = (records or Records()).all()
    reports = []
    for client in CLIENTS.values():
        locations = client.locations(home, platform)
        found = tuple(LocationReport(inspection=inspect(loc), record=saved.get(loc.id)) for loc in locations)
        reports.append(ClientReport(client=client, locations=found, found=any(r.inspection.exists for r in found)
                                    or client.installed(home, platform)))
    return reports
