"""New players past the free allowance cost a proof of work (ALTCHA v1), never a refusal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from altcha import v1

from daily.service import proofs
from daily.store import keys
from daily.web import limits
from daily.web.context import current_redis

pytestmark = pytest.mark.redis

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
OFF = dict.fromkeys(limits.DEFAULTS, "off")
PLAYERS = "/api/v1/players"


def limited(make_app: Any, now: datetime = NOON, **chosen: str) -> Any:
    return make_app(now=now, rate_limits={**OFF, "players": "2 per hour", **chosen})


def solve(challenge: dict[str, Any]) -> str:
    """The payload ALTCHA's widget sends for *challenge*, found as a client finds it."""
    found = v1.solve_challenge(challenge["challenge"], challenge["salt"],
                               challenge["algorithm"], challenge["maxnumber"])  # fmt: skip
    assert found is not None, "no number solves the challenge"
    payload = v1.Payload(challenge["algorithm"], challenge["challenge"], found.number,
                         challenge["salt"], challenge["signature"])  # fmt: skip
    return payload.to_base64()


def new_player(client: Any, proof: str | None = None, **kwargs: Any) -> Any:
    headers = {"Altcha": proof} if proof else {}
    return client.post(PLAYERS, json={"name": "Ana"}, headers=headers, **kwargs)


def refused_with_challenge(answer: Any) -> dict[str, Any]:
    assert answer.status_code == 429, answer.get_json()
    error = answer.get_json()["error"]
    assert error["code"] == "too_many_requests" and "new players" in error["message"]
    assert set(error["altcha"]) == {"algorithm", "challenge", "maxnumber", "salt", "signature"}
    assert int(answer.headers["Retry-After"]) >= 1
    return dict(error["altcha"])


def test_past_the_free_allowance_a_player_costs_a_proof_of_work(make_app: Any) -> None:
    client = limited(make_app).test_client()
    assert [new_player(client).status_code for _ in range(2)] == [201, 201]
    challenge = refused_with_challenge(new_player(client))
    assert challenge["algorithm"] == "SHA-256" and challenge["maxnumber"] == proofs.BASE
    proof = solve(challenge)
    made = new_player(client, proof)
    assert made.status_code == 201 and made.get_json()["token"]
    again = refused_with_challenge(new_player(client, proof))  # a proof is spent once
    assert "(spent)" in new_player(client, proof).get_json()["error"]["message"]
    assert again["maxnumber"] == proofs.max_number(1) > proofs.BASE  # harder each time


@pytest.mark.parametrize(
    ("tamper", "why"),
    [("forged", "forged"), ("garbage", "malformed"), ("late", "expired"),
     ("elsewhere", "elsewhere")],
    ids=["forged", "malformed", "expired", "elsewhere"],
)  # fmt: skip
def test_a_proof_that_does_not_hold_makes_no_player(make_app: Any, tamper: str, why: str) -> None:
    app = limited(make_app)
    client = app.test_client()
    for _ in range(2):
        new_player(client)
    proof = solve(refused_with_challenge(new_player(client)))
    other: dict[str, Any] = {}
    if tamper == "forged":
        payload = v1.Payload.from_base64(proof)
        payload.signature = "0" * 64
        proof = payload.to_base64()
    elif tamper == "garbage":
        proof = "not base64 at all!"
    elif tamper == "late":
        client = limited(make_app, now=NOON + proofs.LIFETIME + timedelta(seconds=1)).test_client()
    else:
        other = {"environ_base": {"REMOTE_ADDR": "198.51.100.7"}}  # another network's address
        for _ in range(2):
            new_player(client, **other)
    answer = new_player(client, proof, **other)
    refused_with_challenge(answer)
    assert f"({why})" in answer.get_json()["error"]["message"]
    with app.app_context():
        assert len(list(current_redis().scan_iter(keys.player("*")))) == 2 + (
            2 if tamper == "elsewhere" else 0
        )


def test_a_challenge_left_far_behind_is_stale(make_app: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(proofs, "SLACK", 1)  # visibly: two paid players pass it by
    client = limited(make_app, players="1 per hour").test_client()
    new_player(client)
    kept = solve(refused_with_challenge(new_player(client)))
    for _ in range(2):
        paid = solve(refused_with_challenge(new_player(client)))
        assert new_player(client, paid).status_code == 201
    answer = new_player(client, kept)
    refused_with_challenge(answer)
    assert "(stale)" in answer.get_json()["error"]["message"]


def test_a_browser_guest_pays_with_the_header_and_plays(make_app: Any) -> None:
    app = limited(make_app, players="1 per hour")
    first = app.test_client()
    assert first.post("/api/v1/games", json={"mode": "daily"}).status_code == 201
    pupil = app.test_client()  # the same address: a classmate's phone
    challenge = refused_with_challenge(pupil.post("/api/v1/games", json={"mode": "daily"}))
    started = pupil.post("/api/v1/games", json={"mode": "daily"},
                         headers={"Altcha": solve(challenge)})  # fmt: skip
    assert started.status_code == 201, started.get_json()
    game = started.get_json()["id"]
    assert pupil.post(f"/api/v1/games/{game}/roll", json={"hold": []}).status_code == 200


def test_what_a_proof_writes_expires(make_app: Any) -> None:
    app = limited(make_app, players="1 per hour")
    client = app.test_client()
    new_player(client)
    proof = solve(refused_with_challenge(new_player(client)))
    assert new_player(client, proof).status_code == 201
    with app.app_context():
        redis = current_redis()
        spent = list(redis.scan_iter(keys.spent_proof("*", "*")))
        levels = list(redis.scan_iter(keys.quota("*", "proofs", "day", "*")))
        assert len(spent) == 1 and 0 < redis.ttl(spent[0]) <= proofs.LIFETIME.total_seconds()
        assert len(levels) == 2  # the address's and its /24's
        for level in levels:
            assert 0 < redis.ttl(level) <= proofs.WINDOW and redis.get(level) == "1"


def test_keys_of_proofs_are_pinned() -> None:
    assert keys.spent_proof("198.51.100.0/24", "ab") == "daily:proof:{198.51.100.0/24}:ab"
    assert keys.owner_of(keys.spent_proof("t", "ab")) is None  # it must expire
