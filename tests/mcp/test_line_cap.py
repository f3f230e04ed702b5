"""A stdio server's line is cut off at the cap however the pipe splits it into reads."""

from __future__ import annotations

import anyio
import pytest
from anyio.abc import ByteReceiveStream

from echo_desk.mcp.line_cap import _CappedLines


class _Reads(ByteReceiveStream):
    """The pipe as these reads, then its end."""

    def __init__(self, *reads: bytes) -> None:
        self._reads = list(reads)

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if not self._reads:
            raise anyio.EndOfStream
        return self._reads.pop(0)

    async def aclose(self) -> None:
        pass


async def _read_all(*reads: bytes, limit: int) -> tuple[bytes, int]:
    """What the reader got, and how often the cap was reported."""
    told: list[None] = []
    stream = _CappedLines(_Reads(*reads), lambda: told.append(None), limit)
    got = b""
    with pytest.raises(anyio.EndOfStream):
        while True:
            got += await stream.receive()
    return got, len(told)


@pytest.mark.parametrize("reads", [
    (b"12345678", b"9012\nok\n"),   # passes the cap in the read that ends it
    (b"123456789012\nok\n",),       # in one read
    (b"ok\n12345678901\n",),        # a whole line inside a read
    (b"ok\n1234", b"5678", b"901"),  # across reads, never ended
], ids=["ended in a later read", "one read", "inside a read", "never ended"])
async def test_a_line_past_the_cap_is_reported_and_not_passed_on(reads) -> None:
    """The first case went through whole: the count restarted at the newline before it was checked."""
    got, told = await _read_all(*reads, limit=10)
    assert told == 1
    assert b"1234567890" not in got


async def test_lines_at_the_cap_pass_whole() -> None:
    reads = (b"12345", b"67890\n1234567890\n", b"12", b"34567890\nend\n")
    got, told = await _read_all(*reads, limit=10)
    assert told == 0
    assert got == b"".join(reads)
