"""Issue 35: the query workers run below the server's CPU priority (WORKER_NICE), so the server's own
threads (accepting, reading, answering visitors) come first on busy cores. Checked on a live
``chesskb serve`` through ``/proc``: the workers' nice values, not a timing."""

from __future__ import annotations

import os
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
