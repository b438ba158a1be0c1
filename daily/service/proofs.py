"""Proofs of work for new players: ALTCHA's v1 challenges, harder as an address and its
networks make more players.

Past the free allowance of new players (``DAILY_LIMIT_PLAYERS`` per address,
``DAILY_LIMIT_NETWORK_PLAYERS`` per network), a new player costs a proof of work instead of a
refusal. The answer carries a challenge in ALTCHA's v1 format (the `altcha` library): find
the number ``n`` from 0 to ``maxnumber`` whose ``SHA-256(salt + n)`` is ``challenge``; the
client sends back the base64 JSON payload ALTCHA's widget sends. Its cost is ``maxnumber / 2``
hashes on average, and ``maxnumber`` doubles every :data:`DOUBLING` paid creations of the
address or of any of its networks in a day (the level), from :data:`BASE`: a phone solves the
first level in about a second, and 1,000 accounts from one network in a day cost far more
than a CPU-hour (bench/bench_proofs.py; docs/api.md).

A challenge names, in its signed salt, when it expires, the level it was made for and the
hash tag of the address that asked (its widest network): it is spent once, from that
network, while the level has not passed it by more than :data:`SLACK` (others of the same
address solving at the same time), and no longer than :data:`LIFETIME`.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Literal

from altcha import v1

from daily.core.config import Config
from daily.service.quotas import Holders
from daily.store import keys, spent_proofs

if TYPE_CHECKING:  # the service only hands the client on to the store
    import redis

#: The level-0 challenge's ``maxnumber``: 25,000 hashes on average (a phone's WebCrypto in a
#: worker does some 30,000 to 100,000 a second).
BASE = 50_000
#: Paid creations (of an address or any of its networks, in :data:`WINDOW`) that double it.
DOUBLING = 64
#: The largest ``maxnumber`` made (a number a browser's script still counts exactly).
MOST = 2**52
#: How many levels a challenge may trail the level when it is spent.
SLACK = 32
#: How long a challenge may be solved and spent.
LIFETIME = timedelta(minutes=10)
#: The window in which paid creations raise the level, in seconds: a day from the first.
WINDOW = 86_400
_NAME = "proofs"

Refusal = Literal["malformed", "forged", "expired", "elsewhere", "stale", "spent"]


@dataclass(frozen=True, slots=True)
class Challenge:
    """An ALTCHA v1 challenge, as the answer carries it (:meth:`to_dict`)."""

    algorithm: str
    challenge: str
    maxnumber: int
    salt: str
    signature: str

    def to_dict(self) -> dict[str, object]:
        """The challenge's JSON object, as ALTCHA's widget reads it."""
        names = ("algorithm", "challenge", "maxnumber", "salt", "signature")
        return {name: getattr(self, name) for name in names}


def max_number(level: int) -> int:
    """The ``maxnumber`` of a challenge at *level*: :data:`BASE`, doubled every
    :data:`DOUBLING` levels, at most :data:`MOST`.

    >>> max_number(0), max_number(64), max_number(96), max_number(10_000) == MOST
    (50000, 100000, 141421, True)
    """
    return min(MOST, int(BASE * 2 ** (level / DOUBLING)))


def _counted(holders: Holders) -> list[str]:
    return [
        keys.quota(holders.tag, _NAME, "day", holder)
        for holder in (holders.address, *holders.networks)
    ]


def level_of(client: redis.Redis, holders: Holders) -> int:
    """The paid creations of the address of *holders*, or of its busiest network, today."""
    return spent_proofs.most(client, _counted(holders))


def _key(config: Config) -> bytes:
    # A key of its own, derived from the service's newest signing key.
    return hmac.new(config.signing_keys[0].encode(), b"daily.altcha", hashlib.sha256).digest()


def challenge_for(client: redis.Redis, config: Config, holders: Holders) -> Challenge:
    """A new challenge for a player made from the address of *holders*, at its level now."""
    level = level_of(client, holders)
    made = v1.create_challenge(
        v1.ChallengeOptions(
            max_number=max_number(level),
            hmac_key=_key(config),
            expires=config.now() + LIFETIME,
            params={"level": str(level), "tag": holders.tag},
        )
    )
    return Challenge(made.algorithm, made.challenge, made.max_number, made.salt, made.signature)


def redeem(client: redis.Redis, config: Config, holders: Holders, payload: str) -> Refusal | None:
    """Spends the solved challenge *payload* (ALTCHA's base64 JSON) for a new player made
    from the address of *holders*, counting it on the level; None when it is accepted, else
    why not (nothing is spent)."""
    try:
        solved = v1.Payload.from_base64(payload)
        _, expires, params = solved.parse_salt()
        level = int(params["level"][0])
        tag = params["tag"][0]
    except (ValueError, KeyError, TypeError, IndexError, UnicodeError):
        return "malformed"
    if not v1.verify_solution(solved, _key(config), check_expires=False)[0]:
        return "forged"
    if expires is None or expires < config.now().timestamp():
        return "expired"  # the service's clock, not the machine's: the tests freeze it
    if tag != holders.tag:
        return "elsewhere"
    if level + SLACK < level_of(client, holders):
        return "stale"
    proof = keys.spent_proof(holders.tag, solved.signature)
    seconds = int(LIFETIME.total_seconds())
    if not spent_proofs.spend(client, proof, seconds, _counted(holders), WINDOW):
        return "spent"
    return None
