"""Courses as data: a YAML course file becomes Course, Chapter and ChapterItem individuals.

A teacher writes what a course is (chapters by level, each a query or a hand-picked list) and
``chesskb course import`` resolves it against the knowledge base *now*: the chosen exercises are
stored in order, in the course's own named graph (``graph/course-ID``), so the course does not
change under a learner when a source is re-imported (import the course file again to refresh it).

The file (``data/courses/first-steps.yaml`` is a real one)::

    id: first-steps                      # letters, digits and hyphens: the course's IRI and graph
    title: First steps in tactics        # or {en: ..., es: ...}
    pass_percent: 80                     # default for the chapters: share to solve to pass
    chapters:
      - title: Mates in one
        level: beginner                  # beginner | intermediate | advanced (seed 001)
        select:                          # a query: every key optional but one of theme/source
          theme: MateInOne               # a class name, or a list (any of them)
          phase: PositionEnd             # PositionBegin | PositionMiddle | PositionEnd
          source: mate_in_2              # a source name
          difficulty: [600, 1400]        # lowest and highest difficulty
          limit: 8                       # how many (easiest first); default 10
      - title: Hand-picked
        level: advanced
        exercises: [https://w3id.org/chesskb/id/position/lichess-000rZ, ...]

Exercises are ordered by difficulty (``kb.analysis.difficulty``), then by IRI, so the order is the
same on every machine.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pyoxigraph import Literal, NamedNode, Quad

from chesskb.kb.analysis.themes import THEME_CLASSES
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.store.base import Store
from chesskb.kb.vocab import CP, RDF, RDFS, XSD
from chesskb.queries.executor import ask
from chesskb.queries.executor import select as select_rows

LEVELS = ("beginner", "intermediate", "advanced")
PHASES = ("PositionBegin", "PositionMiddle", "PositionEnd")
DEFAULT_LIMIT = 10
DEFAULT_PASS_PERCENT = 80
_COURSE_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")
#: Bounds on what one course may be (named settings). A course file is small, but YAML aliases let a
#: 2 KB file name 500 chapters (each resolved by a query, each listed on the public page: 54 s and
#: 1.3 GB in the request thread, issue 35). A course with more chapters or exercises is refused with
#: the bound's name; the shipped courses have 5 chapters of at most 19.
COURSE_MAX_CHAPTERS = 50
COURSE_MAX_EXERCISES = 100  # per chapter: a selection's limit, or a hand-picked list
#: Aliases (``*name``) a course file may use: a few to repeat a chapter's settings, never a tree of them.
COURSE_YAML_ALIASES = 20


class CourseError(ValueError):
    """The course file is wrong; the message says where and how to fix it."""


@dataclass
class Chapter:
    title: dict[str, str]
    level: str
    pass_percent: int
    selection: str
    exercises: list[str] = field(default_factory=list)


@dataclass
class Course:
    id: str
    title: dict[str, str]
    description: dict[str, str]
    chapters: list[Chapter]


def _texts(value: Any, where: str) -> dict[str, str]:
    """A text in one language (a string, taken as English) or several (``{en: …, es: …}``)."""
    if isinstance(value, str) and value.strip():
        return {"en": value.strip()}
    if isinstance(value, dict) and value and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return {k: v.strip() for k, v in value.items()}
    raise CourseError(f"{where}: give a text, or texts by language ({{en: ..., es: ...}})")


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader with at most ``COURSE_YAML_ALIASES`` aliases: refused while the text is
    read, before anything is built from it."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > COURSE_YAML_ALIASES:
                mark = self.peek_event().start_mark
                raise CourseError(
                    f"line {mark.line + 1}: more than {COURSE_YAML_ALIASES} aliases (*name) in one "
                    "course (COURSE_YAML_ALIASES); write the chapters out"
                )
        return super().compose_node(parent, index)


def parse_course_text(text: str, where: str = "the course") -> dict[str, Any]:
    """A course description (YAML) as data, read with ``_BoundedLoader``; ``CourseError`` when it
    is not YAML, not a mapping, or uses too many aliases."""
    loader = _BoundedLoader(text)
    try:
        data = loader.get_single_data()
    except yaml.YAMLError as exc:
        raise CourseError(f"{where}: not valid YAML ({exc})") from exc
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise CourseError(f"{where}: a course file is a mapping with id, title and chapters")
    return data


def load_course_file(path: str | Path) -> dict[str, Any]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CourseError(f"{path}: cannot read the file ({exc})") from exc
    return parse_course_text(text, str(path))


def resolve_course(data: dict[str, Any], store: Store, *, base_iri: str | None = None) -> Course:
    """Check the course description and choose its exercises from the store."""
    course_id = str(data.get("id", ""))
    if not _COURSE_ID.fullmatch(course_id):
        raise CourseError("id: lower-case letters, digits and hyphens (it names the course's IRI)")
    title = _texts(data.get("title"), "title")
    description = _texts(data["description"], "description") if data.get("description") else {}
    default_pass = _percent(data.get("pass_percent", DEFAULT_PASS_PERCENT), "pass_percent")
    chapters_data = data.get("chapters")
    if not isinstance(chapters_data, list) or not chapters_data:
        raise CourseError("chapters: a list of at least one chapter")
    if len(chapters_data) > COURSE_MAX_CHAPTERS:
        raise CourseError(
            f"chapters: {len(chapters_data):,}; a course has at most {COURSE_MAX_CHAPTERS} (COURSE_MAX_CHAPTERS)"
        )
    minter = IriMinter(base_iri)
    chapters = []
    for number, item in enumerate(chapters_data, start=1):
        where = f"chapter {number}"
        if not isinstance(item, dict):
            raise CourseError(f"{where}: a mapping with title, level and select or exercises")
        level = item.get("level")
        if level not in LEVELS:
            raise CourseError(f"{where}: level must be one of {', '.join(LEVELS)}")
        chapter = Chapter(
            _texts(item.get("title"), f"{where} title"),
            level,
            _percent(item.get("pass_percent", default_pass), f"{where} pass_percent"),
            "",
        )
        if "exercises" in item:
            chapter.exercises = _hand_picked(item["exercises"], store, minter, where)
            chapter.selection = "by hand"
        elif "select" in item:
            chapter.exercises, chapter.selection = _selected(item["select"], store, minter, where)
        else:
            raise CourseError(f"{where}: give 'select' (a query) or 'exercises' (a list)")
        if not chapter.exercises:
            raise CourseError(
                f"{where} ({chapter.title.get('en', '')}): the selection finds no exercise in "
                f"{store.location}; import the collections it names first"
            )
        chapters.append(chapter)
    return Course(course_id, title, description, chapters)


def _percent(value: Any, where: str) -> int:
    if not isinstance(value, int) or not 0 < value <= 100:
        raise CourseError(f"{where}: a whole percentage from 1 to 100")
    return value


def _hand_picked(values: Any, store: Store, minter: IriMinter, where: str) -> list[str]:
    iris = []
    values = _as_list(values)
    if len(values) > COURSE_MAX_EXERCISES:
        raise CourseError(
            f"{where} exercises: {len(values):,}; a chapter has at most {COURSE_MAX_EXERCISES} (COURSE_MAX_EXERCISES)"
        )
    for value in values:
        text = str(value)
        iri = text if text.startswith(("http://", "https://")) else minter.lichess_position(text).value
        if not _ask(store, iri):
            raise CourseError(f"{where}: no exercise {text!r} in {store.location}")
        iris.append(iri)
    return iris


def _ask(store: Store, iri: str) -> bool:
    """Whether ``iri`` is an exercise (the start position of an ordinary game is not: kb/analysis/exercises.py)."""
    return ask(store, "is-exercise", {"position": NamedNode(iri)})


def _selected(select: Any, store: Store, minter: IriMinter, where: str) -> tuple[list[str], str]:
    if not isinstance(select, dict):
        raise CourseError(f"{where} select: a mapping (theme, phase, source, difficulty, limit)")
    unknown = set(select) - {"theme", "phase", "source", "difficulty", "limit"}
    if unknown:
        raise CourseError(f"{where} select: unknown key(s) {', '.join(sorted(unknown))}")
    if "theme" not in select and "source" not in select:
        raise CourseError(f"{where} select: give a theme or a source")
    params: dict[str, Any] = {"theme": ["Exercise"]}  # the query's defaults select any exercise
    described = []
    if "theme" in select:
        themes = [str(t) for t in _as_list(select["theme"])]
        bad = [t for t in themes if t not in THEME_CLASSES]
        if bad:
            raise CourseError(
                f"{where} select theme: unknown class(es) {', '.join(bad)}; known: {', '.join(sorted(THEME_CLASSES))}"
            )
        params["theme"] = themes
        described.append("theme=" + ",".join(themes))
    if "phase" in select:
        phase = str(select["phase"])
        if phase not in PHASES:
            raise CourseError(f"{where} select phase: one of {', '.join(PHASES)}")
        params["phase"] = phase
        described.append(f"phase={phase}")
    if "source" in select:
        source = str(select["source"])
        params["graph"], params["inferred"] = minter.source_graph(source), minter.inferred_graph(source)
        described.append(f"source={source}")
    if "difficulty" in select:
        bounds = select["difficulty"]
        if not (isinstance(bounds, list) and len(bounds) == 2 and all(isinstance(b, int) for b in bounds)):
            raise CourseError(f"{where} select difficulty: [lowest, highest], whole numbers")
        params["lowest"], params["highest"] = bounds
        described.append(f"difficulty={bounds[0]}-{bounds[1]}")
    limit = select.get("limit", DEFAULT_LIMIT)
    if not isinstance(limit, int) or limit < 1:
        raise CourseError(f"{where} select limit: a whole number ≥ 1")
    if limit > COURSE_MAX_EXERCISES:
        raise CourseError(
            f"{where} select limit: {limit:,}; a chapter has at most {COURSE_MAX_EXERCISES} (COURSE_MAX_EXERCISES)"
        )
    described.append(f"limit={limit}")
    rows = select_rows(store, "course-selection", {**params, "limit": str(limit)})
    return [row["position"].value for row in rows], "; ".join(described)


def course_graph(course_id: str, base_iri: str | None = None) -> NamedNode:
    return IriMinter(base_iri).course_graph(course_id)


def course_quads(course: Course, base_iri: str | None = None) -> list[Quad]:
    minter = IriMinter(base_iri)
    graph = course_graph(course.id, base_iri)
    subject = minter.course(course.id)
    quads = [Quad(subject, RDF.type, CP.Course, graph)]
    quads += [Quad(subject, RDFS.label, Literal(text, language=lang), graph) for lang, text in course.title.items()]
    quads += [
        Quad(subject, RDFS.comment, Literal(text, language=lang), graph) for lang, text in course.description.items()
    ]
    for number, chapter in enumerate(course.chapters, start=1):
        node = minter.chapter(course.id, number)
        quads += [
            Quad(subject, CP.hasChapter, node, graph),
            Quad(node, RDF.type, CP.Chapter, graph),
            Quad(node, CP.chapterOrder, _integer(number), graph),
            Quad(node, CP.level, Literal(chapter.level), graph),
            Quad(node, CP.passPercent, _integer(chapter.pass_percent), graph),
            Quad(node, CP.selection, Literal(chapter.selection), graph),
        ]
        quads += [Quad(node, RDFS.label, Literal(text, language=lang), graph) for lang, text in chapter.title.items()]
        for place, exercise in enumerate(chapter.exercises, start=1):
            item = minter.chapter_item(course.id, number, place)
            quads += [
                Quad(node, CP.hasItem, item, graph),
                Quad(item, RDF.type, CP.ChapterItem, graph),
                Quad(item, CP.itemOrder, _integer(place), graph),
                Quad(item, CP.exercise, NamedNode(exercise), graph),
            ]
    return quads


def _integer(value: int) -> Literal:
    return Literal(str(value), datatype=XSD.integer)


def import_course(
    store: Store, path: str | Path, *, base_iri: str | None = None, skip_unchanged: bool = False
) -> Course | None:
    """Resolve the course file against the store and replace the course's graph in one write, with
    the fingerprint of what it was resolved from (``cp:resolvedFrom``). With ``skip_unchanged``, a
    course stored with the fingerprint it would get now is left as it is: None."""
    data = load_course_file(path)
    fingerprint = course_fingerprint(store, path, base_iri=base_iri)
    if skip_unchanged and stored_fingerprint(store, data.get("id"), base_iri=base_iri) == fingerprint:
        return None
    course = resolve_course(data, store, base_iri=base_iri)
    stamp = Quad(
        IriMinter(base_iri).course(course.id), CP.resolvedFrom, Literal(fingerprint), course_graph(course.id, base_iri)
    )
    store.replace_graphs([course_graph(course.id, base_iri)], [*course_quads(course, base_iri), stamp])
    return course


def course_fingerprint(store: Store, path: str | Path, *, base_iri: str | None = None) -> str:
    """What a course's exercises are chosen from: the course file's bytes and the state of every source
    (checksum of its files, the chesskb code that imported them, when). Equal fingerprints choose the
    same exercises, since the choice is a query over those sources only."""
    hasher = hashlib.sha256(Path(path).read_bytes())
    for row in select_rows(store, "source-states", {"meta": IriMinter(base_iri).meta_graph}):
        for name in ("source", "checksum", "importedWith", "importedAt"):
            hasher.update(b"\0" + (row[name].value if row[name] is not None else "").encode("utf-8"))
    return hasher.hexdigest()


def stored_fingerprint(store: Store, course_id: Any, *, base_iri: str | None = None) -> str | None:
    """The fingerprint the stored course ``course_id`` was resolved from; None when there is none (no
    such course, one saved by the authoring page, or an id that names no course)."""
    if not isinstance(course_id, str) or not _COURSE_ID.fullmatch(course_id):
        return None
    rows = list(select_rows(store, "course-fingerprint", {"course": IriMinter(base_iri).course(course_id)}))
    return rows[0]["fingerprint"].value if rows else None


def courses_in(store: Store) -> list[dict[str, Any]]:
    rows = select_rows(store, "courses")
    return [
        {
            "iri": row["course"].value,
            "title": row["title"].value if row["title"] else None,
            "chapters": int(row["chapters"].value),
            "exercises": int(row["exercises"].value),
        }
        for row in rows
    ]


def export_course(store: Store, course_iri: str, base_iri: str | None = None) -> dict[str, Any]:
    """The course as a course file with its exercises listed by hand (what it holds now); no chapters
    when ``course_iri`` is no course of this base."""
    course_id = IriMinter(base_iri).course_id(course_iri)
    if course_id is None:
        return {"id": None, "title": {}, "chapters": []}
    course = {"course": NamedNode(course_iri)}
    texts = list(select_rows(store, "course-texts", course))
    titles = {row["l"].language or "en": row["l"].value for row in texts if row["l"] is not None}
    descriptions = {row["c"].language or "en": row["c"].value for row in texts if row["c"] is not None}
    chapters: list[dict[str, Any]] = []
    by_chapter: dict[str, dict[str, Any]] = {}
    for row in select_rows(store, "course-chapters", course):
        chapter = by_chapter.get(row["chapter"].value)
        if chapter is None:
            chapter = {
                "title": {},
                "level": row["level"].value,
                "pass_percent": int(row["pass"].value),
                "exercises": [],
            }
            by_chapter[row["chapter"].value] = chapter
            chapters.append(chapter)
        chapter["title"][row["title"].language or "en"] = row["title"].value
        if row["exercise"].value not in chapter["exercises"]:
            chapter["exercises"].append(row["exercise"].value)
    data: dict[str, Any] = {"id": course_id, "title": titles}
    if descriptions:
        data["description"] = descriptions
    data["chapters"] = chapters
    return data


def dump_course(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


__all__ = ["CourseError", "courses_in", "dump_course", "export_course", "import_course"]
