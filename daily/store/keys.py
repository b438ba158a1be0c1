"""Every Redis key of the service, built here and nowhere else.

Keys that one Lua script or transaction touches together share a hash tag
(``{...}``), so they land on the same Redis Cluster slot.
tests/store/test_keys.py pins the exact strings.
"""

from __future__ import annotations

import re

PREFIX = "daily"


# Players and games. A game's hash and the move list of its first form share the game id
# as hash tag, so the rewriting script touches one slot; per-player indexes share
# the player id as hash tag.


def player(player_id: str) -> str:
    """The hash of a player: ``name``, ``created``."""
    return f"{PREFIX}:player:{{{player_id}}}"


def player_moves(player_id: str, seconds: int) -> str:
    """A player's count of moves in the current rate-limit window of *seconds* (it expires
    with the window)."""
    return f"{PREFIX}:player:{{{player_id}}}:moves:{seconds}"


def player_games(player_id: str) -> str:
    """The sorted set of a player's game ids, scored by start time."""
    return f"{PREFIX}:player:{{{player_id}}}:games"


def player_daily(player_id: str, day: str) -> str:
    """The id of a player's game of the daily puzzle of *day* (``YYYY-MM-DD``)."""
    return f"{PREFIX}:player:{{{player_id}}}:daily:{day}"


def player_practice(player_id: str, day: str) -> str:
    """The id of a player's practice game of a past daily puzzle, *day* (``YYYY-MM-DD``)."""
    return f"{PREFIX}:player:{{{player_id}}}:practice:{day}"


def player_friend(player_id: str, code: str) -> str:
    """The id of a player's game on friend code *code* (normalized)."""
    return f"{PREFIX}:player:{{{player_id}}}:friend:{code}"


def player_codes(player_id: str) -> str:
    """The sorted set of the friend codes a player made lately, scored by when each was made:
    their home page follows who played them."""
    return f"{PREFIX}:player:{{{player_id}}}:codes"


def player_keys(player_id: str) -> str:
    """The set of a player's index keys (daily, practice and friend), so deleting them scans
    nothing."""
    return f"{PREFIX}:player:{{{player_id}}}:keys"


def player_archived(player_id: str, month: str) -> str:
    """A player's archived ranked dailies of *month* (``YYYY-MM``): ``id:day:total:bonus``
    entries, each followed by a space. Written only for a game whose id names no day (one
    made before ids were dated), and read as written before :func:`player_dailies`."""
    return f"{PREFIX}:player:{{{player_id}}}:archived:{month}"


def player_dailies(player_id: str) -> str:
    """The hash of a player's finished ranked dailies: half month (``2026-12a``, ``2026-12b``)
    -> three bytes a day (total, bonus, where the archive files the game), 430 days kept."""
    return f"{PREFIX}:player:{{{player_id}}}:dailies"


def game(game_id: str) -> str:
    """The hash of a game: its settings, its compact move log and its result."""
    return f"{PREFIX}:game:{{{game_id}}}"


def game_moves(game_id: str) -> str:
    """The list of a game's moves as JSON strings, in order: only games written before the
    compact record have one (it is dropped when the game is first read)."""
    return f"{PREFIX}:game:{{{game_id}}}:moves"


def game_analysis(game_id: str) -> str:
    """A finished game's analysis as kept (one token a decision, daily/strategy/skill.py):
    computed once, it expires a while after the game's own archiving, which copies it."""
    return f"{PREFIX}:game:{{{game_id}}}:analysis"


def expert_game(day: str, stream: str) -> str:
    """The Expert's own game on the daily dice of *day* (``YYYY-MM-DD``) in dice stream
    *stream*: its total, the optimum and its move log, the same for every player of the day."""
    return f"{PREFIX}:expert:{{{day}}}:{stream}"


def friend_code(code: str) -> str:
    """The hash of a friend code: ruleset, options, creator, creator's game, seed origin."""
    return f"{PREFIX}:code:{{{code}}}"


def code_bucket(code: str) -> str:
    """The hash that holds the archived friend codes beginning with *code*'s first five
    characters, each as its last three (field) and its game, opening and closing (value):
    codes that name no day (made before codes were dated); a dated one goes to the archive."""
    return f"{PREFIX}:codes:{{{code[:5]}}}"


def pending_results() -> str:
    """The sorted set of games that may have finished without their result counted yet."""
    return f"{PREFIX}:results:pending"


def pending_sweep() -> str:
    """The lock that lets one process sweep the pending results once a minute."""
    return f"{PREFIX}:results:sweep"


def games_finished() -> str:
    """The sorted set of finished game ids not yet archived, scored by finish time: the
    archiver reads the old end of it and scans nothing."""
    return f"{PREFIX}:games:finished"


def archive_lock() -> str:
    """The lease that keeps one archiver at a time over every host (its holder renews it)."""
    return f"{PREFIX}:games:archiving"


# The review queue of games too lucky to be honest (daily/store/review_queue.py). Each is one
# sorted set of game ids, written one command at a time: no script spans two slots.


def reviews_held() -> str:
    """The sorted set of games held back from the boards for review, scored by hold time."""
    return f"{PREFIX}:reviews:held"


def reviews_unchecked() -> str:
    """The sorted set of counted games whose luck waits for their strategy table."""
    return f"{PREFIX}:reviews:unchecked"


def reviews_sweep() -> str:
    """The lock that lets one process check a few unchecked games once a minute."""
    return f"{PREFIX}:reviews:sweep"


# Rankings. Each board is one sorted set and its hash tag names the board, so
# boards spread over a cluster's slots; a board's helper keys share its tag. A player's
# days-played bitmap and streak hash share the player's tag (the streak script touches both).


def board_daily(day: str) -> str:
    """The sorted set of the daily puzzle of *day* (``YYYY-MM-DD``): everyone who finished
    it, player -> score."""
    return f"{PREFIX}:board:{{day:{day}}}"


def board_daily_new(day: str) -> str:
    """The sorted set of the new players on *day*'s board (their entries again, unranked)."""
    return f"{PREFIX}:board:{{day:{day}}}:new"


def board_best_day() -> str:
    """The sorted set of each player's best daily total ever."""
    return f"{PREFIX}:board:{{best-day}}"


def board_streak() -> str:
    """The sorted set of each player's longest run of consecutive days played."""
    return f"{PREFIX}:board:{{streak}}"


def board_advent(year: int) -> str:
    """The sorted set of the advent calendar of *year*: the sum of a player's door scores."""
    return f"{PREFIX}:board:{{advent:{year}}}"


def advent_doors(year: int) -> str:
    """The hash of the doors counted on *year*'s advent board: player -> bitmask of doors."""
    return f"{PREFIX}:board:{{advent:{year}}}:doors"


def board_friend(code: str) -> str:
    """The sorted set of the games played on friend code *code* (normalized)."""
    return f"{PREFIX}:board:{{friend:{code}}}"


def player_days(player_id: str) -> str:
    """The bitmap of the days a player finished the daily puzzle (bit n: day n since 2026)."""
    return f"{PREFIX}:player:{{{player_id}}}:days"


def player_streak(player_id: str) -> str:
    """The hash of a player's streak: ``last`` day played, its ``run``, the ``best`` run."""
    return f"{PREFIX}:player:{{{player_id}}}:streak"


def player_best_days(player_id: str) -> str:
    """The hash of what each counted daily gave the best-day board: day -> packed score."""
    return f"{PREFIX}:player:{{{player_id}}}:best-days"


# Leagues: a league's record, members and boards share the league's hash tag (one script
# checks membership and writes a day and its week together); the player's own list of
# leagues shares the player's tag.


def league(league_id: str) -> str:
    """The hash of a league: ``name``, ``owner`` (a board member string), ``created``."""
    return f"{PREFIX}:league:{{{league_id}}}"


def league_members(league_id: str) -> str:
    """The sorted set of a league's members (board member strings), scored by join time."""
    return f"{PREFIX}:league:{{{league_id}}}:members"


def league_removed(league_id: str) -> str:
    """The sorted set of the players the league's owner removed, scored by when: none of them
    joins again, by any link, until the owner readmits them."""
    return f"{PREFIX}:league:{{{league_id}}}:removed"


def league_day(league_id: str, day: str) -> str:
    """The sorted set of a league's daily board of *day* (``YYYY-MM-DD``): member -> score."""
    return f"{PREFIX}:league:{{{league_id}}}:day:{day}"


def league_week(league_id: str, monday: str) -> str:
    """The sorted set of a league's week from *monday*: member -> sum of the best five days."""
    return f"{PREFIX}:league:{{{league_id}}}:week:{monday}"


def player_leagues(player_id: str) -> str:
    """The set of the ids of the leagues a player is in."""
    return f"{PREFIX}:player:{{{player_id}}}:leagues"


# Streak reminders (daily/store/subscriptions.py): a player's Web Push subscription shares the
# player's tag (one script reads it with their notes and streak and claims the day); the
# schedule is one sorted set, read at its due end.


def player_reminder(player_id: str) -> str:
    """The hash of a player's reminder: the browser's push subscription (``endpoint``,
    ``p256dh``, ``auth``), the time and zone it comes at, the language, the last ``day`` it
    was claimed for; it expires unless the browser confirms it again."""
    return f"{PREFIX}:player:{{{player_id}}}:reminder"


def reminders_due() -> str:
    """The sorted set of the players whose reminder is on, scored by when it is next due
    (unix seconds)."""
    return f"{PREFIX}:reminders:due"


# Operations.


def dice_key() -> str:
    """The fingerprint of the key that deals the dice, recorded on the first production start."""
    return f"{PREFIX}:dice-key"


def address_moves(address: str, seconds: int) -> str:
    """A client address's count of moves (rolls and scores) that carry no player, in the
    current window of the ``pages`` limit of *seconds*; it expires with the window."""
    return f"{PREFIX}:address:{{{address}}}:moves:{seconds}"


def anonymous_moves(address: str, seconds: int) -> str:
    """A client address's count of move requests that carry no player, in the current
    rate-limit window of *seconds* (the moves limit's count where there is no player)."""
    return f"{PREFIX}:address:{{{address}}}:anonymous-moves:{seconds}"


def quota(tag: str, name: str, window: str, holder: str) -> str:
    """A count of limit *name* for *holder* (a client address, an IPv6 /64 or a network
    such as ``198.51.100.0/24``) in *window* (its seconds, or the puzzle day it counts), under
    the hash tag of the address's widest network, so that an address and its networks are
    counted in one script; it expires with the window."""
    return f"{PREFIX}:quota:{{{tag}}}:{name}:{window}:{holder}"


def player_quota(player_id: str, name: str, window: str) -> str:
    """A player's count of limit *name* in *window* (as :func:`quota`); it expires with it."""
    return f"{PREFIX}:player:{{{player_id}}}:quota:{name}:{window}"


def spent_proof(tag: str, signature: str) -> str:
    """A proof of work already used to make a player (its challenge's signature), under the
    hash tag of the address's widest network; it expires with its challenge."""
    return f"{PREFIX}:proof:{{{tag}}}:{signature}"


def rate_limits() -> str:
    """The prefix of the rate limiter's counters (the ``limits`` library builds the rest)."""
    return f"{PREFIX}:limits"


# Who keeps a key that has no expiry: every key a request writes either expires or belongs to
# one of these (the cost table's test checks it, daily/web/costs.py). Rate-limit windows
# have no owner: they always expire.
_OWNED = (
    (re.compile(rf"{PREFIX}:player:\{{[^}}]*\}}:(moves|quota):"), None),
    # A friend code's board leaves with its code, as the code's game is archived.
    (re.compile(rf"{PREFIX}:board:\{{friend:"), "game"),
    (re.compile(rf"{PREFIX}:player:"), "player"),
    (re.compile(rf"{PREFIX}:reminders:"), "player"),  # one entry a player, left with them
    (re.compile(rf"{PREFIX}:(game|code|codes|results|games|reviews):"), "game"),
    (re.compile(rf"{PREFIX}:board:"), "board"),
    (re.compile(rf"{PREFIX}:league:"), "league"),
)


def owner_of(key: str) -> str | None:
    """What keeps *key* when it has no expiry: ``player``, ``game``, ``board`` or ``league``
    (what deletes a player, archives a game, ends a board's retention or empties a league
    takes it away); None for a key that must expire.

    >>> owner_of(player_games("p1")), owner_of(game("g1")), owner_of(board_streak())
    ('player', 'game', 'board')
    >>> owner_of(board_friend("K7P2QX9D"))
    'game'
    >>> owner_of(player_moves("p1", 60)), owner_of(quota("1.2.3.0/24", "players", "3600", "x"))
    (None, None)
    """
    for pattern, owner in _OWNED:
        if pattern.match(key):
            return owner
    return None
