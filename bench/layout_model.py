"""A model of the proposed store layout (issue 23, item 4: "the merge stored once"), in memory.

Not used by the stores: it states the layout's rules in a few lines, so they can be checked on real
imports (``tests/test_layout_model.py``: add A and B, remove A, compare with B alone) before the
stores are changed; ``bench/store_layouts.py`` measures the same rules on a ``chesskb convert`` file
(streaming: this model holds every quad in memory). The stores would apply the same rules with indexed lookups per subject instead of sets.

The rules (``bench/README.md``, "Store size"):

* The default graph holds the merge, once: every statement of every graph, as a set.
* Small graphs that are not a source's (ontology, ``_meta``, ``_links``, ``_counts``) are stored in
  full, as today.
* A subject that only one source's graphs mention (its *owner*) is *marker-only*: that source's graph
  keeps only its ``rdf:type`` statements about it (``GRAPH ?g { ?x a ?class }`` still says which
  source asserts ``?x``), its inferred graph nothing; the rest of what it says is in the merge only.
* A subject that two owners mention (two sources, or a source and a small graph) is *full*: every
  graph that mentions it holds all it says about it, as today — so conflicts between sources stay
  visible through ``GRAPH ?g``, and removing one of them is decided from what the others hold.
* Adding: a subject that becomes shared *expands* its single former owner first — the owner's
  statements are the merge's statements about the subject less the small graphs' (they go into the
  owner's source graph: the merge cannot tell its inferred statements from its asserted ones).
* Removing: a statement about an affected subject leaves the merge unless a remaining graph holds
  it (or the subject stays marker-only with an untouched owner); a subject left with one source
  owner *collapses* back to markers.

A quad is ``(graph, subject, predicate, object)`` with N-Triples strings; graph ``""`` is the default.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

Quad = tuple[str, str, str, str]
DEFAULT = ""
RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
INFERRED = "/inferred>"


def owner(graph: str) -> str:
    """A source's graph and its inferred graph have one owner (the source graph's name)."""
    return graph[: -len(INFERRED)] + ">" if graph.endswith(INFERRED) else graph


def is_source(graph: str) -> bool:
    """``<…/graph/NAME>`` or ``<…/graph/NAME/inferred>``, NAME not starting with ``_``."""
    head, _, name = owner(graph).rpartition("/")
    return head.endswith("/graph") and not name.startswith("_")


class Layout:
    """The stored quads, with an index by subject (what a store's SPOG index gives)."""

    def __init__(self) -> None:
        self.by_subject: dict[str, set[Quad]] = defaultdict(set)

    # --- reading ----------------------------------------------------------------------------
    def quads(self) -> set[Quad]:
        return {quad for quads in self.by_subject.values() for quad in quads}

    def merged(self) -> set[tuple[str, str, str]]:
        """The default graph: what every query reads."""
        return {(s, p, o) for quads in self.by_subject.values() for (g, s, p, o) in quads if g == DEFAULT}

    def owners(self, subject: str) -> set[str]:
        return {owner(g) for (g, _, _, _) in self.by_subject.get(subject, ()) if g != DEFAULT}

    def asserted_by(self, subject: str) -> set[str]:
        """``SELECT ?g WHERE { GRAPH ?g { <subject> a ?class } }`` over the source graphs."""
        return {g for (g, _, p, _) in self.by_subject.get(subject, ()) if p == RDF_TYPE and is_source(g)
                and not g.endswith(INFERRED)}

    # --- writing ----------------------------------------------------------------------------
    def add(self, quads: Iterable[Quad]) -> None:
        """Add statements in named graphs (a source's graphs, small graphs), subject by subject."""
        grouped: dict[str, set[Quad]] = defaultdict(set)
        for quad in quads:
            grouped[quad[1]].add(quad)
        for subject, new in grouped.items():
            stored = self.by_subject[subject]
            before = self.owners(subject)
            after = before | {owner(g) for (g, _, _, _) in new}
            if len(before) == 1 and len(after) > 1 and is_source(next(iter(before))):
                self._expand(subject, next(iter(before)))
            stored.update((DEFAULT, s, p, o) for (_, s, p, o) in new)
            if len(after) == 1 and is_source(next(iter(after))):
                stored.update(q for q in new if q[2] == RDF_TYPE and not q[0].endswith(INFERRED))
            else:
                stored.update(new)

    def _expand(self, subject: str, source: str) -> None:
        """The single owner's statements about ``subject``, recovered from the merge."""
        stored = self.by_subject[subject]
        held = {(s, p, o) for (g, s, p, o) in stored if g != DEFAULT and owner(g) != source}
        stored.update((source, s, p, o) for (g, s, p, o) in list(stored) if g == DEFAULT and (s, p, o) not in held)

    def remove(self, graphs: Iterable[str] = (), subjects: Iterable[tuple[str, str]] = ()) -> None:
        """Drop whole graphs and (subject, graph) statements; the merge follows exactly."""
        leaving = set(graphs)
        dropped = set(subjects)
        affected = {s for s, quads in self.by_subject.items() if any(g in leaving for (g, _, _, _) in quads)}
        affected |= {s for s, _ in dropped}
        for subject in affected:
            stored = self.by_subject[subject]
            before = self.owners(subject)
            kept = {q for q in stored if q[0] != DEFAULT and q[0] not in leaving and (subject, q[0]) not in dropped}
            after = {owner(g) for (g, _, _, _) in kept}
            if len(before) == 1 and before == after:
                continue  # its only owner is untouched: nothing of it leaves
            held = {(s, p, o) for (_, s, p, o) in kept}
            merged = {q for q in stored if q[0] == DEFAULT and q[1:] in held}
            stored.clear()
            stored.update(kept | merged)
            if len(after) == 1 and is_source(next(iter(after))):
                source = next(iter(after))
                stored.difference_update({q for q in kept if q[0].endswith(INFERRED)
                                          or (q[0] == source and q[2] != RDF_TYPE)})
            if not stored:
                del self.by_subject[subject]


def quads_of(nquads_quads: Iterable[object]) -> list[Quad]:
    """pyoxigraph quads (named graphs only) as the model's string tuples."""
    out = []
    for quad in nquads_quads:
        graph = quad.graph_name  # type: ignore[attr-defined]
        if graph.__class__.__name__ == "DefaultGraph":
            continue
        out.append((str(graph), str(quad.subject), str(quad.predicate), str(quad.object)))  # type: ignore[attr-defined]
    return out
