"""Friend codes: 8 characters of Crockford base32, shown as ``XXXX-XXXX``.

A code carries 40 random bits. Reading is forgiving the Crockford way: any
case, ``I`` and ``L`` read as ``1``, ``O`` as ``0``, hyphens and spaces ignored.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from daily.core.errors import CodeError

#: Crockford's base32 alphabet: digits and letters without I, L, O and U.
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
LENGTH = 8
_READ = {c: c for c in ALPHABET} | {"I": "1", "L": "1", "O": "0"}


def new_code(random_bytes: Callable[[int], bytes] = secrets.token_bytes) -> str:
    """A fresh normalized code from 40 bits of *random_bytes* (a CSPRNG by default).

    >>> new_code(lambda n: bytes(n))
    '00000000'
    >>> new_code(lambda n: b"\\xff" * n)
    'ZZZZZZZZ'
    """
    number = int.from_bytes(random_bytes(5), "big")
    return "".join(ALPHABET[number >> (5 * i) & 31] for i in reversed(range(LENGTH)))


def parse_code(text: object) -> str:
    """Reads a code as a person may type it; returns it normalized.

    >>> parse_code("k7p2-qx9d")
    'K7P2QX9D'
    >>> parse_code("iLo0 abcd")
    '1100ABCD'
    """
    if not isinstance(text, str):
        raise CodeError(f"a friend code is a string, got {text!r}")
    chars = [_READ.get(c) for c in text.upper() if c not in "- "]
    if len(chars) != LENGTH or None in chars:
        raise CodeError(f"not a friend code: {text!r} (8 letters and digits, like K7P2-QX9D)")
    return "".join(c for c in chars if c)


def code_str(code: str) -> str:
    """Shows a normalized code the way people read it.

    >>> code_str("K7P2QX9D")
    'K7P2-QX9D'
    """
    return f"{code[:4]}-{code[4:]}"
