"""Model manager downloads against a real loopback HTTP server: progress, resume, sha256."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from echo_desk.providers.local.manager import (
    ModelFileError,
    check_chosen_file,
    download_model,
    resolve_model_path,
)
from echo_desk.providers.local.verify import is_verified
from echo_desk.store.settings import LocalModelSettings

PAYLOAD = b"GGUF" + bytes(range(256)) * 800  # ~200 KB
SHA = hashlib.sha256(PAYLOAD).hexdigest()


def range_server(loopback, *, break_first_at: int | None = None):  # type: ignore[no-untyped-def]
    """Serves PAYLOAD with Range support; the first response can be cut off after N bytes."""
    state = {"broken": False}

    def handle(h) -> None:  # type: ignore[no-untyped-def]
        start = 0
        m = re.match(r"bytes=(\d+)-", h.headers.get("Range", ""))
        if m:
            start = int(m.group(1))
            h.send_response(206)
            h.send_header("Content-Range", f"bytes {start}-{len(PAYLOAD) - 1}/{len(PAYLOAD)}")
        else:
            h.send_response(200)
        body = PAYLOAD[start:]
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if break_first_at is not None and not state["broken"]:
            state["broken"] = True
            h.wfile.write(body[:break_first_at])
            h.wfile.flush()
            h.close_connection = True
            return  # the handler returns: the socket closes short of Content-Length
        h.wfile.write(body)

    return loopback(handle)


async def no_wait(_seconds: float) -> None:
    return None


async def test_download_with_progress_and_verification(loopback, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    server = range_server(loopback)
    seen: list[tuple[int, int | None]] = []
    target = tmp_path / "m.gguf"
    result = await download_model(f"{server.url}/m.gguf", target, sha256=SHA, progress=lambda d, t: seen.append((d, t)))
    assert result == target and target.read_bytes() == PAYLOAD
    assert seen[-1] == (len(PAYLOAD), len(PAYLOAD))
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert is_verified(target, SHA)
    assert not (tmp_path / "m.gguf.partial").exists()


async def test_broken_connection_resumes_with_range(loopback, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    server = range_server(loopback, break_first_at=70_000)
    target = tmp_path / "m.gguf"
    await download_model(f"{server.url}/m.gguf", target, sha256=SHA, sleep=no_wait)
    assert target.read_bytes() == PAYLOAD
    assert len(server.requests) == 2
    assert "range" not in server.requests[0]
    assert server.requests[1]["range"] == "bytes=70000-"


async def test_partial_kept_after_giving_up_then_next_call_resumes(loopback, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    server = range_server(loopback, break_first_at=50_000)
    target = tmp_path / "m.gguf"
    with pytest.raises(ModelFileError, match="Download it again to resume"):
        await download_model(f"{server.url}/m.gguf", target, sha256=SHA, attempts=1, sleep=no_wait)
    partial = tmp_path / "m.gguf.partial"
    assert partial.stat().st_size == 50_000 and not target.exists()
    await download_model(f"{server.url}/m.gguf", target, sha256=SHA, attempts=1, sleep=no_wait)
    assert target.read_bytes() == PAYLOAD and server.requests[-1]["range"] == "bytes=50000-"


#: An exception class's name in a sentence ("broke off (RemoteProtocolError)"), as it used to read.
_CLASS_NAME = re.compile(r"\b_?[A-Z][a-z]+[A-Z]\w*|_Truncated")


@pytest.mark.parametrize(("where", "words", "chinese"), [
    ("cut", "the server ended the file early|the connection broke off", "服务器提前结束了文件传输|连接中断了"),
    ("closed", r"the server could not be reached \(no network, or a wrong address\)", "无法连接服务器"),
])
async def test_a_download_that_stops_says_why_in_words_in_both_languages(  # type: ignore[no-untyped-def]
        loopback, tmp_path: Path, where: str, words: str, chinese: str) -> None:
    from echo_desk.i18n import set_language, shown

    url = f"{range_server(loopback, break_first_at=50_000).url}/m.gguf" if where == "cut" else "http://127.0.0.1:9/m.gguf"
    with pytest.raises(ModelFileError) as raised:
        await download_model(url, tmp_path / "m.gguf", sha256=SHA, attempts=1, sleep=no_wait)
    english = str(raised.value)
    assert re.search(f"stopped: ({words}). Download it again to resume.", english), english
    assert not _CLASS_NAME.search(english), english
    set_language("zh_CN")
    try:
        said = shown(raised.value.reason)
    finally:
        set_language("en")
    assert re.search(chinese, said) and not re.search("[A-Za-z]{3,}", said.replace(url, "")), said


async def test_wrong_hash_is_rejected_and_nothing_kept(loopback, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    server = range_server(loopback)
    target = tmp_path / "m.gguf"
    with pytest.raises(ModelFileError, match="its checksum"):
        await download_model(f"{server.url}/m.gguf", target, sha256="0" * 64)
    assert not target.exists() and not (tmp_path / "m.gguf.partial").exists()


async def test_http_error_is_reported(loopback, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    def handle(h) -> None:  # type: ignore[no-untyped-def]
        h.send_response(404)
        h.send_header("Content-Length", "0")
        h.end_headers()

    server = loopback(handle)
    with pytest.raises(ModelFileError, match="HTTP 404"):
        await download_model(f"{server.url}/x.gguf", tmp_path / "x.gguf", sha256=SHA)


def test_chosen_file_must_exist_and_be_gguf(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="does not exist"):
        check_chosen_file(tmp_path / "nope.gguf")
    other = tmp_path / "notes.gguf"
    other.write_bytes(b"hello")
    with pytest.raises(ModelFileError, match="not a GGUF"):
        check_chosen_file(other)
    good = tmp_path / "good.gguf"
    good.write_bytes(PAYLOAD)
    assert resolve_model_path(LocalModelSettings(model_path=str(good))) == good


def test_default_model_missing_says_how_to_fetch() -> None:
    with pytest.raises(ModelFileError, match=r"python -m echo_desk\.providers\.local\.fetch_default"):
        resolve_model_path(LocalModelSettings())
