"""Counts that describe a knowledge base: what ``chesskb stats`` and ``chesskb sources`` print."""

from __future__ import annotations

from typing import Any

from pyoxigraph import Literal, NamedNode

from chesskb.kb.store.class_counts import stored_counts
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.store import Store

_COUNTS = """
SELECT
  (COUNT(DISTINCT ?position) AS ?positions)
  (COUNT(DISTINCT ?match) AS ?matches)
  (COUNT(DISTINCT ?player) AS ?players)
  (COUNT(DISTINCT ?event) AS ?events)
WHERE {
  { ?position a cp:Position } UNION { ?match a cp:Match } UNION { ?player a cp:Player }
  UNION { ?event a cp:Event }
}
"""

_CLASS_COUNTS = """
SELECT ?class (COUNT(DISTINCT ?position) AS ?n) WHERE {
  GRAPH ?g { ?position a ?class }
  FILTER(STRSTARTS(STR(?class), STR(cp:)) && ?class != cp:Position)
  FILTER(!STRENDS(STR(?g), "/inferred"))
  ?position a cp:Position .
} GROUP BY ?class ORDER BY DESC(?n) ?class
"""

_SOURCES = """
SELECT ?metaGraph ?source ?name ?checksum ?importedAt ?games ?positions ?players
       (GROUP_CONCAT(DISTINCT ?file; separator=", ") AS ?files)
WHERE {
  GRAPH ?meta { ?source a cp:Source ; cp:sourceName ?name .
    OPTIONAL { ?source cp:checksum ?checksum } OPTIONAL { ?source cp:importedAt ?importedAt }
    OPTIONAL { ?source cp:gameCount ?games } OPTIONAL { ?source cp:positionCount ?positions }
    OPTIONAL { ?source cp:playerCount ?players }
    OPTIONAL { ?source dcterms:source ?file } }
  FILTER(?meta = ?metaGraph)
} GROUP BY ?metaGraph ?source ?name ?checksum ?importedAt ?games ?positions ?players ORDER BY ?name
"""

_SOURCE_COUNTS = """
SELECT ?graph (COUNT(DISTINCT ?position) AS ?positions) (COUNT(DISTINCT ?match) AS ?matches)
       (COUNT(DISTINCT ?player) AS ?players) WHERE {
  GRAPH ?graph {
    { ?position cp:fen ?fen } UNION { ?match a cp:Match } UNION { ?player a cp:Player }
  }
} GROUP BY ?graph
"""


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
    stored = stored_counts(store)  # kept by every write (kb.store.class_counts); older stores are counted here
    if stored is not None:
        counts = {name: stored.get(cls, 0) for name, cls in
                  (("positions", "Position"), ("matches", "Match"), ("players", "Player"), ("events", "Event"))}
    else:
        row = next(iter(store.query(_COUNTS)))
        counts = {name: _value(row[name]) for name in ("positions", "matches", "players", "events")}
    classes = {_value(r["class"]).split("#")[-1]: _value(r["n"]) for r in store.query(_CLASS_COUNTS)}
    return {"store": store.location, **counts, "classes": classes}


def list_sources(store: Store, *, base_iri: str | None = None) -> list[dict[str, Any]]:
    minter = IriMinter(base_iri)
    out = []
    for row in store.query(_SOURCES, bindings={"metaGraph": minter.meta_graph}):
        name = _value(row["name"])
        counts = {"positions": row["positions"], "matches": row["games"], "players": row["players"]}
        if any(value is None for value in counts.values()):  # a store written before counts were kept
            counts = next(iter(store.query(_SOURCE_COUNTS, bindings={"graph": minter.source_graph(name)})))
        out.append({
            "name": name,
            "iri": _value(row["source"]),
            "positions": _value(counts["positions"]),
            "games": _value(counts["matches"]),
            "players": _value(counts["players"]),
            "importedAt": _value(row["importedAt"]),
            "checksum": _value(row["checksum"]),
            "files": _value(row["files"]),
        })
    return out
