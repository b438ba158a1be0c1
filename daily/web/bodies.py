"""Reading JSON request bodies: strictly, with a clear 400 for anything else."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from flask import request

from daily import accounts
from daily.codes import parse_code
from daily.errors import ErrorCode, RulesError
from daily.rules import OptionValue, parse_options
from daily.web.errors import HttpError, bad_request


def json_object() -> dict[str, object]:
    """The JSON object of the request (415 if it is not JSON, 400 if not an object)."""
    if not request.is_json:
        raise HttpError(415, ErrorCode.UNSUPPORTED_MEDIA_TYPE,
                        "send JSON (Content-Type: application/json)")  # fmt: skip
    try:
        data = json.loads(request.get_data(), parse_constant=_reject_constant)
    except (ValueError, RecursionError) as e:
        raise bad_request(f"malformed JSON: {e}") from None
    if not isinstance(data, dict):
        raise bad_request("the body must be a JSON object")
    return data


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def name(value: object) -> str:
    """A player's name (see :func:`daily.accounts.parse_name`)."""
    return accounts.parse_name(value)


def rules(ruleset: str, options: Mapping[str, object]) -> tuple[str, dict[str, OptionValue]]:
    """The ruleset and its options, checked (400 naming what is wrong)."""
    try:
        return ruleset, dict(parse_options(ruleset, options))
    except RulesError as e:
        raise bad_request(str(e)) from None


def code(text: object) -> str:
    """A friend code, normalized."""
    return parse_code(text)  # a CodeError answers 400 (see daily.web.errors)
