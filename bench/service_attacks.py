"""The service under the attacks of issue 18, with figures: how many hostile SERVICE spellings were tried
(and whether any reached a local listener), how a second client fares while one client fires runaway
queries, how many idle sockets the server holds while answering, how fast a 900 MiB body is refused.

    .venv/bin/python bench/service_attacks.py [--store DIR] [--runaways 8] [--idle 500]

Without ``--store`` it builds the test suite's small competency store in a temporary directory.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextlib

from tests.live_server import http, live_server
from tests.test_endpoint_security import RUNAWAY, Listener, hostile_queries

VISITOR_PATHS = ("/", "/classes", "/queries/mate-in-one", "/sparql?query=")


def visitor_url(base: str, path: str) -> str:
    """The visitor's SPARQL query is new each time (no cached answer to fall back on)."""
    if path.endswith("query="):
        return base + path + quote(f"ASK {{ ?s ?p ?o FILTER(?o != {time.monotonic_ns()}) }}")
    return base + path


def ssrf(base: str) -> str:
    listener = Listener()
    try:
        statuses = []
        for query in hostile_queries(listener.url):
            statuses.append(http("GET", base + "/sparql?query=" + quote(query))[0])
            statuses.append(
                http(
                    "POST", base + "/sparql", body=query.encode(), headers={"Content-Type": "application/sparql-query"}
                )[0]
            )
        time.sleep(0.5)
        return (
            f"hostile SERVICE requests: {len(statuses)} ({len(statuses) // 2} spellings x GET/POST), "
            f"statuses {sorted(set(statuses))}, requests reaching the listener: {len(listener.hits)}"
        )
    finally:
        listener.close()


def runaways(base: str, count: int, addresses: int = 1) -> str:
    def attack(n: int) -> tuple[int, float]:
        started = time.monotonic()
        status = http(
            "GET", base + "/sparql?query=" + quote(RUNAWAY), timeout=120, source=f"127.0.1.{n % addresses + 1}"
        )[0]
        return status, time.monotonic() - started

    latencies: list[float] = []
    slowest = ("", 0.0)
    failures: dict[str, int] = {}
    with ThreadPoolExecutor(count) as pool:
        futures = [pool.submit(attack, n) for n in range(count)]
        time.sleep(0.5)
        while not all(f.done() for f in futures):
            for path in VISITOR_PATHS:
                started = time.monotonic()
                status = http(
                    "GET", visitor_url(base, path), headers={"Accept": "text/html,*/*;q=0.8"}, source="127.0.0.2"
                )[0]
                latencies.append(time.monotonic() - started)
                slowest = max(slowest, (path, latencies[-1]), key=lambda found: found[1])
                if status != 200:
                    failures[f"{path[:7]} {status}"] = failures.get(f"{path[:7]} {status}", 0) + 1
        results = [f.result() for f in futures]
    codes = sorted(status for status, _ in results)
    median = statistics.median(latencies) * 1000
    return (
        f"{count} concurrent runaways from {addresses} address(es): statuses {codes}; another client made "
        f"{len(latencies)} requests meanwhile, not 200: {failures or 0}, median {median:.0f} ms, "
        f"max {slowest[1] * 1000:.0f} ms ({slowest[0][:30]})"
    )


def idle(base: str, count: int, channel_timeout: int) -> str:
    parts = urlsplit(base)
    sockets = [socket.create_connection((parts.hostname, parts.port), timeout=30) for _ in range(count)]
    try:
        latencies = []
        for path in VISITOR_PATHS:
            started = time.monotonic()
            assert http("GET", visitor_url(base, path), headers={"Accept": "text/html,*/*;q=0.8"})[0] == 200
            latencies.append(time.monotonic() - started)
        time.sleep(channel_timeout + 3)
        closed = 0
        for sock in sockets:
            sock.settimeout(2)
            with contextlib.suppress(OSError):
                closed += sock.recv(1) == b""
        return (
            f"{count} idle sockets open: pages answered in max {max(latencies) * 1000:.0f} ms; "
            f"{closed}/{count} closed by the server after {channel_timeout} s idle"
        )
    finally:
        for sock in sockets:
            sock.close()


def big_body(base: str, tmp: Path) -> str:
    parts = urlsplit(base)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    started = time.monotonic()
    try:
        sock.sendall(
            b"POST /sparql HTTP/1.1\r\nHost: x\r\nContent-Type: application/sparql-query\r\n"
            b"Content-Length: 943718400\r\n\r\n"
        )
        try:
            for _ in range(64):
                sock.sendall(b"x" * 65536)
        except OSError:
            pass
        reply = sock.recv(64).split(b"\r\n")[0].decode()
    finally:
        sock.close()
    spooled = sum(f.stat().st_size for f in tmp.rglob("*") if f.is_file())
    return f"900 MiB POST: '{reply}' after {(time.monotonic() - started) * 1000:.0f} ms, {spooled} bytes spooled"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path)
    parser.add_argument("--runaways", type=int, default=8)
    parser.add_argument("--idle", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        store = args.store
        if store is None:
            from tests.competency import build_store

            store = build_store(Path(work) / "store")
        tmp = Path(work) / "server-tmp"
        tmp.mkdir()
        channel_timeout = 3
        with live_server(
            store, "--query-timeout", "6", "--channel-timeout", str(channel_timeout), env={"TMPDIR": str(tmp)}
        ) as base:
            for line in (
                ssrf(base),
                runaways(base, args.runaways),
                runaways(base, args.runaways, 4),
                idle(base, args.idle, channel_timeout),
                big_body(base, tmp),
            ):
                print(line, flush=True)


if __name__ == "__main__":
    main()
