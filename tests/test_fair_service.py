"""Fair lanes and connections (issue 35 items 2 and 3), against a live ``chesskb serve``: while one
client or a few addresses of one network attack, a visitor from elsewhere is served throughout.

Each attack runs for a few seconds while the visitor asks a page, a canned question and a small
query in turn; every visitor request must answer 200, and its latency is recorded (median, max). The
figures under load are in ``bench/README.md`` (``bench/attack_latency.py``); here the bound is loose
(the machine is shared), the statuses are strict.
"""

from __future__ import annotations

import socket
import statistics
import threading
import time
from collections.abc import Callable
from urllib.parse import quote, urlsplit

import pytest

from chesskb.service.admission import LaneAdmission, Shares, address_group
from chesskb.service.errors import ServiceError
from tests.live_server import http, live_server

RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
VISITOR = "127.0.1.2"  # another /24 than the attackers' 127.0.0.x
VISITS = ("/", "/queries/mate-in-one?limit=3", "/sparql?query=" + quote("ASK { ?s ?p ?o }"))


@pytest.fixture(scope="module")
def server(small_store):
    with live_server(
        small_store,
        "--query-timeout",
        "4",
        "--workers",
        "3",
        "--page-workers",
        "2",
        "--client-queries",
        "2",
        "--queue-wait",
        "3",
        "--query-backoff",
        "8",
        "--connection-limit",
        "300",
        "--client-connections",
        "20",
        "--canned-max-rows",
        "5",
        "--channel-timeout",
        "5",
        "--query-max-nesting",
        "0",
    ) as base:
        # QUERY_MAX_NESTING off: the crash storm below must reach the workers (tests/test_query_nesting.py)
        yield base


def visit_during(server: str, attack: Callable[[threading.Event], None], seconds: float) -> list[tuple[int, float]]:
    """Run ``attack`` (until its event is set) while the visitor asks its pages; (status, seconds) each."""
    stop = threading.Event()
    attackers = [threading.Thread(target=attack, args=(stop,), daemon=True) for _ in range(1)]
    for thread in attackers:
        thread.start()
    time.sleep(1.0)
    seen: list[tuple[int, float]] = []
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            for path in VISITS:
                started = time.monotonic()
                status, _, _ = http(
                    "GET", server + path, headers={"Accept": "text/html,*/*;q=0.8"}, source=VISITOR, timeout=30
                )
                seen.append((status, time.monotonic() - started))
    finally:
        stop.set()
        for thread in attackers:
            thread.join(30)
    return seen


def attack_threads(stop: threading.Event, threads: int, job: Callable[[int], object]) -> list[threading.Thread]:
    """``threads`` started threads, each doing ``job(n)`` again and again until ``stop`` is set (a
    refused connection is tried again shortly). ``bench/fair_lanes.py`` attacks with them too."""

    def loop(n: int) -> None:
        while not stop.is_set():
            try:
                job(n)
            except OSError:
                time.sleep(0.05)

    workers = [threading.Thread(target=loop, args=(n,), daemon=True) for n in range(threads)]
    for worker in workers:
        worker.start()
    return workers


def _repeat(stop: threading.Event, threads: int, job: Callable[[int], object]) -> None:
    for worker in attack_threads(stop, threads, job):
        worker.join(40)


def _served(seen: list[tuple[int, float]]) -> None:
    """Every visitor request answered; the median fast. (The max is loose: on the shared two-core
    machine a worker's restart after a killed runaway can take seconds; bench/README has the figures.)"""
    assert seen and all(status == 200 for status, _ in seen), seen
    assert statistics.median(seconds for _, seconds in seen) < 1.5, seen
    assert max(seconds for _, seconds in seen) < 10, seen


def test_runaways_from_a_few_addresses_of_one_network_do_not_hold_the_sparql_lane(server):
    attackers = ["127.0.0.10", "127.0.0.11"]
    answers: list[int] = []

    def attack(stop: threading.Event) -> None:
        _repeat(
            stop,
            4,
            lambda n: answers.append(
                http("GET", server + "/sparql?query=" + quote(RUNAWAY), source=attackers[n % 2], timeout=30)[0]
            ),
        )

    _served(visit_during(server, attack, 10))
    assert 503 in answers and 429 in answers, answers  # they ran, were stopped, and then were held off


def test_a_crash_storm_is_backed_off(server):
    crashes: list[int] = []
    crashing = b"SELECT * WHERE " + b"{" * 5000  # unbounded (QUERY_MAX_NESTING 0), the worker's parser crashes

    def attack(stop: threading.Event) -> None:
        _repeat(
            stop,
            2,
            lambda _: crashes.append(
                http(
                    "POST",
                    server + "/sparql",
                    body=crashing,
                    headers={"Content-Type": "application/sparql-query"},
                    source="127.0.0.20",
                    timeout=30,
                )[0]
            ),
        )

    _served(visit_during(server, attack, 6))
    assert crashes.count(500) <= 2, crashes  # one crash, then the address waits (QUERY_BACKOFF 8 s)
    # told to wait (429), and then held off in the kernel for CLIENT_REFUSAL after each 429, so its
    # retries mostly fail to connect and are not counted here
    assert crashes.count(429) >= 1, crashes


def test_a_canned_question_for_every_row_is_bounded(server):
    """``limit=0`` on the web answers at most CANNED_MAX_ROWS rows, or fails whole (507) beyond."""
    status, _, body = http("GET", server + "/queries/mate-in-one.json?limit=0")
    assert status == 507 and b"CANNED_MAX_ROWS" in body, body[:300]
    status, _, body = http("GET", server + "/queries/mate-in-one.json?limit=5")
    assert status == 200, body[:300]
    status, _, body = http("GET", server + "/queries/mate-in-one.json?limit=6")
    assert status == 507, body[:300]


def hold_partial_requests(server: str, stop: threading.Event, count: int, source: str) -> None:
    """Keep ``count`` connections from ``source`` with half a request sent, reopening each one the
    server cuts, until ``stop`` is set. ``bench/fair_lanes.py`` attacks with it too."""
    parts = urlsplit(server)
    opened: list[socket.socket] = []
    while not stop.is_set():
        for sock in list(opened):
            try:
                sock.settimeout(0.0)
                if sock.recv(1) == b"":
                    raise ConnectionResetError
            except BlockingIOError:
                continue
            except OSError:
                sock.close()
                opened.remove(sock)
        while len(opened) < count and not stop.is_set():
            try:
                sock = socket.create_connection((parts.hostname, parts.port), timeout=2, source_address=(source, 0))
                sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
                opened.append(sock)
            except OSError:
                break
        time.sleep(0.1)
    for sock in opened:
        sock.close()


def test_idle_partial_requests_from_one_address_leave_room_for_others(server):
    """One address keeps 400 partial requests open (reopening each one as it is cut): beyond its share
    (CLIENT_CONNECTIONS 20) they are cut, and the global limit (300) is never reached, so a visitor
    elsewhere is served throughout."""
    _served(visit_during(server, lambda stop: hold_partial_requests(server, stop, 400, "127.0.0.30"), 8))


def test_an_address_at_its_share_loses_its_oldest_idle_connection_not_its_new_request(server):
    """CLIENT_CONNECTIONS 20: with 20 idle or half-sent connections open, the address's next request is
    answered, and its oldest idle connection is the one cut."""
    parts = urlsplit(server)
    idle = []
    for n in range(20):
        sock = socket.create_connection((parts.hostname, parts.port), timeout=5, source_address=("127.0.0.40", 0))
        if n % 2:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # half a request
        idle.append(sock)
        time.sleep(0.02)
    time.sleep(2.5)  # QUIET_SECONDS: a connection idle that long may be cut for a new one
    try:
        status, _, _ = http("GET", server + "/sparql?query=" + quote("ASK {}"), source="127.0.0.40", timeout=10)
        assert status == 200
        idle[0].settimeout(5)
        assert idle[0].recv(1) == b""  # the oldest was cut to make room
        idle[-1].settimeout(0.2)
        with pytest.raises(TimeoutError):
            idle[-1].recv(1)  # the newest is still open
    finally:
        for sock in idle:
            sock.close()


def test_an_address_that_closed_its_connections_has_its_whole_share_again(server):
    """The per-address table follows connections as they close: after 20 (CLIENT_CONNECTIONS) open
    and close, 19 new ones are kept open (none closed at accept) and a request on the 20th is
    answered at once (a 21st, with none of the 20 idle for 2 s, would be closed at accept)."""
    parts = urlsplit(server)

    def open_share(count: int) -> list[socket.socket]:
        return [
            socket.create_connection((parts.hostname, parts.port), timeout=5, source_address=("127.0.0.41", 0))
            for _ in range(count)
        ]

    for sock in open_share(20):
        sock.close()
    time.sleep(1.0)  # the server's loop sees them close
    again = open_share(19)
    try:
        time.sleep(0.5)
        for sock in again:
            sock.settimeout(0.05)
            with pytest.raises(TimeoutError):
                sock.recv(1)  # still open: not closed as over the share
        started = time.monotonic()
        status, _, _ = http("GET", server + "/sparql?query=" + quote("ASK {}"), source="127.0.0.41", timeout=10)
        assert status == 200 and time.monotonic() - started < 5
    finally:
        for sock in again:
            sock.close()


# --- the rules themselves ------------------------------------------------------------------------


def test_an_address_never_holds_a_lane_and_its_network_leaves_the_reserve():
    lane = LaneAdmission("pages", Shares(size=3, client_queries=3, reserve=1, backoff_first=5))
    assert lane.shares.per_address == 2  # below the lane's size even when CLIENT_QUERIES is not
    with lane.slot("10.0.0.1"), lane.slot("10.0.0.1"):
        with pytest.raises(ServiceError) as refused, lane.slot("10.0.0.2"):  # same /24: the last worker stays
            pass
        assert refused.value.status == 429 and "LANE_RESERVE" in refused.value.message
        with lane.slot("10.0.1.1"):  # another network takes it
            pass
    with lane.slot("10.0.0.2"):  # all free again
        pass


def test_a_page_waits_for_its_turn_instead_of_a_429():
    lane = LaneAdmission("pages", Shares(size=2, client_queries=2, reserve=1, backoff_first=5))
    done = threading.Event()

    def hold() -> None:
        with lane.slot("10.0.0.1"):
            time.sleep(0.5)
        done.set()

    threading.Thread(target=hold).start()
    time.sleep(0.1)
    started = time.monotonic()
    with lane.slot("10.0.0.1", wait=5):
        assert done.is_set() and time.monotonic() - started >= 0.3


def test_backoff_doubles_and_a_success_forgets():
    lane = LaneAdmission("sparql", Shares(size=3, client_queries=2, reserve=1, backoff_first=1, backoff_longest=3))
    assert lane.backoff.failed("10.0.0.1") == 1
    with pytest.raises(ServiceError) as refused, lane.slot("10.0.0.1"):
        pass
    assert refused.value.status == 429 and refused.value.headers["Retry-After"] == "1"
    assert lane.backoff.failed("10.0.0.1") == 2 and lane.backoff.failed("10.0.0.1") == 3  # capped
    lane.backoff.succeeded("10.0.0.1")
    with lane.slot("10.0.0.1"):
        pass


def test_address_groups():
    assert address_group("192.0.2.77") == "192.0.2.0/24"
    assert address_group("2001:db8:1:2:3::4") == "2001:db8:1:2::/64"
    assert address_group("::ffff:192.0.2.77") == "192.0.2.0/24"  # not one /64 for every IPv4 client
    assert address_group("local") == "local"


def test_a_client_that_kept_workers_busy_runs_one_query_at_a_time():
    """Cost-aware: after more than CLIENT_COST worker-seconds lately, an address's share drops to one
    query at a time; another address keeps its full share."""
    lane = LaneAdmission("pages", Shares(size=4, client_queries=2, reserve=1, backoff_first=5, costly_seconds=0.3))
    with lane.slot("10.0.0.1"), lane.slot("10.0.0.1"):  # two at once: its share
        time.sleep(0.2)
    with lane.slot("10.0.0.1"):
        with pytest.raises(ServiceError) as refused, lane.slot("10.0.0.1"):
            pass
        assert refused.value.status == 429 and "CLIENT_COST" in refused.value.message
        with lane.slot("10.0.2.1"), lane.slot("10.0.2.1"):
            pass
