"""The ``daily`` command: ``serve``, ``score``, ``verify`` and ``solve``.

Every subcommand reports bad input as one line on stderr and a non-zero exit
status; a traceback never reaches the user.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from daily.errors import DailyError
from daily.rules import BASE_RULESETS, find_ruleset, parse_dice

EXIT_BAD_INPUT = 2


class UsageError(DailyError):
    """Bad input to a command; its message is the one line the user sees."""


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


def _cmd_verify(args: argparse.Namespace) -> None:
    from daily.verify import sheet_str, verify

    state = verify(sys.stdin.read(), os.environ.get("SECRET_KEY"))
    print(sheet_str(state))


def _cmd_serve(args: argparse.Namespace) -> None:
    from daily import create_app

    # DAILY_ENV, SECRET_KEY, REDIS_URL, DAILY_NOW... are read by create_app (see README).
    create_app().run(host=args.host, port=args.port, threaded=True)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="daily", description="The daily Maxi Yatzy service.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    score = commands.add_parser("score", help="score JSON lines of dice on stdin")
    score.add_argument("ruleset", metavar="RULESET", help=", ".join(BASE_RULESETS))
    score.set_defaults(run=_cmd_score)
    verify = commands.add_parser("verify", help="replay a game record on stdin, print its sheet")
    verify.set_defaults(run=_cmd_verify)
    serve = commands.add_parser("serve", help="run the site and API (embedded Redis by default)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.set_defaults(run=_cmd_serve)
    return parser


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
