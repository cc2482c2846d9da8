"""The next exercise: an exercise page resolves the list it was opened from (its ``from``/``i``,
``service.context``) to the next exercise's link and a link back to the list."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urlencode

from flask import current_app, request, url_for
from pyoxigraph import NamedNode

from chesskb.kb.vocab import CP
from chesskb.queries import load_query

from .classes import CLASS_MEMBER_PAGE, PAGE_SIZE, THEME_NAMES, class_count
from .context import link
from .courses import course_data
from .sparql import run_query

SOURCE_RECORD = """SELECT ?rec ?m ?number WHERE { ?rec cp:gameNumber ?number . ?m dcterms:source ?rec }"""
MATCH_EXERCISES = """SELECT ?m ?pos ?ply WHERE { ?pos cp:hasMatch ?m ; cp:solutionUci ?u
  OPTIONAL { ?pos cp:plyInGame ?ply } } ORDER BY ?ply"""


def _store():
    return current_app.extensions["chesskb.store"]


def _class_next(name: str, index: int) -> str | None:
    rows = list(_store().query(CLASS_MEMBER_PAGE % (1, index + 1), bindings={"class": CP.term(name)}))
    return rows[0]["p"].value if rows else None


def resolve(iri: str) -> dict[str, Any] | None:
    """``{"next": url or None, "back": url, "back_label_key": …, "index": i}`` for this request's
    ``from``/``i``, or None when there is none (or it does not name a list this exercise is in)."""
    context = request.args.get("from") or ""
    try:
        index = int(request.args.get("i", ""))
    except ValueError:
        return None
    if not context or index < 0 or index > 10_000_000:
        return None
    kind, _, rest = context.partition("/")
    try:
        if kind == "class":
            return _resolve_class(rest, index, context)
        if kind == "course":
            return _resolve_course(iri, rest, index, context)
        if kind == "query":
            return _resolve_query(iri, rest, index, context)
        if kind == "source":
            return _resolve_source(iri, rest, index, context)
    except Exception:  # noqa: BLE001 - a stale or hand-edited context only loses the "next" link
        current_app.logger.info("context %r not resolved", context, exc_info=True)
    return None


def _resolve_class(name: str, index: int, context: str) -> dict[str, Any] | None:
    if name not in THEME_NAMES:
        return None
    # past the last member there is nothing to scan for (the stored counts answer without a scan)
    following = _class_next(name, index) if index + 1 < class_count(name) else None
    return {"next": link(following, context, index + 1) if following else None,
            "back": url_for("browse.class_page", name=name, page=index // PAGE_SIZE + 1),
            "back_key": "back_to_class", "index": index}


def _resolve_course(iri: str, rest: str, index: int, context: str) -> dict[str, Any] | None:
    course_id, _, order = rest.partition("/")
    data = course_data(course_id)
    chapter = next((c for c in data["chapters"] if str(c["order"]) == order), None)
    if chapter is None:
        return None
    items = chapter["exercises"]
    if not (0 <= index < len(items)) or items[index]["iri"] != iri:
        return None
    following = items[index + 1]["iri"] if index + 1 < len(items) else None
    back = url_for("courses.course_page", course_id=course_id) + f"#chapter-{chapter['order']}"
    return {"next": link(following, context, index + 1) if following else None, "back": back,
            "back_key": "back_to_course", "index": index, "of": len(items)}


def _resolve_query(iri: str, rest: str, index: int, context: str) -> dict[str, Any] | None:
    name, _, params = rest.partition("?")
    query = load_query(name)
    given = dict(parse_qsl(params))
    answer = run_query(query.paged_text(given), query.bind(given))
    rows = json.loads(answer.body)["results"]["bindings"]
    if not (0 <= index < len(rows)):
        return None
    column = next((v for v, cell in rows[index].items() if cell.get("value") == iri), None)
    if column is None:
        return None
    following = next(((k, r[column]["value"]) for k, r in enumerate(rows) if k > index and column in r
                      and r[column]["value"] != iri), None)
    back = url_for("canned.show_query", name=name) + ("?" + urlencode(given) if given else "")
    return {"next": link(following[1], context, following[0]) if following else None, "back": back,
            "back_key": "back_to_query", "index": index}


def _resolve_source(iri: str, source_iri: str, index: int, context: str) -> dict[str, Any] | None:
    """``i`` is the game number in the source; the next exercise is the first of a later game."""
    for number in range(index + 1, index + 50):
        record = NamedNode(f"{source_iri}/game/{number}")
        matches = [r["m"] for r in _store().query(SOURCE_RECORD, bindings={"rec": record})]
        if not matches:
            break
        exercises = list(_store().query(MATCH_EXERCISES, bindings={"m": matches[0]}))
        if exercises:
            following = exercises[0]["pos"].value
            return {"next": link(following, context, number),
                    "back": url_for("pages.page", iri=source_iri, page=(index - 1) // 100 + 1),
                    "back_key": "back_to_source", "index": index}
    return {"next": None, "back": url_for("pages.page", iri=source_iri),
            "back_key": "back_to_source", "index": index}
