"""Lists the sandbox hands on are bounded wherever they go, each naming a few and saying how many
more: the hosts the network proxy refused (the model's note and the card's facts), the log lines of
every check that put planted files aside (a command's late check, a check made at the next start,
a sandboxed MCP server's at its end or as Echo Desk quits), and the note that the search for
planted files stopped at its bound (only the first folders were checked) reaches the model. Before,
a command that tried thousands of hosts or planted thousands of files wrote every one of them into
the model's context and into a single log line of megabytes, and the model was never told that
folders past the bound went unchecked."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Future
from types import SimpleNamespace
from typing import Any

import pytest

from echo_desk.agent import owed_checks
from echo_desk.builtins.shell import command_sandbox, run_command
from echo_desk.mcp.connection import ServerConnection
from echo_desk.mcp.untold import Untold
from echo_desk.runtime import keep_untold
from echo_desk.sandbox import owed as sandbox_owed
from echo_desk.tools.planted import Change, CheckedLater, Planted
from echo_desk.tools.planted_told import MOST_NAMED
from echo_desk.tools.sandbox_kept import MAX_ENTRIES

# (As stored: ``sandbox_kept.FOLDERS_CHECKED_KEY``, ``REFUSED_MORE_KEY``.)
FOLDERS_CHECKED_KEY = "folders_checked"
REFUSED_MORE_KEY = "refused_more"

MANY = 5_000
#: A log line about one check: a few paths and the count, never thousands of paths.
MOST_LOGGED_CHARS = 3_000


def _plants(count: int = MANY) -> tuple[Planted, ...]:
    return tuple(Planted(f"pkg{i:05}/.envrc", Change.CREATED, kept=f"/data/put-aside/1/ws/pkg{i:05}/.envrc")
                 for i in range(count))


def _logged(caplog: pytest.LogCaptureFixture) -> str:
    [record] = [r for r in caplog.records if "pkg" in r.getMessage()]
    return record.getMessage()


def _bounded(line: str) -> None:
    assert len(line) < MOST_LOGGED_CHARS, len(line)
    assert f"and {MANY - MOST_NAMED:,} more ({MANY:,} in all" in line
    assert "pkg00000/.envrc" in line and f"pkg{MANY - 1:05}/.envrc" not in line


class _Proxy:
    """The network proxy as ``finish_network`` sees it, once it refused ``refused``."""

    def __init__(self, refused: list[str]) -> None:
        self.refused = refused

    async def close(self) -> None:
        return None


def test_thousands_of_refused_hosts_are_named_a_few_with_the_total() -> None:
    meta: dict[str, object] = {}
    hosts = [f"h{i:05}.example" for i in range(MANY)]
    note = asyncio.run(command_sandbox.finish_network(_Proxy(hosts), meta))  # type: ignore[arg-type]
    assert len(note) < 1_000, len(note)
    assert "h00000.example, h00001.example" in note and f"h{MOST_NAMED:05}.example" not in note
    assert f"and {MANY - MOST_NAMED:,} more ({MANY:,} in all, not named here)" in note
    assert meta["refused_hosts"] == hosts[:MAX_ENTRIES] and meta[REFUSED_MORE_KEY] == MANY - MAX_ENTRIES


def test_a_few_refused_hosts_are_all_named_as_before() -> None:
    meta: dict[str, object] = {}
    note = asyncio.run(command_sandbox.finish_network(_Proxy(["evil.test", "10.1.2.3"]), meta))  # type: ignore[arg-type]
    assert "network access refused for: evil.test, 10.1.2.3 (not an allowed domain" in note
    assert meta == {"refused_hosts": ["evil.test", "10.1.2.3"]}


def _launch(cut: bool, planted: tuple[Planted, ...] = ()) -> Any:
    return SimpleNamespace(search_cut=cut, links_cut=(), max_folders=1000, release=lambda: None,
                           check=lambda: planted)


@pytest.mark.parametrize("planted", [(), _plants(3)], ids=["nothing-found", "some-found"])
@pytest.mark.parametrize("later", [False, True], ids=["checked", "checked-later"])
def test_the_model_is_told_when_only_the_first_folders_were_checked(planted: tuple[Planted, ...],
                                                                     later: bool) -> None:
    meta: dict[str, object] = {}
    note = command_sandbox.planted_facts(planted, _launch(True), meta, checked_later=later)
    assert "only the first 1,000 folders of the workspace were checked for planted files" in note
    assert note.count("only the first") == 1
    assert meta["search_cut"] is True and meta[FOLDERS_CHECKED_KEY] == 1000


def test_nothing_is_said_of_folders_when_the_search_did_not_stop() -> None:
    meta: dict[str, object] = {}
    assert command_sandbox.planted_facts((), _launch(False), meta) == ""
    assert FOLDERS_CHECKED_KEY not in meta


def test_a_late_check_logs_a_few_of_thousands_of_plants(caplog: pytest.LogCaptureFixture) -> None:
    async def ended() -> None:
        proc = SimpleNamespace(pid=4242, wait=_done)
        found: Future[CheckedLater] = Future()
        await run_command._check_when_ended(proc, _launch(False, _plants()), None, found, "/ws")  # type: ignore[arg-type]
        assert len(found.result().planted) == MANY

    with caplog.at_level(logging.WARNING):
        asyncio.run(ended())
    _bounded(_logged(caplog))


async def _done() -> int:
    return 0


def test_a_check_made_at_the_next_start_logs_a_few_of_thousands(caplog: pytest.LogCaptureFixture,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_owed, "check_owed", lambda snapshot: _plants())
    check = SimpleNamespace(snapshot=b"", server="", call_id="c1")
    with caplog.at_level(logging.WARNING):
        planted, error = owed_checks._check(check)  # type: ignore[arg-type]
    assert len(planted) == MANY and not error
    _bounded(_logged(caplog))


def test_a_server_checked_at_its_end_logs_a_few_of_thousands(caplog: pytest.LogCaptureFixture) -> None:
    async def planted() -> tuple[Planted, ...]:
        return _plants()

    server = SimpleNamespace(planted=planted, config=SimpleNamespace(name="srv"), _left=[], _owed_id=None,
                             _owed=None, _end_checked=asyncio.Event())
    with caplog.at_level(logging.WARNING):
        asyncio.run(ServerConnection._check_at_end(server))  # type: ignore[arg-type]
    assert len(server._left) == MANY
    _bounded(_logged(caplog))


def test_what_servers_left_as_echo_desk_quit_is_logged_a_few_of_thousands(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        keep_untold(None, [Untold("srv", "/home/me/srv", _plants())])
    _bounded(_logged(caplog))
