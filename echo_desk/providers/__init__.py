"""LLM clients (httpx, async, streaming) implementing ``echo_desk.agent.model.ChatModel``.

``create_model(provider_settings, secrets)`` builds the configured one; the app wires it into
the agent loop (the engine never imports this package).
"""

from echo_desk.providers.factory import create_model

__all__ = ["create_model"]
