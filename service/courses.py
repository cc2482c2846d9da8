"""Courses in the browser: ``/courses`` and ``/course/<id>`` (``.json`` twins).

The server lists each chapter's exercises in order with its level and pass percentage; the
learner's progress never leaves the browser (seed 001 §5.4: no server accounts). ``course.js`` reads
the counters the exercise pages keep in localStorage (``chesskb:<exercise IRI>``, written by
``solve.js``), marks solved exercises, locks a chapter until the previous one is passed, and exports
or imports the learner's progress as a JSON file. Without JavaScript every chapter is open.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, url_for

from chesskb.kb.mapping.iris import IriMinter

from . import context
from .errors import ServiceError
from .i18n import current_lang
from .links import opening_title
from .render import page_route, render
from .rows import select

bp = Blueprint("courses", __name__)
blueprint = bp

COURSES = """SELECT ?course ?title ?lang (COUNT(DISTINCT ?chapter) AS ?chapters) WHERE {
  ?course a cp:Course ; rdfs:label ?title BIND(LANG(?title) AS ?lang)
  OPTIONAL { ?course cp:hasChapter ?chapter } } GROUP BY ?course ?title ?lang ORDER BY ?course"""
COURSE = """SELECT ?course ?chapter ?order ?level ?pass ?place ?exercise ?label ?fen ?difficulty ?eco ?opening
  ?variation WHERE {
  ?course cp:hasChapter ?chapter .
  ?chapter cp:chapterOrder ?order ; cp:level ?level ; cp:passPercent ?pass ; cp:hasItem ?item .
  ?item cp:itemOrder ?place ; cp:exercise ?exercise .
  ?exercise cp:fen ?fen OPTIONAL { ?exercise rdfs:label ?label } OPTIONAL { ?exercise cp:difficulty ?difficulty }
  OPTIONAL { ?exercise cp:hasMatch ?m OPTIONAL { ?m cp:eco ?eco } OPTIONAL { ?m cp:opening ?opening }
             OPTIONAL { ?m cp:variation ?variation } }
} ORDER BY ?order ?place"""
TITLES = """SELECT ?course ?s ?t ?l WHERE {
  { BIND(?course AS ?s) } UNION { ?course cp:hasChapter ?s }
  ?s rdfs:label ?t BIND(LANG(?t) AS ?l) }"""


def _pick(texts: dict[str, str], lang: str) -> str:
    return texts.get(lang) or texts.get("en") or next(iter(texts.values()), "")


def courses_data() -> dict[str, Any]:
    lang = current_lang()
    found: dict[str, dict[str, Any]] = {}
    for row in select(COURSES):
        course = found.setdefault(row["course"], {"iri": row["course"], "titles": {}, "chapters": int(row["chapters"])})
        course["titles"][row["lang"] or "en"] = row["title"]
    courses = []
    for iri, course in found.items():
        course_id = IriMinter(current_app.config["BASE_IRI"]).course_id(iri)
        if course_id is None:
            continue  # a course under another base: no page here
        courses.append({"id": course_id, "iri": iri, "title": _pick(course["titles"], lang),
                        "chapters": course["chapters"], "url": url_for("courses.course_page", course_id=course_id)})
    return {"courses": courses}


@page_route(bp, "/courses", json_endpoint="courses_json")
def courses_page() -> Response:
    return render("courses.html", courses_data)


def course_data(course_id: str) -> dict[str, Any]:
    lang = current_lang()
    iri = IriMinter(current_app.config["BASE_IRI"]).course(course_id)
    rows = select(COURSE, course=iri)
    if not rows:
        raise ServiceError(404, f"no course {course_id!r}")
    titles: dict[str, dict[str, str]] = {}
    for row in select(TITLES, course=iri):
        titles.setdefault(row["s"], {})[row["l"] or "en"] = row["t"]
    chapters: dict[str, dict[str, Any]] = {}
    for row in rows:
        chapter = chapters.get(row["chapter"])
        if chapter is None:
            chapter = chapters[row["chapter"]] = {
                "iri": row["chapter"], "order": int(row["order"]), "level": row["level"],
                "title": _pick(titles.get(row["chapter"], {}), lang), "pass_percent": int(row["pass"]),
                "exercises": []}
        if any(e["iri"] == row["exercise"] for e in chapter["exercises"]):
            continue  # a game with two openings tags is one exercise
        chapter["exercises"].append({
            "iri": row["exercise"], "fen": row["fen"],
            "label": opening_title(row["eco"], row["opening"], row["variation"]) or row["label"] or row["exercise"],
            "difficulty": int(row["difficulty"]) if row["difficulty"] else None,
            "url": context.link(row["exercise"], f"course/{course_id}/{chapter['order']}",
                                len(chapter["exercises"])),
            "board": url_for("pages.board_image", fen=row["fen"], size=120)})
    return {"id": course_id, "iri": iri.value, "title": _pick(titles.get(iri.value, {}), lang),
            "chapters": sorted(chapters.values(), key=lambda c: c["order"])}


@page_route(bp, "/course/<course_id>")
def course_page(course_id: str) -> Response:
    return render("course.html", course_data(course_id))
