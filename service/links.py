"""What the pages call things and where their links go: one place for both.

``link_for`` sends a theme class to its class page and anything else to its resource page;
``prop_label`` names an ontology term in the page's language (the ontology carries both languages);
``opening_title`` names an opening as a game's tags do. Every listing, page and template uses these,
so a link or a label is made one way.
"""

from __future__ import annotations

from flask import current_app, url_for
from pyoxigraph import NamedNode

from chesskb.kb.analysis.themes import PARENT
from chesskb.kb.store.results import solutions
from chesskb.kb.vocab import CP, ONTOLOGY_IRI

from .i18n import current_lang
from .resources import short_name
from .rows import reader

#: The theme classes that have a class page (``/class/<name>``).
THEME_CLASS_NAMES = frozenset(PARENT) | {"Position"}


def term_labels(lang: str) -> dict[str, str]:
    """rdfs:label of every ontology term in ``lang`` (English fallback), read once per app."""
    cache: dict[str, dict[str, str]] = current_app.extensions.setdefault("chesskb.term_labels", {})
    if lang not in cache:
        rows = solutions(reader().named("term-labels", {"ontology": NamedNode(ONTOLOGY_IRI)}))
        found: dict[str, dict[str, str]] = {}
        for row in rows:
            found.setdefault(row["term"].value, {})[row["label"].language or ""] = row["label"].value
        cache[lang] = {
            term: by_lang.get(lang) or by_lang.get("en") or by_lang.get("") or next(iter(by_lang.values()))
            for term, by_lang in found.items()
        }
    return cache[lang]


def link_for(iri: str | None) -> str | None:
    """Where a link to ``iri`` goes: a theme class to its class page, anything else to its page (in
    this request's language: ``url_for`` adds it, ``service.i18n``)."""
    if not iri:
        return None
    if CP.name_of(iri) in THEME_CLASS_NAMES:
        return url_for("browse.class_page", name=CP.name_of(iri))
    return url_for("pages.page", iri=iri)


def prop_label(iri: str, lang: str) -> str:
    """An ontology term's label in ``lang``, else its short name."""
    return term_labels(lang).get(iri) or short_name(iri)


def class_label(name: str) -> str:
    """The label of the ontology class ``cp:<name>`` in this request's language."""
    return prop_label(CP.term(name).value, current_lang())


def opening_title(eco: str | None, opening: str | None, variation: str | None) -> str:
    """An opening as the game's tags name it: ``C84 Ruy Lopez, Apertura Española`` (ECO, Opening, Variation;
    seed 001's files give the Spanish name as the variation). Empty when no tag names it."""
    name = ", ".join(v for v in (opening, variation) if v and v.strip() not in ("?", ""))
    return " ".join(v for v in (eco, name) if v and v.strip() not in ("?", ""))
