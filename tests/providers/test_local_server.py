"""Starting the managed server with a file llama.cpp cannot load: a clear error, nothing left running."""

from __future__ import annotations

import importlib.util
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
