"""The theme classes: how many positions each holds, the tree of them, and one page of a class's
members.

Class counts are the ones the importer keeps after every write (``kb.store.class_counts``): a
position's superclasses are in the store (the ``/inferred`` graphs), so a class's count includes
its subclasses. The class page and its "Next exercise" (``service.next_exercise``) cut the members
with the same query, so the next exercise is the next card.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

from flask import current_app, request, url_for

from chesskb.kb.analysis.themes import PARENT, type_position
from chesskb.kb.store.class_counts import stored_counts
from chesskb.kb.vocab import ADDED_THEME_CLASSES, CP, ORIGINAL_CLASSES

from . import context
from .errors import ServiceError
from .links import class_label, link_for
from .rows import reader, select

PAGE_SIZE = 24
THEME_NAMES = ("Position",) + tuple(PARENT)


CLASS_COUNTS = """SELECT ?class (COUNT(?p) AS ?n) WHERE { ?p a ?class } GROUP BY ?class"""
COUNTS_TTL = 30.0  # seconds live counts of an older store are reused


def class_counts() -> dict[str, int]:
    """Positions per theme class, subclasses included (inferred superclass types are stored).

    The importer keeps these numbers after every write (``kb.store.class_counts``), so this is one
    lookup. A store written before that is counted here, and the count reused for 30 s.
    Only theme classes are kept, and only positions are members of theme classes."""
    stored = stored_counts(reader())
    if stored is not None:
        return {name: n for name, n in stored.items() if name in THEME_NAMES}
    cache = current_app.extensions.setdefault("chesskb.class_counts", {})
    if cache and time.monotonic() - cache["at"] < COUNTS_TTL:
        return cache["counts"]
    counts = {CP.name_of(row["class"]): int(row["n"]) for row in select(CLASS_COUNTS)
              if CP.name_of(row["class"]) in THEME_NAMES}
    cache.update(at=time.monotonic(), counts=counts)
    return counts


def class_count(name: str) -> int:
    """One class's count: the stored counts, else the tree's when fresh, else one COUNT of that class."""
    stored = stored_counts(reader())
    if stored is not None:
        return stored.get(name, 0)
    cache = current_app.extensions.get("chesskb.class_counts")
    if cache and time.monotonic() - cache["at"] < COUNTS_TTL:
        return cache["counts"].get(name, 0)
    rows = select("SELECT ?class (COUNT(?p) AS ?n) WHERE { ?p a ?class } GROUP BY ?class",
                 **{"class": CP.term(name)})
    return int(rows[0]["n"]) if rows else 0


def class_tree() -> dict[str, Any]:
    counts = class_counts()
    children: dict[str, list[str]] = defaultdict(list)
    for child, parent in PARENT.items():
        children[parent].append(child)
    order = {name: i for i, name in enumerate(ORIGINAL_CLASSES + tuple(ADDED_THEME_CLASSES))}

    def node(name: str) -> dict[str, Any]:
        return {"name": name, "label": class_label(name), "count": counts.get(name, 0),
                "url": link_for(CP.term(name).value),
                "original": name in ORIGINAL_CLASSES, "typePosition": type_position(name),
                "children": [node(c) for c in sorted(children.get(name, []), key=lambda c: order.get(c, 999))]}

    return node("Position")


# The page is cut from the type index alone (subquery), then only its 24 members are joined with their
# FEN and label: OFFSET over the joined rows cost 6 s for the last page of 100k positions, this 80 ms.
#: One page of a class's members in the store's index order: the class page and its "Next exercise"
#: (``service.next_exercise``) cut the same list, so the next exercise is the next card.
CLASS_MEMBER_PAGE = "SELECT ?class ?p WHERE { ?p a ?class } LIMIT %d OFFSET %d"
CLASS_MEMBERS = """SELECT ?class ?p ?label ?fen WHERE {
  { """ + CLASS_MEMBER_PAGE + """ }
  ?p cp:fen ?fen OPTIONAL { ?p rdfs:label ?label } }"""


def class_data(name: str, as_json: bool = False) -> dict[str, Any]:
    """One page of a class's members; ``as_json`` makes the pager's links the JSON twin's."""
    if name not in THEME_NAMES:
        raise ServiceError(404, f"no theme class named {name!r}")
    page = max(request.args.get("page", 1, type=int) or 1, 1)
    total = class_count(name)
    # No ORDER BY: sorting a large class costs seconds; the index order is stable for a given store.
    rows = select(CLASS_MEMBERS % (PAGE_SIZE, (page - 1) * PAGE_SIZE), **{"class": CP.term(name)})
    endpoint = "browse.class_page_json" if as_json else "browse.class_page"
    return {
        "name": name, "iri": CP.term(name).value, "label": class_label(name), "count": total, "page": page,
        "page_size": PAGE_SIZE, "parent": PARENT.get(name),
        "parent_label": class_label(PARENT[name]) if name in PARENT else None,
        "parent_url": link_for(CP.term(PARENT[name]).value) if name in PARENT else None,
        "subclasses": [{"name": c, "label": class_label(c), "url": link_for(CP.term(c).value)}
                       for c, p in PARENT.items() if p == name],
        "positions": [{"iri": r["p"], "label": r["label"] or r["p"], "fen": r["fen"],
                       "url": context.link(r["p"], f"class/{name}", (page - 1) * PAGE_SIZE + k),
                       "board": url_for("pages.board_image", fen=r["fen"], size=160)} for k, r in enumerate(rows)],
        "next": url_for(endpoint, name=name, page=page + 1) if page * PAGE_SIZE < total else None,
        "previous": url_for(endpoint, name=name, page=page - 1) if page > 1 else None,
    }


