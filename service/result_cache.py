"""Finished query answers, kept until the knowledge base changes.

The embedded store only changes by switching to a new generation (an import, a removal), so an
answer computed for one generation stays right until the next: a canned-query page asked for again
costs a dictionary lookup instead of a trip to a worker process and a query. Entries are keyed by the
generation, so a new import makes every old entry unreachable (and the least recently used ones
are dropped as new answers come). Stores that cannot say what generation they are at (a remote
SPARQL server) are not cached: another client may have written to them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any

from cachetools import LRUCache

from .query_runner import Answer

MAX_ENTRIES = 512
#: Answers bigger than this are not kept (a full export-sized result would crowd out many pages).
MAX_BODY_BYTES = 1 << 20


class ResultCache:
    """The last ``max_entries`` answers used (cachetools' LRU), shared by the request threads under one lock."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: LRUCache[Hashable, Answer] = LRUCache(maxsize=max_entries)
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get_or_run(self, key: Hashable | None, run: Callable[[], Answer]) -> Answer:
        if key is None:
            return run()
        with self._lock:
            answer = self._entries.get(key)  # a hit counts as a use: the entry becomes the newest
            if answer is not None:
                self.hits += 1
                return answer
            self.misses += 1
        answer = run()  # outside the lock: other requests go on while this query runs
        if len(answer.body) <= MAX_BODY_BYTES:
            with self._lock:
                self._entries[key] = answer  # the least recently used entry goes when full
        return answer


def cache_key(store: Any, sparql: str, bindings: dict[str, Any] | None, *parts: Hashable) -> Hashable | None:
    """The key for an answer, or ``None`` when the store cannot tell its generation."""
    generation = getattr(store, "generation", None)
    token = generation() if callable(generation) else None
    if token is None:
        return None
    bound = tuple(sorted((name, str(term)) for name, term in (bindings or {}).items()))
    return (token, sparql, bound, *parts)
