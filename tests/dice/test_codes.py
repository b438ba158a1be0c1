"""Friend codes: Crockford base32, forgiving to read, strict about what is not a code."""

from __future__ import annotations

import pytest

from daily.core.codes import ALPHABET, code_str, new_code, parse_code
from daily.core.errors import CodeError


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("K7P2-QX9D", "K7P2QX9D"),
        ("k7p2qx9d", "K7P2QX9D"),
        (" k7p2 qx9d ", "K7P2QX9D"),
        ("IL0O-1234", "1100" + "1234"),
        ("i-l-o-o-a-b-c-d", "1100ABCD"),
    ],
    ids=["shown", "lower", "spaces", "look-alikes", "hyphens"],
)
def test_reads_codes_forgivingly(text: str, code: str) -> None:
    assert parse_code(text) == code


@pytest.mark.parametrize(
    "text",
    ["", "K7P2-QX9", "K7P2-QX9DD", "K7P2-QX9U", "K7P2_QX9D", "K7P2-QX9!", 12345678, None],
    ids=["empty", "short", "long", "U", "underscore", "symbol", "int", "none"],
)
def test_rejects_what_is_not_a_code(text: object) -> None:
    with pytest.raises(CodeError):
        parse_code(text)


def test_new_codes_are_fresh_and_readable() -> None:
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200
    assert all(len(c) == 8 and set(c) <= set(ALPHABET) and parse_code(c) == c for c in codes)
    assert all(parse_code(code_str(c)) == c for c in codes)


def test_alphabet_is_crockford() -> None:
    assert len(ALPHABET) == 32 and not set("ILOU") & set(ALPHABET)
