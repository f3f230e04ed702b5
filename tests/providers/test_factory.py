"""create_model: one ChatModel per provider kind; keys from the secret store, never from settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.model import ModelError, ModelErrorKind
from echo_desk.providers import create_model
from echo_desk.providers.anthropic import AnthropicModel
from echo_desk.providers.gemini import GeminiModel
from echo_desk.providers.local.provider import LocalModel
from echo_desk.providers.openai_compat import OpenAICompatModel
from echo_desk.store.settings import LocalModelSettings, ProviderKind, ProviderSettings
from echo_desk.tools.secrets import MemorySecretStore, install_secret_store


async def test_openai_compatible_kinds_read_key_from_store() -> None:
    secrets = MemorySecretStore()
    secrets.set("providers.openai.api_key", "sk-from-keyring")
    m = create_model(ProviderSettings(kind=ProviderKind.OPENAI, model="gpt-4o-mini",
                                      api_key_ref="providers.openai.api_key"), secrets)
    assert isinstance(m, OpenAICompatModel)
    assert m.base_url == "https://api.openai.com/v1" and m._headers()["Authorization"] == "Bearer sk-from-keyring"
    await m.aclose()
    ollama = create_model(ProviderSettings(kind=ProviderKind.OLLAMA, model="qwen2.5-coder:0.5b"), secrets)
    assert isinstance(ollama, OpenAICompatModel) and ollama.base_url == "http://127.0.0.1:11434/v1"
    assert "Authorization" not in ollama._headers()
    await ollama.aclose()


async def test_default_store_is_the_installed_one() -> None:
    store = MemorySecretStore()
    store.set("k", "ant-key")
    install_secret_store(store)
    m = create_model(ProviderSettings(kind=ProviderKind.ANTHROPIC, model="claude-sonnet-4-5", api_key_ref="k"))
    assert isinstance(m, AnthropicModel) and m._headers()["x-api-key"] == "ant-key"
    await m.aclose()


async def test_gemini_and_custom_base_url() -> None:
    m = create_model(ProviderSettings(kind=ProviderKind.GEMINI, model="gemini-2.5-flash", base_url="http://127.0.0.1:9/"),
                     MemorySecretStore())
    assert isinstance(m, GeminiModel) and m.base_url == "http://127.0.0.1:9"
    await m.aclose()


def test_missing_model_name_is_actionable() -> None:
    with pytest.raises(ModelError, match="Choose a model") as info:
        create_model(ProviderSettings(kind=ProviderKind.OPENAI), MemorySecretStore())
    assert info.value.kind == ModelErrorKind.BAD_REQUEST


def test_local_without_model_file_says_how_to_fetch() -> None:
    with pytest.raises(ModelError, match="fetch_default") as info:
        create_model(ProviderSettings(kind=ProviderKind.LOCAL), MemorySecretStore())
    assert info.value.kind == ModelErrorKind.NOT_FOUND


async def test_local_with_chosen_gguf_builds_without_starting(tmp_path: Path) -> None:
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 16)
    m = create_model(ProviderSettings(kind=ProviderKind.LOCAL), MemorySecretStore(),
                     local=LocalModelSettings(model_path=str(gguf), context_size=2048))
    assert isinstance(m, LocalModel)
    assert m.profile.context_size == 2048 and m.profile.request_defaults["cache_prompt"] is True  # the app caches
    assert m.profile.chat_template and "tojson" in m.profile.chat_template
    assert not m.server.running and "tiny" in m.display_name
    await m.aclose()
