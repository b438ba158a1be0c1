"""Overload served by priority (issue 38.4): the admission control sheds the least important
requests first and a move of a game in progress goes through a saturated worker, with real
threads against the app and against the gate itself."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest
from flask import Response, jsonify
from prometheus_client import REGISTRY

from daily.web import admission, costs
from daily.web.admission import Gate, Lane
from tests.web.helpers import start

#: How long a test waits for a thread to reach the gate: generous on a loaded machine.
SETTLE = 10.0


def shed_count(lane: str) -> float:
    return REGISTRY.get_sample_value("daily_requests_shed_total", {"lane": lane}) or 0.0


def eventually(check: Any, what: str) -> None:
    deadline = time.monotonic() + SETTLE
    while not check():
        assert time.monotonic() < deadline, f"{what} did not happen within {SETTLE} s"
        time.sleep(0.01)


@pytest.fixture
def held(make_app: Any) -> Iterator[tuple[Any, threading.Event]]:
    """An app with one more page-class route that holds its request until the event is set
    (a flood's requests, caught in the act), its worker bounded to 8 threads as gunicorn's
    would be: the other lane may hold 4 of them, 2 running."""
    app = make_app()
    release = threading.Event()

    def slow() -> Response:
        release.wait(SETTLE)
        return jsonify(ok=True)

    app.add_url_rule("/api/v1/test-slow", "test_slow", slow, cost=costs.READ)
    admission.bound_threads(app, 8)
    yield app, release
    release.set()


def test_a_move_is_admitted_while_the_other_lane_is_saturated_and_floods_are_shed(
    held: tuple[Any, threading.Event], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, release = held
    # The two waiting keep waiting until released, however slow this machine is today.
    monkeypatch.setitem(admission.WAIT, Lane.OTHER, SETTLE)
    gate = admission.gate_of(app)
    player = app.test_client()
    game = start(player, mode="daily")
    row = next(iter(game["potential"]))
    with ThreadPoolExecutor(4) as pool:
        flood = [pool.submit(lambda: app.test_client().get("/api/v1/test-slow")) for _ in range(4)]
        eventually(lambda: gate.running[Lane.OTHER] == 2 and gate.waiting[Lane.OTHER] == 2,
                   "two slow requests running and two waiting")  # fmt: skip
        # The lane holds its half of the 8 threads: one more is shed at once.
        before = shed_count("other")
        shed = app.test_client().get("/api/v1/daily")
        assert shed.status_code == 503 and shed.headers["Retry-After"] == "1"
        assert shed.get_json()["error"]["code"] == "busy"
        assert shed_count("other") == before + 1  # daily_requests_shed_total
        # A bystander's move goes through meanwhile.
        started = time.monotonic()
        moved = player.post(f"/api/v1/games/{game['id']}/score", json={"category": row})
        assert moved.status_code == 200, moved.get_json()
        assert time.monotonic() - started < 2.0
        assert gate.running[Lane.OTHER] == 2  # the flood still held
        release.set()
        assert [f.result().status_code for f in flood] == [200] * 4
    assert gate.running == dict.fromkeys(Lane, 0) and gate.waiting == dict.fromkeys(Lane, 0)


def test_a_request_waits_a_bounded_time_then_is_shed_with_the_error_page(
    held: tuple[Any, threading.Event],
) -> None:
    app, release = held
    gate = admission.gate_of(app)
    with ThreadPoolExecutor(2) as pool:
        running = [pool.submit(lambda: app.test_client().get("/api/v1/test-slow"))
                   for _ in range(2)]  # fmt: skip
        eventually(lambda: gate.running[Lane.OTHER] == 2, "two slow requests running")
        started = time.monotonic()
        page = app.test_client().get("/rules/maxi")  # a page waits its lane's bound, 1 s
        waited = time.monotonic() - started
        assert page.status_code == 503 and page.headers["Retry-After"] == "1"
        assert admission.WAIT[Lane.OTHER] <= waited < admission.WAIT[Lane.OTHER] + 3
        assert b"The service is busy just now" in page.data  # the error page, in words
        release.set()
        assert [f.result().status_code for f in running] == [200, 200]
    assert app.test_client().get("/rules/maxi").status_code == 200  # and served once free


def test_exempt_routes_pass_a_saturated_gate(held: tuple[Any, threading.Event]) -> None:
    app, _ = held
    gate = admission.gate_of(app)
    assert all(gate.enter(Lane.MOVE) for _ in range(admission.RUNNING[Lane.MOVE]))
    assert app.test_client().get("/healthz").status_code == 200  # a load balancer's check
    with app.test_client().get("/static/site.css") as css:
        assert css.status_code == 200
    assert app.test_client().get("/api/v1/daily").status_code == 503


def waiter(pool: ThreadPoolExecutor, gate: Gate, lane: Lane) -> Future[bool]:
    """A thread entering *gate* in *lane*, seen waiting before this returns."""
    before = gate.waiting[lane]
    entered = pool.submit(gate.enter, lane)
    eventually(lambda: gate.waiting[lane] == before + 1, f"a {lane.name} waiting")
    return entered


def test_a_freed_slot_goes_to_the_most_important_request_waiting() -> None:
    gate = Gate()
    assert all(gate.enter(Lane.WRITE) for _ in range(4))  # the writes' 4
    assert all(gate.enter(Lane.MOVE) for _ in range(4))  # and moves: 8 running in all
    with ThreadPoolExecutor(2) as pool:
        write = waiter(pool, gate, Lane.WRITE)
        move = waiter(pool, gate, Lane.MOVE)
        gate.leave(Lane.WRITE)  # one slot: either could take it, the move does
        assert move.result(SETTLE) is True
        time.sleep(0.05)
        assert not write.done() and gate.running[Lane.MOVE] == 5
        gate.leave(Lane.MOVE)
        assert write.result(SETTLE) is True  # the write's turn once no move waits
    assert gate.running == {Lane.MOVE: 4, Lane.WRITE: 4, Lane.OTHER: 0}


def test_a_page_waits_while_a_move_runs() -> None:
    gate = Gate()
    assert gate.enter(Lane.MOVE)
    with ThreadPoolExecutor(1) as pool:
        page = waiter(pool, gate, Lane.OTHER)
        time.sleep(0.05)
        assert not page.done()  # one core a worker: the move does not share it with a page
        gate.leave(Lane.MOVE)
        assert page.result(SETTLE) is True


def test_writes_and_others_share_their_caps_and_moves_keep_their_threads() -> None:
    gate = Gate(threads=8)
    assert all(gate.enter(Lane.WRITE) for _ in range(4))  # writes and others: 4 running
    with ThreadPoolExecutor(4) as pool:
        waiting = [waiter(pool, gate, Lane.WRITE), waiter(pool, gate, Lane.WRITE)]
        assert not gate.enter(Lane.WRITE)  # 6 of 8 threads held: shed at once
        assert not gate.enter(Lane.OTHER)
        assert gate.enter(Lane.MOVE) and gate.enter(Lane.MOVE)  # moves: their own threads
        for _ in range(2):
            gate.leave(Lane.WRITE)
        assert [w.result(SETTLE) for w in waiting] == [True, True]
