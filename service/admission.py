"""Who may start a query in a lane of workers now: fair shares, so no one holds a lane.

A lane (``service.executor``: ``sparql`` or ``pages``) has a few worker processes. A share per
address alone does not keep it open: with two page workers and a share of two, one client asking
two expensive pages at once holds every worker for the whole time limit, and two addresses do the
same to ``/sparql``. Three rules, each a named setting:

* **a share per address below the lane's size**: one address runs at most ``CLIENT_QUERIES``
  queries at once in a lane, and never more than the lane's size less its reserve;
* **a reserve for newcomers** (``LANE_RESERVE`` workers): an address *group* (the same IPv4 /24 or
  IPv6 /64, where one party usually sits) that already runs a query in the lane may start another
  only while more than the reserve stays free, so a few addresses of one network cannot take the
  last workers from everyone else, and a visitor running nothing may always start;
* **cost-aware shares**: an address that has kept workers busy lately (more than ``CLIENT_COST``
  worker-seconds, counted with a half-life of ``COST_HALF_LIFE`` seconds) runs one query at a time in
  the lane until its count decays, so a client that keeps asking expensive pages without end gets
  half of what an occasional visitor may use;
* **backoff after a costly failure** (``QUERY_BACKOFF``): an address whose query ran to the time
  limit or killed its worker waits before its next query in that lane (doubling per failure in a
  row, ``service.backoff``), answered 429 with Retry-After meanwhile, so a runaway or a crash storm
  cannot be repeated at once.

A query that cannot start waits for its turn up to ``wait`` seconds (pages: a browser opening a few
tabs must not see 429s), then gets 429 with Retry-After; a free-form query does not wait.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .backoff import Backoff
from .errors import ServiceError

#: The prefix lengths that make an address group (one network, usually one party).
GROUP_BITS_V4 = 24
GROUP_BITS_V6 = 64
#: Seconds in which an address's worker time counts half as much as now.
COST_HALF_LIFE = 10.0
#: Addresses whose worker time is remembered at most (the least used are forgotten first).
MAX_COSTS = 10000


def address_group(address: str) -> str:
    """The address's network (/24 or /64); the address itself when it is not an IP address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6 and ip.ipv4_mapped is not None:  # a dual-stack socket's IPv4 client
        ip = ip.ipv4_mapped
    bits = GROUP_BITS_V4 if ip.version == 4 else GROUP_BITS_V6
    return str(ipaddress.ip_network(f"{ip}/{bits}", strict=False))


@dataclass(frozen=True)
class Shares:
    """The lane's rules (see the module doc); ``size`` is the lane's number of workers."""

    size: int
    client_queries: int  # CLIENT_QUERIES
    reserve: int  # LANE_RESERVE
    backoff_first: float  # QUERY_BACKOFF: seconds after the first costly failure
    backoff_longest: float = 300.0
    costly_seconds: float = 0.0  # CLIENT_COST: recent worker-seconds before the share drops to one; 0 = off

    @property
    def per_address(self) -> int:
        return max(1, min(self.client_queries, self.size - self.reserve))


class WorkerTime:
    """Worker-seconds used per address, decaying with a half-life of COST_HALF_LIFE seconds."""

    def __init__(self) -> None:
        self._used: dict[str, tuple[float, float]] = {}  # address -> (seconds, when counted)

    def now(self, client: str, at: float) -> float:
        seconds, when = self._used.get(client, (0.0, at))
        return seconds * math.pow(0.5, (at - when) / COST_HALF_LIFE)

    def add(self, client: str, seconds: float, at: float) -> None:
        self._used[client] = (self.now(client, at) + seconds, at)
        if len(self._used) > MAX_COSTS:
            least = sorted(self._used, key=lambda key: self.now(key, at))
            for key in least[: len(self._used) - MAX_COSTS * 3 // 4]:
                del self._used[key]


class LaneAdmission:
    """The running queries of one lane, by address and group, and the addresses in backoff."""

    def __init__(self, name: str, shares: Shares) -> None:
        self.name = name
        self.shares = shares
        self.backoff = Backoff(shares.backoff_first, shares.backoff_longest)
        self._by_address: dict[str, int] = {}
        self._by_group: dict[str, int] = {}
        self._running = 0
        self._used = WorkerTime()
        self._changed = threading.Condition()

    def _refusal(self, client: str) -> str | None:
        """Why ``client`` may not start a query now (None: it may)."""
        shares = self.shares
        mine = self._by_address.get(client, 0)
        if mine >= shares.per_address:
            return (
                f"you already run {mine} queries at once here (setting CLIENT_QUERIES; the {self.name} "
                f"lane has {shares.size} workers)"
            )
        if mine and shares.costly_seconds and self._used.now(client, time.monotonic()) > shares.costly_seconds:
            return (
                f"your queries kept the {self.name} workers busy lately: one at a time for a while "
                "(setting CLIENT_COST)"
            )
        if self._by_group.get(address_group(client), 0) and self._running >= shares.size - shares.reserve:
            return (
                f"your network already runs queries here and the last {shares.reserve} {self.name} "
                "worker(s) are kept for other visitors (setting LANE_RESERVE)"
            )
        return None

    @contextmanager
    def slot(self, client: str, wait: float = 0.0, on_refused: Callable[[str], None] | None = None) -> Iterator[None]:
        """A query's place in the lane for ``client``. ``on_refused(client)`` is called whenever the
        client is answered 429 here: it asked while QUERY_BACKOFF tells it to wait, or beyond its share
        of the lane (``chesskb serve`` then has the kernel drop its next connections for CLIENT_REFUSAL:
        eight attackers that ignored Retry-After, asking a thousand times a second, took a whole core
        of the server's answering them 429, and a visitor waited four times longer)."""
        left = self.backoff.wait_left(client)
        if left:
            if on_refused is not None:
                on_refused(client)
            raise ServiceError(
                429,
                f"your last query here ran to the time limit or crashed its worker: wait "
                f"{left} s (setting QUERY_BACKOFF)",
                headers={"Retry-After": str(left)},
            )
        deadline = time.monotonic() + wait
        group = address_group(client)
        with self._changed:
            while (refusal := self._refusal(client)) is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    if on_refused is not None:
                        on_refused(client)
                    raise ServiceError(429, f"{refusal}; wait for them to finish", headers={"Retry-After": "2"})
                self._changed.wait(remaining)
            self._by_address[client] = self._by_address.get(client, 0) + 1
            self._by_group[group] = self._by_group.get(group, 0) + 1
            self._running += 1
        started = time.monotonic()
        try:
            yield
        finally:
            with self._changed:
                finished = time.monotonic()
                self._used.add(client, finished - started, finished)
                _decrement(self._by_address, client)
                _decrement(self._by_group, group)
                self._running -= 1
                self._changed.notify_all()


def _decrement(counts: dict[str, int], key: str) -> None:
    left = counts[key] - 1
    if left:
        counts[key] = left
    else:
        del counts[key]
