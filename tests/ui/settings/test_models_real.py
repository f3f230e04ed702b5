"""The Models page against the real OpenAI-compatible provider and a loopback server that
speaks the chat-completions streaming format (skipped while providers are not in the build)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PySide6.QtCore import Qt

from echo_desk.store.settings import ProviderKind
from echo_desk.ui.settings.models_page import ModelsPage
from tests.ui.conftest import within

providers = pytest.importorskip("echo_desk.providers")
create_model = getattr(providers, "create_model", None)
pytestmark = pytest.mark.skipif(create_model is None, reason="no provider factory in this build")


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        return None

    def do_GET(self) -> None:  # /v1/models
        body = json.dumps({"object": "list", "data": [{"id": "tiny-1"}, {"id": "tiny-2"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:  # /v1/chat/completions, streamed
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for chunk in ({"choices": [{"index": 0, "delta": {"content": "OK"}}]},
                      {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}):
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


def test_list_models_and_test_connection_through_the_real_provider(qtbot, qloop, settings_store, server):
    page = ModelsPage(settings_store, create_model)
    qtbot.addWidget(page)
    page._new()
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.OPENAI.value))
    page.url.setText(server)

    async def run(button):
        button.click()
        await within(asyncio.shield(page._test))

    qloop.run_until_complete(run(page.list_button))
    assert [page.model.itemText(i) for i in range(page.model.count())] == ["tiny-1", "tiny-2"]
    qloop.run_until_complete(run(page.test_button))
    assert "OK" in page.result.text() and page.result.text().startswith("Connected")
    page.url.setText("http://127.0.0.1:9/v1")  # nothing listens there
    qloop.run_until_complete(run(page.test_button))
    assert page.result.text().startswith("Connection failed")


class _OllamaHandler(BaseHTTPRequestHandler):
    tags: dict[str, object] = {"models": [
        {"name": "qwen2.5-coder:7b", "details": {"family": "qwen2", "parameter_size": "7.6B"}},
        {"name": "llama3.2:1b", "details": {"family": "llama", "parameter_size": "1.2B"}},
    ]}

    def log_message(self, *args: object) -> None:
        return None

    def do_GET(self) -> None:
        if self.path != "/api/tags":
            self.send_error(404)
            return
        body = json.dumps(self.tags).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def ollama() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _OllamaHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"  # as the settings keep it
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


def test_ollama_models_come_from_api_tags_and_errors_are_plain_words(qtbot, qloop, settings_store, ollama):
    page = ModelsPage(settings_store, create_model)
    qtbot.addWidget(page)
    page._new()  # a new entry is an Ollama one
    page.url.setText(ollama)
    page.model.setEditText("")

    async def run() -> None:
        page.list_button.click()
        await within(asyncio.shield(page._test))

    qloop.run_until_complete(run())
    assert [page.model.itemText(i) for i in range(page.model.count())] == ["qwen2.5-coder:7b", "llama3.2:1b"]
    assert page.model.itemData(0, Qt.ItemDataRole.ToolTipRole) == "7.6B · qwen2"
    assert page.model.currentText() == "qwen2.5-coder:7b" and page.result.text() == "2 models found."
    page.model.setCurrentIndex(1)
    page.save()
    assert settings_store.current.providers[page.current_name()].model == "llama3.2:1b"  # the name, not a label

    page.url.setText("http://127.0.0.1:9")  # nothing listens there
    qloop.run_until_complete(run())
    assert page.result.text().startswith("Could not list the models:")
    assert "127.0.0.1:9" in page.result.text()
    assert page.list_button.isEnabled()
