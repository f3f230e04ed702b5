"""The models a configured server offers, for the model picker in Settings › Models.

Ollama is asked on its own ``/api/tags`` (it also tells the family and the size, e.g. "7.6B"),
an OpenAI-compatible server on ``/v1/models``. Failures are ``ModelError``s in plain words
("no server at http://127.0.0.1:11434 — is Ollama running?"), as for a chat request.
"""

from __future__ import annotations

import httpx

from echo_desk.agent.model import ModelError, ModelErrorKind, ModelInfo, model_said
from echo_desk.i18n import N_
from echo_desk.providers.errors import error_for_status, error_for_transport
from echo_desk.providers.factory import DEFAULT_BASE_URLS, _api_key
from echo_desk.providers.openai_compat import OpenAICompatModel
from echo_desk.store.settings import ProviderKind, ProviderSettings
from echo_desk.tools.secrets import SecretStore, secret_store

_TIMEOUT = httpx.Timeout(10.0, connect=3.0)


def ollama_root(base_url: str) -> str:
    """``http://host:11434`` from the OpenAI-compatible ``http://host:11434/v1`` the settings keep."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


async def list_provider_models(provider: ProviderSettings, secrets: SecretStore | None = None, *,
                               transport: httpx.AsyncBaseTransport | None = None) -> list[ModelInfo]:
    """The models of ``provider``'s server, in the server's order."""
    kind = provider.kind
    if kind is ProviderKind.OLLAMA:
        return await ollama_models(provider.base_url or DEFAULT_BASE_URLS[kind], transport=transport)
    if kind is ProviderKind.OPENAI:
        model = OpenAICompatModel(base_url=provider.base_url or DEFAULT_BASE_URLS[kind], model=provider.model or "-",
                                  api_key=_api_key(provider, secrets or secret_store()))
        try:
            return await model.list_models()
        finally:
            await model.aclose()
    raise ModelError(model_said(N_("This provider cannot list its models; type the model name.")), kind=ModelErrorKind.BAD_REQUEST)


async def ollama_models(base_url: str, *, transport: httpx.AsyncBaseTransport | None = None) -> list[ModelInfo]:
    """``GET /api/tags`` of an Ollama server."""
    root = ollama_root(base_url)
    async with httpx.AsyncClient(timeout=_TIMEOUT, transport=transport) as client:
        try:
            response = await client.get(f"{root}/api/tags")
        except httpx.TransportError as exc:
            raise error_for_transport(exc, base_url=root) from None
    if response.status_code >= 400:
        raise error_for_status(response.status_code, response.content, base_url=root, model="")
    try:
        entries = response.json().get("models") or []
    except (ValueError, AttributeError):
        raise ModelError(model_said(N_("{url} did not answer like an Ollama server."), url=f"{root}/api/tags"),
                         kind=ModelErrorKind.BAD_REQUEST) from None
    infos = []
    for entry in entries:
        if not isinstance(entry, dict) or not entry.get("name"):
            continue
        details = entry.get("details")
        details = details if isinstance(details, dict) else {}
        extra = {k: str(details[k]) for k in ("family", "parameter_size", "quantization_level") if details.get(k)}
        infos.append(ModelInfo(id=str(entry["name"]), extra=extra))
    return infos
