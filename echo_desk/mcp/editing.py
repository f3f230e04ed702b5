"""Turning what a person typed into the add/edit server form into a ``ServerConfig``.

Qt-free so the rules are the same wherever a server is edited. ``build_server`` checks
everything first and raises ``FormError`` (nothing stored); secret values come back apart from
the config, to be put in the keyring, while the config only holds ``{"keyring": name}``.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Literal

from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_
from echo_desk.mcp.config import OAuthOptions, ServerConfig, Transport, Value
from echo_desk.mcp.oauth.origins import acceptable_origin
from echo_desk.tools.secrets import secret_store

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_ENV_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEADER_RE = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


class FormError(ValueError):
    """Input that cannot be saved. ``message`` is marked with ``N_`` (show it with ``_()``
    and ``.format(**params)``)."""

    def __init__(self, message: str, **params: str) -> None:
        super().__init__(message.format(**params))
        self.message = message
        self.params = params


@dataclass(frozen=True)
class Entry:
    """One env/header row: ``ref`` is the keyring name it was loaded with (kept if unchanged)."""

    key: str
    value: str
    keyring: bool
    ref: str = ""


@dataclass(frozen=True, kw_only=True)
class ServerDraft:
    """The form's fields, as typed."""

    name: str
    transport: Transport = "stdio"
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[Entry, ...] = ()
    cwd: str = ""
    url: str = ""
    headers: tuple[Entry, ...] = ()
    enabled: bool = True
    timeout: float = 60.0
    #: Start a stdio server in the command sandbox.
    sandbox: bool = False
    #: Its allowed domains (edited in mcp.json; the form keeps them as they were).
    allowed_domains: tuple[str, ...] = ()
    #: Sign-in (HTTP servers): a client registered by hand, its secret as typed (empty: keep
    #: ``client_secret_kept``, the stored reference), a client ID metadata document, scopes.
    client_id: str = ""
    client_secret: str = ""
    client_secret_kept: Value | None = None
    client_metadata_url: str = ""
    scope: str = ""

    @classmethod
    def from_config(cls, cfg: ServerConfig) -> ServerDraft:
        """The form's fields for an existing server (secrets as their references)."""
        def entries(values: dict[str, Value]) -> tuple[Entry, ...]:
            return tuple(Entry(k, "", keyring=True, ref=v["keyring"]) if isinstance(v, dict) else Entry(k, v, False)
                         for k, v in values.items())

        return cls(name=cfg.name, transport=cfg.transport, command=cfg.command, args=cfg.args,
                   env=entries(cfg.env), cwd=cfg.cwd, url=cfg.url, headers=entries(cfg.headers),
                   enabled=cfg.enabled, timeout=cfg.timeout, sandbox=cfg.sandbox,
                   allowed_domains=cfg.allowed_domains, client_id=cfg.oauth.client_id,
                   client_secret_kept=cfg.oauth.client_secret, client_metadata_url=cfg.oauth.client_metadata_url,
                   scope=cfg.oauth.scope)


@dataclass(frozen=True)
class BuiltServer:
    config: ServerConfig
    #: keyring name -> secret value, to store before the config is saved.
    secrets: dict[str, str] = field(default_factory=dict)


def args_from_text(text: str) -> tuple[str, ...]:
    """One argument per line, exactly as typed; blank lines are left out."""
    return tuple(line for line in text.splitlines() if line.strip())


#: What ``shlex`` says (English, for a developer) when a line cannot be split, in a sentence of
#: Echo Desk's own; it raises only these two.
_SPLIT_REFUSALS = {
    "No closing quotation": N_("a quote is not closed"),
    "No escaped character": N_("it ends with a backslash that escapes nothing"),
}


def split_command_line(command: str, args_text: str) -> tuple[str, tuple[str, ...]]:
    """Split like a POSIX shell: a pasted ``npx -y pkg "a b"`` becomes command + argument list.
    ``FormError`` (the shell's reason, ``shlex``'s words kept as its cause) when it cannot."""
    try:
        words = shlex.split(" ".join([command, *args_from_text(args_text)]))
    except ValueError as exc:
        raise FormError(_SPLIT_REFUSALS.get(str(exc), N_("it cannot be split into words as a shell would"))) from exc
    return (words[0], tuple(words[1:])) if words else ("", ())


def keyring_name(server: str, where: str, key: str) -> str:
    return f"mcp.{server}.{where}.{key}"


def _entries(
    server: str, where: Literal["env", "headers"], entries: tuple[Entry, ...], secrets: dict[str, str]
) -> dict[str, Value]:
    pattern = _ENV_RE if where == "env" else _HEADER_RE
    out: dict[str, Value] = {}
    for entry in entries:
        if not pattern.match(entry.key):
            raise FormError(N_("{where}: “{key}” is not a valid name"), where=where,
                            key=visible(entry.key, one_line=True))
        if entry.key in out:
            raise FormError(N_("{where}: {key} appears twice"), where=where, key=entry.key)
        if not entry.keyring:
            out[entry.key] = entry.value
        elif entry.value:
            ref = entry.ref or keyring_name(server, where, entry.key)
            secrets[ref] = entry.value
            out[entry.key] = {"keyring": ref}
        elif entry.ref:
            out[entry.key] = {"keyring": entry.ref}  # unchanged: keep the stored secret
        else:
            raise FormError(N_("{where}: {key} is to be stored in the keyring but has no value"),
                            where=where, key=entry.key)
    return out


def build_server(draft: ServerDraft, *, taken: set[str], original: str = "") -> BuiltServer:
    """Validate ``draft`` against the other servers' names; ``original`` is the edited one's name."""
    name = draft.name.strip()
    if not name:
        raise FormError(N_("The server needs a name."))
    if name != original and not NAME_RE.match(name):
        raise FormError(N_("The name “{name}” may only use letters, digits, “-” and “_” (up to 64)."),
                        name=visible(name, one_line=True))
    if name != original and name in taken:
        raise FormError(N_("A server named “{name}” already exists."), name=visible(name, one_line=True))
    if not 0 < draft.timeout <= 86400:
        raise FormError(N_("The timeout must be between 1 second and 1 day."))
    secrets: dict[str, str] = {}
    if draft.transport == "stdio":
        if not draft.command.strip():
            raise FormError(N_("A stdio server needs a command to run."))
        config = ServerConfig(name=name, transport="stdio", command=draft.command.strip(), args=draft.args,
                              env=_entries(name, "env", draft.env, secrets), cwd=draft.cwd.strip(),
                              enabled=draft.enabled, timeout=draft.timeout, sandbox=draft.sandbox,
                              allowed_domains=draft.allowed_domains if draft.sandbox else ())
    else:
        url = draft.url.strip()
        if not re.match(r"^https?://[^\s/?#]+", url) or any(c.isspace() for c in url):
            raise FormError(N_("The URL must start with http:// or https:// and name a host."))
        config = ServerConfig(name=name, transport=draft.transport, url=url,
                              headers=_entries(name, "headers", draft.headers, secrets),
                              enabled=draft.enabled, timeout=draft.timeout, oauth=_oauth(name, draft, secrets))
    return BuiltServer(config=config, secrets=secrets)


def _oauth(server: str, draft: ServerDraft, secrets: dict[str, str]) -> OAuthOptions:
    client_id = draft.client_id.strip()
    secret: Value | None = draft.client_secret_kept
    if draft.client_secret:
        ref = keyring_name(server, "oauth", "client_secret")
        if isinstance(draft.client_secret_kept, dict):
            ref = draft.client_secret_kept["keyring"]
        secrets[ref] = draft.client_secret
        secret = {"keyring": ref}
    if secret and not client_id:
        raise FormError(N_("A client secret needs the client ID it belongs to."))
    metadata_url = draft.client_metadata_url.strip()
    if metadata_url and not acceptable_origin(metadata_url):
        raise FormError(N_("The client metadata document must be at an https:// address."))
    return OAuthOptions(client_id=client_id, client_secret=secret or None, client_metadata_url=metadata_url,
                        scope=" ".join(draft.scope.split()))


def store_secrets(secrets: dict[str, str]) -> None:
    """Put the values in the secret store (blocking: the OS keyring may ask or be slow)."""
    store = secret_store()
    for ref, value in secrets.items():
        store.set(ref, value)
