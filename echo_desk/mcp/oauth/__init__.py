"""OAuth 2.1 sign-in for HTTP MCP servers (the MCP authorization specification).

Discovery (RFC 9728, RFC 8414, OpenID Connect), registration (a pasted client ID, a client ID
metadata document, dynamic registration — in that order), PKCE S256, resource indicators
(RFC 8707), the loopback redirect (RFC 8252), the ``iss`` check (RFC 9207), tokens in the
keyring keyed by server and issuer, renewal before expiry and revocation (RFC 7009). Qt-free;
the SDK's client pieces are used where they fit (see ``discovery``).
"""

from echo_desk.mcp.oauth.bearer import OAuthBearer
from echo_desk.mcp.oauth.errors import STEP_LABELS, SignInError, SignInNeeded, SignInStep
from echo_desk.mcp.oauth.flow import OpenUrl, SignOutResult, sign_in, sign_out
from echo_desk.mcp.oauth.origins import loopback_http_allowed
from echo_desk.mcp.oauth.registration import ClientSettings, client_metadata_document
from echo_desk.mcp.oauth.tokens import SignIn, SignIns

__all__ = [
    "STEP_LABELS",
    "ClientSettings",
    "OAuthBearer",
    "OpenUrl",
    "SignIn",
    "SignInError",
    "SignInNeeded",
    "SignInStep",
    "SignIns",
    "SignOutResult",
    "client_metadata_document",
    "loopback_http_allowed",
    "sign_in",
    "sign_out",
]
