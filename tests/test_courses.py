"""Courses as data (kb/courses/course_file.py, ``chesskb course``): the shipped course, round trips and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyoxigraph import NamedNode

from chesskb.kb.store import open_store
from tests.conftest import DATA, run_cli
from tests.shared_proofs import shared_proofs  # noqa: F401 (autouse: the run's verification cache)

COURSE = DATA / "courses" / "first-steps.yaml"
IRI = "https://w3id.org/chesskb/id/course/first-steps"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("courses") / "store"
    for source in (DATA / "lichess" / "puzzles.csv", DATA / "pychess" / "mate_in_2.pgn"):
        assert run_cli("import", str(source), store=path).exit_code == 0
    assert run_cli("course", "import", str(COURSE), store=path).exit_code == 0
    return path


def _chapters(store: Path) -> list[tuple[int, str, list[tuple[str, int]]]]:
    rows = open_store(str(store)).query(f"""
        SELECT ?order ?level ?place ?exercise ?difficulty WHERE {{
          <{IRI}> cp:hasChapter ?c . ?c cp:chapterOrder ?order ; cp:level ?level ; cp:hasItem ?i .
          ?i cp:itemOrder ?place ; cp:exercise ?exercise . ?exercise cp:difficulty ?difficulty
        }} ORDER BY ?order ?place""")
    chapters: dict[int, tuple[int, str, list]] = {}
    for row in rows:
        order = int(row["order"].value)
        chapters.setdefault(order, (order, row["level"].value, []))[2].append(
            (row["exercise"].value, int(row["difficulty"].value))
        )
    return list(chapters.values())


def test_the_shipped_course_has_five_chapters_by_level_easiest_first(store: Path) -> None:
    chapters = _chapters(store)
    assert [(order, level) for order, level, _ in chapters] == [
        (1, "beginner"),
        (2, "intermediate"),
        (3, "intermediate"),
        (4, "advanced"),
        (5, "advanced"),
    ]
    for _, _, items in chapters:
        assert 1 <= len(items) <= 8
        assert [d for _, d in items] == sorted(d for _, d in items)
    mate_in_one = {iri for iri, _ in chapters[0][2]}
    typed = {row["p"].value for row in open_store(str(store)).query("SELECT ?p WHERE { ?p a cp:MateInOne }")}
    assert mate_in_one <= typed
    mate_in_two = {iri for iri, _ in chapters[3][2]}
    in_source = {
        row["p"].value
        for row in open_store(str(store)).query(
            "SELECT ?p WHERE { GRAPH <https://w3id.org/chesskb/id/graph/mate_in_2> { ?p a cp:MateInTwo } }"
        )
    }
    assert mate_in_two <= in_source


def test_course_list_and_export_round_trip(store: Path, tmp_path: Path) -> None:
    listed = json.loads(run_cli("course", "list", "--format", "json", store=store).output)
    assert listed == [
        {
            "iri": IRI,
            "title": "First steps in tactics",
            "chapters": 5,
            "exercises": sum(len(items) for _, _, items in _chapters(store)),
        }
    ]
    exported = run_cli("course", "export", IRI, store=store)
    assert exported.exit_code == 0
    file = tmp_path / "again.yaml"
    file.write_text(exported.output, encoding="utf-8")
    before = _chapters(store)
    quads_before = _course_statements(store)
    assert run_cli("course", "import", str(file), store=store).exit_code == 0
    assert _chapters(store) == before
    quads_after = _course_statements(store)
    # The same course, except that its chapters now say they were chosen by hand.
    assert {q for q in quads_after if "#selection" not in q} == {q for q in quads_before if "#selection" not in q}
    assert all('"by hand"' in q for q in quads_after if "#selection" in q)


def _course_statements(store: Path) -> set[str]:
    graph = NamedNode("https://w3id.org/chesskb/id/graph/course-first-steps")
    return {str(quad.triple) for quad in open_store(str(store)).quads([graph])}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id: x\ntitle: T\nchapters:\n  - {title: A, level: expert, select: {theme: MateInOne}}\n", "level must be"),
        ("id: x\ntitle: T\nchapters:\n  - {title: A, level: beginner, select: {theme: Forky}}\n", "unknown class"),
        (
            "id: x\ntitle: T\nchapters:\n  - {title: A, level: beginner, select: {theme: Zugzwang, source: nope}}\n",
            "finds no exercise",
        ),
        ("id: X Y\ntitle: T\nchapters: []\n", "id:"),
        (
            "id: x\ntitle: T\nchapters:\n  - {title: A, level: beginner, exercises: [https://example.org/none]}\n",
            "no exercise",
        ),
        ("id: x\n  title: [\n", "not valid YAML"),
    ],
)
def test_bad_course_files_are_refused_with_the_reason(store: Path, tmp_path: Path, text: str, message: str) -> None:
    file = tmp_path / "bad.yaml"
    file.write_text(text, encoding="utf-8")
    result = run_cli("course", "import", str(file), store=store)
    assert result.exit_code == 2 and message in result.output
    assert len(json.loads(run_cli("course", "list", "--format", "json", store=store).output)) == 1


def test_course_pages_html_json_spanish_and_escaping(store: Path, tmp_path: Path) -> None:
    from chesskb.service.app import create_app

    client = create_app({"STORE": str(store), "TESTING": True, "QUERY_WORKERS": 0}).test_client()
    listing = client.get("/courses.json").get_json()["courses"]
    assert [c["id"] for c in listing] == ["first-steps"]
    course = client.get("/course/first-steps.json").get_json()
    assert [c["level"] for c in course["chapters"]] == [
        "beginner",
        "intermediate",
        "intermediate",
        "advanced",
        "advanced",
    ]
    assert [e["iri"] for e in course["chapters"][0]["exercises"]] == [iri for iri, _ in _chapters(store)[0][2]]
    spanish = client.get("/course/first-steps?lang=es").get_data(as_text=True)
    assert "Capítulo 1: Mate en una" in spanish and "principiante" in spanish
    assert client.get("/course/none").status_code == 404
    hostile = tmp_path / "hostile.yaml"
    hostile.write_text(
        "id: hostile\ntitle: '<script>alert(1)</script>'\nchapters:\n"
        "  - {title: '\"><img src=x onerror=alert(2)>', level: beginner, select: {theme: MateInOne, "
        "limit: 2}}\n",
        encoding="utf-8",
    )
    assert run_cli("course", "import", str(hostile), store=store).exit_code == 0
    body = client.get("/course/hostile").get_data(as_text=True)
    assert "<script>alert(1)" not in body and "&lt;script&gt;alert(1)" in body
    assert "<img src=x" not in body
    assert run_cli("remove-source", "course-hostile", store=store).exit_code in (0, 1)
