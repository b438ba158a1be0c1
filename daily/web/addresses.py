"""Who a request comes from, as the rate limits count it: the client's address as a trusted
proxy forwarded it (:class:`TrustedProxies`), an IPv6 address's /64, the networks it belongs
to, and the player its token or cookie names (read without Redis).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from flask import request

from daily.core.config import Network
from daily.web.http_errors import HttpError
from daily.web.tokens import identity

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment


def client_address() -> str:
    """The address the per-address limits count (see :func:`address_key`): the client's,
    as a trusted proxy forwarded it (:class:`TrustedProxies`)."""
    return address_key(request.remote_addr or "unknown")


def requester() -> str:
    """Whom the ``pages`` limit counts a request for: its player (a token or a session
    cookie, read without asking Redis), else its address (:func:`client_address`)."""
    try:
        player_id = identity()
    except HttpError:  # a forged token or cookie: its address pays
        player_id = None
    return f"player:{player_id}" if player_id else client_address()


def address_key(address: str) -> str:
    """What a limit counts for *address*: an IPv6 address's /64 (one subscriber's whole
    block: a client can take a fresh address in it at will), else the address itself.

    >>> address_key("2001:db8:1:2:aaaa::1"), address_key("2001:db8:1:2:bbbb::9")
    ('2001:db8:1:2::/64', '2001:db8:1:2::/64')
    >>> address_key("::ffff:198.51.100.7"), address_key("198.51.100.7"), address_key("x")
    ('198.51.100.7', '198.51.100.7', 'x')
    """
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)


def networks_of(address: str, prefixes: Sequence[tuple[int, int]]) -> tuple[str, ...]:
    """The networks *address* belongs to, one for each (IP version, prefix length) of
    *prefixes* that fits its version, widest last: what the network budgets count.

    >>> sizes = ((4, 24), (6, 56), (6, 48))
    >>> networks_of("198.51.100.7", sizes)
    ('198.51.100.0/24',)
    >>> networks_of("2001:db8:1:2:aaaa::1", sizes)
    ('2001:db8:1::/56', '2001:db8:1::/48')
    >>> networks_of("::ffff:198.51.100.7", sizes), networks_of("x", sizes)
    (('198.51.100.0/24',), ())
    """
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return ()
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        parsed = parsed.ipv4_mapped
    found = [
        ipaddress.ip_network((parsed, length), strict=False)
        for version, length in prefixes
        if version == parsed.version
    ]
    return tuple(str(n) for n in sorted(found, key=lambda n: -n.prefixlen))


class TrustedProxies:
    """WSGI middleware: the client's address and scheme as a trusted proxy forwarded them.

    Only a request whose peer is one of the named proxies (``DAILY_TRUSTED_PROXIES``) may
    set them, so a client that reaches the app directly cannot spoof its address.
    ``X-Forwarded-For`` is read from the right, past every trusted proxy: what a client
    wrote to its left is never taken.
    """

    def __init__(self, app: WSGIApplication, proxies: tuple[Network, ...]) -> None:
        self.app = app
        self.proxies = proxies

    def is_trusted(self, address: str) -> bool:
        """Whether *address* is one of the trusted proxies."""
        try:
            parsed = ipaddress.ip_address(address.strip())
        except ValueError:
            return False
        return any(parsed in network for network in self.proxies)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        """Rewrites ``REMOTE_ADDR`` and the URL scheme of a request a trusted proxy sent."""
        peer = str(environ.get("REMOTE_ADDR", ""))
        if self.is_trusted(peer):
            environ["REMOTE_ADDR"] = self.client_of(peer, environ.get("HTTP_X_FORWARDED_FOR", ""))
            proto = str(environ.get("HTTP_X_FORWARDED_PROTO", "")).split(",")[-1].strip()
            if proto.lower() in ("http", "https"):
                environ["wsgi.url_scheme"] = proto.lower()
        return self.app(environ, start_response)

    def client_of(self, peer: str, forwarded: str) -> str:
        """The first address from the right of *forwarded* that no trusted proxy has."""
        client = peer
        for hop in reversed([h.strip() for h in str(forwarded).split(",") if h.strip()]):
            try:
                ipaddress.ip_address(hop)
            except ValueError:
                break  # not an address: whoever wrote it is not to be believed
            client = hop
            if not self.is_trusted(hop):
                break
        return client
