"""A model of the proposed store layout (issue 23, item 4: "the merge stored once"), in memory.

Not used by the stores: it states the layout's rules in a few lines, so they can be checked on real
imports (``tests/test_layout_model.py``: add A and B, remove A, compare with B alone) before the
stores are changed; ``bench/store_layouts.py`` measures the same rules on a ``chesskb convert`` file
(streaming: this model holds every quad in memory).
The stores would apply the same rules with indexed lookups per subject instead of sets.

The rules (``bench/README.md``, "Store size"), per subject (an individual, a record):

* The default graph holds the merge, once: every statement of every graph, as a set.
* Small graphs that are not a source's (ontology, ``_meta``, ``_links``, ``_counts``) are stored in
  full, as today.
* The statements about a subject that every source asserting it makes are its *common* statements:
  they are in the merge only, except ``rdf:type``: each source's graphs keep all its type statements
  about the subject, asserted and inferred (its *markers*: ``GRAPH ?g { ?x a ?class }`` still says
  which sources assert ``?x``, and a type one source asserts and another infers stays told apart), and
  what it says that is not common (its *deltas*: conflicts between sources stay visible through GRAPH). A
  subject of one source has no deltas: it costs its markers. Copies of a collection cost markers.
* When a small graph mentions the subject too (a source's own node in ``_meta``, a linked player in
  ``_links``), nothing is common: each source keeps all it says (the merge alone could not tell the
  small graph's statements from the sources').
* Every write decodes the affected subjects (a source's statements = the common ones + its own
  stored ones; common = the merge's statements about the subject that no stored graph holds),
  changes them, and encodes them again by the rules above: adding a source makes common statements
  it does not make into the others' deltas; removing one makes deltas every remaining source shares
  common again, and a subject left to one source collapses to markers. So removing a source leaves
  exactly what importing the others alone gives.
* One thing the merge cannot say is whether a common statement was asserted or inferred: when it
  becomes a delta it goes into the source's graph, not its inferred graph (which graph of the
  source holds it differs from a fresh import; which source holds it does not).

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

    def asserted_by(self, subject: str) -> set[str]:
        """``SELECT ?g WHERE { GRAPH ?g { <subject> a ?class } }`` over the source graphs."""
        return {g for (g, _, p, _) in self.by_subject.get(subject, ()) if p == RDF_TYPE and is_source(g)
                and not g.endswith(INFERRED)}

    def decode(self, subject: str) -> dict[str, set[Quad]]:
        """What each graph says about ``subject``, by owner: a source's own statements (common ones
        with the source's graph as their graph), a small graph's as stored."""
        stored = self.by_subject.get(subject, set())
        named = {q for q in stored if q[0] != DEFAULT}
        said: dict[str, set[Quad]] = defaultdict(set)
        for quad in named:
            said[owner(quad[0])].add(quad)
        if all(is_source(o) for o in said):
            held = {q[1:] for q in named}
            common = {q[1:] for q in stored if q[0] == DEFAULT and q[1:] not in held}
            for source in said:
                said[source] |= {(source, *t) for t in common}
        return said

    # --- writing ----------------------------------------------------------------------------
    def encode(self, subject: str, said: dict[str, set[Quad]]) -> None:
        """Store what each owner says about ``subject`` by the rules (module doc)."""
        stored = self.by_subject[subject]
        stored.clear()
        stored.update((DEFAULT, s, p, o) for quads in said.values() for (_, s, p, o) in quads)
        sources = [o for o, quads in said.items() if quads and is_source(o)]
        common: set[tuple[str, str, str]] = set()
        if sources and len(sources) == len([o for o, quads in said.items() if quads]):
            common = set.intersection(*({q[1:] for q in said[o] if q[2] != RDF_TYPE} for o in sources))
        for quads in said.values():
            stored.update(q for q in quads if q[1:] not in common)
        if not stored:
            del self.by_subject[subject]

    def add(self, quads: Iterable[Quad]) -> None:
        """Add statements in named graphs (a source's graphs, small graphs)."""
        grouped: dict[str, set[Quad]] = defaultdict(set)
        for quad in quads:
            grouped[quad[1]].add(quad)
        for subject, new in grouped.items():
            said = self.decode(subject)
            for quad in new:
                mine = said[owner(quad[0])]
                if quad[0].endswith(INFERRED):  # a common statement decoded into the source's graph
                    mine.discard((owner(quad[0]), *quad[1:]))
                mine.add(quad)
            self.encode(subject, said)

    def remove(self, graphs: Iterable[str] = (), subjects: Iterable[tuple[str, str]] = ()) -> None:
        """Drop whole graphs and (subject, graph) statements; the merge follows exactly."""
        leaving = set(graphs)
        dropped = set(subjects)
        affected = {s for s, quads in self.by_subject.items() if any(g in leaving for (g, _, _, _) in quads)}
        affected |= {s for s, _ in dropped}
        for subject in affected:
            said = self.decode(subject)
            for name, quads in said.items():
                said[name] = {q for q in quads if q[0] not in leaving and (subject, q[0]) not in dropped}
            self.encode(subject, said)


def quads_of(nquads_quads: Iterable[object]) -> list[Quad]:
    """pyoxigraph quads (named graphs only) as the model's string tuples."""
    out = []
    for quad in nquads_quads:
        graph = quad.graph_name  # type: ignore[attr-defined]
        if graph.__class__.__name__ == "DefaultGraph":
            continue
        out.append((str(graph), str(quad.subject), str(quad.predicate), str(quad.object)))  # type: ignore[attr-defined]
    return out
