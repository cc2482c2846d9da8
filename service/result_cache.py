"""Finished query answers, kept until the knowledge base changes.

The embedded store only changes by switching to a new generation (an import, a removal), so an
answer computed for one generation stays right until the next: a canned-query page asked for again
costs a dictionary lookup instead of a trip to a worker process and a query. Entries are keyed by the
generation, so a new import makes every old entry unreachable (and the least recently used ones
are dropped as new answers come). Stores that cannot say what generation they are at (a remote
SPARQL server) are not cached: another client may have written to them.

A query that ran to the time limit is remembered too, for ``failed_ttl`` seconds (FAILED_QUERY_TTL):
asked again meanwhile it is answered the same 503 at once instead of holding a worker for the whole
limit again, so an expensive page cannot be used to keep a lane busy.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from .query_runner import Answer, QueryFailed

MAX_ENTRIES = 512
#: Answers bigger than this are not kept (a full export-sized result would crowd out many pages).
MAX_BODY_BYTES = 1 << 20
#: The bodies kept, in bytes, all entries together (the service's RESULT_CACHE_BYTES). Entries alone
#: let the cache hold 512 answers of up to 1 MB each: the server grew from 171 to 1,150 MiB over a
#: long session and kept it (issue 35).
MAX_TOTAL_BYTES = 64 << 20


class ResultCache:
    def __init__(
        self, max_entries: int = MAX_ENTRIES, failed_ttl: float = 0.0, max_bytes: int = MAX_TOTAL_BYTES
    ) -> None:
        self.max_entries = max_entries
        self.failed_ttl = failed_ttl
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, Answer | tuple[QueryFailed, float]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0
        self.bytes = 0  # the bodies kept now

    def get_or_run(self, key: Hashable | None, run: Callable[[], Answer]) -> Answer:
        if key is None:
            return run()
        with self._lock:
            found = self._entries.get(key)
            if isinstance(found, tuple) and found[1] < time.monotonic():
                del self._entries[key]  # the remembered timeout has expired: try again
                found = None
            if found is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                if isinstance(found, tuple):
                    failure = found[0]
                    raise QueryFailed(
                        failure.status,
                        failure.message + " (remembered: it ran to the limit shortly before; setting FAILED_QUERY_TTL)",
                        remembered=True,
                    )
                return found
            self.misses += 1
        try:
            answer = run()  # outside the lock: other requests go on while this query runs
        except QueryFailed as exc:
            if exc.costly and exc.status == 503 and self.failed_ttl > 0:  # it ran to the time limit
                self._keep(key, (exc, time.monotonic() + self.failed_ttl))
            raise
        if len(answer.body) <= min(MAX_BODY_BYTES, self.max_bytes):
            self._keep(key, answer)
        return answer

    def _keep(self, key: Hashable, entry: Answer | tuple[QueryFailed, float]) -> None:
        """Keep ``entry`` as the newest, then drop the least recently used beyond ``max_entries`` or
        ``max_bytes`` (a remembered failure counts no bytes)."""
        with self._lock:
            self.bytes -= _size(self._entries.pop(key, None))
            self._entries[key] = entry
            self.bytes += _size(entry)
            while len(self._entries) > self.max_entries or self.bytes > self.max_bytes:
                _, dropped = self._entries.popitem(last=False)
                self.bytes -= _size(dropped)


def _size(entry: Answer | tuple[QueryFailed, float] | None) -> int:
    return len(entry.body) if isinstance(entry, Answer) else 0


def store_generation(store: object) -> str | None:
    """The store's generation (``EmbeddedStore.generation``), or ``None`` for a store that cannot tell (a remote
    one: another client may change it)."""
    generation = getattr(store, "generation", None)
    token = generation() if callable(generation) else None
    return None if token is None else str(token)


def cache_key(store: object, sparql: str, bindings: Mapping[str, Any] | None, *parts: Hashable) -> Hashable | None:
    """The key for an answer, or ``None`` when the store cannot tell its generation."""
    token = store_generation(store)
    if token is None:
        return None
    bound = tuple(sorted((name, str(term)) for name, term in (bindings or {}).items()))
    return (token, sparql, bound, *parts)
