"""What each route may cost the service: its CPU, the Redis it may write, how long that lives,
and the limits that bound how often one client may pay it.

A route's row is declared where the route is (``@bp.get(path, cost=costs.READ)``: see
:mod:`daily.web.routes`); a route without one is refused as it is registered. The rows here
are the shared ones. ``tests/web/test_costs.py`` calls every route from one address up to its
limits on a real Redis, and checks that memory grew at most as its row says and that every
key a request wrote expires or belongs to an owner the row names. docs/operations.md prints
the table (:func:`markdown`); a test keeps the two the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum


class Cpu(StrEnum):
    """How much work one request is, by kind (each kind's ceiling: :data:`CEILING_MS`)."""

    STATIC = "static"  # a file or an answer made without Redis
    READ = "read"  # one or two round trips and a small answer
    PAGE = "page"  # a page rendered from a few reads
    WRITE = "write"  # makes something new (a player, a game, a code, a league)
    MOVE = "move"  # a move replayed and stored: two round trips, a finish counts the boards
    SOLVER = "solver"  # the exact solver: a hint, or an analysis (once a game)


#: The most CPU of the app's process one request of a kind may take, in milliseconds, as
#: bench/bench_costs.py measures it (the median of its requests); a test fails when a route's
#: measured figure passes its kind's ceiling.
CEILING_MS: Mapping[Cpu, float] = {
    Cpu.STATIC: 2, Cpu.READ: 5, Cpu.PAGE: 20, Cpu.WRITE: 20, Cpu.MOVE: 20, Cpu.SOLVER: 100,
}  # fmt: skip


class Owner(StrEnum):
    """How long what a request writes lives: whatever has no expiry belongs to one of these."""

    TTL = "ttl"  # expires by itself: a rate-limit window, an unfinished game, a guest
    GAME = "game"  # kept with a finished game, until the archive takes it out of Redis
    PLAYER = "player"  # kept with the player, until they are deleted
    LEAGUE = "league"  # kept with the league, until its last member leaves
    BOARD = "board"  # on a board, kept for the board's retention


@dataclass(frozen=True, slots=True)
class Cost:
    """One route's cost: its CPU class, the Redis bytes one request may add at most, the
    owners of what it writes that does not expire, and the limits it spends (``pages``, the
    address's requests, is every limited route's; none: exempt, it writes nothing)."""

    cpu: Cpu
    writes: int = 0
    owners: frozenset[Owner] = frozenset()
    limits: tuple[str, ...] = ("pages",)

    def __post_init__(self) -> None:
        if self.writes and not self.owners:
            raise ValueError("a route that writes names how long what it writes lives")


def cost(cpu: Cpu, writes: int = 0, *owners: Owner, limits: tuple[str, ...] = ()) -> Cost:
    """A limited route's row: *limits* are spent besides ``pages``, the address's requests."""
    return Cost(cpu, writes, frozenset(owners), ("pages", *limits))


TTL, GAME, PLAYER, LEAGUE, BOARD = Owner
#: Never limited, writing nothing: files.
EXEMPT = Cost(Cpu.STATIC, limits=())
#: The health checks: never limited (a load balancer calls them), a Redis round trip and
#: the tables' state.
CHECK = Cost(Cpu.READ, limits=())
#: The metrics scrape, for the holder of its token only: every metric rendered.
SCRAPE = Cost(Cpu.PAGE, limits=())
READ = cost(Cpu.READ)
PAGE = cost(Cpu.PAGE)
#: A page or read that may make a browser's guest (a player kept a day unless it plays).
GUEST_PAGE = cost(Cpu.PAGE, 700, TTL, limits=("players", "network_players"))
#: A move: a character of log; the finishing one counts the boards, makes the share code,
#: keeps the player and lists the game for the archive.
MOVE = cost(Cpu.MOVE, 6_000, TTL, GAME, PLAYER, BOARD, limits=("moves",))
#: A new game of any mode: the game, its player's index (and a guest, a friend code).
NEW_GAME = cost(Cpu.WRITE, 2_600, TTL, PLAYER, limits=("games", "network_games", "dailies",
    "network_dailies", "codes", "players", "network_players"))  # fmt: skip
#: A league made or joined: its member, the player's list, and the day's and week's entries
#: of a member who had played already.
LEAGUE_WRITE = cost(Cpu.WRITE, 1_200, TTL, LEAGUE, PLAYER, limits=("joins", "network_joins"))
#: A change to a league (its name, a member removed, a new invite link).
LEAGUE_CHANGE = cost(Cpu.WRITE, 200, LEAGUE)
#: A game's analysis: computed on the first ask and kept with the game (a Maxi daily's
#: decisions about 1.2 KB), the Expert's game of the day once a day.
ANALYSIS = cost(Cpu.SOLVER, 1_600, TTL, GAME, limits=("analyses", "builds"))
#: A page of a game (its play page): reading a finished game whose count a crash lost
#: counts it, as the sweep would.
GAME_PAGE = cost(Cpu.PAGE, 2_500, GAME, PLAYER, BOARD)


def markdown(routes: Mapping[str, Cost], measured: Mapping[str, float]) -> str:
    """The table as docs/operations.md prints it, one row an endpoint of *routes*, with the
    CPU milliseconds *measured* for it (bench/bench_costs.py) beside its kind's ceiling."""
    lines = ["| endpoint | CPU (ceiling) | measured | Redis bytes at most "
             "| what has no expiry belongs to | limits |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for endpoint, row in sorted(routes.items()):
        owners = ", ".join(sorted(o for o in row.owners if o is not Owner.TTL)) or "-"
        limits = ", ".join(row.limits) or "none (exempt)"
        cpu = f"{row.cpu} ({CEILING_MS[row.cpu]:g} ms)"
        took = f"{measured[endpoint]:.2f} ms" if endpoint in measured else "not measured"
        lines.append(f"| `{endpoint}` | {cpu} | {took} | {row.writes:,} | {owners} | {limits} |")
    return "\n".join(lines)
