"""The ontology inside the store: its own named graph, refreshed on every write.

Queries need the class tree and labels (``rdfs:subClassOf*``, class pages, theme counts), so the
authored ontology file is loaded into the graph named by the ontology IRI.
"""

from __future__ import annotations

from functools import lru_cache

from pyoxigraph import NamedNode, Quad, RdfFormat, Triple, parse

from chesskb.kb.vocab import ONTOLOGY_IRI

ONTOLOGY_GRAPH = NamedNode(ONTOLOGY_IRI)


@lru_cache(maxsize=1)
def _ontology_triples() -> tuple[Triple | Quad, ...]:
    from chesskb import ontology

    return tuple(parse(ontology.turtle_text(), format=RdfFormat.TURTLE, base_iri=ONTOLOGY_IRI))


def ontology_quads() -> list[Quad]:
    return [Quad(t.subject, t.predicate, t.object, ONTOLOGY_GRAPH) for t in _ontology_triples()]
