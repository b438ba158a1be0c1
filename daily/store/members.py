"""How a player is named inside a sorted set: a board's member, a league's member.

A 16-hex-digit player id is stored as 11 base64 characters (Redis keeps a member of up to 14
characters in 16 bytes), so every board entry is 16 bytes smaller; any other id is kept as
it is, behind a ``~``.
"""

from __future__ import annotations

import base64
import re

_HEX_ID = re.compile(r"[0-9a-f]{16}")


def member(player_id: str) -> str:
    """The sorted-set member of a player: 11 characters for the usual 16-hex-digit ids.

    Redis allocates a member of up to 14 characters in 16 bytes and one of 16 in 32, so
    this saves 16 bytes per entry on every board. Other ids are kept, behind a ``~``.

    >>> member("0123456789abcdef")
    'ASNFZ4mrze8'
    >>> player_of(member("0123456789abcdef")), player_of(member("ana"))
    ('0123456789abcdef', 'ana')
    """
    if _HEX_ID.fullmatch(player_id):
        return base64.urlsafe_b64encode(bytes.fromhex(player_id)).decode().rstrip("=")
    return "~" + player_id


def player_of(name: str) -> str:
    """The player id inside a sorted-set member (the inverse of :func:`member`)."""
    if name.startswith("~"):
        return name[1:]
    return base64.urlsafe_b64decode(name + "=").hex()
