"""Which host names a sandboxed command may reach: ``example.com`` (that name only) and
``*.example.com`` (any name under it, not ``example.com`` itself).

Bare IP addresses never match, nor do names that stand for this computer or a local network
(``localhost``, ``*.local``, ``*.internal``...): the proxy also refuses a permitted name whose
address turns out to be private (``address_is_public``).
"""

from __future__ import annotations

import errno
import ipaddress
import re
import socket
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
LOCAL_SUFFIXES = ("localhost", "local", "internal", "lan", "home.arpa", "localdomain", "intranet", "corp")


class BadDomain(ValueError):
    """A domain entry that is not ``name.tld`` or ``*.name.tld``."""


def normalize_host(host: str) -> str:
    """Lower case, no trailing dot, IDNA (punycode) form; '' when it is not a usable name."""
    host = host.strip().rstrip(".").lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        host = host.encode("idna").decode("ascii")
    except UnicodeError:
        return ""
    return host


def is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _is_local_name(host: str) -> bool:
    return any(host == s or host.endswith("." + s) for s in LOCAL_SUFFIXES)


@dataclass(frozen=True)
class DomainRule:
    """``name`` (IDNA form), and whether the rule means the names under it (``*.name``) instead."""

    name: str
    subdomains: bool

    @classmethod
    def parse_pattern(cls, text: str) -> DomainRule:
        """The one grammar of a domain, for fetch rules (``domain:…``) and the sandbox's list:
        ``name`` or ``*.name``, any case, a trailing dot, Unicode written as its IDNA form; each
        label letters, digits and inner hyphens; not an IP address, no numeric last label, no
        invisible or control character."""
        raw = text.strip()
        subdomains = raw.startswith("*.")
        body = raw[2:] if subdomains else raw
        name = "" if any(unicodedata.category(c)[0] in "CZ" for c in body) else normalize_host(body)
        labels = name.split(".")
        if not name or is_ip(name) or not all(_LABEL.match(label) for label in labels) or labels[-1].isdigit():
            raise BadDomain(f"{text!r} is not a domain such as example.com or *.example.com")
        return cls(name, subdomains)

    @classmethod
    def parse(cls, text: str) -> DomainRule:
        """An entry of the sandbox's allowed domains: a pattern (``parse_pattern``) that
        ``reaches_outside`` — the proxy could never reach anything else."""
        rule = cls.parse_pattern(text)
        if not rule.reaches_outside:
            raise BadDomain(f"{text!r} is not a domain such as example.com or *.example.com")
        return rule

    @property
    def reaches_outside(self) -> bool:
        """Names hosts on the internet: two labels or more, not this computer or a local network
        (``localhost``, ``*.local``...). A fetch rule may still name those (to deny them, say);
        ``fetch_url`` asks before fetching them whatever a rule allows."""
        return "." in self.name and not _is_local_name(self.name)

    def matches(self, host: str) -> bool:
        if self.subdomains:
            return host.endswith("." + self.name)
        return host == self.name


def parse_rules(entries: Iterable[str]) -> tuple[DomainRule, ...]:
    """Every entry parsed; a bad one raises ``BadDomain`` (the settings page shows it)."""
    return tuple(DomainRule.parse(e) for e in entries if e.strip())


#: A label of a host name a client may ask for: letters, digits, hyphens and underscores (some
#: real hosts have them). Nothing else: a resolver reads the name as a C string (``evil.com\0.
#: example.com`` would resolve ``evil.com``) or has its own syntax (``%``, spaces, slashes).
_HOST_LABEL = re.compile(r"^[a-z0-9_-]{1,63}$")


def host_allowed(host: str, rules: Iterable[DomainRule]) -> bool:
    """Whether ``host`` (as a client named it) is allowed by one of ``rules``. The proxy then
    resolves ``normalize_host(host)``, the very name checked."""
    name = normalize_host(host)
    if not name or len(name) > 253 or not all(_HOST_LABEL.match(label) for label in name.split(".")):
        return False
    if is_ip(name) or _is_local_name(name):
        return False
    return any(rule.matches(name) for rule in rules)


#: IPv6 forms that carry an IPv4 address in their last 32 bits: IPv4-compatible (``::a.b.c.d``),
#: SIIT (``::ffff:0:a.b.c.d``) and NAT64's well-known prefix (``64:ff9b::a.b.c.d``, RFC 6052).
_EMBEDS_IPV4_LAST = tuple(ipaddress.IPv6Network(n) for n in ("::/96", "::ffff:0:0:0/96", "64:ff9b::/96"))
#: IPv6 ranges never dialled whatever Python's tables say: NAT64 for local use (RFC 8215), the
#: deprecated site-local range and the documentation range of RFC 9637.
_NOT_PUBLIC_V6 = tuple(ipaddress.IPv6Network(n) for n in ("64:ff9b:1::/48", "fec0::/10", "3fff::/20"))


def address_is_public(address: str) -> bool:
    """A resolved address the proxy may connect to: globally routable only. An IPv6 address that
    carries an IPv4 one (mapped, 6to4, NAT64, IPv4-compatible...) is judged by the IPv4 inside too:
    ``64:ff9b::7f00:1`` leads to 127.0.0.1 on a NAT64 network."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        if any(ip in net for net in _NOT_PUBLIC_V6):
            return False
        inner = ip.ipv4_mapped or ip.sixtofour
        if inner is None and any(ip in net for net in _EMBEDS_IPV4_LAST):
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if ip.teredo is not None:
            return False
        if inner is not None:
            return inner.is_global and not inner.is_multicast
    return ip.is_global and not ip.is_multicast


def address_is_this_computer(address: str) -> bool:
    """Whether ``address`` is one of this computer's own (loopback, or any address of its network
    interfaces, a public one too: whatever listens on 0.0.0.0 answers there). Known by binding to
    it, which only an own address allows; fails closed (True) on an unexpected error."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return True
    family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
    try:
        probe = socket.socket(family, socket.SOCK_DGRAM)
    except OSError as error:
        return error.errno != errno.EAFNOSUPPORT
    with probe:
        try:
            probe.bind((str(ip), 0))
        except OSError as error:
            return error.errno != errno.EADDRNOTAVAIL
    return True
