"""Issue 35, item 3: a connection flood refused in the kernel (``service/connection_filter.py``).

An address at its connection share whose new connections are closed as they are accepted reconnects
at once; the listening socket's filter then drops its new connections (their SYN) for CLIENT_REFUSAL,
so the flood costs the server next to nothing while other addresses connect as usual. Real sockets,
the real kernel filter, and a live ``chesskb serve``.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from urllib.parse import quote, urlsplit

import pytest

from chesskb.service.connection_filter import MAX_FILTERED_ADDRESSES, RefusedAddresses, program
from tests.live_server import http, live_server

#: Well under the 1 s after which Linux's TCP sends a dropped SYN again: a connect this long either
#: got through at once or had its SYN dropped.
DROPPED = 0.5


def _connects(port: int, source: str, timeout: float = DROPPED) -> bool:
    """Whether a connection from ``source`` is established within ``timeout`` (its SYN not dropped)."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0)).close()
        return True
    except TimeoutError:
        return False


@pytest.fixture()
def listener() -> Iterator[socket.socket]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    yield sock
    sock.close()


def test_blocked_addresses_are_dropped_until_their_time_and_others_pass(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    refused = RefusedAddresses(listener)
    assert refused.working  # Linux takes classic BPF filters without privileges
    now = time.time()
    refused.block("127.0.0.70", now + 60)
    refused.block("127.0.0.71", now + 0.3)
    assert refused.blocked() == ["127.0.0.70", "127.0.0.71"]
    assert not _connects(port, "127.0.0.70") and not _connects(port, "127.0.0.71")
    assert _connects(port, "127.0.0.72") and _connects(port, "127.0.1.70")
    time.sleep(0.1)
    refused.expire(time.time() + 0.5)  # past the second one's time: it passes again, the first stays out
    assert refused.blocked() == ["127.0.0.70"]
    assert _connects(port, "127.0.0.71", timeout=5) and not _connects(port, "127.0.0.70")


def test_the_filter_is_bounded(listener: socket.socket) -> None:
    with pytest.raises(ValueError, match="MAX_FILTERED_ADDRESSES"):
        program([f"10.0.{n // 250}.{n % 250}" for n in range(MAX_FILTERED_ADDRESSES + 1)])
    refused = RefusedAddresses(listener)
    for n in range(MAX_FILTERED_ADDRESSES + 20):
        refused.block(f"10.1.{n // 250}.{n % 250}", time.time() + 60)
    assert len(refused.blocked()) == MAX_FILTERED_ADDRESSES  # the rest are refused by the server alone
    assert _connects(listener.getsockname()[1], "127.0.0.73")


@pytest.fixture(scope="module")
def server(small_store) -> Iterator[str]:
    with live_server(
        small_store, "--client-connections", "4", "--client-refusal", "5", "--channel-timeout", "10"
    ) as base:
        yield base


def _half_request(port: int, source: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    return sock


def test_an_address_over_its_share_is_refused_by_the_kernel_and_others_are_served(server: str) -> None:
    """CLIENT_CONNECTIONS 4, CLIENT_REFUSAL 5 s: with 4 fresh half-sent requests open (none idle for
    QUIET_SECONDS, so none to cut), the address's 5th connection is closed as it is accepted, and for
    the next 5 s its new connections never reach the server (their SYN is dropped); another address is
    served meanwhile, and afterwards the address is served again."""
    port = urlsplit(server).port
    assert port is not None
    held = [_half_request(port, "127.0.0.80") for _ in range(4)]
    try:
        fifth = _half_request(port, "127.0.0.80")
        fifth.settimeout(5)
        with contextlib.suppress(ConnectionResetError):
            assert fifth.recv(1) == b""  # closed at accept: over the share
        refused_at = time.monotonic()
        assert not _connects(port, "127.0.0.80")  # dropped by the kernel, not accepted and closed
        assert time.monotonic() - refused_at < 4  # (still within CLIENT_REFUSAL: the test means something)
        status, _, _ = http("GET", server + "/sparql?query=" + quote("ASK {}"), source="127.0.0.81", timeout=10)
        assert status == 200
    finally:
        for sock in held:
            sock.close()
    time.sleep(max(0.0, refused_at + 5.5 - time.monotonic()))
    status, _, _ = http("GET", server + "/sparql?query=" + quote("ASK {}"), source="127.0.0.80", timeout=10)
    assert status == 200  # its refusal is over, and its share is free again


def test_a_reconnecting_flood_is_held_off_in_the_kernel_while_a_visitor_is_served(server: str) -> None:
    """Eight threads of one address reconnect as fast as they are cut, each sending half a request: the
    address holds its 4 connections, its further attempts are dropped before the server sees them (the
    attackers' connects time out), and a visitor from elsewhere gets every page."""
    port = urlsplit(server).port
    assert port is not None
    stop = threading.Event()
    dropped = [0]

    def flood() -> None:
        while not stop.is_set():
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=DROPPED, source_address=("127.0.0.90", 0))
            except TimeoutError:
                dropped[0] += 1
                continue
            except OSError:
                continue
            try:
                sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
                sock.settimeout(2)
                sock.recv(1)  # until the server cuts it
            except OSError:
                pass
            finally:
                sock.close()

    attackers = [threading.Thread(target=flood, daemon=True) for _ in range(8)]
    for thread in attackers:
        thread.start()
    statuses = []
    try:
        time.sleep(1)
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            for path in ("/", "/queries/mate-in-one?limit=3", "/sparql?query=" + quote("ASK { ?s ?p ?o }")):
                statuses.append(http("GET", server + path, source="127.0.1.2", timeout=30)[0])
    finally:
        stop.set()
        for thread in attackers:
            thread.join(10)
    assert statuses and set(statuses) == {200}, statuses
    assert dropped[0] > 0  # the kernel dropped the flood's connections


def test_an_address_asking_again_for_a_query_known_to_time_out_is_held_off_in_the_kernel(small_store) -> None:
    """A runaway runs to QUERY_TIMEOUT; the same query again from the same address is answered from
    FAILED_QUERY_TTL's memory (503), and that address's next connections are then dropped for
    CLIENT_REFUSAL, so a client that repeats it as fast as it can costs the server nothing. Another
    address is served meanwhile. (Lane refusals, 429, do the same: ``service.admission.slot``.)"""
    runaway = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
    with live_server(small_store, "--query-timeout", "1", "--client-refusal", "5", "--query-backoff", "0") as base:
        port = urlsplit(base).port
        assert port is not None
        url = base + "/sparql?query=" + quote(runaway)
        assert http("GET", url, source="127.0.0.95", timeout=30)[0] == 503  # ran to the limit
        assert _connects(port, "127.0.0.95")  # a first failure alone holds nothing off
        status, _, body = http("GET", url, source="127.0.0.95", timeout=30)
        assert status == 503 and b"remembered" in body
        assert not _connects(port, "127.0.0.95")  # dropped by the kernel
        assert http("GET", base + "/sparql?query=" + quote("ASK {}"), source="127.0.0.96", timeout=10)[0] == 200
        assert _connects(port, "127.0.0.95", timeout=10)  # after CLIENT_REFUSAL it connects again


def test_an_address_refused_by_its_lane_share_is_held_off_in_the_kernel(small_store) -> None:
    """While one address runs its share of queries (CLIENT_QUERIES 1), another query from it is answered
    429 at once, and its next connections are dropped for CLIENT_REFUSAL (``service.admission.slot``)."""
    runaway = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
    with live_server(small_store, "--query-timeout", "4", "--client-queries", "1", "--client-refusal", "5") as base:
        port = urlsplit(base).port
        assert port is not None
        running = threading.Thread(
            target=http, args=("GET", base + "/sparql?query=" + quote(runaway)), kwargs={"source": "127.0.0.97"}
        )
        running.start()
        time.sleep(1)  # the runaway holds the address's one query
        assert http("GET", base + "/sparql?query=" + quote("ASK {}"), source="127.0.0.97", timeout=10)[0] == 429
        assert not _connects(port, "127.0.0.97")  # dropped by the kernel
        assert http("GET", base + "/sparql?query=" + quote("ASK {}"), source="127.0.0.98", timeout=10)[0] == 200
        running.join(30)
