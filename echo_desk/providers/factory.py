"""Building the configured ``ChatModel`` from settings; API keys come from the secret store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from echo_desk.agent.model import ChatModel, ModelError, ModelErrorKind, model_said
from echo_desk.i18n import N_
from echo_desk.providers.anthropic import AnthropicModel
from echo_desk.providers.gemini import GeminiModel
from echo_desk.providers.local.gguf import GgufError, read_gguf_info
from echo_desk.providers.local.manager import ModelFileError, resolve_model_path
from echo_desk.providers.local.profiles import ModelProfile, get_profile, profile_for_file
from echo_desk.providers.local.provider import LocalModel
from echo_desk.providers.openai_compat import OpenAICompatModel
from echo_desk.store.settings import LocalModelSettings, ProviderKind, ProviderSettings
from echo_desk.tools.secrets import SecretStore, secret_store

DEFAULT_BASE_URLS = {
    ProviderKind.OLLAMA: "http://127.0.0.1:11434/v1",
    ProviderKind.OPENAI: "https://api.openai.com/v1",
    ProviderKind.ANTHROPIC: "https://api.anthropic.com",
    ProviderKind.GEMINI: "https://generativelanguage.googleapis.com",
}


def _api_key(settings: ProviderSettings, secrets: SecretStore) -> str | None:
    if not settings.api_key_ref:
        return None
    try:
        return secrets.get(settings.api_key_ref)
    except Exception:  # a locked keyring reads as "no key"; the server's 401 then says so  # noqa: BLE001
        return None


def local_profile(path: Path, local: LocalModelSettings) -> ModelProfile:
    """The built-in model's profile as configured; a file the person chose gets the profile its
    own metadata calls for (family, chat template, trained context, size), not one assumed
    from its name. An unreadable header falls back to the configured profile."""
    if local.model_path:
        try:
            return profile_for_file(read_gguf_info(path), context_size=local.context_size)
        except (GgufError, OSError):
            pass
    return get_profile(local.profile, context_size=local.context_size)


def create_model(
    provider_settings: ProviderSettings,
    secrets: SecretStore | None = None,
    *,
    local: LocalModelSettings | None = None,
) -> ChatModel:
    """The ``ChatModel`` for one provider entry of the settings.

    ``local`` is only read for ``ProviderKind.LOCAL`` (defaults to ``LocalModelSettings()``).
    Raises ``ModelError`` when the configuration cannot work (no model name, no model file).
    """
    secrets = secrets or secret_store()
    kind = provider_settings.kind
    if kind == ProviderKind.LOCAL:
        local = local or LocalModelSettings()
        try:
            path = resolve_model_path(local)
        except ModelFileError as exc:
            # Its ``deferred`` sentence, kept so: the banner says it in the language of the moment.
            raise ModelError(exc.reason, kind=ModelErrorKind.NOT_FOUND) from None
        return LocalModel(path, local_profile(path, local))
    base_url = provider_settings.base_url or DEFAULT_BASE_URLS[kind]
    if not provider_settings.model:
        raise ModelError(model_said(N_("Choose a model for this provider in Settings › Models.")), kind=ModelErrorKind.BAD_REQUEST)
    key = _api_key(provider_settings, secrets)
    if kind == ProviderKind.ANTHROPIC:
        return AnthropicModel(model=provider_settings.model, api_key=key, base_url=base_url)
    if kind == ProviderKind.GEMINI:
        return GeminiModel(model=provider_settings.model, api_key=key, base_url=base_url)
    return OpenAICompatModel(base_url=base_url, model=provider_settings.model, api_key=key)


def sub_agent_factory(
    parent: ChatModel,
    provider_settings: ProviderSettings,
    secrets: SecretStore | None = None,
    *,
    local: LocalModelSettings | None = None,
) -> Callable[[], ChatModel]:
    """Models for sub-agents, which run on a tool worker's event loop: the built-in model
    shares the parent's server; remote providers get a fresh client each."""
    if isinstance(parent, LocalModel):
        return parent.sibling
    return lambda: create_model(provider_settings, secrets, local=local)
