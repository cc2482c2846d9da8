"""Courses in the browser: ``/courses`` and ``/course/<id>`` (``.json`` twins).

The server lists each chapter's exercises in order with its level and pass percentage; the
learner's progress never leaves the browser (seed 001 §5.4: no server accounts). ``course.js`` reads
the counters the exercise pages keep in localStorage (``chesskb:<exercise IRI>``, written by
``solve.js``), marks solved exercises, locks a chapter until the previous one is passed, and exports
or imports the learner's progress as a JSON file. Without JavaScript every chapter is open.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from flask import Blueprint, Response, current_app, request, url_for

from chesskb.kb.mapping.iris import IriMinter

from . import context
from .errors import ServiceError
from .executor import get_store
from .i18n import current_lang
from .links import opening_title
from .render import page_route, render
from .result_cache import store_generation
from .rows import named
from .titles import titles_of

bp = Blueprint("courses", __name__)
blueprint = bp


def _pick(texts: dict[str, str], lang: str) -> str:
    return texts.get(lang) or texts.get("en") or next(iter(texts.values()), "")


def courses_data() -> dict[str, Any]:
    lang = current_lang()
    found: dict[str, dict[str, Any]] = {}
    for row in named("course-list"):
        course = found.setdefault(row["course"], {"iri": row["course"], "titles": {}, "chapters": int(row["chapters"])})
        course["titles"][row["lang"] or "en"] = row["title"]
    courses = []
    for iri, course in found.items():
        course_id = IriMinter(current_app.config["BASE_IRI"]).course_id(iri)
        if course_id is None:
            continue  # a course under another base: no page here
        courses.append(
            {
                "id": course_id,
                "iri": iri,
                "title": _pick(course["titles"], lang),
                "chapters": course["chapters"],
                "url": url_for("courses.course_page", course_id=course_id),
            }
        )
    return {"courses": courses}


@page_route(bp, "/courses", json_endpoint="courses_json")
def courses_page() -> Response:
    return render("courses.html", courses_data)


#: Course pages (their data, per store generation, language and course) kept in memory: a course
#: page is read by every learner of the course and costs one query and a few thousand links to build.
COURSE_PAGES_KEPT = 32


def course_data(course_id: str) -> dict[str, Any]:
    """The course page's data, built once per store generation (``COURSE_PAGES_KEPT`` kept)."""
    generation = store_generation(get_store())
    if generation is None:  # a remote store: another client may change it, nothing is kept
        return _course_data(course_id)
    key = (generation, course_id, current_lang(), request.script_root)
    kept: OrderedDict[tuple[str, str, str, str], dict[str, Any]] = current_app.extensions.setdefault(
        "chesskb.course_pages", OrderedDict()
    )
    with _KEPT_LOCK:
        if key in kept:
            kept.move_to_end(key)
            return kept[key]
    data = _course_data(course_id)  # a missing course raises: nothing kept
    with _KEPT_LOCK:
        kept[key] = data
        while len(kept) > COURSE_PAGES_KEPT:
            kept.popitem(last=False)
    return data


_KEPT_LOCK = threading.Lock()


def _course_data(course_id: str) -> dict[str, Any]:
    lang = current_lang()
    iri = IriMinter(current_app.config["BASE_IRI"]).course(course_id)
    rows = named("course-page", course=iri)
    if not rows:
        raise ServiceError(404, f"no course {course_id!r}")
    titles: dict[str, dict[str, str]] = {}
    for row in named("course-page-titles", course=iri):
        titles.setdefault(row["s"], {})[row["l"] or "en"] = row["t"]
    exercise_titles = titles_of((row["exercise"] for row in rows), lang, themed=False)
    chapters: dict[str, dict[str, Any]] = {}
    for row in rows:
        chapter = chapters.get(row["chapter"])
        if chapter is None:
            chapter = chapters[row["chapter"]] = {
                "iri": row["chapter"],
                "order": int(row["order"]),
                "level": row["level"],
                "title": _pick(titles.get(row["chapter"], {}), lang),
                "pass_percent": int(row["pass"]),
                "exercises": [],
            }
        if any(e["iri"] == row["exercise"] for e in chapter["exercises"]):
            continue  # a game with two openings tags is one exercise
        chapter["exercises"].append(
            {
                "iri": row["exercise"],
                "fen": row["fen"],
                "label": opening_title(row["eco"], row["opening"], row["variation"])
                or exercise_titles.get(row["exercise"], row["exercise"]),
                "difficulty": int(row["difficulty"]) if row["difficulty"] else None,
                "url": context.link(
                    row["exercise"], f"course/{course_id}/{chapter['order']}", len(chapter["exercises"])
                ),
                "board": url_for("pages.board_image", fen=row["fen"], size=120),
            }
        )
    return {
        "id": course_id,
        "iri": iri.value,
        "title": _pick(titles.get(iri.value, {}), lang),
        "chapters": sorted(chapters.values(), key=lambda c: c["order"]),
    }


@page_route(bp, "/course/<course_id>")
def course_page(course_id: str) -> Response:
    return render("course.html", course_data(course_id))
