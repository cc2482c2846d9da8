"""Course files within bounds, resolved under the executor's limits, their public page kept (issue 35, item 7).

Reproduction: a 2 KB course YAML with 500 aliased chapters ran 54 s in the request thread (1.33 GB),
and its public ``/course/bomb`` then cost 25 s and 25 MB per view. Now the aliases are refused while
the YAML is read, chapters and exercises are bounded by named settings, a course saved through the
authoring page runs its selections in the pages' worker processes, and a course page is built once
per store generation.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from chesskb.kb.courses.course_file import COURSE_MAX_CHAPTERS, COURSE_MAX_EXERCISES, COURSE_YAML_ALIASES
from tests.conftest import DATA, run_cli
from tests.live_server import http, live_server
from tests.shared_proofs import shared_proofs  # noqa: F401 (autouse: the run's verification cache)

TOKEN = "a-long-enough-authoring-token"
AUTH = {"X-Author-Token": TOKEN, "Content-Type": "application/json"}
CHAPTER = "{title: Mates, level: beginner, select: {theme: MateInTwo, source: mate_in_2, limit: 3}}"


def _bomb(chapters: int = 500) -> str:
    """A course whose chapters are all one aliased chapter: about 2 KB for 500 chapters."""
    return "id: bomb\ntitle: Bomb\nx: &c " + CHAPTER + "\nchapters: [" + ", ".join(["*c"] * chapters) + "]\n"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("course-bounds") / "store"
    assert run_cli("import", "--jobs", "1", str(DATA / "pychess" / "mate_in_2.pgn"), store=path).exit_code == 0
    return path


def test_the_alias_bomb_is_refused_fast_by_the_command(store: Path, tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(_bomb(), encoding="utf-8")
    assert path.stat().st_size < 2500
    started = time.monotonic()
    result = run_cli("course", "import", str(path), store=store)
    assert result.exit_code != 0 and "COURSE_YAML_ALIASES" in result.output, result.output
    assert time.monotonic() - started < 5
    listed = json.loads(run_cli("course", "list", "--format", "json", store=store).output)
    assert not [c for c in listed if c["iri"].endswith("/bomb")]


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        ("chapters: [" + ", ".join([CHAPTER] * (COURSE_MAX_CHAPTERS + 1)) + "]", "COURSE_MAX_CHAPTERS"),
        (
            "chapters: [{title: All, level: beginner, select: {theme: MateInTwo, limit: "
            + str(COURSE_MAX_EXERCISES + 1)
            + "}}]",
            "COURSE_MAX_EXERCISES",
        ),
        (
            "chapters: [{title: All, level: beginner, exercises: ["
            + ", ".join(["x"] * (COURSE_MAX_EXERCISES + 1))
            + "]}]",
            "COURSE_MAX_EXERCISES",
        ),
    ],
)
def test_chapters_and_exercises_are_bounded(store: Path, tmp_path: Path, text: str, setting: str) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("id: big\ntitle: Big\n" + text + "\n", encoding="utf-8")
    result = run_cli("course", "import", str(path), store=store)
    assert result.exit_code != 0 and setting in result.output, result.output


def test_a_few_aliases_still_work(store: Path, tmp_path: Path) -> None:
    path = tmp_path / "aliases.yaml"
    path.write_text(
        "id: few\ntitle: Few\nx: &c " + CHAPTER + "\nchapters: [" + ", ".join(["*c"] * 3) + "]\n", encoding="utf-8"
    )
    assert COURSE_YAML_ALIASES >= 3
    result = run_cli("course", "import", str(path), store=store)
    assert result.exit_code == 0, result.output
    listed = json.loads(run_cli("course", "list", "--format", "json", store=store).output)
    assert ("few", 3) in [(c["iri"].rsplit("/", 1)[1], c["chapters"]) for c in listed]


def test_the_authoring_page_refuses_the_bomb_and_keeps_serving(store: Path, tmp_path: Path) -> None:
    with live_server(store, env={"CHESSKB_AUTHOR_TOKEN": TOKEN}) as base:
        started = time.monotonic()
        status, _, answer = http(
            "POST", f"{base}/author/course", headers=AUTH, body=json.dumps({"course": _bomb()}).encode()
        )
        assert status == 422 and "COURSE_YAML_ALIASES" in json.loads(answer)["error"]
        assert time.monotonic() - started < 5
        assert http("GET", f"{base}/course/bomb.json")[0] == 404
        good = "id: good\ntitle: Good\nchapters: [" + CHAPTER + "]\n"
        status, _, answer = http(
            "POST", f"{base}/author/course", headers=AUTH, body=json.dumps({"course": good}).encode()
        )
        assert status == 200, answer
        page = json.loads(http("GET", f"{base}/course/good.json")[2])
        assert [len(chapter["exercises"]) for chapter in page["chapters"]] == [3]


def test_course_selections_run_in_the_pages_workers(store: Path) -> None:
    """Saving a course through the authoring page asks its selections through the executor's pages
    lane (worker processes, QUERY_TIMEOUT, MAX_RESULT_BYTES), not on the store in the request thread."""
    from chesskb.service.app import create_app
    from chesskb.service.executor import close_pools

    app = create_app({"STORE": str(store), "AUTHOR_TOKEN": TOKEN, "PAGE_WORKERS": 1, "QUERY_WORKERS": 1})
    try:
        results = app.extensions["chesskb.results"]
        course = "id: lane\ntitle: Lane\nchapters: [" + CHAPTER + ", {title: Two, level: advanced, exercises: []}]\n"
        answer = app.test_client().post("/author/course", headers={"X-Author-Token": TOKEN}, json={"course": course})
        assert answer.status_code == 422  # the empty hand-picked chapter, after the first chapter's query
        assert results.misses >= 1 and "chesskb.pool.pages" in app.extensions
    finally:
        close_pools(app)


def test_the_course_page_is_built_once_per_generation(store: Path, tmp_path: Path) -> None:
    from chesskb.service.app import create_app

    path = tmp_path / "kept.yaml"
    path.write_text("id: kept\ntitle: Kept\nchapters: [" + CHAPTER + "]\n", encoding="utf-8")
    assert run_cli("course", "import", str(path), store=store).exit_code == 0
    app = create_app({"STORE": str(store), "QUERY_WORKERS": 0, "PAGE_WORKERS": 0})
    client = app.test_client()
    first = client.get("/course/kept.json").get_json()
    results = app.extensions["chesskb.results"]
    asked = results.hits + results.misses
    for _ in range(3):
        assert client.get("/course/kept.json").get_json() == first
        assert client.get("/course/kept").status_code == 200
    assert results.hits + results.misses == asked  # no query at all: the page was kept
    # a new generation (the course imported again, retitled) is a new page
    path.write_text("id: kept\ntitle: Kept again\nchapters: [" + CHAPTER + "]\n", encoding="utf-8")
    assert run_cli("course", "import", str(path), store=store).exit_code == 0
    assert client.get("/course/kept.json").get_json()["title"] == "Kept again"
