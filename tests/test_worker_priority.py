"""Issue 35: the query workers run below the server's CPU priority (WORKER_NICE), so the server's own
threads (accepting, reading, answering visitors) come first on busy cores. Checked on a live
``chesskb serve`` through ``/proc``: the workers' nice values, not a timing."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from urllib.parse import quote

from tests.live_server import http, start_server, stop


def _nice(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[16])  # field 19 of stat: the nice value


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return found


def test_query_workers_run_below_the_servers_priority(small_store: Path) -> None:
    process, base = start_server(small_store, "--worker-nice", "7", "--workers", "2", "--page-workers", "2")
    try:
        assert http("GET", base + "/sparql?query=" + quote("ASK { ?s ?p ?o }"))[0] == 200  # workers answer
        server = _nice(process.pid)
        workers = [pid for pid in _children(process.pid) if _nice(pid) != server]
        assert len(workers) == 4, [(pid, _nice(pid)) for pid in _children(process.pid)]
        assert {_nice(pid) for pid in workers} == {min(server + 7, 19)}
    finally:
        stop(process)


def _worker_nices(server_pid: int) -> dict[int, int]:
    server = _nice(server_pid)
    return {pid: _nice(pid) for pid in _children(server_pid) if _nice(pid) != server}


def test_a_query_past_demote_after_runs_at_the_lowest_priority_and_only_until_it_ends(small_store: Path) -> None:
    """WORKER_DEMOTE_AFTER: a query still computing after the bound drops its worker to nice 19 (a
    runaway then takes only what visitors' short queries leave); when it ends, the same worker process
    is back at the workers' usual priority for the next query."""
    long_query = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f }"  # every pair of statements: seconds
    process, base = start_server(
        small_store,
        *("--worker-nice", "3", "--worker-demote-after", "0.2", "--query-timeout", "60"),
        *("--workers", "2", "--page-workers", "1"),
    )
    try:
        assert http("GET", base + "/sparql?query=" + quote("ASK { ?s ?p ?o }"))[0] == 200
        usual = min(_nice(process.pid) + 3, 19)
        before = _worker_nices(process.pid)
        assert set(before.values()) == {usual}, before
        answers: list[int] = []
        asking = threading.Thread(
            target=lambda: answers.append(
                http("GET", base + "/sparql?query=" + quote(long_query), source="127.0.0.7", timeout=90)[0]
            )
        )
        asking.start()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and asking.is_alive() and 19 not in _worker_nices(process.pid).values():
            time.sleep(0.02)
        during = _worker_nices(process.pid)
        asking.join(90)
        assert sorted(during.values()) == sorted([usual, usual, 19]), during  # the long query's worker alone
        assert answers == [200]
        assert _worker_nices(process.pid) == before  # the same processes, each at the usual priority again
        assert http("GET", base + "/sparql?query=" + quote("ASK { ?x ?y ?z }"))[0] == 200
    finally:
        stop(process)
