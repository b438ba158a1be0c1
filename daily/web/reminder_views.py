"""Streak reminders over HTTP: the player's reminder under ``/api/v1/players/me/reminder``
(read, turned on with a browser's push subscription, turned off) and the notification's own
"turn off" (``POST /api/v1/reminders/off``, with the token it carries). The pages show it
through ``templates/_reminder.html`` and ``static/js/reminders.js``.

Each view parses the request and calls one function of :mod:`daily.service.reminders`.
"""

from __future__ import annotations

import logging
from typing import Annotated

from flask import Blueprint, Flask, Response, jsonify
from flask_babel import get_locale
from pydantic import Field

from daily.core import push
from daily.service import reminders
from daily.web import answers, bodies, costs, limits
from daily.web.auth import current_player_id
from daily.web.context import config_of, current_config, current_redis
from daily.web.costs import PLAYER, TTL, Cpu
from daily.web.routes import documented
from daily.web.tokens import unauthorized

bp = Blueprint("reminders", __name__)
API = "/api/v1"
log = logging.getLogger(__name__)


class PushKeys(bodies.Body):
    """The keys of a push subscription, as the browser's ``toJSON()`` gives them."""

    p256dh: Annotated[
        str, Field(max_length=128, description="the browser's P-256 public key, base64url")
    ]
    auth: Annotated[
        str, Field(max_length=64, description="the browser's 16-byte secret, base64url")
    ]


class PushSubscription(bodies.Body):
    """A browser's push subscription (``PushSubscription.toJSON()``)."""

    endpoint: Annotated[
        str,
        Field(
            max_length=push.MAX_ENDPOINT,
            description=(
                "where the push service takes the messages: a URL on one of the services this "
                "server allows (`DAILY_PUSH_SERVICES`), else 400"
            ),
        ),
    ]
    expirationTime: float | None = Field(None, description="when the browser ends it, if known")  # noqa: N815
    keys: PushKeys


class ReminderBody(bodies.Body):
    """PUT /players/me/reminder: the subscription, and when the reminder comes."""

    subscription: PushSubscription
    at: Annotated[str, Field(max_length=5, description="HH:MM on a 24-hour clock")] = "19:00"
    zone: Annotated[
        str,
        Field(
            max_length=push.MAX_ZONE,
            description=("the player's time zone, an IANA name (`Europe/Copenhagen`)"),
        ),
    ]


class OffBody(bodies.Body):
    """POST /reminders/off: the token a reminder's notification carries."""

    token: Annotated[str, Field(max_length=512, description="the notification's `off` token")]


class ReminderAnswer(answers.Answer):
    """The asking player's streak reminder."""

    available: bool = Field(description="whether this server sends reminders")
    on: bool
    at: str = Field(description="HH:MM in `zone`")
    zone: str | None
    offer: bool = Field(
        description="whether the result screen offers it: off, and the "
        f"player has finished {reminders.OFFER_AFTER} dailies"
    )
    key: str | None = Field(
        description="the application server key to subscribe with "
        "(base64url); null when the server sends no reminders"
    )


class OffAnswer(answers.Answer):
    """What a notification's "turn off" did: the reminder it names is off."""

    on: bool = Field(description="always false: the reminder is off (or was already)")


def _answer(found: reminders.Reminder) -> Response:
    key = reminders.public_key(current_config())
    answer = ReminderAnswer(
        available=found.available,
        on=found.on,
        at=found.at,
        zone=found.zone,
        offer=found.offer,
        key=key,
    )
    response = jsonify(answer.model_dump())
    response.headers["Cache-Control"] = "private, no-store"
    return response


def _player_id() -> str:
    player_id = current_player_id()
    if player_id is None:
        raise unauthorized("no player yet: play a game first")
    return player_id


@bp.get(
    f"{API}/players/me/reminder",
    cost=costs.READ,
    api=documented(ReminderAnswer, access="either", description="the reminder"),
)
def get_reminder() -> Response:
    """The asking player's streak reminder, and whether to offer it."""
    return _answer(reminders.status_of(current_redis(), current_config(), current_player_id()))


@bp.put(
    f"{API}/players/me/reminder",
    # A browser's subscription, kept under its player for a while (renewed by use), and the
    # player's place on the schedule (kept until they turn it off or leave).
    cost=costs.cost(Cpu.WRITE, 1_000, TTL, PLAYER, limits=("reminders",)),
    api=documented(
        ReminderAnswer,
        body=ReminderBody,
        errors=(400, 401, 404, 413, 415),
        description="the reminder, on",
    ),
)
def set_reminder() -> Response:
    """Turns the asking player's reminder on (again: renews it) with their browser's push
    subscription, at a time of their day (404: this server sends none)."""
    body = bodies.parse(ReminderBody, bodies.json_object())
    player_id = _player_id()
    config = current_config()
    given = body.subscription
    subscription = push.parse_subscription(
        given.endpoint, given.keys.p256dh, given.keys.auth, config.push_services
    )
    with limits.spending("reminders", player_id):
        found = reminders.turn_on(
            current_redis(),
            config,
            player_id,
            subscription,
            body.at,
            body.zone,
            str(get_locale() or "en"),
        )
    return _answer(found)


@bp.delete(
    f"{API}/players/me/reminder",
    cost=costs.cost(Cpu.WRITE, limits=("reminders",)),
    api=documented(ReminderAnswer, errors=(401,), description="the reminder, off"),
)
def delete_reminder() -> Response:
    """Turns the asking player's reminder off."""
    player_id = _player_id()
    limits.take("reminders", player_id)
    return _answer(reminders.turn_off(current_redis(), current_config(), player_id))


@bp.post(
    f"{API}/reminders/off",
    # A notification's button, no cookie: the signed token names the player; the address's
    # page budget bounds a flood of it.
    cost=costs.cost(Cpu.WRITE),
    api=documented(
        OffAnswer,
        body=OffBody,
        errors=(400, 413, 415),
        access="public",
        description="the reminder, off",
    ),
)
def turn_off() -> Response:
    """Turns off the reminder a notification names (its "turn off" button; no cookie needed)."""
    body = bodies.parse(OffBody, bodies.json_object())
    reminders.turn_off_by_token(current_redis(), current_config(), body.token)
    return jsonify(OffAnswer(on=False).model_dump())


@bp.app_template_global()
def reminder_key() -> str | None:
    """The key pages subscribe with; None where this server sends no reminders."""
    return reminders.public_key(current_config())


def init_app(app: Flask) -> None:
    """Says once, at start, when this server sends no reminders, and why."""
    reason = reminders.off_reason(config_of(app))
    if reason:
        log.warning(reason)
