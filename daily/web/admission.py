"""Admission control: when a worker is saturated, the least important requests wait a
bounded time and are then shed (503 ``busy`` with ``Retry-After``), and the moves of games in
progress go first, so that a bystander's move is never behind a flood.

Each request takes a :class:`Lane` from its route's cost row (:mod:`daily.web.costs`):
moves first, then writes (a new player, game, code or league), then everything else (pages,
reads, hints, analyses, and a path no route matches). Exempt routes (files, the health check,
the metrics scrape) pass untouched: a load balancer's check is never shed.

One :class:`Gate` a process (a gunicorn worker), its counts under one lock:

- **Running.** At most :data:`RUNNING` requests of a lane *and every less important one* run
  at once: 8 in all (moves can take every one), 4 writes and others, 2 others. A worker runs
  Python on one core, so more at once only share it; a flood of pages shares it with at most
  two of its own, whatever it sends.
- **Priority.** A request waits while a more important one waits, so a freed slot goes to
  the most important request waiting; and an other request waits while a move runs: a
  worker runs Python on one core, which a move then shares with no page that could wait.
- **Bounded wait.** A request that cannot run waits at most :data:`WAIT` seconds for its lane
  (a move 5 s, a write 3 s, others 1 s), then is shed.
- **Bounded holding.** A waiting request holds one of the worker's threads, and a move that
  finds none free would queue in gunicorn, before this gate can put it first. So where the
  worker's thread count is known (gunicorn.conf.py's ``post_worker_init`` calls
  :func:`bound_threads`), a request is shed at once when its lane and the less important ones
  already hold their share of the threads (:data:`HOLDING`: others half of them, writes and
  others three quarters), which keeps a quarter of the threads for moves. Under another
  server (``daily serve``, a test client) the thread count is unknown and only the wait
  bounds shed.
"""

from __future__ import annotations

import threading
import time
from enum import IntEnum

from flask import Flask, g

from daily.core import metrics
from daily.core.errors import ErrorCode
from daily.web.costs import Cpu
from daily.web.http_errors import HttpError
from daily.web.routes import current_route

_GATE = "daily.admission"
_HELD = "admission_lane"


class Lane(IntEnum):
    """A request's importance when the worker is saturated: the lower, the sooner it runs."""

    MOVE = 0  # a roll or a score of a game in progress
    WRITE = 1  # a new player, game, code or league; a change to one
    OTHER = 2  # pages, reads, hints, analyses: shed first


#: At most this many requests of a lane and every less important one run at once in a worker.
RUNNING: dict[Lane, int] = {Lane.MOVE: 8, Lane.WRITE: 4, Lane.OTHER: 2}
#: The longest a request of a lane waits to run before it is shed, in seconds.
WAIT: dict[Lane, float] = {Lane.MOVE: 5.0, Lane.WRITE: 3.0, Lane.OTHER: 1.0}
#: The share of a worker's threads that a lane and the less important ones may hold (running
#: or waiting), where the thread count is known.
HOLDING: dict[Lane, float] = {Lane.MOVE: 1.0, Lane.WRITE: 0.75, Lane.OTHER: 0.5}
#: What a shed request is told: try again in this many seconds.
RETRY_AFTER = 1


def lane_of(cpu: Cpu | None) -> Lane | None:
    """The lane of a route of CPU class *cpu* (None: no route matched); None for files, which
    pass untouched.

    >>> lane_of(Cpu.MOVE), lane_of(Cpu.WRITE), lane_of(Cpu.SOLVER), lane_of(None)
    (<Lane.MOVE: 0>, <Lane.WRITE: 1>, <Lane.OTHER: 2>, <Lane.OTHER: 2>)
    """
    if cpu is Cpu.MOVE:
        return Lane.MOVE
    if cpu is Cpu.WRITE:
        return Lane.WRITE
    return None if cpu is Cpu.STATIC else Lane.OTHER


class Gate:
    """One worker's admission: :meth:`enter` before a request runs, :meth:`leave` after."""

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads
        self.running = dict.fromkeys(Lane, 0)
        self.waiting = dict.fromkeys(Lane, 0)
        self._changed = threading.Condition()

    def enter(self, lane: Lane) -> bool:
        """Waits until a request of *lane* may run (True), or sheds it (False) when its
        lane's threads are all held or its wait runs out."""
        with self._changed:
            if not self._may_hold(lane):
                return False
            deadline = time.monotonic() + WAIT[lane]
            self.waiting[lane] += 1
            try:
                while not self._may_run(lane):
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return False
                    self._changed.wait(left)
                self.running[lane] += 1
                return True
            finally:
                self.waiting[lane] -= 1
                self._changed.notify_all()  # a waiter of a less important lane may go now

    def leave(self, lane: Lane) -> None:
        """Frees the slot of a request of *lane* that ran, for the most important waiting."""
        with self._changed:
            self.running[lane] -= 1
            self._changed.notify_all()

    def _from(self, counts: dict[Lane, int], lane: Lane) -> int:
        return sum(n for each, n in counts.items() if each >= lane)

    def _may_run(self, lane: Lane) -> bool:
        if any(self.waiting[each] for each in Lane if each < lane):
            return False  # a more important request is waiting: it goes first
        if lane is Lane.OTHER and self.running[Lane.MOVE]:
            return False  # one core a worker: a move shares it with no page that could wait
        return all(self._from(self.running, each) < RUNNING[each] for each in Lane if each <= lane)

    def _may_hold(self, lane: Lane) -> bool:
        if self.threads is None:
            return True
        for each in Lane:
            held = self._from(self.running, each) + self._from(self.waiting, each)
            if each <= lane and held >= max(1, int(self.threads * HOLDING[each])):
                return False
        return True


def gate_of(app: Flask) -> Gate:
    """The :class:`Gate` of *app*'s process."""
    gate = app.extensions[_GATE]
    assert isinstance(gate, Gate)
    return gate


def bound_threads(app: Flask, threads: int) -> None:
    """Tells *app*'s gate how many threads its worker has (gunicorn.conf.py, as a worker
    starts), which bounds how many of them waiting requests may hold."""
    gate_of(app).threads = threads


def busy() -> HttpError:
    """The 503 of a request shed while the worker is saturated."""
    return HttpError(503, ErrorCode.BUSY,
                     f"the service is busy: try again in {RETRY_AFTER} s",
                     retry_after=RETRY_AFTER)  # fmt: skip


def init_app(app: Flask) -> None:
    """Installs the gate: before a request runs it is admitted or shed, and its slot is freed
    when the request is torn down, whatever happened in between."""
    gate = app.extensions[_GATE] = Gate()

    @app.before_request
    def admit() -> None:
        route = current_route()
        if route is not None and route.is_exempt:
            return
        lane = lane_of(route.cost.cpu if route is not None else None)
        if lane is None:
            return
        if not gate.enter(lane):
            metrics.request_shed(lane.name.lower())
            raise busy()
        g.setdefault(_HELD, lane)

    @app.teardown_request
    def release(_: BaseException | None) -> None:
        lane = g.pop(_HELD, None)
        if lane is not None:
            gate.leave(lane)
