"""Exports: the knowledge base (or one source) as RDF files.

``owl`` is RDF/XML of the ontology plus the individuals, one self-contained file for Protégé
(the original's output was OWL); the other formats are the usual RDF serialisations. Inferred
triples are left out of ``owl`` (a reasoner in Protégé derives them again) and kept elsewhere.

The ``owl`` file is made for Protégé and its reasoners: every individual is declared an
``owl:NamedIndividual`` (Protégé and owlready2 list individuals by that declaration), and the
literals whose datatype is outside the OWL 2 datatype map (``xsd:date``, ``xsd:time``), which
HermiT refuses to load, are written as ``xsd:string`` with the same ISO text. The other formats
keep every literal exactly as stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from pyoxigraph import NamedNode, Quad, RdfFormat, Triple, serialize

from chesskb.kb.checks.owl import reasoner_copy
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.store import Store, StoreError
from chesskb.kb.store.ontology_graph import ONTOLOGY_GRAPH, ontology_quads
from chesskb.kb.vocab import CP_IRI, OWL_IRI, PREFIXES, RDF_IRI, text_of
from chesskb.queries.source_statements import graph_statements

FORMATS: dict[str, RdfFormat] = {
    "owl": RdfFormat.RDF_XML,
    "ttl": RdfFormat.TURTLE,
    "nt": RdfFormat.N_TRIPLES,
    "nq": RdfFormat.N_QUADS,
    "jsonld": RdfFormat.JSON_LD,
}


def source_graphs(
    store: Store, source: str | None, *, base_iri: str | None = None, inferred: bool = True
) -> list[NamedNode]:
    """The named graphs holding ``source`` (or every source), without the ontology, the sources'
    descriptions and the class counts (numbers about the store, not knowledge)."""
    minter = IriMinter(base_iri)
    derived = (ONTOLOGY_GRAPH, minter.meta_graph, minter.counts_graph)  # the ontology is written apart
    graphs = [g for g in store.named_graphs() if g not in derived]
    if source is not None:
        wanted = {minter.source_graph(source), minter.inferred_graph(source)}
        if minter.source_graph(source) not in graphs:
            raise StoreError(f"no source named {source!r} in {store.location}")
        graphs = [g for g in graphs if g in wanted]
    if not inferred:
        return [g for g in graphs if not minter.is_inferred_graph(g)]
    # In the compact layout a source's inferred graph exists only when it holds markers (inferred
    # types); what the source infers is still there (inverse links, in the merge): list it anyway.
    listed = set(graphs)
    with_inferred: list[NamedNode] = []
    for graph in graphs:
        with_inferred.append(graph)
        name = minter.source_of(graph) if minter.is_source_graph(graph) else None
        if name is not None and minter.inferred_graph(name) not in listed:
            with_inferred.append(minter.inferred_graph(name))
    return with_inferred


def export_quads(store: Store, fmt: str, *, source: str | None = None, base_iri: str | None = None) -> Iterator[Quad]:
    with_inferred = fmt != "owl"
    graphs = source_graphs(store, source, base_iri=base_iri, inferred=with_inferred)
    yield from ontology_quads()
    if fmt == "nq":
        yield from _meta_quads(store, base_iri)
    yield from graph_statements(store, graphs)  # a source's statements in either store layout


def _meta_quads(store: Store, base_iri: str | None) -> Iterator[Quad]:
    """The sources' descriptions and the class counts: the ``nq`` dump is the whole dataset."""
    minter = IriMinter(base_iri)
    present = store.named_graphs()
    yield from store.quads([g for g in (minter.meta_graph, minter.counts_graph) if g in present])


def _unique_triples(quads: Iterator[Quad]) -> Iterator[Triple]:
    seen: set[Triple] = set()
    for quad in quads:
        triple = quad.triple
        if triple not in seen:
            seen.add(triple)
            yield triple


_RDF_TYPE = NamedNode(RDF_IRI + "type")
_NAMED_INDIVIDUAL = NamedNode(OWL_IRI + "NamedIndividual")


def protege_triples(triples: Iterator[Triple]) -> Iterator[Triple]:
    """The triples of the ``owl`` export: individuals declared, literals in the OWL 2 datatype map."""
    declared: set[NamedNode] = set()
    for triple in triples:
        subject = triple.subject
        if (
            triple.predicate == _RDF_TYPE
            and isinstance(subject, NamedNode)
            and subject not in declared
            and text_of(triple.object).startswith(CP_IRI)
            and not subject.value.startswith(CP_IRI)
        ):
            declared.add(subject)
            yield Triple(subject, _RDF_TYPE, _NAMED_INDIVIDUAL)
        yield from reasoner_copy([triple])[0]


def write_export(
    store: Store, fmt: str, output: BinaryIO, *, source: str | None = None, base_iri: str | None = None
) -> None:
    rdf_format = FORMATS[fmt]
    quads = export_quads(store, fmt, source=source, base_iri=base_iri)
    triples = _unique_triples(quads)  # one graph document, unless N-Quads
    data = quads if fmt == "nq" else protege_triples(triples) if fmt == "owl" else triples
    prefixes = dict(PREFIXES)
    prefixes["kb"] = IriMinter(base_iri).base
    serialize(data, output, rdf_format, prefixes=prefixes if fmt in ("owl", "ttl") else None)
