"""One resource of the knowledge base as linked data: fetched from the store, serialised by rdflib.

A resource's description is its own statements plus the labels of what it points to (a concise
bounded description with labels, so a page can name its links). The store answers one CONSTRUCT;
rdflib holds the result and writes every RDF format, so HTML, JSON and RDF views of a page are
built from the same graph.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import rdflib
from flask import current_app
from pyoxigraph import NamedNode, RdfFormat, serialize

from chesskb.kb.vocab import CP, PREFIXES, RDF_IRI, RDFS_IRI

DESCRIBE = """CONSTRUCT { ?s ?p ?o . ?o rdfs:label ?label }
WHERE { ?s ?p ?o OPTIONAL { FILTER(isIRI(?o)) ?o rdfs:label ?label } }"""
#: The same without the inverse links a player or event has to every game (thousands for a club
#: player): what a position page needs of the things it links to.
DESCRIBE_OWN = """CONSTRUCT { ?s ?p ?o . ?o rdfs:label ?label }
WHERE { ?s ?p ?o FILTER(?p NOT IN (cp:whitePlayerOf, cp:blackPlayerOf, cp:eventOf, cp:boardOf, cp:hasPosition))
        OPTIONAL { FILTER(isIRI(?o)) ?o rdfs:label ?label } }"""

#: Media type -> rdflib serialiser name, for the formats every page is offered in.
RDF_FORMATS: dict[str, str] = {
    "text/turtle": "turtle",
    "application/rdf+xml": "xml",
    "application/ld+json": "json-ld",
    "application/n-triples": "nt",
}

_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]*$")
RDF_TYPE = RDF_IRI + "type"
RDFS_LABEL = RDFS_IRI + "label"


def valid_iri(iri: str) -> bool:
    """An absolute IRI that can be written between ``<…>`` in SPARQL (no spaces, quotes, brackets)."""
    return bool(_IRI.match(iri or ""))


def store():
    """What pages read through: the executor's pages lane (time limit, size bound, fairness)."""
    return current_app.extensions["chesskb.reader"]


def describe_graph(iri: str, *, inverse: bool = True) -> rdflib.Graph:
    """The resource's statements and the labels of its objects, as an rdflib graph (empty if unknown)."""
    result = store().query(DESCRIBE if inverse else DESCRIBE_OWN, bindings={"s": NamedNode(iri)})
    data = serialize(result, format=RdfFormat.N_TRIPLES)
    graph = rdflib.Graph()
    for prefix, namespace in PREFIXES.items():
        graph.bind(prefix, namespace)
    if data:
        graph.parse(data=data.decode("utf-8"), format="nt")
    return graph


def serialise(graph: rdflib.Graph, media_type: str) -> str:
    """The graph in one of ``RDF_FORMATS`` (JSON-LD compacted with the project's prefixes)."""
    fmt = RDF_FORMATS[media_type]
    if fmt == "json-ld":
        return graph.serialize(format="json-ld", context=dict(PREFIXES), auto_compact=True)
    return graph.serialize(format=fmt)


def script_json(text: str) -> str:
    """JSON text safe inside ``<script>``: ``<``, ``>`` and ``&`` written as JSON escapes, so neither
    ``</script>`` nor ``<!--`` in a value can end or change the script element."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def script_data(value: Any) -> str:
    return script_json(json.dumps(value, ensure_ascii=False))


# --- a resource as plain data for templates and .json twins ----------------------------------

@dataclass
class Value:
    """One object of a statement: a link (``iri`` set) or a literal (``lang``/``datatype``)."""

    text: str
    iri: str | None = None
    lang: str | None = None
    datatype: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in (("value", self.text), ("iri", self.iri), ("lang", self.lang),
                                  ("datatype", self.datatype)) if v is not None}


@dataclass
class Resource:
    """A resource's description as the pages use it: label, classes, properties by name."""

    iri: str
    label: str
    types: list[str] = field(default_factory=list)          # class IRIs
    values: dict[str, list[Value]] = field(default_factory=dict)  # property IRI -> objects
    labels: dict[str, str] = field(default_factory=dict)    # object IRI -> label

    def get(self, prop: str) -> list[Value]:
        return self.values.get(CP.term(prop).value if ":" not in prop else prop, [])

    def first(self, prop: str) -> str | None:
        found = self.get(prop)
        return found[0].text if found else None

    def links(self, prop: str) -> list[str]:
        return [v.iri for v in self.get(prop) if v.iri]

    def as_dict(self) -> dict[str, Any]:
        return {
            "iri": self.iri,
            "label": self.label,
            "types": self.types,
            "properties": {prop: [v.as_dict() for v in values] for prop, values in self.values.items()},
        }


def pick_label(labels: Iterable[rdflib.Literal], lang: str) -> str | None:
    """The label in ``lang``, else one without language, else English, else any."""
    found = list(labels)
    for wanted in (lang, None, "en"):
        for label in found:
            if label.language == wanted:
                return str(label)
    return str(found[0]) if found else None


def short_name(iri: str) -> str:
    """Prefixed form of an IRI (``cp:fen``) when a known prefix matches, else the IRI."""
    for prefix, namespace in PREFIXES.items():
        if iri.startswith(namespace) and len(iri) > len(namespace):
            return f"{prefix}:{iri[len(namespace):]}"
    return iri


def resource_from_graph(iri: str, graph: rdflib.Graph, lang: str) -> Resource:
    subject = rdflib.URIRef(iri)
    labels: dict[str, str] = {}
    for node in set(graph.objects(subject, None)):
        if isinstance(node, rdflib.URIRef):
            label = pick_label(graph.objects(node, rdflib.RDFS.label), lang)
            if label is not None:
                labels[str(node)] = label
    own = pick_label(graph.objects(subject, rdflib.RDFS.label), lang)
    resource = Resource(iri=iri, label=own or short_name(iri), labels=labels)
    for prop, obj in sorted(graph.predicate_objects(subject), key=lambda po: (str(po[0]), str(po[1]))):
        if str(prop) == RDF_TYPE:
            resource.types.append(str(obj))
            continue
        if isinstance(obj, rdflib.Literal):
            value = Value(str(obj), lang=obj.language, datatype=str(obj.datatype) if obj.datatype else None)
        else:
            value = Value(labels.get(str(obj), short_name(str(obj))), iri=str(obj))
        resource.values.setdefault(str(prop), []).append(value)
    return resource


def load(iri: str, lang: str, *, inverse: bool = True) -> tuple[Resource, rdflib.Graph] | None:
    """The resource and its graph, or None when the store says nothing about ``iri``."""
    graph = describe_graph(iri, inverse=inverse)
    if (rdflib.URIRef(iri), None, None) not in graph:
        return None
    return resource_from_graph(iri, graph, lang), graph


def kind_of(resource: Resource) -> str | None:
    """The page kind a resource gets: position, match, player, event, source, or None (generic)."""
    names = {name for t in resource.types if (name := CP.name_of(t)) is not None}
    for kind, cls in (("position", "Position"), ("match", "Match"), ("player", "Player"),
                      ("event", "Event"), ("source", "Source")):
        if cls in names:
            return kind
    return None

