"""What each route may cost the service: its CPU, the Redis it may write, how long that lives,
and the limits that bound how often one client may pay it.

One row an endpoint, as the error table has one row an error: ``tests/web/test_costs.py``
walks the app's URL map (a route without a row fails), calls every route from one address
up to its limits on a real Redis, and checks that memory grew at most as its row says and
that every key a request wrote expires or belongs to an owner the row names.
docs/operations.md prints the table (:func:`markdown`); a test keeps the two the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Cpu(StrEnum):
    """How much work one request is, by kind."""

    STATIC = "static"  # a file or an answer made without Redis: microseconds
    READ = "read"  # one or two round trips and a small answer: about a millisecond
    PAGE = "page"  # a page rendered from a few reads: a few milliseconds
    WRITE = "write"  # makes something new (a player, a game, a code, a league)
    MOVE = "move"  # a move replayed and stored: two round trips, a finish counts the boards
    SOLVER = "solver"  # the exact solver: a hint (1 ms) or an analysis (once a game)


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


def _cost(cpu: Cpu, writes: int = 0, *owners: Owner, limits: tuple[str, ...] = ()) -> Cost:
    return Cost(cpu, writes, frozenset(owners), ("pages", *limits))


_TTL, _GAME, _PLAYER, _LEAGUE, _BOARD = Owner
_EXEMPT = Cost(Cpu.STATIC, limits=())
_READ = _cost(Cpu.READ)
_PAGE = _cost(Cpu.PAGE)
#: A page or read that may make a browser's guest (a player kept a day unless it plays).
_GUEST_PAGE = _cost(Cpu.PAGE, 700, _TTL, limits=("players", "network_players"))
#: A move: a character of log; the finishing one counts the boards, makes the share code,
#: keeps the player and lists the game for the archive.
_MOVE = _cost(Cpu.MOVE, 6_000, _TTL, _GAME, _PLAYER, _BOARD, limits=("moves",))
#: A new game of any mode: the game, its player's index (and a guest, a friend code).
_NEW_GAME = _cost(Cpu.WRITE, 2_600, _TTL, _PLAYER, limits=(
    "games", "dailies", "network_dailies", "codes", "players", "network_players"))  # fmt: skip
#: A league made or joined: its member, the player's list, and the day's and week's entries
#: of a member who had played already.
_LEAGUE_WRITE = _cost(Cpu.WRITE, 1_200, _TTL, _LEAGUE, _PLAYER,
                      limits=("joins", "network_joins"))  # fmt: skip
#: A game's analysis: computed on the first ask and kept with the game (a Maxi daily's
#: decisions about 1.2 KB), the Expert's game of the day once a day.
_ANALYSIS = _cost(Cpu.SOLVER, 1_600, _TTL, _GAME, limits=("analyses", "builds"))

#: Every endpoint's cost (``tests/web/test_costs.py`` fails on a route without a row).
COSTS: dict[str, Cost] = {
    # Never limited, writing nothing: health checks, the metrics scrape, files.
    "health.healthz": _EXEMPT,
    "metrics.metrics": _EXEMPT,
    "static": _EXEMPT,
    "assets.module": _EXEMPT,
    # The game API.
    "api.openapi_document": _READ,
    "api.create_player": _cost(
        Cpu.WRITE, 700, _TTL, _PLAYER, limits=("players", "network_players")
    ),  # fmt: skip
    "api.get_me": _READ,
    "api.update_me": _cost(Cpu.WRITE, 300, _PLAYER),
    "api.my_challenges": _READ,
    "api.today": _READ,
    "api.daily": _READ,
    "api.create_game": _NEW_GAME,
    # A read of a finished game whose count a crash lost counts it, as the sweep would.
    "api.get_game": _cost(Cpu.READ, 2_500, _GAME, _PLAYER, _BOARD),
    "api.roll": _MOVE,
    "api.score": _MOVE,
    "api.record": _READ,
    "api.hint": _cost(Cpu.SOLVER, 200, _TTL, limits=("hints", "builds")),
    "api.analysis": _ANALYSIS,
    # Boards and the day's distribution.
    "boards.distribution": _READ,
    "boards.advent_board": _READ,
    "boards.best_day_board": _READ,
    "boards.daily_board": _READ,
    "boards.friend_board": _READ,
    "boards.streak_board": _READ,
    "boards.index": _PAGE,
    "boards.advent_page": _PAGE,
    "boards.best_day_page": _PAGE,
    "boards.daily_page": _PAGE,
    "boards.friend_form": _PAGE,
    "boards.friend_page": _PAGE,
    "boards.streak_page": _PAGE,
    # Leagues.
    "leagues.list_leagues": _READ,
    "leagues.create_league": _LEAGUE_WRITE,
    "leagues.get_league": _READ,
    "leagues.rename_league": _cost(Cpu.WRITE, 200, _LEAGUE),
    "leagues.day_board": _READ,
    "leagues.week_board": _READ,
    "leagues.join_league": _LEAGUE_WRITE,
    "leagues.remove_member": _cost(Cpu.WRITE, 300, _LEAGUE),  # and lists them as removed
    "leagues.renew_invite": _cost(Cpu.WRITE, 200, _LEAGUE),
    "leagues.readmit_member": _cost(Cpu.WRITE),  # takes a member off the removed: no bytes
    "leagues.index": _PAGE,
    "leagues.create_form": _LEAGUE_WRITE,
    "leagues.league_page": _PAGE,
    "leagues.join_form": _LEAGUE_WRITE,
    "leagues.leave_form": _cost(Cpu.WRITE, 200, _LEAGUE),
    "leagues.rename_form": _cost(Cpu.WRITE, 200, _LEAGUE),
    "leagues.remove_form": _cost(Cpu.WRITE, 300, _LEAGUE),
    "leagues.renew_form": _cost(Cpu.WRITE, 200, _LEAGUE),
    "leagues.readmit_form": _cost(Cpu.WRITE),
    # Pages.
    "pages.today": _GUEST_PAGE,
    "pages.advent": _PAGE,
    "pages.play": _cost(Cpu.PAGE, 2_500, _GAME, _PLAYER, _BOARD),
    "pages.set_dice_style": _PAGE,
    "pages.friend_lookup": _PAGE,
    "pages.friend": _PAGE,
    "pages.rules_index": _PAGE,
    "pages.rules": _PAGE,
    "pages.solo": _PAGE,
    "set_language": _PAGE,
    "computer.setup": _cost(Cpu.PAGE, 200, _TTL, limits=("builds",)),
    "party.setup": _PAGE,
    "party.play": _cost(Cpu.PAGE, 2_500, _GAME, _PLAYER),
    "analyses.analysis": _ANALYSIS,
    "archive.index": _PAGE,
    "archive.month": _PAGE,
    "archive.practice": _cost(
        Cpu.WRITE, 2_600, _TTL, _PLAYER, limits=("games", "players", "network_players")
    ),  # fmt: skip
    # The player's own pages.
    "account.me": _PAGE,
    "account.history": _PAGE,
    "account.set_name": _cost(Cpu.WRITE, 300, _PLAYER),
    "account.set_theme": _PAGE,
    "account.new_link": _cost(Cpu.WRITE, 100, _PLAYER),
    "account.delete_form": _PAGE,
    "account.delete": _cost(Cpu.WRITE, 200, _TTL, _PLAYER, limits=("deletes",)),
    "account.signin": _PAGE,
    "account.signin_confirm": _PAGE,
    "account.offline": _PAGE,
    "account.manifest": _PAGE,
    "account.service_worker": _PAGE,
}


def cost_of(endpoint: str) -> Cost:
    """The row of *endpoint*; KeyError names a route that has none."""
    try:
        return COSTS[endpoint]
    except KeyError:
        raise KeyError(f"no cost row for the endpoint {endpoint!r} (daily/web/costs.py)") from None


def markdown() -> str:
    """The table as docs/operations.md prints it, one row an endpoint."""
    lines = ["| endpoint | CPU | Redis bytes at most | what has no expiry belongs to | limits |",
             "|---|---|---|---|---|"]  # fmt: skip
    for endpoint, cost in sorted(COSTS.items()):
        owners = ", ".join(sorted(o for o in cost.owners if o is not Owner.TTL)) or "-"
        limits = ", ".join(cost.limits) or "none (exempt)"
        lines.append(f"| `{endpoint}` | {cost.cpu} | {cost.writes:,} | {owners} | {limits} |")
    return "\n".join(lines)
