"""Round trips: 200 random files written by the real tools, then reverted, come back byte for
byte with their mode — CRLF, BOMs, latin-1 "binary-looking" bytes, no final newline, empty."""

from __future__ import annotations

import codecs
import json
import os
import random
import stat
import time
from pathlib import Path

from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.store.blobs import BlobStore

_ALPHABET = "abc xyz é中\t;{}"
#: What the tool writes: characters every original's encoding (latin-1 included) can hold.
_NEW_TEXT = "abc xyz é\t;{}\n"


def _random_bytes(rng: random.Random) -> bytes:
    shape = rng.choice(["lf", "crlf", "mixed", "bom", "latin1", "control", "empty", "noeol"])
    lines = ["".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, 30))) for _ in range(rng.randint(1, 40))]
    if shape == "empty":
        return b""
    if shape == "latin1":  # high bytes that are not UTF-8: looks binary, still text to the tools
        return bytes(rng.choice([*range(0x20, 0x7f), *range(0xa0, 0x100), 0x0a]) for _ in range(rng.randint(1, 500)))
    if shape == "control":
        return b"\x1b[31mred\x1b[0m\x07\r\n" + "\n".join(lines).encode()
    ending = {"crlf": "\r\n", "mixed": rng.choice(["\r\n", "\n"])}.get(shape, "\n")
    text = ending.join(lines) + ("" if shape == "noeol" else ending)
    data = text.encode()
    return codecs.BOM_UTF8 + data if shape == "bom" else data


async def test_200_random_files_round_trip(runtime: Runtime, scope: Scope, host: ScriptedHost,
                                           workspace: Path) -> None:
    rng = random.Random(17)
    assert runtime.reverter is not None
    originals: dict[Path, tuple[bytes, int]] = {}
    refused = 0
    for i in range(200):
        path = workspace / f"f{i:03}.txt"
        data = _random_bytes(rng)
        path.write_bytes(data)
        mode = rng.choice([0o600, 0o640, 0o644, 0o664, 0o755])
        os.chmod(path, mode)
        originals[path] = (data, mode)
        content = "".join(rng.choice(_NEW_TEXT) for _ in range(rng.randint(0, 200)))
        env = await runtime.dispatcher.execute_tool(
            ToolCall(id=f"c{i}", name="write_file", arguments=json.dumps({"path": path.name, "content": content})),
            scope, host)
        if not env.ok:  # the file tools refuse what is not text: then nothing is written or kept
            assert "binary" in env.error and path.read_bytes() == data, (path, env.error)
            assert runtime.reverter.changes.for_call(f"c{i}") == []
            refused += 1
    assert refused < 40
    changed = sum(p.read_bytes() != data for p, (data, _mode) in originals.items())
    assert changed > 150  # the writes really changed the files
    report = runtime.reverter.apply(runtime.reverter.plan_since(scope.conversation_id, ["c0"]))
    assert report.complete, (report.kept[:3], report.failed[:3])
    for path, (data, mode) in originals.items():
        assert path.read_bytes() == data, path
        assert stat.S_IMODE(path.stat().st_mode) == mode, path


def test_blobs_are_deduplicated_and_pruned_by_age(tmp_path: Path) -> None:
    store = BlobStore(tmp_path / "blobs")
    a = store.put(b"same")
    assert store.put(b"same") == a
    assert len([p for p in (tmp_path / "blobs").rglob("*") if p.is_file()]) == 1
    b = store.put(b"\x00\xff binary")
    old = time.time() - 3600
    for digest in (a, b):
        os.utime(store.root / digest[:2] / digest[2:], (old, old))
    assert store.prune(60, keep={b}) == 1
    assert store.get(a) is None and store.get(b) == b"\x00\xff binary"
    # A damaged blob is never handed out as the content to restore.
    (store.root / b[:2] / b[2:]).write_bytes(b"tampered")
    assert store.get(b) is None
