"""Check results remembered per source, so an unchanged source is not reasoned over again.

A result is valid for exactly what was checked: the source's asserted statements (hashed), the
ontology, the SHACL shapes, the reasoner and this checker's version. Any change to one of them
changes the key and the source is checked again. The cache is one JSON file beside the store's
generations (``<store>/check-cache.json``); a remote store has no cache.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from pyoxigraph import Triple

from chesskb.kb.safe_output import atomic_output

CACHE_FILE = "check-cache.json"
#: Bump when what a check computes changes, so old entries stop matching.
CHECKER_VERSION = "2"


def graph_hash(triples: Iterable[Triple]) -> str:
    """A hash of a graph's content that does not depend on the order of its statements."""
    total = 0
    count = 0
    for triple in triples:
        digest = hashlib.blake2b(str(triple).encode("utf-8"), digest_size=16).digest()
        total = (total + int.from_bytes(digest, "big")) % (1 << 128)
        count += 1
    return f"{count}:{total:032x}"


@lru_cache(maxsize=1)
def rules_hash() -> str:
    """The ontology and the shapes: a change to either invalidates every cached result."""
    from chesskb import ontology
    from chesskb.kb.checks.shacl import shapes_text

    hasher = hashlib.sha256()
    hasher.update(ontology.turtle_text().encode("utf-8"))
    hasher.update(shapes_text().encode("utf-8"))
    return hasher.hexdigest()[:16]


def cache_key(content_hash: str, reasoner: str) -> str:
    return f"v{CHECKER_VERSION}:{reasoner}:{rules_hash()}:{content_hash}"


class CheckCache:
    """The per-source results of earlier checks (one entry per source, replaced when it changes)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        if path is not None and path.is_file():
            try:
                self.entries = json.loads(path.read_text(encoding="utf-8")).get("sources", {})
            except (OSError, ValueError):
                self.entries = {}  # a damaged cache only costs a re-check

    @classmethod
    def beside(cls, store_location: str) -> CheckCache:
        """The cache of an embedded store (none for a remote one)."""
        path = Path(store_location)
        if store_location.startswith(("http://", "https://")) or not path.is_dir():
            return cls(None)
        return cls(path / CACHE_FILE)

    def get(self, name: str, key: str) -> dict[str, Any] | None:
        entry = self.entries.get(name)
        if entry is not None and entry.get("key") == key:
            result: dict[str, Any] = entry["result"]  # the JSON file's, as put() wrote it
            return result
        return None

    def put(self, name: str, key: str, result: dict[str, Any]) -> None:
        self.entries[name] = {"key": key, "result": result}

    def save(self) -> None:
        if self.path is None:
            return
        with atomic_output(self.path, "w", encoding="utf-8") as handle:
            handle.write(
                json.dumps({"version": CHECKER_VERSION, "sources": self.entries}, indent=1, ensure_ascii=False)
            )
