"""One resource of the knowledge base as linked data: fetched from the store, written by pyoxigraph.

A page is built from one CONSTRUCT (``queries/internal/page-context.rq``): the resource's own
statements with the labels of what it points to (a concise bounded description with labels, so a
page can name its links), and, for a position or a game, the descriptions of its game, event,
players, board and the game's source records, which the page shows. The answer crosses from the
query worker once as N-Triples and is parsed once by pyoxigraph; the HTML, JSON and RDF views of a
page are built from those triples. The RDF answer is the resource's own description (``PageGraph.own``),
written by pyoxigraph in every format but JSON-LD, which rdflib writes compacted with the project's
prefixes (pyoxigraph writes only expanded JSON-LD).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import rdflib
from pyoxigraph import BlankNode, Literal, NamedNode, RdfFormat, Triple, serialize
from rdflib.plugins.serializers.jsonld import from_rdf

from chesskb.kb.vocab import CP, PREFIXES, RDF_IRI, RDFS_IRI, XSD_IRI

from .negotiation import RDF_FORMATS
from .rows import reader

_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]*$")
RDF_TYPE = RDF_IRI + "type"
RDFS_LABEL = NamedNode(RDFS_IRI + "label")
#: Datatypes a literal has without one written (plain and language-tagged literals): none in the data.
_IMPLICIT_DATATYPES = (XSD_IRI + "string", RDF_IRI + "langString")


def valid_iri(iri: str) -> bool:
    """An absolute IRI that can be written between ``<…>`` in SPARQL (no spaces, quotes, brackets)."""
    return bool(_IRI.match(iri or ""))


def describe(iri: str) -> list[Triple]:
    """The resource's statements and the labels of its objects (empty if unknown)."""
    return reader().triples("describe", {"s": NamedNode(iri)})


def serialise(triples: list[Triple], media_type: str) -> bytes:
    """The triples in one of ``RDF_FORMATS`` (JSON-LD compacted with the project's prefixes)."""
    fmt = RDF_FORMATS[media_type]
    if fmt == RdfFormat.JSON_LD:
        return _compact_json_ld(tuple(triples)).encode("utf-8")
    prefixes = PREFIXES if fmt in (RdfFormat.TURTLE, RdfFormat.RDF_XML) else None
    return serialize(triples, format=fmt, prefixes=prefixes) or b""


#: JSON-LD texts kept (``_compact_json_ld``): a page and its twin in the other language embed the same triples.
JSON_LD_KEPT = 64


@functools.lru_cache(maxsize=JSON_LD_KEPT)
def _compact_json_ld(triples: tuple[Triple, ...]) -> str:
    """JSON-LD with the project's prefixes as its context (``cp:fen``, not the full IRI), which is what
    rdflib is still used for: the triples are handed over term by term, never re-parsed.

    rdflib's serializer lists the nodes in the order of a set of subjects, which follows Python's string
    hash, salted anew in each process: the same page would be other bytes in each run (a static site
    rebuilt from one store would differ everywhere). The nodes are therefore ordered by ``@id`` here, and
    written as rdflib's serializer writes them (two-space indent, sorted keys, UTF-8 kept)."""
    graph = rdflib.Graph(bind_namespaces="none")  # the context given names the prefixes; bindings go unread
    for triple in triples:
        graph.add((_rdflib_term(triple.subject), rdflib.URIRef(triple.predicate.value), _rdflib_term(triple.object)))
    document = from_rdf(graph, context_data=dict(PREFIXES), auto_compact=True)
    nodes = document.get("@graph")  # absent when the page has one node
    if nodes is not None:
        nodes.sort(key=lambda node: node.get("@id", ""))
    return json.dumps(document, indent=2, separators=(",", ": "), sort_keys=True, ensure_ascii=False)


def _rdflib_term(term: Any) -> Any:
    if isinstance(term, NamedNode):
        return rdflib.URIRef(term.value)
    if isinstance(term, BlankNode):
        return rdflib.BNode(term.value)
    datatype = _datatype(term)
    return rdflib.Literal(term.value, lang=term.language, datatype=rdflib.URIRef(datatype) if datatype else None)


def _text(term: NamedNode | BlankNode | Literal | Triple) -> str:
    """A term's text: an IRI, a blank node's id, a literal's lexical form (a quoted triple, which the
    data never holds, as N-Triples writes it)."""
    return str(term) if isinstance(term, Triple) else term.value


def _datatype(literal: Literal) -> str | None:
    """A literal's written datatype: None for plain and language-tagged literals."""
    datatype = literal.datatype.value
    return None if literal.language or datatype in _IMPLICIT_DATATYPES else datatype


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
        return {
            k: v
            for k, v in (("value", self.text), ("iri", self.iri), ("lang", self.lang), ("datatype", self.datatype))
            if v is not None
        }


@dataclass
class Resource:
    """A resource's description as the pages use it: label, classes, properties by name."""

    iri: str
    label: str
    types: list[str] = field(default_factory=list)  # class IRIs
    values: dict[str, list[Value]] = field(default_factory=dict)  # property IRI -> objects
    labels: dict[str, str] = field(default_factory=dict)  # object IRI -> label
    graph: PageGraph | None = field(default=None, repr=False, compare=False)  # the page it was read from

    def get(self, prop: str) -> list[Value]:
        return self.values.get(CP.term(prop).value if ":" not in prop else prop, [])

    def first(self, prop: str) -> str | None:
        found = self.get(prop)
        return found[0].text if found else None

    def links(self, prop: str) -> list[str]:
        return [v.iri for v in self.get(prop) if v.iri]

    def linked(self, iri: str, lang: str) -> Resource | None:
        """A resource this one links to, as its page's graph describes it (its own statements, without
        the inverse links to every game), or None when the graph says nothing of it."""
        return self.graph.resource(iri, lang) if self.graph is not None else None

    def first_linked(self, prop: str, lang: str) -> Resource | None:
        """The first resource this one links to by ``prop`` (``linked``), or None."""
        links = self.links(prop)
        return self.linked(links[0], lang) if links else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "iri": self.iri,
            "label": self.label,
            "types": self.types,
            "properties": {prop: [v.as_dict() for v in values] for prop, values in self.values.items()},
        }


def pick_label(labels: Iterable[Literal], lang: str) -> str | None:
    """The label in ``lang``, else one without language, else English, else any; among several (a player
    two sources name "Karpov, Anatoly" and "Anatoly Karpov") the first in code-point order, so the choice
    never depends on the order a store or a parser lists them in."""
    found = list(labels)
    for wanted in (lang, None, "en"):
        candidates = [label.value for label in found if label.language == wanted]
        if candidates:
            return min(candidates)
    return min(label.value for label in found) if found else None


def short_name(iri: str) -> str:
    """Prefixed form of an IRI (``cp:fen``) when a known prefix matches, else the IRI."""
    for prefix, namespace in PREFIXES.items():
        if iri.startswith(namespace) and len(iri) > len(namespace):
            return f"{prefix}:{iri[len(namespace) :]}"
    return iri


@dataclass
class PageGraph:
    """The triples a page is built from (``queries/internal/page-context.rq``), each once."""

    iri: str
    triples: list[Triple]

    def __post_init__(self) -> None:
        self.triples = list(dict.fromkeys(self.triples))  # one solution per label repeats a statement
        self._by_subject: dict[Any, list[Triple]] = {}
        for triple in self.triples:
            self._by_subject.setdefault(triple.subject, []).append(triple)

    def about(self, subject: Any) -> list[Triple]:
        return self._by_subject.get(subject, [])

    def labels_of(self, node: Any) -> list[Literal]:
        return [t.object for t in self.about(node) if t.predicate == RDFS_LABEL and isinstance(t.object, Literal)]

    def own(self) -> list[Triple]:
        """The page resource's description, what its RDF answer holds: its statements and the labels
        of the IRIs it points to (``queries/internal/describe.rq``)."""
        own = self.about(NamedNode(self.iri))
        objects = {t.object for t in own if isinstance(t.object, NamedNode)}
        return own + [t for t in self.triples if t.subject in objects and t.predicate == RDFS_LABEL]

    def resource(self, iri: str, lang: str) -> Resource | None:
        """``iri`` as the page uses it, or None when the graph holds no statement about it."""
        subject = NamedNode(iri)
        statements = self.about(subject)
        if not statements:
            return None
        labels: dict[str, str] = {}
        for node in {t.object for t in statements if isinstance(t.object, NamedNode)}:
            label = pick_label(self.labels_of(node), lang)
            if label is not None:
                labels[node.value] = label
        own = pick_label(self.labels_of(subject), lang)
        resource = Resource(iri=iri, label=own or short_name(iri), labels=labels, graph=self)
        for triple in sorted(statements, key=lambda t: (t.predicate.value, _text(t.object))):
            prop, obj = triple.predicate.value, triple.object
            if prop == RDF_TYPE:
                resource.types.append(_text(obj))
                continue
            if isinstance(obj, Literal):
                value = Value(obj.value, lang=obj.language, datatype=_datatype(obj))
            else:
                value = Value(labels.get(_text(obj), short_name(_text(obj))), iri=_text(obj))
            resource.values.setdefault(prop, []).append(value)
        return resource


def load(iri: str, lang: str) -> tuple[Resource, PageGraph] | None:
    """The resource and its page's graph, or None when the store says nothing about ``iri``: one
    query, whatever the page shows of the things it links to."""
    graph = PageGraph(iri, reader().triples("page-context", {"s": NamedNode(iri)}))
    resource = graph.resource(iri, lang)
    return None if resource is None else (resource, graph)


def kind_of(resource: Resource) -> str | None:
    """The page kind a resource gets: position, match, player, event, source, or None (generic)."""
    names = {name for t in resource.types if (name := CP.name_of(t)) is not None}
    for kind, cls in (
        ("position", "Position"),
        ("match", "Match"),
        ("player", "Player"),
        ("event", "Event"),
        ("source", "Source"),
    ):
        if cls in names:
            return kind
    return None
