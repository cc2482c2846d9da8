"""Content negotiation shared by ``/sparql`` and every page: one table of formats, one function picks.

``FORMATS`` is the one list of what the service answers in: each format's media type, the pyoxigraph
format that writes it (pyoxigraph also knows its file suffix and display name), the short names
clients use in ``?format=``, other media types clients send for it, and its name in the W3C formats
namespace. Every other table (``RDF_FORMATS``, ``RESULT_FORMATS``, ``FORMAT_ALIASES``, the suffixes a
dereferenced IRI may end in) is read off it.

``choose(offered, default)`` honours q-values in ``Accept`` (werkzeug parses them), a ``format``
query parameter (SPARQLWrapper also sends ``output``/``results``), and a file suffix on the path
(``.json``, ``.ttl`` …) — in that order of strength: suffix, parameter, header.

Flask is imported on use: the query workers (``service.query_runner``) read the table here and start
faster without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyoxigraph import QueryResultsFormat, RdfFormat

if TYPE_CHECKING:
    from flask import Request

HTML = "text/html"
JSON = "application/json"


@dataclass(frozen=True)
class Format:
    """One format the service answers in."""

    media_type: str
    rdf: RdfFormat | None = None  # an RDF graph's format (pages, CONSTRUCT, DESCRIBE)
    results: QueryResultsFormat | None = None  # a SELECT/ASK result's format
    names: tuple[str, ...] = ()  # ?format= names besides the file suffix
    also: tuple[str, ...] = ()  # other media types clients send for it
    w3c: str | None = None  # its name in http://www.w3.org/ns/formats/

    @property
    def suffix(self) -> str | None:
        """The file suffix (without the dot) of an RDF format, as pyoxigraph names it (``ttl`` …)."""
        return self.rdf.file_extension if self.rdf is not None else None

    @property
    def label(self) -> str:
        """What a person calls it (``Turtle``, ``RDF/XML`` …), as pyoxigraph names it."""
        return self.rdf.name if self.rdf is not None else self.media_type


#: Everything the service answers in, results first, then the RDF formats in the order pages list them.
FORMATS: tuple[Format, ...] = (
    Format(
        "application/sparql-results+json",
        results=QueryResultsFormat.JSON,
        names=("json",),
        also=("application/json",),
        w3c="SPARQL_Results_JSON",
    ),
    Format(
        "application/sparql-results+xml",
        results=QueryResultsFormat.XML,
        names=("xml",),
        also=("text/xml", "application/xml"),
        w3c="SPARQL_Results_XML",
    ),
    Format("text/csv", results=QueryResultsFormat.CSV, names=("csv",), w3c="SPARQL_Results_CSV"),
    Format("text/tab-separated-values", results=QueryResultsFormat.TSV, names=("tsv",), w3c="SPARQL_Results_TSV"),
    Format(
        "text/turtle",
        rdf=RdfFormat.TURTLE,
        names=("turtle", "n3"),
        also=("text/n3", "text/rdf+n3", "application/x-turtle"),
        w3c="Turtle",
    ),
    Format(
        "application/rdf+xml",
        rdf=RdfFormat.RDF_XML,
        names=("rdfxml", "rdf+xml"),
        also=("application/xml", "text/xml"),
        w3c="RDF_XML",
    ),
    Format("application/ld+json", rdf=RdfFormat.JSON_LD, names=("json-ld",), also=("application/json",), w3c="JSON-LD"),
    Format(
        "application/n-triples",
        rdf=RdfFormat.N_TRIPLES,
        names=("ntriples", "n-triples"),
        also=("text/plain",),
        w3c="N-Triples",
    ),
    Format(HTML, names=("html",)),
)

#: Media type -> pyoxigraph writer, for graphs: what every page and CONSTRUCT answer is offered in.
RDF_FORMATS: dict[str, RdfFormat] = {f.media_type: f.rdf for f in FORMATS if f.rdf is not None}
#: Media type -> pyoxigraph writer, for SELECT and ASK results.
RESULT_FORMATS: dict[str, QueryResultsFormat] = {f.media_type: f.results for f in FORMATS if f.results is not None}
#: The formats by media type.
BY_MEDIA_TYPE: dict[str, Format] = {f.media_type: f for f in FORMATS}
#: Short names clients use in ?format= (SPARQLWrapper, Fuseki, Virtuoso) and file suffixes -> media type.
FORMAT_ALIASES: dict[str, str] = {
    name: f.media_type for f in FORMATS for name in ((f.suffix,) if f.suffix else ()) + f.names
}
#: The suffixes a dereferenced IRI may end in (``.ttl`` …), and the JSON twin's.
URL_SUFFIXES: tuple[str, ...] = (*(f".{f.suffix}" for f in FORMATS if f.suffix), ".json")


def media_aliases(family: dict[str, Any]) -> dict[str, str]:
    """Other media types clients send -> ours, for one family (``RDF_FORMATS`` or ``RESULT_FORMATS``)."""
    return {other: media for media in family for other in BY_MEDIA_TYPE[media].also}


def _request() -> Request:
    from flask import request

    return request


def requested_alias() -> str | None:
    for name in ("format", "output", "results"):
        value = _request().values.get(name)
        if value:
            return value.strip().lower()
    return None


def _named(name: str, offered: list[str]) -> str | None:
    """The offered media type a short name (``json``, ``ttl`` …) or a media type names, if any:
    ``json`` is SPARQL results JSON where those are offered, else plain JSON."""
    media = FORMAT_ALIASES.get(name, name)
    if media in offered:
        return media
    if name == "json" and JSON in offered:
        return JSON
    return None


def choose(offered: list[str], default: str, *, suffix: str | None = None) -> str:
    """The media type to answer with, among ``offered``."""
    if suffix:
        media = _named(suffix.lower().lstrip("."), offered)
        if media:
            return media
    alias = requested_alias()
    if alias:
        media = _named(alias, offered)
        if media:
            return media
    accept = _request().accept_mimetypes
    best = accept.best_match(offered)
    if best is None or (accept.best == "*/*" and default in offered):
        return default
    return best


def acceptable(offered: list[str]) -> bool:
    """Whether the client takes one of ``offered`` (by ``Accept`` or a known ``format`` parameter);
    no ``Accept`` header means anything goes."""
    alias = requested_alias()
    if alias and _named(alias, offered):
        return True
    accept = _request().accept_mimetypes
    return accept.best_match(offered) is not None or not accept
