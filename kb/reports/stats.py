"""Counts that describe a knowledge base: what ``chesskb stats`` and ``chesskb sources`` print."""

from __future__ import annotations

from typing import Any

from pyoxigraph import Literal, NamedNode

from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.store import Store
from chesskb.queries.class_counts import member_counts
from chesskb.queries.executor import select


def _value(term: Any) -> Any:
    if isinstance(term, Literal):
        datatype = term.datatype.value
        if datatype.endswith("#integer"):
            return int(term.value)
        return term.value
    if isinstance(term, NamedNode):
        return term.value
    return None


def kb_stats(store: Store) -> dict[str, Any]:
    members = member_counts(store)  # kept by every write (queries.class_counts), or counted by its rule
    counts = {
        name: members.get(cls, 0)
        for name, cls in (("positions", "Position"), ("matches", "Match"), ("players", "Player"), ("events", "Event"))
    }
    classes = {_value(r["class"]).split("#")[-1]: _value(r["n"]) for r in select(store, "position-class-counts")}
    return {"store": store.location, **counts, "classes": classes}


def list_sources(store: Store, *, base_iri: str | None = None) -> list[dict[str, Any]]:
    minter = IriMinter(base_iri)
    out = []
    for row in select(store, "source-descriptions", {"metaGraph": minter.meta_graph}):
        name = _value(row["name"])
        counts = {"positions": row["positions"], "matches": row["games"], "players": row["players"]}
        if any(value is None for value in counts.values()):  # a store written before counts were kept
            graphs = {"graph": minter.source_graph(name), "inferred": minter.inferred_graph(name)}
            counts = next(iter(select(store, "source-counts", graphs)))
        out.append(
            {
                "name": name,
                "iri": _value(row["source"]),
                "positions": _value(counts["positions"]),
                "games": _value(counts["matches"]),
                "players": _value(counts["players"]),
                "importedAt": _value(row["importedAt"]),
                "checksum": _value(row["checksum"]),
                "files": _value(row["files"]),
            }
        )
    return out
