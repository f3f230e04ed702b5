"""A web address as it will be sent: one canonical form that the fetch rules match and that
``fetch_url`` sends, so a rule can never see one path while the server gets another.

``canonical_url`` removes what different parsers read differently — dot segments (also spelt
``%2e%2e``), backslashes, percent-encoded unreserved characters (``%7E`` is ``~``), upper/lower
case of the scheme, the host and escapes, default ports, Unicode host names (IDNA) — and
refuses what it cannot make unambiguous (a backslash or ``%`` in the host part, several ``@``,
no ``//`` after the scheme). Only http and https.

``path_readings`` lists the other ways a server may still read a canonical path (merging
``//``, decoding ``%2F``): a rule allows only when every reading (also case-folded) is inside it.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from echo_desk.sandbox.domains import normalize_host

DEFAULT_PORTS = {"http": 80, "https": 443}
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
#: Kept as they are in a path (RFC 3986 pchar and "/"); everything else is percent-encoded.
_PATH_SAFE = _UNRESERVED | frozenset("!$&'()*+,;=:@/")
_QUERY_SAFE = _PATH_SAFE | frozenset("?")
_USERINFO_SAFE = _UNRESERVED | frozenset("!$&'()*+,;=:")
_HEX = frozenset("0123456789abcdefABCDEF")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_HOST_NAME = re.compile(r"^[a-z0-9_.-]+$")
_CONTROL = re.compile(r"[\x00-\x20\x7f]")


class BadUrl(ValueError):
    """A URL that is not an http(s) address with one clear reading."""


@dataclass(frozen=True)
class CanonicalUrl:
    """The parts of a URL as they go on the wire. ``target`` is the request line's target
    (path and query); ``text`` the whole URL, which ``fetch_url`` sends."""

    scheme: str
    userinfo: str  # "" when none (sent as a Basic authorization header, never in the request line)
    host: str  # lower case, IDNA (punycode) form, no trailing dot; an IPv6 address without brackets
    port: int | None  # None: the scheme's default
    path: str  # starts with "/", no dot segments
    query: str | None  # None: no "?"

    @property
    def target(self) -> str:
        return self.path + (f"?{self.query}" if self.query is not None else "")

    @property
    def netloc(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = f":{self.port}" if self.port is not None else ""
        user = f"{self.userinfo}@" if self.userinfo else ""
        return f"{user}{host}{port}"

    @property
    def text(self) -> str:
        return f"{self.scheme}://{self.netloc}{self.target}"


def canonical_url(raw: str) -> CanonicalUrl:
    """``raw`` in its one canonical form; ``BadUrl`` (saying why) when it has no clear reading."""
    text = raw.strip()
    if _CONTROL.search(text.replace(" ", "")):
        raise BadUrl("the URL holds a control character")
    found = _SCHEME.match(text)
    if found is None:
        raise BadUrl("the URL has no scheme (http:// or https://)")
    scheme = found.group(1).lower()
    if scheme not in DEFAULT_PORTS:
        raise BadUrl(f"only http and https URLs can be fetched, not {scheme!r}")
    rest = text[found.end():]
    if not rest.startswith("//") or rest[2:3] in ("/", "\\"):
        raise BadUrl("the URL must have // and a host after the scheme")
    rest = rest[2:]
    rest = rest.split("#", 1)[0]  # a fragment is never sent
    # The host part ends at "/" or "?" (as httpx reads it); a browser would also end it at a
    # backslash: one there has two readings, so it is refused.
    end = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    authority, rest = rest[:end], rest[end:]
    if "\\" in authority or " " in authority:
        raise BadUrl("the host part of the URL holds a backslash or a space")
    userinfo, host, port = _authority(authority, scheme)
    path_text, _, query_text = rest.partition("?")
    query = _encode(query_text, _QUERY_SAFE, decode_unreserved=False) if "?" in rest else None
    path = remove_dot_segments(_encode(path_text.replace("\\", "/"), _PATH_SAFE, decode_unreserved=True) or "/")
    return CanonicalUrl(scheme=scheme, userinfo=userinfo, host=host, port=port, path=path, query=query)


def _authority(authority: str, scheme: str) -> tuple[str, str, int | None]:
    if authority.count("@") > 1:
        raise BadUrl("the URL has more than one '@' before its host")
    userinfo, _, hostport = authority.rpartition("@")
    if hostport.startswith("["):
        close = hostport.find("]")
        if close < 0:
            raise BadUrl("the URL's IPv6 address has no closing ']'")
        host_text, port_text = hostport[1:close], hostport[close + 1:]
        try:
            host = ipaddress.IPv6Address(host_text).compressed
        except ValueError:
            raise BadUrl(f"{host_text!r} is not an IPv6 address") from None
        if port_text and not port_text.startswith(":"):
            raise BadUrl("unexpected text after the URL's IPv6 address")
        port_text = port_text[1:]
    else:
        host_text, _, port_text = hostport.partition(":")
        if "%" in host_text:
            raise BadUrl("the URL's host holds a '%' (an encoded character)")
        host = normalize_host(host_text)
        if not host or not _HOST_NAME.match(host):
            raise BadUrl(f"{host_text!r} is not a host name")
    port: int | None = None
    if port_text:
        if not port_text.isascii() or not port_text.isdigit() or int(port_text) > 65535:
            raise BadUrl(f"{port_text!r} is not a port")
        port = int(port_text)
        if port == DEFAULT_PORTS[scheme]:
            port = None
    return _encode(userinfo, _USERINFO_SAFE, decode_unreserved=True), host, port


def _encode(text: str, safe: frozenset[str], *, decode_unreserved: bool) -> str:
    """Percent-encode what ``safe`` does not keep (as UTF-8); escapes in upper case, an
    escaped unreserved character decoded, a ``%`` that starts no escape written ``%25``."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "%":
            pair = text[i + 1:i + 3]
            if len(pair) == 2 and all(c in _HEX for c in pair):
                decoded = chr(int(pair, 16))
                out.append(decoded if decode_unreserved and decoded in _UNRESERVED else f"%{pair.upper()}")
                i += 3
                continue
            out.append("%25")
        elif ch in safe:
            out.append(ch)
        else:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass"))
        i += 1
    return "".join(out)


def canonical_path_prefix(text: str) -> str:
    """A rule's path prefix in the form ``canonical_url`` gives paths; ``BadUrl`` when it holds a
    backslash or a ``.``/``..`` segment (spelt out or escaped): a prefix names one place."""
    if not text.startswith("/") or "\\" in text:
        raise BadUrl("a path prefix starts with '/' and holds no backslash")
    path = _encode(text, _PATH_SAFE, decode_unreserved=True)
    if any(segment in (".", "..") for segment in path.split("/")):
        raise BadUrl("a path prefix may not hold a '.' or '..' segment")
    return path


def remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4 on an absolute path: ``.`` and ``..`` segments resolved (never above ``/``)."""
    segments = path.split("/")[1:]
    out: list[str] = []
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if segment == ".":
            if last:
                out.append("")
        elif segment == "..":
            if out:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(segment)
    return "/" + "/".join(out)


_ENCODED_SLASH = re.compile(r"%2F|%5C", re.IGNORECASE)
_SLASHES = re.compile(r"/{2,}")


def path_readings(path: str) -> tuple[str, ...]:
    """``path`` (canonical) and how a server may otherwise read it: with ``//`` merged, and with
    ``%2F``/``%5C`` taken as slashes (then dot segments resolved again). Some servers also ignore
    case: compare each reading folded as well."""
    merged = remove_dot_segments(_SLASHES.sub("/", path))
    decoded = remove_dot_segments(_SLASHES.sub("/", _ENCODED_SLASH.sub("/", path)))
    return tuple(dict.fromkeys((path, merged, decoded)))
