"""Rebuild ``chessposition.owl`` (RDF/XML) from the authored ``chessposition.ttl``.

Turtle is the file people edit; RDF/XML is what owlready2 and Protégé load (owlready2 cannot read
Turtle). Run ``python -m chesskb.ontology.build`` after editing the Turtle; a test fails while the
``.owl`` is stale, and ``python -m chesskb.ontology.build --check`` says so without writing.

The writer is small and deterministic on purpose: rdflib's RDF/XML serialisers order subjects by
hash, and canonical blank-node labelling can merge look-alike blank nodes (the two
``Position ⊔ Match`` unions). Here every entity is one typed node element, entities and their
statements are sorted, and blank nodes (unions, lists, the disjointness axiom) are written
nested, so the same Turtle always gives the same bytes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import cast
from xml.sax.saxutils import escape, quoteattr

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF
from rdflib.term import Node

HERE = Path(__file__).resolve().parent
TTL_PATH = HERE / "chessposition.ttl"
OWL_PATH = HERE / "chessposition.owl"

#: Prefixes written as XML namespaces, in this order.
PREFIXES: dict[str, str] = {
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "dcterms": "http://purl.org/dc/terms/",
    "cp": "http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#",
}

#: Node element used for a subject, by its rdf:type, and the order of the sections in the file.
_SECTIONS: tuple[URIRef, ...] = (
    OWL.Ontology,
    OWL.AnnotationProperty,
    OWL.ObjectProperty,
    OWL.DatatypeProperty,
    OWL.Class,
    OWL.AllDisjointClasses,
)


def _qname(iri: URIRef) -> str:
    for prefix, base in PREFIXES.items():
        if iri.startswith(base) and iri[len(base) :].replace("_", "a").isalnum():
            return f"{prefix}:{iri[len(base) :]}"
    raise ValueError(f"no XML qualified name for predicate or type {iri}")


def _primary_type(graph: Graph, node: Node) -> URIRef | None:
    types = set(graph.objects(node, RDF.type))
    return next((t for t in _SECTIONS if t in types), None)


class _Writer:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.lines: list[str] = []

    def node(self, subject: Node, indent: int) -> None:
        """One node element: ``<owl:Class rdf:about="...">`` with its statements inside."""
        pad = "  " * indent
        kind = _primary_type(self.graph, subject)
        tag = _qname(kind) if kind is not None else "rdf:Description"
        about = f" rdf:about={quoteattr(str(subject))}" if isinstance(subject, URIRef) else ""
        statements = sorted(
            (
                (cast(URIRef, p), o)
                for p, o in self.graph.predicate_objects(subject)  # a predicate is always an IRI
                if not (p == RDF.type and o == kind)
            ),
            key=lambda po: (_qname(po[0]), self._key(po[1])),
        )
        if not statements:
            self.lines.append(f"{pad}<{tag}{about}/>")
            return
        self.lines.append(f"{pad}<{tag}{about}>")
        for predicate, obj in statements:
            self.statement(predicate, obj, indent + 1)
        self.lines.append(f"{pad}</{tag}>")

    def statement(self, predicate: URIRef, obj: Node, indent: int) -> None:
        pad = "  " * indent
        name = _qname(predicate)
        if isinstance(obj, Literal):
            attrs = ""
            if obj.language:
                attrs = f" xml:lang={quoteattr(obj.language)}"
            elif obj.datatype is not None:
                attrs = f" rdf:datatype={quoteattr(str(obj.datatype))}"
            self.lines.append(f"{pad}<{name}{attrs}>{escape(str(obj))}</{name}>")
        elif isinstance(obj, URIRef):
            self.lines.append(f"{pad}<{name} rdf:resource={quoteattr(str(obj))}/>")
        elif (obj, RDF.first, None) in self.graph or obj == RDF.nil:
            self.lines.append(f'{pad}<{name} rdf:parseType="Collection">')
            for member in self.graph.items(obj):
                if isinstance(member, URIRef):
                    self.lines.append(f"{pad}  <rdf:Description rdf:about={quoteattr(str(member))}/>")
                else:
                    self.node(member, indent + 1)
            self.lines.append(f"{pad}</{name}>")
        else:
            self.lines.append(f"{pad}<{name}>")
            self.node(obj, indent + 1)
            self.lines.append(f"{pad}</{name}>")

    def _key(self, node: Node) -> str:
        """A sort key that does not depend on blank-node labels."""
        if isinstance(node, Literal):
            return f"{node.language or ''}|{node.datatype or ''}|{node}"
        if not isinstance(node, BNode):
            return node.n3()
        saved, self.lines = self.lines, []
        self.node(node, 0)
        text, self.lines = "\n".join(self.lines), saved
        return "~" + text


def to_rdfxml(turtle: str) -> str:
    """The RDF/XML text for a Turtle document, always the same for the same graph."""
    graph = Graph()
    graph.parse(data=turtle, format="turtle")
    writer = _Writer(graph)
    out = writer.lines
    out.append('<?xml version="1.0" encoding="utf-8"?>')
    out.append("<!-- Generated from chessposition.ttl by `python -m chesskb.ontology.build`; do not edit. -->")
    out.append("<rdf:RDF")
    for prefix, base in PREFIXES.items():
        out.append(f"    xmlns:{prefix}={quoteattr(base)}")
    out.append(">")
    top = [s for s in set(graph.subjects()) if isinstance(s, URIRef) or not any(graph.subjects(None, s))]
    unknown = [s for s in top if _primary_type(graph, s) is None]
    if unknown:
        raise ValueError(f"subjects without an OWL type: {sorted(map(str, unknown))}")
    top.sort(key=lambda s: (_SECTIONS.index(_primary_type(graph, s)), writer._key(s)))
    section = None
    for subject in top:
        kind = _primary_type(graph, subject)
        assert kind is not None  # every subject without a type was refused above
        if kind != section:
            section = kind
            out.append("")
            out.append(f"  <!-- {_qname(kind)} -->")
        writer.node(subject, 1)
    out.append("</rdf:RDF>")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Rewrite the .owl from the .ttl (or, with --check, only report whether it is stale)."""
    parser = argparse.ArgumentParser(description="Build ontology/chessposition.owl from the Turtle.")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if the .owl is out of date instead of rewriting it"
    )
    args = parser.parse_args(argv)
    text = to_rdfxml(TTL_PATH.read_text(encoding="utf-8"))
    current = OWL_PATH.read_text(encoding="utf-8") if OWL_PATH.exists() else None
    if current == text:
        return 0
    if args.check:
        print(f"{OWL_PATH.name} is stale: run python -m chesskb.ontology.build", file=sys.stderr)
        return 1
    OWL_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {OWL_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
