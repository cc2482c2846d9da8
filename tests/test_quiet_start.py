"""``chesskb serve`` says "serving" when it is ready, and then keeps quiet: the pages' query workers
have opened the store before the line (``service.warm``), and waitress's "Task queue depth" warnings,
which only say that a request waited for a thread, never reach the terminal."""

from __future__ import annotations

import subprocess
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.live_server import start_server


def test_a_busy_server_prints_nothing_but_its_isolation_and_serving_lines(small_store: Path) -> None:
    process, base = start_server(small_store, "--threads", "1")
    try:

        def fetch(path: str) -> int:
            with urllib.request.urlopen(base + path, timeout=60) as response:
                response.read()
                return response.status

        # more requests at once than the one request thread: waitress queues them (and used to say so)
        with ThreadPoolExecutor(max_workers=8) as pool:
            statuses = list(pool.map(fetch, ["/", "/classes", "/sparql?query=ASK%7B%7D", "/queries"] * 4))
        assert statuses == [200] * 16
    finally:
        process.terminate()
        try:
            raw, _ = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            raw, _ = process.communicate(timeout=10)
    lines = raw.decode().splitlines()
    # the line saying how the query workers are kept off the network (issue 35), then "serving", nothing else
    assert len(lines) == 2 and lines[0].startswith("query workers: network isolation "), lines
    assert lines[1].startswith("serving "), lines


def test_wait_ready_returns_once_every_worker_has_opened_the_store(small_store: Path) -> None:
    from chesskb.service.query_runner import Limits, PoolSettings, WorkerPool, make_request

    pool = WorkerPool(str(small_store), PoolSettings(size=2, queue_limit=4, queue_wait=30.0))
    try:
        assert pool.wait_ready(120) == 2
        workers = [pool.idle.get_nowait() for _ in range(2)]
        assert all(worker.isolation is not None for worker in workers)  # each has sent its "ready"
        for worker in workers:
            pool.idle.put(worker)
        answer = pool.run(
            make_request(
                "ASK { ?s ?p ?o }",
                None,
                "application/sparql-results+json",
                "text/turtle",
                Limits(timeout=30.0, max_bytes=1 << 20, row_limit=0),
            )
        )
        assert b"true" in answer.body
    finally:
        pool.close()
