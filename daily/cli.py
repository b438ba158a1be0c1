"""The ``daily`` command: ``serve``, ``score``, ``verify``, ``solve``, ``review``,
``archive``, ``remind`` and ``keys``.

Every subcommand reports bad input as one line on stderr and a non-zero exit
status; a traceback never reaches the user.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from daily.core.errors import DailyError, UsageError
from daily.core.rules import BASE_RULESETS, Ruleset, find_ruleset, parse_dice

if TYPE_CHECKING:
    from daily.core.config import Config
    from daily.strategy.solver import Table

EXIT_BAD_INPUT = 2


def score_lines(ruleset_id: str, lines: TextIO, out: TextIO) -> None:
    """Scores every JSON line ``{"dice": [...], "options": {...}}`` of *lines*."""
    find_ruleset(ruleset_id)  # an unknown ruleset fails before any input is read
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as e:
            raise UsageError(f"line {number}: not JSON: {e.msg}") from None
        except RecursionError:  # json gives up on very deep nesting this way
            raise UsageError(f"line {number}: not JSON: nested too deeply") from None
        if not isinstance(data, dict) or set(data) - {"dice", "options"} or "dice" not in data:
            raise UsageError(f'line {number}: expected {{"dice": [...], "options": {{...}}}}')
        options = data.get("options")
        if options is not None and not isinstance(options, dict):
            raise UsageError(f"line {number}: options must be an object")
        try:
            ruleset = find_ruleset(ruleset_id, options)
            dice = parse_dice(ruleset, data["dice"])
        except DailyError as e:
            raise UsageError(f"line {number}: {e}") from None
        points = dict(zip(ruleset.row_ids, ruleset.score(dice), strict=True))
        out.write(json.dumps(points) + "\n")
        out.flush()


def _cmd_score(args: argparse.Namespace) -> None:
    score_lines(args.ruleset, sys.stdin, sys.stdout)


def parse_option(text: str) -> tuple[str, int | bool | str]:
    """Reads one ``--option name=value``: integers and true/false are typed.

    >>> parse_option("full_straight=25"), parse_option("forced=true")
    (('full_straight', 25), ('forced', True))
    >>> parse_option("bonus=50@75"), parse_option("x=²")
    (('bonus', '50@75'), ('x', '²'))
    """
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise UsageError(f"an option is name=value, got {text!r}")
    if value.lower() in ("true", "false"):
        return name, value.lower() == "true"
    # isascii(): str.isdigit() also accepts "²", which int() refuses.
    digits = value.removeprefix("-")
    return name, int(value) if digits.isascii() and digits.isdigit() else value


def _cmd_solve(args: argparse.Namespace) -> None:
    from daily.core.config import load
    from daily.service import tables

    settings: dict[str, Path | str | None] = {}
    if args.cache:
        settings["cache_dir"] = Path(args.cache)
    if args.store is not None:
        settings["tables_url"] = args.store.strip() or None
    config = load(None, **settings)
    if args.missing:
        if args.ruleset or args.option:
            raise UsageError("--missing builds the configured tables: give no ruleset")
        todo = tables.configured(config)
    elif not args.ruleset:
        raise UsageError("name a ruleset to solve, or --missing")
    else:
        todo = (find_ruleset(args.ruleset, dict(parse_option(o) for o in args.option)),)
    for ruleset in todo:
        table = _solve_one(config, ruleset, args.workers)
        print(f"{ruleset.id} {dict(ruleset.options)}: optimum {table.optimum:.7f}")


def _solve_one(config: Config, ruleset: Ruleset, workers: int) -> Table:
    """Builds one table (or waits for the build running elsewhere) behind a progress bar;
    with a store, fetches it from there, or builds it and uploads it (the release step)."""
    from tqdm import tqdm

    from daily.service import tables
    from daily.strategy.model import model_of

    model_of(ruleset)  # a ruleset the solver refuses fails before anything is written
    # The bar counts work, not states: the levels cost differently (solver.state_work).
    with tqdm(
        total=100.0,
        desc=f"solving {ruleset.spec}",
        unit="%",
        bar_format="{desc}: {percentage:5.1f}%|{bar}| {elapsed} elapsed, {remaining} left",
        file=sys.stderr,
        mininterval=0.5,
    ) as bar:

        def progress(done: float, total: float) -> None:
            bar.update(100.0 * done / total - bar.n)

        table = tables.solve(config, ruleset, progress=progress, workers=workers)
        bar.update(100.0 - bar.n)
    return table


def _cmd_verify(args: argparse.Namespace) -> None:
    from daily.core.config import load
    from daily.core.rules import GameState
    from daily.core.verify import party_str, sheet_str, verify

    state = verify(sys.stdin.read(), load().secret_keys)  # SECRET_KEY, read by the settings
    print(sheet_str(state) if isinstance(state, GameState) else party_str(state))


def review(action: str, game_id: str | None, out: TextIO) -> None:
    """Runs ``daily review ACTION [ID]`` on the service's Redis (the same settings as serve)."""
    from daily.core.config import load
    from daily.service import backend, reviews

    config = load()
    client = backend.connect(config)
    if action == "list":
        waiting = reviews.held(client)
        for entry in waiting:
            out.write(entry.line() + "\n")
        waits = reviews.unchecked(client)
        out.write(f"{len(waiting)} held for review, {waits} waiting for a table\n")
    elif action == "check":
        held = reviews.check_unchecked(client, config, limit=1_000_000)
        left = reviews.unchecked(client)
        out.write(f"{held} held for review, {left} still waiting for a table\n")
    elif game_id is None:
        raise UsageError(f"review {action} needs a game id")
    elif action == "hold":
        reviews.hold(client, config, game_id)
        out.write(f"held {game_id}: off every board until released or removed\n")
    elif action == "release":
        reviews.release(client, config, game_id)
        out.write(f"released {game_id}: counted on its boards\n")
    else:
        reviews.remove(client, game_id)
        out.write(f"removed {game_id}: kept, never ranked\n")


def _cmd_review(args: argparse.Namespace) -> None:
    review(args.action, args.game, sys.stdout)


def archive(out: TextIO) -> None:
    """Runs ``daily archive``: moves every finished game past the window to the archive."""
    from daily.core.config import load
    from daily.service import backend
    from daily.service.archive import archive_old

    config = load()
    done = archive_old(backend.connect(config), config)
    if done is None:
        raise UsageError("another archiver is running; try again when it is done")
    where = config.archive_location
    out.write(
        f"archived {done.games} games in {done.files} files to {where}; {done.skipped} "
        "due games left in Redis (uncounted or held for review)\n"
    )


def _cmd_archive(args: argparse.Namespace) -> None:
    archive(sys.stdout)


def keys(out: TextIO) -> None:
    """Runs ``daily keys``: prints a new VAPID key pair for the streak reminders."""
    from daily.service.reminders import new_keys

    private, public = new_keys()
    out.write(f"DAILY_VAPID_PRIVATE_KEY={private}\n")
    out.write(f"# its public key (the pages hand it to the browsers themselves): {public}\n")


def _cmd_keys(args: argparse.Namespace) -> None:
    keys(sys.stdout)


def remind(
    every: float | None,
    concurrency: int,
    metrics_port: int | None,
    out: TextIO,
    passes: int | None = None,
) -> None:
    """Runs ``daily remind``: sends the streak reminders due now, once (or every *every*
    seconds, *passes* times: None, until stopped), on the service's Redis."""
    import time

    from daily.core.config import load
    from daily.service import backend, reminders
    from daily.service.remind import pusher_for, run_once

    config = load()
    reason = reminders.off_reason(config)
    if reason:
        raise UsageError(reason)
    if metrics_port is not None:
        from prometheus_client import start_http_server

        start_http_server(metrics_port, addr="127.0.0.1")
    client, pusher = backend.connect(config), pusher_for(config, concurrency)
    try:
        done = 0
        while True:
            started = time.monotonic()
            out.write(run_once(client, config, pusher).line() + "\n")
            out.flush()
            done += 1
            if every is None or done == passes:
                return
            time.sleep(max(0.0, every - (time.monotonic() - started)))
    finally:
        pusher.close()
        backend.release(client)


def _cmd_remind(args: argparse.Namespace) -> None:
    remind(args.every, args.concurrency, args.metrics_port, sys.stdout)


def _cmd_serve(args: argparse.Namespace) -> None:
    import signal

    from werkzeug.serving import WSGIRequestHandler

    from daily import create_app
    from daily.service import backend, upkeep
    from daily.web.context import config_of, redis_of

    class QuietHandler(WSGIRequestHandler):
        """Werkzeug's handler without its own access line: the app writes a JSON one."""

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            """Writes nothing (errors are still logged by ``log_error``)."""

    # A service manager stops us with SIGTERM, a terminal with SIGINT: both leave the
    # server's loop normally, so the embedded Redis is stopped below.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    # A process a shell starts in the background (`daily serve &` in a script) inherits
    # SIGINT ignored, and Python then leaves it so: `kill -INT` must still stop us.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # DAILY_ENV, SECRET_KEY, REDIS_URL, DAILY_NOW... are read by create_app (docs/configuration.md).
    app = create_app()
    config = config_of(app)
    upkeep.start(config)  # the tables still missing, in the background: no request waits
    try:
        app.run(host=args.host, port=args.port, threaded=True, request_handler=QuietHandler)
    finally:
        # The table builder runs in a session of its own (a Ctrl-C is not for it): it is
        # stopped here, or it would build on, at full speed, after the server is gone.
        upkeep.stop(config)
        backend.release(redis_of(app))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="daily", description="The daily Maxi Yatzy service.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    score = commands.add_parser("score", help="score JSON lines of dice on stdin")
    score.add_argument("ruleset", metavar="RULESET", help=", ".join(BASE_RULESETS))
    score.set_defaults(run=_cmd_score)
    solve = commands.add_parser("solve", help="build the strategy table of a ruleset")
    solve.add_argument("ruleset", metavar="RULESET", nargs="?", help=", ".join(BASE_RULESETS))
    solve.add_argument(
        "--missing", action="store_true", help="build every table of $DAILY_TABLES not built yet"
    )
    solve.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    solve.add_argument("--cache", help="cache folder (default $DAILY_CACHE or ~/.cache/daily)")
    solve.add_argument(
        "--store", help="the tables' store to fetch from and upload to (default $DAILY_TABLES_URL)"
    )
    solve.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    solve.set_defaults(run=_cmd_solve)
    verify = commands.add_parser("verify", help="replay a game record on stdin, print its sheet")
    verify.set_defaults(run=_cmd_verify)
    held = commands.add_parser("review", help="list, hold, release or remove games held for review")
    held.add_argument("action", choices=("list", "hold", "release", "remove", "check"))
    held.add_argument(
        "game",
        nargs="?",
        metavar="ID",
        help="the game id (hold, release, remove); an old id that starts with - goes after --",
    )
    held.set_defaults(run=_cmd_review)
    cold = commands.add_parser(
        "archive", help="move finished games past $DAILY_ARCHIVE_DAYS to $DAILY_ARCHIVE"
    )
    cold.set_defaults(run=_cmd_archive)
    _add_remind(commands)
    pair = commands.add_parser("keys", help="print a new VAPID key pair for the reminders")
    pair.set_defaults(run=_cmd_keys)
    serve = commands.add_parser("serve", help="run the site and API (embedded Redis by default)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.set_defaults(run=_cmd_serve)
    return parser


def _add_remind(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    remind_ = commands.add_parser("remind", help="send the streak reminders due now")
    remind_.add_argument(
        "--every",
        type=float,
        metavar="SECONDS",
        help="run again every SECONDS (a clock process), until stopped",
    )
    remind_.add_argument("--concurrency", type=int, default=16, help="messages posted at once")
    remind_.add_argument(
        "--metrics-port",
        type=int,
        metavar="PORT",
        help="serve the reminders' Prometheus metrics on 127.0.0.1:PORT",
    )
    remind_.set_defaults(run=_cmd_remind)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the ``daily`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        args.run(args)
    except DailyError as e:
        print(f"daily {args.command}: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except UnicodeDecodeError:  # stdin is decoded strictly under a UTF-8 locale
        print(f"daily {args.command}: input is not UTF-8 text", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
