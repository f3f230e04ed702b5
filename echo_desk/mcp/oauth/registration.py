"""How Echo Desk becomes a client of an authorization server, in the specification's order:
a client ID the person pasted (pre-registered, with its secret for a confidential client), a
client ID metadata document (a URL as the client id), then dynamic client registration
(RFC 7591) as the fallback."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx2
from mcp.client.auth.exceptions import OAuthRegistrationError
from mcp.client.auth.oauth2 import check_registration_usable
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata
from pydantic import AnyUrl, ValidationError

from echo_desk import __version__
from echo_desk.i18n import N_
from echo_desk.mcp.oauth.discovery import Discovered
from echo_desk.mcp.oauth.errors import SignInError, SignInStep
from echo_desk.mcp.oauth.http import require_origin, send
from echo_desk.mcp.oauth.origins import is_loopback_host
from echo_desk.mcp.oauth.tokens import Client, SignIn

CLIENT_NAME = "Echo Desk"


@dataclass(frozen=True, kw_only=True)
class ClientSettings:
    """What the server's settings say about signing in (``mcp.json``'s ``oauth`` entry)."""

    client_id: str = ""
    client_secret: str | None = None
    #: An https URL serving Echo Desk's client ID metadata document (the URL is the client id).
    client_metadata_url: str = ""
    #: Scopes to ask for beyond what the server names.
    scope: str = ""


def _pasted(settings: ClientSettings, discovered: Discovered, redirect_uri: str) -> Client:
    method = "none"
    if settings.client_secret:
        supported = discovered.metadata.token_endpoint_auth_methods_supported
        method = "client_secret_basic" if supported is None or "client_secret_basic" in supported \
            else "client_secret_post"
    return Client(client_id=settings.client_id, client_secret=settings.client_secret or None, auth_method=method,
                  registered_by="pasted", redirect_uris=(redirect_uri,))


def usable_again(previous: SignIn | None, settings: ClientSettings, redirect_uri: str) -> Client | None:
    """A registration kept from an earlier sign-in with the same issuer, when it still fits."""
    if previous is None or settings.client_id:
        return None
    client = previous.client
    if client.registered_by == "metadata_document":
        return client if client.client_id == settings.client_metadata_url else None
    if client.registered_by == "dynamic" and redirect_uri in client.redirect_uris:
        return client
    return None


def _check_metadata_url(url: str) -> None:
    require_origin(url, SignInStep.REGISTRATION)
    if urlsplit(url).path in ("", "/"):
        raise SignInError(SignInStep.REGISTRATION, N_("the client metadata URL {url} needs a path"), url=url)


def _loopback_only(uris: list[AnyUrl] | None, redirect_uri: str) -> None:
    """Refuse a registration whose redirect addresses are not our loopback listener: the code
    would be sent somewhere else (RFC 7591 lets a server replace what was asked)."""
    if not uris:
        return
    listed = [str(uri) for uri in uris]
    strangers = [uri for uri in listed if not is_loopback_host(urlsplit(uri).hostname or "")]
    if strangers or redirect_uri not in listed:
        raise SignInError(SignInStep.REGISTRATION,
                          N_("the service registered other redirect addresses ({uris}) than Echo Desk's {ours}"),
                          uris=", ".join(listed), ours=redirect_uri)


async def dynamic(client: httpx2.AsyncClient, discovered: Discovered, redirect_uri: str, scope: str | None) -> Client:
    endpoint = discovered.metadata.registration_endpoint
    assert endpoint is not None
    body = OAuthClientMetadata(
        redirect_uris=[AnyUrl(redirect_uri)], token_endpoint_auth_method="none",
        grant_types=["authorization_code", "refresh_token"], response_types=["code"], scope=scope or None,
        client_name=CLIENT_NAME, software_id="echo-desk", software_version=__version__,
    ).model_dump(by_alias=True, mode="json", exclude_none=True)
    status, value, _ = await send(client, SignInStep.REGISTRATION, "POST", str(endpoint), json=body)
    if status not in (200, 201):
        detail = (value or {}).get("error_description") or (value or {}).get("error") or ""
        raise SignInError(SignInStep.REGISTRATION, N_("the service refused the registration (HTTP {status}) {detail}"),
                          status=status, detail=str(detail)[:300])
    if value is None:
        raise SignInError(SignInStep.REGISTRATION, N_("the registration answer is not a JSON object"))
    value.pop("issuer", None)
    try:
        info = OAuthClientInformationFull.model_validate(value)
        check_registration_usable(info)
    except ValidationError as exc:
        raise SignInError(SignInStep.REGISTRATION, N_("the registration answer is not valid ({count} problems)"),
                          count=exc.error_count()) from None
    except OAuthRegistrationError as exc:
        # The SDK's English ("… unsupported token_endpoint_auth_method …") stays the cause.
        raise SignInError(SignInStep.REGISTRATION,
                          N_("the service registered Echo Desk in a way it cannot use (token_endpoint_auth_method "
                             "{method}); the registration was not kept"),
                          method=info.token_endpoint_auth_method or "?") from exc
    _loopback_only(info.redirect_uris, redirect_uri)
    return Client(client_id=info.client_id, client_secret=info.client_secret,
                  auth_method=info.token_endpoint_auth_method or "none", registered_by="dynamic",
                  redirect_uris=(redirect_uri,))


async def register(
    client: httpx2.AsyncClient,
    discovered: Discovered,
    settings: ClientSettings,
    redirect_uri: str,
    previous: SignIn | None,
    scope: str | None,
) -> Client:
    """The client to sign in with, by the first path that applies."""
    if settings.client_id:
        return _pasted(settings, discovered, redirect_uri)
    kept = usable_again(previous, settings, redirect_uri)
    if kept is not None:
        return kept
    if settings.client_metadata_url and discovered.metadata.client_id_metadata_document_supported:
        _check_metadata_url(settings.client_metadata_url)
        return Client(client_id=settings.client_metadata_url, registered_by="metadata_document",
                      redirect_uris=(redirect_uri,))
    if discovered.metadata.registration_endpoint is not None:
        return await dynamic(client, discovered, redirect_uri, scope)
    raise SignInError(SignInStep.REGISTRATION,
                      N_("the service offers no way to register Echo Desk; paste a client ID in the server's settings"))


def client_metadata_document(url: str) -> dict[str, object]:
    """The client ID metadata document to publish at ``url`` (``echo-desk mcp client-metadata``):
    loopback redirects on any port (RFC 8252), a public client with PKCE."""
    return {
        "client_id": url,
        "client_name": CLIENT_NAME,
        "redirect_uris": ["http://127.0.0.1/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
        "software_id": "echo-desk",
        "software_version": __version__,
    }
