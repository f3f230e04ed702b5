"""Is a URL's host this computer or its local network? Then ``fetch_url`` asks first.

``fetch_url`` is a read tool and runs without asking, but a GET to 127.0.0.1, a router, an
intranet service or a cloud metadata address (169.254.169.254) can change things there or hand
private data to the model (and through a hosted model, off the machine). Such a host is marked
*protected* in the preview, so the approval policy always asks, and every request, redirects
included, is checked again when it is sent: only the hosts the person saw and approved pass.
A name is judged by what it resolves to, so ``localhost``, ``127.1`` or a public name pointing
inside count alike. A DNS answer that changes between that check and the connection is not
caught.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket

from echo_desk.tools import Protection, ProtectionReason

RESOLVE_TIMEOUT_SECONDS = 3.0


def is_local_ip(text: str) -> bool:
    """Loopback, private, link-local, shared, reserved, unspecified or multicast (not global)."""
    ip = ipaddress.ip_address(text.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast


async def local_addresses(host: str, port: int) -> tuple[str, ...]:
    """The local addresses ``host`` stands for; empty when it resolves to public ones only, or
    not at all (the fetch itself then fails with its own error)."""
    bare = host.strip("[]")
    try:
        return (bare,) if is_local_ip(bare) else ()
    except ValueError:
        pass  # a name, not an address
    try:
        infos = await asyncio.wait_for(
            asyncio.get_running_loop().getaddrinfo(bare, port, type=socket.SOCK_STREAM), RESOLVE_TIMEOUT_SECONDS
        )
    except (OSError, TimeoutError, UnicodeError):
        return ()
    return tuple(sorted({str(info[4][0]) for info in infos if is_local_ip(str(info[4][0]))}))


def local_protection(host: str, addresses: tuple[str, ...]) -> Protection:
    return Protection(reason=ProtectionReason.LOCAL_NETWORK, host=host, addresses=addresses)
