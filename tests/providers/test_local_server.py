"""Starting the managed server with a file llama.cpp cannot load: a clear error, nothing left running."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

import pytest

from echo_desk.agent.model import ModelError, ModelErrorKind
from echo_desk.providers.local.profiles import get_profile
from echo_desk.providers.local.server import LlamaServer

pytestmark = pytest.mark.skipif(importlib.util.find_spec("xllamacpp") is None, reason="xllamacpp not installed")


async def test_garbage_model_file_fails_with_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\xff" * 4096)
    server = LlamaServer(bad, get_profile("qwen2.5-coder-tools"), start_timeout=60, log_path=tmp_path / "log.txt")
    with pytest.raises(ModelError, match="did not start") as info:
        await server.start()
    assert str(tmp_path / "log.txt") in str(info.value)
    assert info.value.kind == ModelErrorKind.SERVER
    assert not server.running


async def test_missing_model_file_is_not_found(tmp_path: Path) -> None:
    server = LlamaServer(tmp_path / "absent.gguf", get_profile("qwen2.5-coder-tools"))
    with pytest.raises(ModelError) as info:
        await server.start()
    assert info.value.kind == ModelErrorKind.NOT_FOUND and server.pid is None


#: A process whose main thread ends while another thread lives on: its leader is a zombie that
#: waitpid does not report yet (as a killed multi-threaded server is for a moment).
_HEADLESS = (
    "import ctypes, threading, time\n"
    "threading.Thread(target=time.sleep, args=(60,)).start()\n"
    "print('ready', flush=True)\n"
    "ctypes.CDLL(None).pthread_exit(None)\n"
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_server_whose_main_thread_has_ended_is_not_running(tmp_path: Path) -> None:
    server = LlamaServer(tmp_path / "model.gguf", get_profile("qwen2.5-coder-tools"))
    proc = subprocess.Popen([sys.executable, "-c", _HEADLESS], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        server._proc = proc  # the running check of a server this process started
        deadline = time.monotonic() + 10
        state = ""
        while state != "Z" and time.monotonic() < deadline:
            state = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
            time.sleep(0.02)  # polling a condition with a deadline
        assert state == "Z" and proc.poll() is None  # waitpid does not report it yet
        assert not server.running
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_a_live_server_process_is_running(tmp_path: Path) -> None:
    server = LlamaServer(tmp_path / "model.gguf", get_profile("qwen2.5-coder-tools"))
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        server._proc = proc
        assert server.running
    finally:
        proc.kill()
        proc.wait(timeout=10)
    assert not server.running


class _Started(Exception):
    """Raised by the stand-in server: the child got as far as starting it."""


def _params_the_child_gives(config: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> object:
    """The llama.cpp parameters ``child._serve`` builds from ``config`` (the real ``CommonParams``)."""
    import types

    import xllamacpp

    from echo_desk.providers.local import child

    given: list[object] = []

    def server(params: object) -> None:
        given.append(params)
        raise _Started

    monkeypatch.setitem(sys.modules, "xllamacpp", types.SimpleNamespace(CommonParams=xllamacpp.CommonParams,
                                                                        Server=server))
    with pytest.raises(_Started):
        child._serve(config)
    return given[0]


def test_the_threads_that_read_and_write_reach_llama_cpp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import json
    import os

    command = LlamaServer(tmp_path / "m.gguf", get_profile("qwen2.5-coder-tools"))._command()
    config = json.loads(command[-1])
    params = _params_the_child_gives(config, monkeypatch)
    one_core_left = max(1, (os.cpu_count() or 2) - 1)
    assert params.cpuparams.n_threads == one_core_left  # type: ignore[attr-defined]
    assert params.cpuparams_batch.n_threads == one_core_left  # type: ignore[attr-defined]
    # Given apart (bench/local_threads.py), each is used as given.
    apart = LlamaServer(tmp_path / "m.gguf", get_profile("qwen2.5-coder-tools"), threads=3, batch_threads=5)
    chosen = _params_the_child_gives(json.loads(apart._command()[-1]), monkeypatch)
    assert (chosen.cpuparams.n_threads, chosen.cpuparams_batch.n_threads) == (3, 5)  # type: ignore[attr-defined]
