"""Making a player: the address's free allowance, or a proof of work, never a refusal.

A new player (``POST /api/v1/players``, or a browser's guest made on first need) takes one of
the free new players of its address and networks (``DAILY_LIMIT_PLAYERS``,
``DAILY_LIMIT_NETWORK_PLAYERS``). Past them it costs a proof of work
(:mod:`daily.service.proofs`): the answer is a 429 whose error carries ``altcha``, a
challenge in ALTCHA's v1 format, and the client sends the request again with the solution,
the base64 payload ALTCHA's widget sends, in the ``Altcha`` header (or a form's ``altcha``
field). A burst that solves nothing makes at most the free allowance. docs/api.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from flask import request

from daily.core import metrics
from daily.core.errors import ErrorCode
from daily.service import proofs
from daily.web import limits
from daily.web.context import current_config, current_redis
from daily.web.http_errors import HttpError

#: The request header (and form field) that carries a solved challenge.
HEADER = "Altcha"
FIELD = "altcha"


@contextmanager
def creating() -> Iterator[None]:
    """Takes a free new player of the address, or the proof of work the request carries, for
    what the block makes; else refuses it with a 429 carrying a challenge. A free one is
    given back if the block fails."""
    try:
        counting = limits.take("players")
    except HttpError as refused:
        if refused.status != 429:
            raise
        _pay(refused)
        counting = ()
    try:
        yield
    except BaseException:
        limits.give_back(counting)
        raise


def submitted() -> str | None:
    """The solved challenge the request carries, if any."""
    found = request.headers.get(HEADER) or request.form.get(FIELD)
    return found.strip() or None if found else None


def _pay(refused: HttpError) -> None:
    client, config, who = current_redis(), current_config(), limits.holders()
    payload = submitted()
    why = "solve the challenge in altcha and send the request again with the Altcha header"
    if payload is not None:
        refusal = proofs.redeem(client, config, who, payload)
        metrics.proof_of_work("accepted" if refusal is None else refusal)
        if refusal is None:
            return
        why = f"the proof of work was not accepted ({refusal}): solve this challenge instead"
    challenge = proofs.challenge_for(client, config, who)
    raise HttpError(
        429, ErrorCode.TOO_MANY_REQUESTS, f"{refused.message}; {why}", altcha=challenge.to_dict()
    )
