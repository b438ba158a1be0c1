"""What 1,000 accounts from one network cost an attacker who solves the proofs of work.

Past the free allowance, a new player costs an ALTCHA v1 proof whose ``maxnumber`` doubles
every 64 paid creations of the address or its busiest network in a day
(daily/service/proofs.py). The bench:

1. makes players through the API from addresses of one /24 (the Flask test client on a
   throw-away redis-server, the shipped limits) until the network's free allowance is spent,
   then ``--paid`` more, each solving its challenge as a client does (``altcha``'s solver);
   it times the attacker's CPU per hash and the server's CPU per paid creation;
2. times the hash rates an attacker may reach: ``altcha``'s own solver, a tight ``hashlib``
   loop (the salt's state copied, not rehashed), and OpenSSL's native SHA-256 on 64-byte
   inputs (``openssl speed``, one core; a GPU does some hundred times more);
3. prices 1,000 accounts from one network in an hour and in a day: the free ones
   (``network_players``), and the expected hashes of the paid ones, level by level
   (``maxnumber / 2`` each), in CPU-hours at each rate.

Run: .venv/bin/python bench/bench_proofs.py [--paid 24] [--accounts 1000]
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import os
import re
import subprocess
import time
from datetime import UTC, datetime
from typing import Any

from altcha import v1
from limits import parse_many
from servers import redis_server

from daily import create_app
from daily.service import proofs
from daily.web import limits

NOON = datetime(2026, 12, 3, 12, tzinfo=UTC)
SECRET = "bench-proofs-" + "p" * 32


def solve(challenge: dict[str, Any]) -> tuple[str, int]:
    """The payload for *challenge*, as a client finds it, and the hashes it took."""
    found = v1.solve_challenge(challenge["challenge"], challenge["salt"],
                               challenge["algorithm"], challenge["maxnumber"])  # fmt: skip
    assert found is not None
    payload = v1.Payload(challenge["algorithm"], challenge["challenge"], found.number,
                         challenge["salt"], challenge["signature"])  # fmt: skip
    return payload.to_base64(), found.number + 1


def through_the_api(url: str, paid: int) -> tuple[float, float]:
    """Spends the network's free allowance, then makes *paid* players with proofs; the
    attacker's CPU seconds per hash and the server's CPU ms per paid creation."""
    app = create_app({"env": "testing", "secret_key": SECRET, "redis_url": url,
                      "clock": lambda: NOON})  # fmt: skip
    address = iter(f"198.51.100.{n}" for n in range(1, 255))
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = next(address)
    free = 0
    while True:
        answer = client.post("/api/v1/players", json={"name": "Bot"})
        if answer.status_code == 201:
            free += 1
            continue
        error = answer.get_json()["error"]
        if "network" in error["message"]:
            break
        client.environ_base["REMOTE_ADDR"] = next(address)  # the address's allowance is spent
    hashes = 0
    solving = serving = 0.0
    for _ in range(paid):
        started = time.process_time()
        answer = client.post("/api/v1/players", json={"name": "Bot"})
        serving += time.process_time() - started
        started = time.process_time()
        payload, took = solve(answer.get_json()["error"]["altcha"])
        solving += time.process_time() - started
        hashes += took
        started = time.process_time()
        made = client.post("/api/v1/players", json={"name": "Bot"}, headers={"Altcha": payload})
        serving += time.process_time() - started
        assert made.status_code == 201, made.get_json()
    app.extensions["daily.redis"].close()
    print(f"{free} free players from the /24, then {paid} paid: {hashes:,} hashes solved in "
          f"{solving:.2f} s of CPU ({hashes / solving / 1e6:.2f} M hashes/s, altcha's solver); "
          f"the server: {1000 * serving / paid:.2f} ms of CPU a paid creation (the challenge "
          "and the redeemed proof)")  # fmt: skip
    return solving / hashes, serving / paid


def hashlib_rate(seconds: float = 1.0) -> float:
    """Hashes a second of a tight loop over ``sha256(salt + n)``, the salt hashed once."""
    salt = hashlib.sha256(b"0123456789abcdef0123456789abcdef?expires=1&level=0")
    n, started = 0, time.process_time()
    while time.process_time() - started < seconds:
        for i in range(n, n + 10_000):
            state = salt.copy()
            state.update(str(i).encode())
            state.hexdigest()
        n += 10_000
    return n / (time.process_time() - started)


def openssl_rate() -> float | None:
    """OpenSSL's SHA-256 on 64-byte inputs, one core, hashes a second (None: no openssl)."""
    try:
        done = subprocess.run(["openssl", "speed", "-seconds", "1", "-bytes", "64", "sha256"],
                              capture_output=True, text=True, timeout=30)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r"^sha256\s+([\d.]+)k", done.stdout, re.M)
    return float(found.group(1)) * 1000 / 64 if found else None


def expected_hashes(paid: int) -> float:
    """The expected hashes of *paid* creations past the free allowance in one day."""
    return sum(proofs.max_number(n) / 2 for n in range(paid))


def priced(accounts: int, free: int, rates: dict[str, float], span: str) -> None:
    paid = max(0, accounts - free)
    hashes = expected_hashes(paid)
    cost = ", ".join(
        f"{hashes / rate / 3600:,.2f} CPU-hours {name}" for name, rate in rates.items()
    )
    print(f"{accounts:,} accounts from one network in {span}: {min(free, accounts):,} free, "
          f"{paid:,} paid, {hashes:.3g} hashes expected: {cost}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paid", type=int, default=24, help="paid creations through the API")
    parser.add_argument("--accounts", type=int, default=1000)
    args = parser.parse_args()
    os.environ["DAILY_TABLES"] = ""
    logging.getLogger("daily.access").disabled = True  # a line a request
    print(f"load before: {os.getloadavg()[0]:.1f}")
    with redis_server() as url:
        per_hash, _ = through_the_api(url, args.paid)
    rates = {"(altcha's solver)": 1 / per_hash, "(hashlib loop)": hashlib_rate()}
    native = openssl_rate()
    if native:
        rates["(OpenSSL, native)"] = native
    print("hash rates, one core: " + ", ".join(f"{r / 1e6:.2f} M/s {n}" for n, r in rates.items()))
    (hourly,) = parse_many(limits.DEFAULTS["network_players"])
    per_hour = hourly.amount * 3600 // hourly.get_expiry()
    priced(args.accounts, per_hour, rates, "an hour")
    priced(args.accounts, per_hour * 24, rates, "a day")
    priced(per_hour * 24 + args.accounts, per_hour * 24, rates, "a day, 1,000 past the free")
    print(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
