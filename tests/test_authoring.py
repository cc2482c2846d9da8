"""The teachers' authoring page (service/authoring.py): token, strict FEN, legal solution, saving into
a source and downloading as PGN; and in a real browser, a teacher writing an exercise by clicking."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import chess.pgn
import pytest
from pyoxigraph import NamedNode

from chesskb.kb.store import open_store
from chesskb.kb.vocab import CP
from chesskb.queries.source_statements import graph_statements, source_statements
from chesskb.service.app import create_app
from tests.conftest import DATA, run_cli
from tests.live_server import live_server

TOKEN = "teacher-secret"
BACK_RANK = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"
HEADERS = {"X-Author-Token": TOKEN}


@pytest.fixture()
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store"
    assert run_cli("import", str(DATA / "games" / "kasparov-deep-blue-1997.pgn"), store=path).exit_code == 0
    return path


def _client(store: Path, token: str | None = TOKEN):
    return create_app({"STORE": str(store), "TESTING": True, "QUERY_WORKERS": 0, "AUTHOR_TOKEN": token}).test_client()


def test_authoring_is_off_without_a_token_and_refuses_a_wrong_one(store: Path) -> None:
    assert _client(store, None).get("/author").status_code == 404
    client = _client(store)
    assert client.get("/author").status_code == 200
    body = {"fen": BACK_RANK, "moves": [{"uci": "a1a8"}]}
    assert client.post("/author/save", json=body).status_code == 403
    again = client.post("/author/save", json=body, headers={"X-Author-Token": "guess"})
    assert again.status_code == 429 and again.headers["Retry-After"] == "1"  # the address waits after a wrong one


def test_invalid_fens_and_illegal_solutions_are_refused(store: Path) -> None:
    client = _client(store)
    for fen in ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 01", "6k1/5ppp/8/8/8/8/8/R5KK w - - 0 1", "8/8/8 w - - 0 1"):
        checked = client.post("/author/check", json={"fen": fen}, headers=HEADERS).get_json()
        assert checked["valid"] is False and checked["errors"]
        refused = client.post("/author/save", json={"fen": fen, "moves": [{"uci": "a1a8"}]}, headers=HEADERS)
        assert refused.status_code == 422
    illegal = client.post("/author/save", json={"fen": BACK_RANK, "moves": [{"uci": "a1b3"}]}, headers=HEADERS)
    assert illegal.status_code == 422 and "not legal" in illegal.get_json()["error"]
    assert client.post("/author/save", json={"fen": BACK_RANK, "moves": []}, headers=HEADERS).status_code == 422
    assert (
        client.post(
            "/author/save", json={"fen": BACK_RANK, "moves": [{"uci": "a1a8"}], "themes": ["Nope"]}, headers=HEADERS
        ).status_code
        == 422
    )
    assert "authored" not in {s["name"] for s in _sources(store)}


def _sources(store: Path) -> list[dict]:
    return json.loads(run_cli("sources", "--format", "json", store=store).output)


def test_saved_exercises_join_the_source_with_themes_comments_and_analysis(store: Path) -> None:
    client = _client(store)
    first = {
        "fen": BACK_RANK,
        "moves": [{"uci": "a1a8", "comment": "the back rank is weak"}],
        "themes": ["BackRankMate"],
        "source": "my-lessons",
        "title": "Lesson 1",
    }
    saved = client.post("/author/save", json=first, headers=HEADERS).get_json()
    assert saved["saved"] and saved["games"] == 1
    second = {
        "fen": "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        "moves": [{"uci": "h5f7", "comment": "Scholar's mate"}],
        "themes": ["MateInOne"],
        "source": "my-lessons",
    }
    again = client.post("/author/save", json=second, headers=HEADERS).get_json()
    assert again["games"] == 2
    kb = open_store(str(store))
    said = source_statements(kb, NamedNode("https://w3id.org/chesskb/id/graph/my-lessons"))  # what the source says
    themes = {
        (q.subject.value, q.object.value.rsplit("#", 1)[1]) for q in said if q.predicate == CP.term("themeFromSource")
    }
    assert (saved["position"], "BackRankMate") in themes and (again["position"], "MateInOne") in themes
    detected = {
        row["c"].value.rsplit("#", 1)[1]
        for row in kb.query(f"SELECT ?c WHERE {{ <{saved['position']}> cp:themeDetected ?c }}")
    }
    assert "MateInOne" in detected  # the importer's own analysis ran on the authored exercise
    page = client.get("/page", query_string={"iri": saved["position"]}, headers={"Accept": "text/html"})
    assert "the back rank is weak" in page.get_data(as_text=True)
    assert {s["name"]: s["games"] for s in _sources(store)}["my-lessons"] == 2


def test_download_as_pgn_reads_back_with_python_chess(store: Path) -> None:
    response = _client(store).post(
        "/author/pgn",
        json={"fen": BACK_RANK, "moves": [{"uci": "a1a8", "comment": "mate"}], "themes": ["BackRankMate"]},
        headers=HEADERS,
    )
    assert response.status_code == 200 and "attachment" in response.headers["Content-Disposition"]
    game = chess.pgn.read_game(__import__("io").StringIO(response.get_data(as_text=True)))
    assert game.headers["FEN"] == BACK_RANK and game.headers["SetUp"] == "1"
    assert game.headers["Themes"] == "BackRankMate"
    assert [(node.move.uci(), node.comment) for node in game.mainline()] == [("a1a8", "mate")]


#: What a teacher may type in a comment that a PGN writer must not change: paragraphs (blank lines), a
#: line starting with "%" (an escape line only outside comments), indented lines, a tag-like line that
#: does not follow a blank one, a ";" and brackets.
TYPED_COMMENTS = {
    "intro": "First paragraph.\n\nSecond paragraph; the rook (a1) [decides].\n\n\n%  50% of students miss it",
    "move": 'Mate.\n%not an escape\n  indented: Ra8#\n[Event "not a game"]\n\nlast line',
}


def _typed_exercise(**extra: object) -> dict:
    return {
        "fen": BACK_RANK,
        "intro": TYPED_COMMENTS["intro"],
        "moves": [{"uci": "a1a8", "comment": TYPED_COMMENTS["move"]}],
        **extra,
    }


def _comments(pgn: str) -> tuple[str, list[str]]:
    """The game comment and the move comments python-chess reads from the one game of ``pgn``."""
    import io

    handle = io.StringIO(pgn)
    game = chess.pgn.read_game(handle)
    assert game is not None and game.errors == [] and chess.pgn.read_game(handle) is None  # one game, whole
    return game.comment, [node.comment for node in game.mainline()]


def test_a_comment_is_stored_and_exported_as_typed(store: Path) -> None:
    """Blank lines, "%" lines and indentation in an authored comment survive the download, the save,
    the store and ``chesskb export --format pgn``: python-chess reads back what the teacher typed."""
    client = _client(store)
    typed = (TYPED_COMMENTS["intro"], [TYPED_COMMENTS["move"]])
    downloaded = client.post("/author/pgn", json=_typed_exercise(), headers=HEADERS)
    assert downloaded.status_code == 200
    assert _comments(downloaded.get_data(as_text=True)) == typed
    saved = client.post("/author/save", json=_typed_exercise(source="typed"), headers=HEADERS)
    assert saved.status_code == 200, saved.get_data(as_text=True)
    exported = run_cli("export", "--format", "pgn", "--source", "typed", store=store)
    assert exported.exit_code == 0, exported.output
    assert _comments(exported.output) == typed
    page = client.get("/page", query_string={"iri": saved.get_json()["position"]}, headers={"Accept": "text/html"})
    assert "50% of students miss it" in page.get_data(as_text=True)


def test_a_tag_line_after_a_blank_line_in_a_comment_is_refused(store: Path) -> None:
    """Readers take a tag pair alone on a line after a blank line as the next game's start (the rule
    that keeps an unclosed comment from swallowing a file), so such a comment cannot travel as typed:
    refused (422, saying why), and nothing is saved."""
    client = _client(store)
    for comment in ('one\n\n[Event "x"]', 'one\n   \n  [White "a"] [Black "b"]  '):
        body = {"fen": BACK_RANK, "moves": [{"uci": "a1a8", "comment": comment}], "source": "tags"}
        for url in ("/author/pgn", "/author/save"):
            refused = client.post(url, json=body, headers=HEADERS)
            message = refused.get_json()["error"]
            assert refused.status_code == 422 and "after a blank line" in message, (url, message)
    assert "tags" not in {s["name"] for s in _sources(store)}


# -- in a real browser -----------------------------------------------------------------------------


@pytest.fixture()
def served(store: Path) -> Iterator[str]:
    import os

    from tests.live_server import serve

    os.environ["CHESSKB_AUTHOR_TOKEN"] = TOKEN
    try:
        url, server = serve(store)
    finally:
        del os.environ["CHESSKB_AUTHOR_TOKEN"]
    yield url
    server.shutdown()


def test_a_teacher_writes_an_exercise_in_the_browser(served: str, store: Path) -> None:
    from tests.test_pages_browser import ARTIFACTS, CHROMIUM, sync_api

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1100, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(served + "/author")
        page.fill("#token", TOKEN)
        page.fill("#fen", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 01")
        page.click("#check-fen")
        page.wait_for_selector("#fen-errors li")
        assert "leading zeros" in page.inner_text("#fen-errors")
        page.fill("#fen", BACK_RANK)
        page.click("#check-fen")
        page.wait_for_selector("#author-board svg")
        page.click("#author-board rect.square.a1")
        page.click("#author-board rect.square.b3")  # not a rook move: refused
        page.wait_for_selector("#move-status:text-matches('^Refused')")
        page.click("#author-board rect.square.a1")
        page.click("#author-board rect.square.a8")
        page.wait_for_selector("#moves li .san")
        assert page.inner_text("#moves li .san").strip() == "Ra8#"
        page.fill("#moves li input", "the back rank")
        page.check("input[name=theme][value=BackRankMate]")
        page.fill("#source", "browser-lessons")
        page.click("#save")
        page.wait_for_selector("#save-status:text-matches('^Saved')")
        page.screenshot(path=str(ARTIFACTS / "authoring-saved.png"), full_page=True)
        page.click("#save-status a")
        page.wait_for_selector("#board.interactive svg")
        assert "the back rank" in page.content()
        # ... and builds a course of it, in the same page, without a file
        page.goto(served + "/author")
        page.fill("#token", TOKEN)
        page.fill(
            "#course-text",
            "id: from-browser\ntitle: From the browser\nchapters:\n"
            "  - {title: Lesson one, level: beginner, select: {source: browser-lessons}}\n",
        )
        page.click("#save-course")
        page.wait_for_selector("#course-status:text-matches('^Saved')")
        page.click("#course-status a")
        page.wait_for_selector("#chapter-1 li[data-iri]")
        assert page.locator("#chapter-1 li[data-iri]").count() == 1
        browser.close()
        assert not errors, errors
    assert "browser-lessons" in {s["name"] for s in _sources(store)}


def test_a_course_is_built_in_the_browser_form_without_files(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert run_cli("import", str(DATA / "lichess" / "puzzles.csv"), store=store).exit_code == 0
    client = _client(store)
    text = (
        "id: club-week-1\ntitle: {en: Club week 1}\nchapters:\n"
        "  - {title: Mates, level: beginner, select: {theme: MateInOne, limit: 3}}\n"
        "  - {title: Forks, level: intermediate, select: {theme: DoubleAttack, limit: 2}}\n"
    )
    # without the token: refused (from another address, which now waits before its next try)
    assert (
        client.post("/author/course", json={"course": text}, environ_base={"REMOTE_ADDR": "10.9.9.9"}).status_code
        == 403
    )
    saved = client.post("/author/course", json={"course": text}, headers=HEADERS).get_json()
    assert saved == {"saved": True, "course": "club-week-1", "chapters": 2, "exercises": 5}
    page = client.get("/course/club-week-1.json").get_json()
    assert [len(c["exercises"]) for c in page["chapters"]] == [3, 2]
    bad = client.post("/author/course", json={"course": text.replace("MateInOne", "Mate1")}, headers=HEADERS)
    assert bad.status_code == 422 and "unknown class" in bad.get_json()["error"]


# -- saves against a live server: all or nothing, concurrent, never rewriting a source -------------

SOURCE_GRAPH = "https://w3id.org/chesskb/id/graph/{}"
# Eight back-rank mates (rook files and ranks): distinct exercises, each a legal one-move solution.
ROOK_MATES = [
    (f"6k1/5ppp/8/8/8/8/8/{rank} w - - 0 1", f"{file}1{file}8")
    for rank, file in (("R5K1", "a"), ("1R4K1", "b"), ("2R3K1", "c"), ("3R2K1", "d"), ("4R1K1", "e"))
] + [
    (f"6k1/5ppp/8/8/8/8/{rank}/6K1 w - - 0 1", f"{file}2{file}8")
    for rank, file in (("R7", "a"), ("1R6", "b"), ("2R5", "c"))
]


def _fen_ok(fen: str) -> str:
    board = chess.Board(fen)
    assert board.is_valid(), fen
    return fen


@pytest.fixture()
def live(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``chesskb serve`` in a subprocess (waitress, as users start it), with authoring on."""
    store = tmp_path / "store"
    assert run_cli("import", "--jobs", "1", str(DATA / "lichess" / "puzzles.csv"), store=store).exit_code == 0
    with live_server(store, env={"CHESSKB_AUTHOR_TOKEN": TOKEN}) as url:
        yield url, store


def _post(url: str, body: dict) -> tuple[int, dict]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={**HEADERS, "Content-Type": "application/json", "Accept": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _statements(store: Path, graphs: list[str]) -> set[tuple[str, str, str, str]]:
    """What the graphs say (a source's graphs decoded: queries/source_statements.py)."""
    return {
        (q.subject.value, q.predicate.value, str(q.object), q.graph_name.value)
        for q in graph_statements(open_store(str(store)), [NamedNode(g) for g in graphs])
    }


def test_concurrent_saves_are_all_kept_or_refused_never_lost(live: tuple[str, Path]) -> None:
    import threading

    url, store = live
    fens = [_fen_ok(fen) for fen, _ in ROOK_MATES]
    assert len(set(fens)) == len(ROOK_MATES)
    barrier = threading.Barrier(len(ROOK_MATES))
    answers: list[tuple[int, dict, str]] = []

    def save(fen: str, uci: str) -> None:
        barrier.wait()
        status, body = _post(
            url + "/author/save", {"fen": fen, "moves": [{"uci": uci, "comment": "mate"}], "source": "club-lessons"}
        )
        answers.append((status, body, fen))

    threads = [threading.Thread(target=save, args=exercise) for exercise in ROOK_MATES]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {status for status, _, _ in answers} <= {200, 409}, answers
    kept = {fen for status, _, fen in answers if status == 200}
    assert kept, answers  # saves of one service are serialised: they wait for each other
    said = _statements(store, [SOURCE_GRAPH.format("club-lessons")])
    starts = {s for s, p, o, _ in said if p.endswith("#plyInGame") and o.startswith('"0"')}
    stored = {o.strip('"') for s, p, o, _ in said if p.endswith("#fen") and s in starts}
    assert stored == kept  # every save that said "saved" is there, and nothing else
    assert {s["name"]: s["games"] for s in _sources(store)}["club-lessons"] == len(kept)
    assert max(body["games"] for status, body, _ in answers if status == 200) == len(kept)
    print(
        f"concurrent saves: {len(answers)} at once, {len(kept)} kept, "
        f"{sum(status == 409 for status, _, _ in answers)} refused with 409, 0 lost"
    )


def test_saving_into_a_lichess_source_keeps_everything_it_held(live: tuple[str, Path]) -> None:
    url, store = live
    graphs = [SOURCE_GRAPH.format("puzzles"), SOURCE_GRAPH.format("puzzles") + "/inferred"]
    before = _statements(store, graphs)
    popularity = {s for s in before if s[1].endswith("#popularity") or s[1].endswith("#gameUrl")}
    assert popularity
    course = (
        "id: lichess-week\ntitle: Lichess week\nchapters:\n"
        "  - {title: Mates, level: beginner, select: {source: puzzles, limit: 4}}\n"
    )
    status, _ = _post(url + "/author/course", {"course": course})
    assert status == 200
    exercises_before = [
        e["iri"] for c in _get_json(url + "/course/lichess-week.json")["chapters"] for e in c["exercises"]
    ]
    games_before = {s["name"]: s["games"] for s in _sources(store)}["puzzles"]
    fen, uci = ROOK_MATES[0]
    status, body = _post(url + "/author/save", {"fen": fen, "moves": [{"uci": uci}], "source": "puzzles"})
    assert status == 200, body
    after = _statements(store, graphs)
    assert before <= after  # nothing the source held was dropped or rewritten
    assert {s[0] for s in after - before} >= {body["position"]}
    assert body["games"] == games_before + 1 == {s["name"]: s["games"] for s in _sources(store)}["puzzles"]
    assert [
        e["iri"] for c in _get_json(url + "/course/lichess-week.json")["chapters"] for e in c["exercises"]
    ] == exercises_before
    files = json.loads(run_cli("sources", "--format", "json", store=store).output)
    assert next(s for s in files if s["name"] == "puzzles")["files"].split(", ") == ["authored.pgn", "puzzles.csv"]


def _get_json(url: str) -> dict:
    import urllib.request

    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def test_a_refused_save_changes_nothing_and_a_lock_conflict_is_409(live: tuple[str, Path]) -> None:
    import os
    import subprocess
    import sys

    url, store = live
    generation = os.readlink(store / "CURRENT")
    fen, uci = ROOK_MATES[1]
    status, body = _post(url + "/author/save", {"fen": fen, "moves": [{"uci": "a1a2"}], "source": "x"})
    assert status == 422 and os.readlink(store / "CURRENT") == generation
    # another process (a CLI import, say) holds the store's write lock
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (store / "write.lock").write_text(str(holder.pid))
        status, body = _post(url + "/author/save", {"fen": fen, "moves": [{"uci": uci}], "source": "x"})
        assert status == 409 and "not saved" in body["error"], body
        course = "id: c\ntitle: C\nchapters:\n  - {title: A, level: beginner, select: {source: puzzles}}\n"
        status, body = _post(url + "/author/course", {"course": course})
        assert status == 409, body
        assert os.readlink(store / "CURRENT") == generation
    finally:
        holder.kill()
        holder.wait()
        (store / "write.lock").unlink(missing_ok=True)
    status, body = _post(url + "/author/save", {"fen": fen, "moves": [{"uci": uci}], "source": "x"})
    assert status == 200 and body["games"] == 1
