"""Which host names a sandboxed command may reach: ``example.com`` (that name only) and
``*.example.com`` (any name under it, not ``example.com`` itself).

Bare IP addresses never match, nor do names that stand for this computer or a local network
(``localhost``, ``*.local``, ``*.internal``...): the proxy also refuses a permitted name whose
address turns out to be private (``address_is_public``).
"""

from __future__ import annotations

import ipaddress
import re
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
    name: str
    subdomains: bool

    @classmethod
    def parse(cls, text: str) -> DomainRule:
        raw = text.strip()
        subdomains = raw.startswith("*.")
        name = normalize_host(raw[2:] if subdomains else raw)
        labels = name.split(".")
        if (not name or is_ip(name) or len(labels) < 2 or not all(_LABEL.match(label) for label in labels)
                or _is_local_name(name) or labels[-1].isdigit()):
            raise BadDomain(f"{text!r} is not a domain such as example.com or *.example.com")
        return cls(name, subdomains)

    def matches(self, host: str) -> bool:
        if self.subdomains:
            return host.endswith("." + self.name)
        return host == self.name


def parse_rules(entries: Iterable[str]) -> tuple[DomainRule, ...]:
    """Every entry parsed; a bad one raises ``BadDomain`` (the settings page shows it)."""
    return tuple(DomainRule.parse(e) for e in entries if e.strip())


def host_allowed(host: str, rules: Iterable[DomainRule]) -> bool:
    """Whether ``host`` (as a client named it) is allowed by one of ``rules``."""
    name = normalize_host(host)
    if not name or is_ip(name) or _is_local_name(name):
        return False
    return any(rule.matches(name) for rule in rules)


def address_is_public(address: str) -> bool:
    """A resolved address the proxy may connect to: globally routable only."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast
