"""The built-in model panel: downloads from a real loopback HTTP server, sha256, cancel, choosing a file."""

from __future__ import annotations

import errno
import hashlib
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from echo_desk.store.settings import SettingsStore
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.settings.local_model_panel import LocalModelPanel
from echo_desk.ui.settings.model_download import describe_error

PAYLOAD = b"GGUF" + bytes(range(256)) * 4000  # ~1 MB
SHA = hashlib.sha256(PAYLOAD).hexdigest()
FIRST = 65_536  # bytes sent before a "stalled" server stops sending
WAIT_MS = 15_000


class Server:
    """A real HTTP server on 127.0.0.1 serving PAYLOAD with Range; it can stall after FIRST bytes."""

    def __init__(self) -> None:
        self.requests: list[dict[str, str]] = []
        self.stall = False
        self.status = 200
        self.release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                outer.requests.append({k.lower(): v for k, v in self.headers.items()})
                if outer.status != 200:
                    self.send_response(outer.status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                start = 0
                m = re.match(r"bytes=(\d+)-", self.headers.get("Range", ""))
                if m:
                    start = int(m.group(1))
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(PAYLOAD) - 1}/{len(PAYLOAD)}")
                else:
                    self.send_response(200)
                body = PAYLOAD[start:]
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if outer.stall:
                    self.wfile.write(body[:FIRST])
                    self.wfile.flush()
                    outer.release.wait(30)  # silent, like a stuck server, until the test ends
                    self.close_connection = True
                    return
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/models/tiny.gguf"

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


@pytest.fixture
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Never the shared test cache (it may hold the real default model).
    monkeypatch.setenv("ECHO_DESK_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "models"


@pytest.fixture
def panel(qtbot, qloop, settings_store: SettingsStore, models: Path) -> Iterator[LocalModelPanel]:
    widget = LocalModelPanel(settings_store)
    qtbot.addWidget(widget)
    widget.show()
    yield widget
    widget.shutdown()
    qtbot.waitUntil(lambda: widget.job is None, timeout=WAIT_MS)


def record_progress(panel: LocalModelPanel) -> list[tuple[int, int | None]]:
    seen: list[tuple[int, int | None]] = []
    shown = panel._progress

    def spy(done: int, total: int | None, speed: float) -> None:
        seen.append((done, total))
        shown(done, total, speed)

    panel._progress = spy  # type: ignore[method-assign]
    return seen


def download(panel: LocalModelPanel, url: str, sha: str) -> None:
    panel.download_toggle.click()
    panel.url.setText(url)
    panel.sha.setText(sha)
    panel.download_button.click()


def test_download_shows_progress_verifies_and_saves_the_path(qtbot, panel, server, settings_store, models):
    seen = record_progress(panel)
    download(panel, server.url, SHA.upper())  # a hash pasted in capitals is fine
    assert panel.cancel_button.isEnabled() and not panel.download_button.isEnabled()
    qtbot.waitUntil(lambda: panel.job is None, timeout=WAIT_MS)
    target = models / "tiny.gguf"
    assert settings_store.current.local_model.model_path == str(target)
    assert target.read_bytes() == PAYLOAD and not (models / "tiny.gguf.partial").exists()
    assert seen and seen[-1] == (len(PAYLOAD), len(PAYLOAD))
    assert panel.progress.value() == panel.progress.maximum() > 0
    assert "verified" in panel.state.text() and str(target) in panel.file.text()
    assert panel.progress_text.text() == "Downloaded and verified." and panel.download_button.isEnabled()
    # Settings on disk, not only in memory.
    assert SettingsStore.in_dir(settings_store.path.parent).current.local_model.model_path == str(target)


def test_wrong_sha256_shows_the_error_keeps_nothing_and_changes_no_setting(qtbot, panel, server, settings_store,
                                                                            models):
    before = settings_store.current.local_model
    download(panel, server.url, "ab" * 32)
    qtbot.waitUntil(lambda: panel.job is None, timeout=WAIT_MS)
    # The checksum named in words, never an exception's class name.
    assert "is not the one expected: its checksum" in panel.message.text()
    assert [p.name for p in models.iterdir()] == []
    assert settings_store.current.local_model == before
    # Said again in the language switched to (it kept the English it was first said in).
    i18n_qt.apply_language("zh_CN")
    try:
        assert "下载的文件不是预期的文件：它的校验和" in panel.message.text(), panel.message.text()
    finally:
        i18n_qt.apply_language("en")
    assert "is not the one expected" in panel.message.text()


def test_cancel_stops_a_stalled_download_keeps_the_part_and_the_next_one_resumes(qtbot, panel, server,
                                                                                   settings_store, models):
    server.stall = True
    seen = record_progress(panel)
    download(panel, server.url, SHA)
    # Every byte the stalled server sent is shown (the last update is not dropped by the throttle).
    qtbot.waitUntil(lambda: bool(seen) and seen[-1] == (FIRST, len(PAYLOAD)), timeout=WAIT_MS)
    assert panel.progress.maximum() == len(PAYLOAD) // 1024 and panel.progress.value() == FIRST // 1024
    assert panel.progress_text.text().startswith("65.5 KB of 1.0 MB")
    panel.cancel_button.click()
    qtbot.waitUntil(lambda: panel.job is None, timeout=WAIT_MS)  # ended while the server is still silent
    assert not server.release.is_set()
    assert "cancelled" in panel.message.text() and "resume" in panel.message.text()
    partial = models / "tiny.gguf.partial"
    assert partial.stat().st_size == FIRST and not (models / "tiny.gguf").exists()
    assert settings_store.current.local_model.model_path == ""

    server.stall = False
    server.release.set()
    panel.download_button.click()
    qtbot.waitUntil(lambda: panel.job is None, timeout=WAIT_MS)
    assert server.requests[-1]["range"] == f"bytes={FIRST}-"
    assert (models / "tiny.gguf").read_bytes() == PAYLOAD
    assert settings_store.current.local_model.model_path == str(models / "tiny.gguf")


def test_http_error_and_bad_inputs_are_reported(qtbot, panel, server, settings_store):
    server.status = 404
    download(panel, server.url, SHA)
    qtbot.waitUntil(lambda: panel.job is None, timeout=WAIT_MS)
    assert "HTTP 404" in panel.message.text()
    panel.sha.setText("1234")
    panel.download_button.click()
    assert panel.job is None and "64 hexadecimal" in panel.message.text()
    panel.sha.setText(SHA)
    panel.url.setText("ftp://example.com/m.gguf")
    panel.download_button.click()
    assert panel.job is None and "http://" in panel.message.text()
    assert len(server.requests) == 1 and settings_store.current.local_model.model_path == ""


def test_choosing_a_non_gguf_file_is_refused_and_a_gguf_is_used(qtbot, panel, settings_store, tmp_path):
    notes = tmp_path / "notes.gguf"
    notes.write_bytes(b"hello, not a model")
    panel.choose_button.click()  # the real dialog; a person picks the file
    panel._dialog.fileSelected.emit(str(notes))
    panel._dialog.reject()
    assert "not a GGUF" in panel.message.text() and settings_store.current.local_model.model_path == ""
    assert not panel.use_file(str(tmp_path / "gone.gguf")) and "does not exist" in panel.message.text()

    good = tmp_path / "good.gguf"
    good.write_bytes(PAYLOAD)
    assert panel.use_file(str(good))
    assert settings_store.current.local_model.model_path == str(good)
    assert "not verified" in panel.state.text() and "1.0 MB" in panel.state.text()
    panel.default_button.click()
    assert settings_store.current.local_model.model_path == ""
    assert "Not downloaded yet" in panel.state.text() and not panel.default_button.isEnabled()


def test_context_size_is_saved(panel, settings_store):
    panel.context.setValue(4096)
    assert settings_store.current.local_model.context_size == 4096


def test_error_messages_say_what_to_do(tmp_path):
    full = describe_error(OSError(errno.ENOSPC, "No space left on device"), tmp_path)
    assert "disk is full" in full and "resumes" in full
    refused = describe_error(httpx.ConnectError("[Errno 111] Connection refused"), tmp_path)
    # The library's English is technical detail: the panel keeps it in the tooltip, not the sentence.
    assert "Could not connect" in refused and "Connection refused" not in refused


def test_a_failed_download_keeps_its_technical_detail_in_the_tooltip(panel, tmp_path):
    panel._failed(httpx.ConnectError("[Errno 111] Connection refused"))
    assert panel.message.text().startswith("Could not connect to the server.")
    assert panel.message.toolTip() == "ConnectError: [Errno 111] Connection refused"
    assert not panel.use_file(str(tmp_path / "gone.gguf")) and panel.message.toolTip() == ""


def test_closing_the_page_stops_its_download(qtbot, qloop, server, settings_store, models):
    server.stall = True
    widget = LocalModelPanel(settings_store)
    widget.show()
    download(widget, server.url, SHA)
    job = widget.job
    assert job is not None
    qtbot.waitUntil(lambda: widget.progress.value() == FIRST // 1024, timeout=WAIT_MS)
    widget.deleteLater()
    qtbot.waitUntil(lambda: widget.job is None, timeout=WAIT_MS)  # the worker ended: nothing left running
    assert not server.release.is_set() and not (models / "tiny.gguf").exists()
    assert job.partial.stat().st_size == FIRST  # kept for a resume


def test_a_chosen_gguf_says_what_its_header_says_and_how_it_will_run(qtbot, panel, tmp_path):
    from tests.providers.test_gguf_profile import LLAMA, write_gguf

    path = write_gguf(tmp_path / "tiny-llama.gguf", {
        "general.architecture": "llama", "general.name": "Tiny Llama", "llama.context_length": 2048,
        "tokenizer.chat_template": LLAMA}, {"w": (1000, 1000)})
    assert panel.use_file(str(path))
    qtbot.waitUntil(lambda: "trained for" in panel.message.text(), timeout=WAIT_MS)
    text = panel.message.text()
    assert text.startswith("Using tiny-llama.gguf: Tiny Llama · 1 million weights")
    assert "trained for 2,048 tokens, run with 2,048" in text and "own chat template" in text
    assert "small model" in text
