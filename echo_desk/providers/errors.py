"""Turn transport failures and HTTP statuses into ``ModelError``s a person can act on.

Every provider goes through ``error_for_status`` / ``error_for_transport`` so the same failure
reads the same whichever API is behind it. Keys and request bodies never appear in messages.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import httpx

from echo_desk.agent.model import ModelError, ModelErrorKind, model_said
from echo_desk.common.json_text import read_json
from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_

#: Statuses worth another attempt after a pause: the server is busy, not wrong.
RETRYABLE_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})

# llama.cpp answers 500 (or an in-stream error object) when the model's text does not parse
# as the tool-call format it expected; that is the model's fault and retrying the same prompt
# at temperature 0 gives the same text, so it is neither "server down" nor retryable.
_MODEL_OUTPUT_MARKERS = (
    "does not match the expected",
    "failed to parse",
    "could not parse",
    "parse tool call",
    "invalid tool call",
)


def server_hint(base_url: str) -> str:
    """A guess at which program should be listening, for the "is X running?" message."""
    parts = urlsplit(base_url)
    port = parts.port
    host = parts.hostname or ""
    if port == 11434:
        return "Ollama"
    if port == 1234:
        return "LM Studio"
    if host in ("127.0.0.1", "localhost", "::1"):
        return model_said(N_("the local model server"))
    return model_said(N_("the server"))


def origin(url: str) -> str:
    """``scheme://host:port`` of ``url`` — what we show, never paths with keys in queries."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def error_message_from_body(body: bytes | str) -> str:
    """The server's own error text, from the common JSON shapes, else the first 300 characters."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        data = read_json(text)
    except ValueError:
        return text.strip()[:300]
    return _message_from_json(data) or text.strip()[:300]


def _message_from_json(data: object) -> str:
    if isinstance(data, list) and data:
        return _message_from_json(data[0])  # Gemini sometimes wraps errors in a list
    if not isinstance(data, dict):
        return ""
    err = data.get("error", data)
    if isinstance(err, dict):
        msg = err.get("message") or err.get("detail") or ""
        return str(msg)[:300]
    if isinstance(err, str):
        return err[:300]
    return ""


def is_model_output_failure(message: str) -> bool:
    low = message.lower()
    return any(marker in low for marker in _MODEL_OUTPUT_MARKERS)


#: A server's own error inside an answer it had begun (its words in ``detail``).
MID_ANSWER = N_("The server reported an error mid-answer: {detail}")


def _with_detail(said: str, detail: str) -> str:
    """``said`` followed by the server's own words in brackets, when it gave any."""
    return model_said(N_("{text} ({note})"), text=said, note=detail) if detail else said


def error_for_status(status: int, body: bytes | str, *, base_url: str, model: str) -> ModelError:
    """The ``ModelError`` for an HTTP error status (``status`` >= 400)."""
    detail = error_message_from_body(body)
    where = origin(base_url)
    # Gemini answers a bad key with 400 INVALID_ARGUMENT, not 401.
    if status in (401, 403) or (status == 400 and "api key not valid" in detail.lower()):
        return ModelError(
            _with_detail(model_said(N_("API key rejected by {where} (HTTP {status}). Check the key in "
                                       "Settings › Models."), where=where, status=status), detail),
            kind=ModelErrorKind.AUTH,
            status=status,
        )
    if status == 404:
        return ModelError(
            _with_detail(model_said(N_("{where} does not know the model “{model}” (HTTP 404). Pick one the "
                                       "server lists."), where=where, model=visible(model, one_line=True)), detail),
            kind=ModelErrorKind.NOT_FOUND,
            status=status,
        )
    if status == 429:
        return ModelError(
            _with_detail(model_said(N_("{where} is rate-limiting requests (HTTP 429); try again in a moment."),
                                    where=where), detail),
            kind=ModelErrorKind.RATE_LIMIT,
            status=status,
        )
    if status >= 500 and is_model_output_failure(detail):
        return model_output_error(detail, status=status)
    if status >= 500:
        return ModelError(
            model_said(N_("{where} failed (HTTP {status}): {detail}"), where=where, status=status, detail=detail),
            kind=ModelErrorKind.SERVER,
            status=status,
        )
    return ModelError(
        model_said(N_("{where} refused the request (HTTP {status}): {detail}"), where=where, status=status,
                   detail=detail),
        kind=ModelErrorKind.BAD_REQUEST,
        status=status,
    )


def model_output_error(detail: str, *, status: int | None = None) -> ModelError:
    return ModelError(
        model_said(N_("The model's answer could not be read as a tool call ({detail}). Try again or rephrase."),
                   detail=detail),
        kind=ModelErrorKind.MODEL_OUTPUT,
        status=status,
    )


def error_for_transport(exc: httpx.TransportError, *, base_url: str) -> ModelError:
    """The ``ModelError`` for a failure below HTTP: refused, unreachable, timed out, cut off."""
    where = origin(base_url)
    if isinstance(exc, httpx.ConnectError):
        return ModelError(
            model_said(N_("no server at {where} — is {hint} running?"), where=where, hint=server_hint(base_url)),
            kind=ModelErrorKind.CONNECTION,
        )
    if isinstance(exc, httpx.TimeoutException):
        return ModelError(
            model_said(N_("{where} did not answer in time."), where=where), kind=ModelErrorKind.CONNECTION
        )
    return ModelError(
        model_said(N_("the connection to {where} broke off before the answer was complete"), where=where),
        kind=ModelErrorKind.CONNECTION,
    )


def stream_error(chunk: dict[str, object]) -> ModelError:
    """The ``ModelError`` for an ``{"error": ...}`` object sent inside a 200 stream."""
    message = _message_from_json(chunk) or json.dumps(chunk)[:300]
    if is_model_output_failure(message):
        return model_output_error(message)
    return ModelError(
        model_said(MID_ANSWER, detail=message), kind=ModelErrorKind.SERVER
    )
