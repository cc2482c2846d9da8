"""The next exercise: an exercise page resolves the list it was opened from (its ``from``/``i``,
``service.context``) to the next exercise's link and a link back to the list."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urlencode

from flask import current_app, request, url_for

from chesskb.kb.mapping.iris import IriMinter

from .classes import PAGE_SIZE, THEME_NAMES, class_count
from .context import link
from .courses import course_data
from .executor import run_named
from .rows import named

#: How many games after the current one a source's "Next exercise" looks at (one query for all).
SOURCE_LOOKAHEAD = 49


def _class_next(name: str, index: int) -> str | None:
    rows = named("class-member-page", limit=1, offset=index + 1, **{"class": name})
    return rows[0]["p"] if rows else None


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
        if kind == "train":
            return {
                "next": url_for("train.train"),
                "back": url_for("browse.home"),
                "back_key": "home",
                "index": index,
                "train": True,
            }
    except Exception:
        current_app.logger.info("context %r not resolved", context, exc_info=True)
    return None


def _resolve_class(name: str, index: int, context: str) -> dict[str, Any] | None:
    if name not in THEME_NAMES:
        return None
    # past the last member there is nothing to scan for (the stored counts answer without a scan)
    following = _class_next(name, index) if index + 1 < class_count(name) else None
    return {
        "next": link(following, context, index + 1) if following else None,
        "back": url_for("browse.class_page", name=name, page=index // PAGE_SIZE + 1),
        "back_key": "back_to_class",
        "index": index,
    }


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
    return {
        "next": link(following, context, index + 1) if following else None,
        "back": back,
        "back_key": "back_to_course",
        "index": index,
        "of": len(items),
    }


def _resolve_query(iri: str, rest: str, index: int, context: str) -> dict[str, Any] | None:
    name, _, params = rest.partition("?")
    given = dict(parse_qsl(params))
    answer = run_named(name, given, public=True)
    rows = json.loads(answer.body)["results"]["bindings"]
    if not (0 <= index < len(rows)):
        return None
    column = next((v for v, cell in rows[index].items() if cell.get("value") == iri), None)
    if column is None:
        return None
    following = next(
        (
            (k, r[column]["value"])
            for k, r in enumerate(rows)
            if k > index and column in r and r[column]["value"] != iri
        ),
        None,
    )
    back = url_for("canned.show_query", name=name) + ("?" + urlencode(given) if given else "")
    return {
        "next": link(following[1], context, following[0]) if following else None,
        "back": back,
        "back_key": "back_to_query",
        "index": index,
    }


def _resolve_source(iri: str, source_iri: str, index: int, context: str) -> dict[str, Any] | None:
    """``i`` is the game number in the source; the next exercise is the first of a later game."""
    minter = IriMinter(current_app.config["BASE_IRI"])
    source = minter.source_of(source_iri)
    if source is None:
        return None
    numbers = range(index + 1, index + 1 + SOURCE_LOOKAHEAD)
    rows = named("records-exercises", rec=[minter.source_record(source, n) for n in numbers])
    by_number: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        found = minter.record_number(row["rec"])
        if found is not None:
            by_number.setdefault(found[1], []).append(row)
    for number in numbers:
        records = by_number.get(number)
        if not records:
            break  # past the source's last game
        first_game = min(row["m"] for row in records)
        exercises = sorted(
            (row for row in records if row["m"] == first_game and row["pos"]),
            key=lambda row: (row["ply"] is None, int(row["ply"] or 0)),
        )
        if exercises:
            following = exercises[0]["pos"]
            return {
                "next": link(following, context, number),
                "back": url_for("pages.page", iri=source_iri, page=(index - 1) // 100 + 1),
                "back_key": "back_to_source",
                "index": index,
            }
    return {"next": None, "back": url_for("pages.page", iri=source_iri), "back_key": "back_to_source", "index": index}
