"""Content negotiation shared by ``/sparql`` and every page: one function picks the format.

``choose(offered, default)`` honours q-values in ``Accept`` (werkzeug parses them), a ``format``
query parameter (SPARQLWrapper also sends ``output``/``results``), and a file suffix on the path
(``.json``, ``.ttl`` …) — in that order of strength: suffix, parameter, header.
"""

from __future__ import annotations

from flask import request

#: Short names clients use in ?format= (SPARQLWrapper, Fuseki, Virtuoso) -> media type.
FORMAT_ALIASES: dict[str, str] = {
    "json": "application/sparql-results+json",
    "xml": "application/sparql-results+xml",
    "csv": "text/csv",
    "tsv": "text/tab-separated-values",
    "turtle": "text/turtle",
    "ttl": "text/turtle",
    "n3": "text/turtle",
    "rdf": "application/rdf+xml",
    "rdfxml": "application/rdf+xml",
    "rdf+xml": "application/rdf+xml",
    "nt": "application/n-triples",
    "ntriples": "application/n-triples",
    "n-triples": "application/n-triples",
    "jsonld": "application/ld+json",
    "json-ld": "application/ld+json",
    "html": "text/html",
}


def requested_alias() -> str | None:
    for name in ("format", "output", "results"):
        value = request.values.get(name)
        if value:
            return value.strip().lower()
    return None


def _named(name: str, offered: list[str]) -> str | None:
    """The offered media type a short name (``json``, ``ttl`` …) or a media type names, if any:
    ``json`` is SPARQL results JSON where those are offered, else plain JSON."""
    media = FORMAT_ALIASES.get(name, name)
    if media in offered:
        return media
    if name == "json" and "application/json" in offered:
        return "application/json"
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
    best = request.accept_mimetypes.best_match(offered)
    if best is None or (request.accept_mimetypes.best == "*/*" and default in offered):
        return default
    return best


def acceptable(offered: list[str]) -> bool:
    """Whether the client takes one of ``offered`` (by ``Accept`` or a known ``format`` parameter);
    no ``Accept`` header means anything goes."""
    alias = requested_alias()
    if alias and _named(alias, offered):
        return True
    return request.accept_mimetypes.best_match(offered) is not None or not request.accept_mimetypes
