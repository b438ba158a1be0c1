"""``daily score RULESET``: JSON lines of dice in, every row's points out; bad input is one line."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from daily.cli import EXIT_BAD_INPUT, main
from daily.core.rules import find_ruleset

CONSOLE_SCRIPT = Path(sys.executable).parent / "daily"


def run_module(*args: str, stdin: bytes | str, **env: str) -> subprocess.CompletedProcess[bytes]:
    """Runs ``python -m daily.cli`` as a user would, in a fresh process."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [sys.executable, "-m", "daily.cli", *args],
        input=data,
        capture_output=True,
        timeout=60,
        env=os.environ | env,
    )


def run_main(
    args: list[str], stdin: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    """Runs :func:`daily.cli.main` in this process on *stdin*."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = main(args)
    out, err = capsys.readouterr()
    return status, out, err


def test_scores_every_row_of_every_line() -> None:
    lines: list[dict[str, Any]] = [
        {"dice": [6, 6, 6, 3, 3, 1]},
        {"dice": [1, 2, 3, 4, 5, 6], "options": {"full_straight": 30}},
        {"dice": [5, 5, 5, 2, 2, 2], "options": {"bonus": "50@75", "saved_rolls": True}},
    ]
    stdin = "\n".join(json.dumps(line) for line in lines) + "\n\n"  # a blank line is skipped
    result = run_module("score", "maxi", stdin=stdin)
    assert (result.returncode, result.stderr) == (0, b"")
    out = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert len(out) == 3
    assert out[0]["full_house"] == 24 and out[0]["chance"] == 25 and out[0]["villa"] == 0
    assert out[1]["full_straight"] == 30 and out[1]["large_straight"] == 20
    assert out[2]["villa"] == 21
    for line, points in zip(lines, out, strict=True):
        ruleset = find_ruleset("maxi", line.get("options"))
        assert list(points) == list(ruleset.row_ids)  # every row, in sheet order
        assert tuple(points.values()) == ruleset.score(tuple(line["dice"]))


@pytest.mark.parametrize(
    ("ruleset_id", "dice", "row", "points"),
    [
        ("yatzy", [6, 6, 4, 4, 3], "two_pairs", 20),
        ("yacht", [4, 4, 4, 4, 4], "full_house", 20),
        ("yahtzee", [1, 2, 3, 4, 4], "small_straight", 30),
    ],
    ids=["yatzy", "yacht", "yahtzee"],
)
def test_every_ruleset_through_main(
    ruleset_id: str,
    dice: list[int],
    row: str,
    points: int,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stdin = json.dumps({"dice": dice}) + "\n"
    status, out, err = run_main(["score", ruleset_id], stdin, capsys, monkeypatch)
    assert (status, err) == (0, "")
    assert json.loads(out)[row] == points
    assert len(json.loads(out)) == len(find_ruleset(ruleset_id).rows)


def test_no_input_no_output(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run_main(["score", "maxi"], "", capsys, monkeypatch) == (0, "", "")


@pytest.mark.skipif(not CONSOLE_SCRIPT.exists(), reason="the console script is not installed")
def test_the_installed_console_script() -> None:
    result = subprocess.run(
        [str(CONSOLE_SCRIPT), "score", "yatzy"],
        input=b'{"dice": [4, 4, 4, 4, 4]}\n{"dice": [4, 4, 4, 4]}\n',
        capture_output=True,
        timeout=60,
    )
    assert json.loads(result.stdout.decode().splitlines()[0])["yatzy"] == 50
    assert result.returncode == EXIT_BAD_INPUT
    assert result.stderr.decode() == "daily score: line 2: yatzy needs 5 dice, got 4\n"


# (ruleset, stdin, the one line on stderr after "daily score: ").
BAD_INPUT = {
    "too-few-dice": ("maxi", '{"dice": [1, 2, 3, 4, 5]}', "line 1: maxi needs 6 dice, got 5"),
    "too-many-dice": ("yatzy", '{"dice": [1, 2, 3, 4, 5, 6]}', "line 1: yatzy needs 5 dice, got 6"),
    "no-dice": ("yatzy", '{"dice": []}', "line 1: yatzy needs 5 dice, got 0"),
    "face-0": ("yatzy", '{"dice": [0, 2, 3, 4, 5]}', "a die must be an integer from 1 to 6, got 0"),
    "face-7": ("yatzy", '{"dice": [7, 2, 3, 4, 5]}', "a die must be an integer from 1 to 6, got 7"),
    "face-negative": ("yatzy", '{"dice": [-1, 2, 3, 4, 5]}', "from 1 to 6, got -1"),
    "true": ("yatzy", '{"dice": [true, 2, 3, 4, 5]}', "from 1 to 6, got True"),
    "float": ("yatzy", '{"dice": [1.0, 2, 3, 4, 5]}', "from 1 to 6, got 1.0"),
    "string-die": ("yatzy", '{"dice": ["3", 2, 3, 4, 5]}', "from 1 to 6, got '3'"),
    "null-die": ("yatzy", '{"dice": [null, 2, 3, 4, 5]}', "from 1 to 6, got None"),
    "nested-die": ("yatzy", '{"dice": [[1], 2, 3, 4, 5]}', "from 1 to 6, got [1]"),
    "nan-die": ("yatzy", '{"dice": [NaN, 2, 3, 4, 5]}', "from 1 to 6, got nan"),
    "dice-string": ("yatzy", '{"dice": "12345"}', "dice must be a list of 5 integers, got '12345'"),
    "dice-number": ("yatzy", '{"dice": 5}', "dice must be a list of 5 integers, got 5"),
    "unknown-ruleset": ("farkle", '{"dice": [1, 2, 3, 4, 5]}', "unknown ruleset: 'farkle'"),
    "unknown-option": ("maxi", '{"dice": [1, 1, 1, 1, 1, 1], "options": {"colour": "red"}}',
                       "line 1: unknown option for maxi: 'colour'"),
    "option-of-maxi": ("yatzy", '{"dice": [1, 1, 1, 1, 1], "options": {"bonus": "50@75"}}',
                       "line 1: unknown option for yatzy: 'bonus'"),
    "option-value": ("maxi", '{"dice": [1, 1, 1, 1, 1, 1], "options": {"full_straight": 22}}',
                     "bad value for option 'full_straight': 22 (allowed: 21, 25, 30)"),
    "option-value-str": ("maxi", '{"dice": [1, 1, 1, 1, 1, 1], "options": {"bonus": "50@84"}}',
                         "bad value for option 'bonus': '50@84'"),
    "option-value-int": ("maxi", '{"dice": [1, 1, 1, 1, 1, 1], "options": {"saved_rolls": 1}}',
                         "bad value for option 'saved_rolls': 1"),
    "options-list": ("maxi", '{"dice": [1, 1, 1, 1, 1, 1], "options": ["forced"]}',
                     "line 1: options must be an object"),
    "unknown-key": ("maxi", '{"dice": [1, 1, 1, 1, 1, 1], "row": "chance"}',
                    'line 1: expected {"dice": [...], "options": {...}}'),
    "no-dice-key": ("maxi", '{"options": {}}', 'line 1: expected {"dice": [...]'),
    "not-an-object": ("maxi", "[1, 1, 1, 1, 1, 1]", 'line 1: expected {"dice": [...]'),
    "bad-json": ("maxi", "{dice: [1, 2, 3, 4, 5, 6]}", "line 1: not JSON: Expecting property name"),
    "cut-json": ("maxi", '{"dice": [1, 2, 3', "line 1: not JSON: Expecting ',' delimiter"),
    "deep-json": ("maxi", "[" * 100_000, "line 1: not JSON: nested too deeply"),
    "bad-third-line": ("yatzy", '{"dice": [1, 2, 3, 4, 5]}\n\n{"dice": [1, 2, 3, 4]}',
                       "line 3: yatzy needs 5 dice, got 4"),
}  # fmt: skip


@pytest.fixture(scope="module")
def bad_runs() -> dict[str, tuple[int, bytes, bytes]]:
    """Every BAD_INPUT case run by ``python -m daily.cli``, the processes started together."""
    started = {
        name: subprocess.Popen(
            [sys.executable, "-m", "daily.cli", "score", ruleset_id],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )  # fmt: skip
        for name, (ruleset_id, _, _) in BAD_INPUT.items()
    }
    runs = {}
    for name, process in started.items():
        out, err = process.communicate((BAD_INPUT[name][1] + "\n").encode(), timeout=60)
        runs[name] = (process.returncode, out, err)
    return runs


@pytest.mark.parametrize("name", BAD_INPUT)
def test_bad_input_is_one_line_on_stderr_and_exit_2(
    name: str, bad_runs: dict[str, tuple[int, bytes, bytes]]
) -> None:
    _, stdin, message = BAD_INPUT[name]
    status, out, err_bytes = bad_runs[name]
    err = err_bytes.decode()
    assert status == EXIT_BAD_INPUT == 2
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("daily score: ") and message in err
    # The bad line is the last one: every line before it was scored.
    assert len(out.splitlines()) == len([line for line in stdin.splitlines() if line.strip()]) - 1


@pytest.mark.parametrize(("ruleset_id", "stdin", "message"), BAD_INPUT.values(), ids=BAD_INPUT)
def test_bad_input_through_main(
    ruleset_id: str,
    stdin: str,
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    status, _, err = run_main(["score", ruleset_id], stdin + "\n", capsys, monkeypatch)
    assert status == EXIT_BAD_INPUT
    assert err.count("\n") == 1 and err.startswith("daily score: ") and message in err


def test_input_that_is_not_utf8_is_one_line() -> None:
    # Under a UTF-8 locale stdin is decoded strictly; PYTHONIOENCODING makes that so here.
    result = run_module("score", "maxi", stdin=b'{"dice": [1, 2, 3, 4, 5, \xff]}\n',
                        PYTHONIOENCODING="utf-8:strict")  # fmt: skip
    assert result.returncode == EXIT_BAD_INPUT
    assert result.stderr == b"daily score: input is not UTF-8 text\n"


def test_a_missing_ruleset_is_a_usage_error_without_traceback() -> None:
    result = run_module("score", stdin="")
    assert result.returncode == 2
    assert b"Traceback" not in result.stderr
    assert result.stderr.decode().splitlines()[-1].endswith("required: RULESET")
