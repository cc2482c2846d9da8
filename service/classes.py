"""The theme classes: how many positions each holds, the tree of them, and one page of a class's
members.

Class counts are the ones the importer keeps after every write (``queries.class_counts``): a
position's superclasses are in the store (the ``/inferred`` graphs), so a class's count includes
its subclasses. The class page and its "Next exercise" (``service.next_exercise``) cut the members
from the same list (``queries/internal/class-member-page.rq``), so the next exercise is the next card.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from flask import current_app, request, url_for

from chesskb.kb.analysis.claims import MATE_CLAIM_CLASSES
from chesskb.kb.analysis.themes import PARENT, type_position
from chesskb.kb.vocab import ADDED_THEME_CLASSES, CP, ORIGINAL_CLASSES
from chesskb.queries.class_counts import count_members, stored_counts

from . import context
from .claims import claim_view
from .errors import ServiceError
from .i18n import current_lang
from .links import class_label, link_for
from .rows import named, reader
from .titles import titles_of

PAGE_SIZE = 24
THEME_NAMES = ("Position", *tuple(PARENT))


COUNTS_TTL = 30.0  # seconds live counts of an older store are reused


@dataclass(frozen=True)
class _LiveCounts:
    """Counts of a store written before the importer kept them, and when they were made."""

    at: float
    counts: dict[str, int]


def member_counts() -> dict[str, int]:
    """Members per counted class by the one rule of ``queries.class_counts.member_counts``, read
    through the pages lane. The importer keeps these numbers after every write, so this is one
    lookup; a store written before that is counted (by the same rule) and the count reused for
    COUNTS_TTL seconds."""
    stored = stored_counts(reader())
    if stored is not None:
        return stored
    live: _LiveCounts | None = current_app.extensions.get("chesskb.class_counts")  # Flask's extensions are untyped
    if live is None or time.monotonic() - live.at >= COUNTS_TTL:
        live = current_app.extensions["chesskb.class_counts"] = _LiveCounts(time.monotonic(), count_members(reader()))
    return live.counts


def class_counts() -> dict[str, int]:
    """Positions per theme class, subclasses included (inferred superclass types are stored).
    Only positions are members of theme classes."""
    return {name: n for name, n in member_counts().items() if name in THEME_NAMES}


def class_count(name: str) -> int:
    """One class's count."""
    return member_counts().get(name, 0)


def class_tree() -> dict[str, Any]:
    counts = class_counts()
    children: dict[str, list[str]] = defaultdict(list)
    for child, parent in PARENT.items():
        children[parent].append(child)
    order = {name: i for i, name in enumerate(ORIGINAL_CLASSES + tuple(ADDED_THEME_CLASSES))}

    def node(name: str) -> dict[str, Any]:
        return {
            "name": name,
            "label": class_label(name),
            "count": counts.get(name, 0),
            "url": link_for(CP.term(name).value),
            "original": name in ORIGINAL_CLASSES,
            "typePosition": type_position(name),
            "children": [node(c) for c in sorted(children.get(name, []), key=lambda c: order.get(c, 999))],
        }

    return node("Position")


def _one_row_each(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first row of each member, in the page's order: a position with two FENs (merged from two
    sources) is one member, and the page is cut before they are joined."""
    first: dict[str, dict[str, Any]] = {}
    for row in rows:
        first.setdefault(row["p"], row)
    return list(first.values())


def class_data(name: str, as_json: bool = False) -> dict[str, Any]:
    """One page of a class's members; ``as_json`` makes the pager's links the JSON twin's."""
    if name not in THEME_NAMES:
        raise ServiceError(404, f"no theme class named {name!r}")
    page = max(request.args.get("page", 1, type=int) or 1, 1)
    total = class_count(name)
    # the same list "Next exercise" cuts (service.next_exercise): see queries/internal/class-members.rq
    rows = _one_row_each(named("class-members", limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE, **{"class": name}))
    lang = current_lang()
    # on its class's page a member is named by where it comes from: the class is the page's title
    titles = titles_of((r["p"] for r in rows), lang, themed=False)
    endpoint = "browse.class_page_json" if as_json else "browse.class_page"
    return {
        "name": name,
        "iri": CP.term(name).value,
        "label": class_label(name),
        "count": total,
        "page": page,
        "page_size": PAGE_SIZE,
        "parent": PARENT.get(name),
        "parent_label": class_label(PARENT[name]) if name in PARENT else None,
        "parent_url": link_for(CP.term(PARENT[name]).value) if name in PARENT else None,
        "subclasses": [
            {"name": c, "label": class_label(c), "url": link_for(CP.term(c).value)}
            for c, p in PARENT.items()
            if p == name
        ],
        "positions": [
            {
                "iri": r["p"],
                "label": titles.get(r["p"], r["p"]),
                "fen": r["fen"],
                "url": context.link(r["p"], f"class/{name}", (page - 1) * PAGE_SIZE + k),
                "board": url_for("pages.board_image", fen=r["fen"], size=160),
            }
            for k, r in enumerate(rows)
        ],
        "next": url_for(endpoint, name=name, page=page + 1) if page * PAGE_SIZE < total else None,
        "previous": url_for(endpoint, name=name, page=page - 1) if page > 1 else None,
        "claimed": claimed_unproven(name),
    }


def claimed_unproven(name: str) -> list[dict[str, Any]]:
    """Positions a source claims for the mate class ``name`` that no proof decided: shown apart from the
    members, never counted among them (at most the query's LIMIT, 100). Refuted claims are not listed."""
    if name not in MATE_CLAIM_CLASSES:
        return []
    rows, lang = named("class-claimed", claimed=name + " "), current_lang()
    titles = titles_of((r["p"] for r in rows), lang)
    return [
        {
            "iri": r["p"],
            "label": titles.get(r["p"], r["p"]),
            "fen": r["fen"],
            "url": link_for(r["p"]),
            "claim": claim_view(r["status"], lang),
            "board": url_for("pages.board_image", fen=r["fen"], size=160),
        }
        for r in rows
    ]
