"""How the stores lay out provenance: the merge stored once, each source keeping only its markers
and what it alone says (issue 23, item 4; the design and its measurements are in
``bench/README.md``, "Store size").

Every statement is in the default graph, once: the merge is a set by construction, and every query
that reads the default graph is unchanged. A source's graphs (``graph/NAME`` and
``graph/NAME/inferred``) no longer repeat all it says; per *subject* (an individual, a record) they
keep:

* its **markers**: every ``rdf:type`` statement it makes about the subject, asserted ones in its
  graph and inferred ones in its inferred graph. ``GRAPH ?g { ?x a ?class }`` still answers which
  sources assert ``?x``; types are never shared out, so a type one source asserts and another infers
  stays told apart;
* its **deltas**: the statements about the subject that not every source asserting it makes (a
  second spelling, another date: ``GRAPH ?g`` still shows whose value it is).

The statements every source asserting the subject makes (its *common* statements) are in the
default graph only. A subject of one source has no deltas: it costs its markers (about 6 quads per
lichess puzzle instead of about 60).

Bookkeeping graphs (the ontology, ``_meta``, ``_links``, ``_counts``) are stored in full. A statement
one of them makes is never common: each source that makes it too keeps it in its own graph, so the
merge alone never has to tell a bookkeeping graph's statement from a source's.

**Decoding** a subject gives back what each graph says about it: a source's statements are its
stored ones plus the common ones, which are the default graph's statements about the subject that no
named graph holds. Every write decodes the subjects it touches, changes what their graphs say, and
encodes them again (``added``, ``removed``), so adding a source turns common statements it does not
make into the others' deltas, and removing one turns deltas every remaining source shares back into
common ones: remove-source leaves exactly what importing the others alone would.

A store written before this layout (every statement in its source's graph too) decodes the same
way: its common set is empty and each source holds everything. Both layouts can mix, subject by
subject, so old stores need no migration; each subject is re-encoded compactly when a write touches it.

The one thing the merge cannot say is whether a common statement was asserted or inferred: decoded,
it belongs to the source's graph, and if it becomes a delta it is stored there (which *graph* of the
source holds it can differ from a fresh import; which *source* holds it cannot).

Every source types every subject it says anything about (the mapping's rule, checked by
``tests/test_store_layout.py`` on every shipped collection); if one ever did not, nothing about that
subject is treated as common, which stays exact at the cost of size.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from pyoxigraph import DefaultGraph, NamedNode, Quad, Triple

RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
INFERRED_SUFFIX = "/inferred"
_DEFAULT = DefaultGraph()

#: What a graph says about one subject, by the graph's *owner* (a source's graph for the source's
#: two graphs, the graph itself for a bookkeeping graph); quads keep their real graph names.
Said = dict[NamedNode, set[Quad]]


def owner_of(graph: NamedNode) -> NamedNode:
    """A source's inferred graph belongs to its graph; every other graph to itself."""
    value = graph.value
    return NamedNode(value[: -len(INFERRED_SUFFIX)]) if value.endswith(INFERRED_SUFFIX) else graph


def is_source(owner: NamedNode) -> bool:
    """``…/graph/NAME`` with NAME not starting with ``_``: a source's (or a course's) graph, as
    ``IriMinter.source_graph`` names them; the bookkeeping graphs are ``graph/_links`` … and the
    ontology's own IRI."""
    head, _, name = owner.value.rpartition("/")
    return head.endswith("/graph") and bool(name) and not name.startswith("_")


def is_marker(quad: Quad | Triple) -> bool:
    return quad.predicate == RDF_TYPE


def decode(stored: Iterable[Quad]) -> Said:
    """What each graph says about one subject, from the quads stored about it (all graphs, the
    default graph included)."""
    said: Said = defaultdict(set)
    merged: set[Triple] = set()
    for quad in stored:
        if isinstance(quad.graph_name, DefaultGraph):
            merged.add(quad.triple)
        else:
            said[owner_of(quad.graph_name)].add(quad)  # type: ignore[arg-type]
    held = {quad.triple for quads in said.values() for quad in quads}
    common = merged - held
    if common:
        for owner in [o for o in said if is_source(o)]:
            said[owner] |= {Quad(t.subject, t.predicate, t.object, owner) for t in common}
    return said


def encode(said: Mapping[NamedNode, Iterable[Quad]]) -> set[Quad]:
    """The quads to store for one subject, given what each graph says about it (module doc)."""
    said = {owner: set(quads) for owner, quads in said.items() if quads}
    stored = {Quad(q.subject, q.predicate, q.object, _DEFAULT) for quads in said.values() for q in quads}
    sources = [owner for owner in said if is_source(owner)]
    common: set[Triple] = set()
    if sources and all(any(is_marker(q) for q in said[owner]) for owner in sources):
        common = set.intersection(*({q.triple for q in said[owner] if not is_marker(q)} for owner in sources))
        common -= {q.triple for owner, quads in said.items() if owner not in sources for q in quads}
    for quads in said.values():
        stored.update(q for q in quads if q.triple not in common)
    return stored


def added(stored: Iterable[Quad], new: Iterable[Quad]) -> set[Quad]:
    """The quads to store for one subject after adding ``new`` (quads in named graphs)."""
    said = decode(stored)
    for quad in new:
        graph = quad.graph_name
        owner = owner_of(graph)  # type: ignore[arg-type]
        mine = said[owner]
        if graph != owner:  # said in the inferred graph: no longer (decoded as) said in the source's graph
            mine.discard(Quad(quad.subject, quad.predicate, quad.object, owner))
        mine.add(quad)
    return encode(said)


def removed(stored: Iterable[Quad], graphs: Iterable[NamedNode] = ()) -> set[Quad]:
    """The quads to store for one subject after its statements in ``graphs`` are dropped (a whole
    source: its graph and its inferred graph; or one graph's statements about this subject)."""
    leaving = set(graphs)
    said = decode(stored)
    for owner, quads in said.items():
        said[owner] = {q for q in quads if q.graph_name not in leaving}
    return encode(said)


def by_subject(quads: Iterable[Quad]) -> dict[object, list[Quad]]:
    """Quads grouped by subject, in first-seen order."""
    grouped: dict[object, list[Quad]] = defaultdict(list)
    for quad in quads:
        grouped[quad.subject].append(quad)
    return grouped
