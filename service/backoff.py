"""Backoff per client address: after a failure, the address waits before it may try again.

One rule for every place a stranger could repeat something costly or guess something secret: a
wrong authoring token (``service.authoring``), a query that crashed its worker or ran to the time
limit (``service.executor``). Each further failure in a row doubles the wait, up to ``longest``
seconds; a success forgets the address. While an address waits it is refused at once (429 with
Retry-After) without the work being tried, so a guesser cannot learn anything from a locked try and
a runaway cannot hold a worker again at once. At most ``MAX_CLIENTS`` addresses are remembered
(those whose wait ends soonest are forgotten first), so the table cannot grow without end.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

MAX_CLIENTS = 10000


@dataclass
class _Record:
    failures: int
    until: float


class Backoff:
    """``first`` seconds after one failure, doubling per further failure, at most ``longest``."""

    def __init__(self, first: float, longest: float) -> None:
        self.first = max(first, 0.0)
        self.longest = max(longest, self.first)
        self._records: dict[str, _Record] = {}
        self._lock = threading.Lock()

    def wait_left(self, client: str) -> int:
        """Whole seconds ``client`` must still wait (0: it may try now)."""
        with self._lock:
            record = self._records.get(client)
            left = 0.0 if record is None else record.until - time.monotonic()
        return max(0, math.ceil(left))

    def failed(self, client: str) -> int:
        """Count a failure; the seconds the client now waits."""
        now = time.monotonic()
        with self._lock:
            record = self._records.get(client)
            failures = 1 if record is None else record.failures + 1
            wait = min(self.first * 2.0 ** min(failures - 1, 30), self.longest)
            self._records[client] = _Record(failures, now + wait)
            if len(self._records) > MAX_CLIENTS:
                self._forget()
        return math.ceil(wait)

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._records.pop(client, None)

    def _forget(self) -> None:
        """Drop the addresses whose wait ends (or ended) soonest, down to three quarters of the table."""
        soonest = sorted((record.until, client) for client, record in self._records.items())
        for _, client in soonest[: len(self._records) - MAX_CLIENTS * 3 // 4]:
            del self._records[client]
