"""A chosen .gguf gets its profile from its own header (family, template, context, size)."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest

from echo_desk.providers.factory import create_model
from echo_desk.providers.local.gguf import GgufError, read_gguf_info
from echo_desk.providers.local.profiles import SMALL_MODEL_HIDDEN, profile_for_file
from echo_desk.store.settings import LocalModelSettings, ProviderKind, ProviderSettings
from tests.providers.test_local_llm import MODEL

CHATML = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
LLAMA = "{% for m in messages %}[INST] {{ m.content }} [/INST]{% endfor %}"


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def _value(value: Any) -> bytes:
    if isinstance(value, str):
        return struct.pack("<I", 8) + _string(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return struct.pack("<IIQ", 9, 8, len(value)) + b"".join(_string(v) for v in value)
    if isinstance(value, list):
        return struct.pack("<IIQ", 9, 6, len(value)) + b"".join(struct.pack("<f", v) for v in value)
    return struct.pack("<II", 4, value)


def write_gguf(path: Path, meta: dict[str, Any], tensors: dict[str, tuple[int, ...]], *, version: int = 3) -> Path:
    """A small GGUF file: header, metadata, tensor records (no tensor data is needed to read it)."""
    out = [b"GGUF", struct.pack("<IQQ", version, len(tensors), len(meta))]
    out += [_string(key) + _value(value) for key, value in meta.items()]
    for name, shape in tensors.items():
        out.append(_string(name) + struct.pack("<I", len(shape)) + b"".join(struct.pack("<Q", d) for d in shape)
                   + struct.pack("<IQ", 0, 0))
    path.write_bytes(b"".join(out))
    return path


def _model(tmp_path: Path, arch: str, template: str, context: int, tensors: dict[str, tuple[int, ...]]) -> Path:
    meta = {"general.architecture": arch, "general.name": f"tiny {arch}",
            "tokenizer.ggml.tokens": ["<s>", "a", "b"], "tokenizer.ggml.scores": [0.0, -1.0, -2.0],
            f"{arch}.context_length": context, "tokenizer.chat_template": template}
    return write_gguf(tmp_path / f"{arch}.gguf", meta, tensors)


def test_the_header_is_read_without_the_tensor_data(tmp_path: Path) -> None:
    path = _model(tmp_path, "llama", LLAMA, 2048, {"tok.weight": (4, 8), "out.weight": (8,)})
    info = read_gguf_info(path)
    assert (info.architecture, info.name, info.context_length) == ("llama", "tiny llama", 2048)
    assert info.chat_template == LLAMA and not info.chatml
    assert info.parameter_count == 40


def test_a_chatml_qwen_file_gets_structured_calls_and_another_keeps_its_template(tmp_path: Path) -> None:
    qwen = profile_for_file(read_gguf_info(_model(tmp_path, "qwen2", CHATML, 32768, {"w": (10, 10)})),
                            context_size=8192)
    assert qwen.structured_calls and qwen.chat_template is not None and qwen.context_size == 8192
    assert "echo_text" in qwen.hidden_tools and qwen.steer_turns  # 100 weights: a small model
    assert qwen.basic_parameters_only
    llama = profile_for_file(read_gguf_info(_model(tmp_path, "llama", LLAMA, 2048, {"w": (3, 3)})),
                             context_size=8192)
    assert not llama.structured_calls and llama.chat_template is None  # the file's own template
    assert llama.context_size == 2048  # never more than it was trained for


def test_a_large_model_is_offered_every_tool_and_chooses_its_own_steps(tmp_path: Path) -> None:
    path = _model(tmp_path, "qwen2", CHATML, 32768, {"w": (100_000, 80_000)})  # 8 billion weights
    profile = profile_for_file(read_gguf_info(path))
    assert profile.hidden_tools == frozenset() and not profile.steer_turns and not profile.basic_parameters_only


@pytest.mark.parametrize("content", [b"", b"GGML" + b"\0" * 40, b"GGUF" + struct.pack("<I", 1) + b"\0" * 16,
                                     b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1 << 40)])
def test_a_damaged_header_is_a_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.gguf"
    path.write_bytes(content)
    with pytest.raises(GgufError):
        read_gguf_info(path)


def test_a_chosen_file_gets_the_profile_its_header_calls_for(tmp_path: Path) -> None:
    path = _model(tmp_path, "llama", LLAMA, 4096, {"w": (2, 2)})
    local = LocalModelSettings(model_path=str(path), context_size=8192)  # profile still says qwen
    model = create_model(ProviderSettings(kind=ProviderKind.LOCAL), local=local)
    assert model.profile.name == "model-template" and model.profile.context_size == 4096  # type: ignore[attr-defined]


@pytest.mark.skipif(MODEL is None, reason="local model absent")
def test_the_real_built_in_model_reads_as_a_small_chatml_qwen() -> None:
    assert MODEL is not None
    info = read_gguf_info(MODEL)
    assert info.architecture == "qwen2" and info.chatml and info.context_length == 32768
    assert 400_000_000 < info.parameter_count < 1_000_000_000
    profile = profile_for_file(info, context_size=8192)
    assert profile.structured_calls and profile.relative_paths and profile.hidden_tools == SMALL_MODEL_HIDDEN
    assert profile.steer_turns
