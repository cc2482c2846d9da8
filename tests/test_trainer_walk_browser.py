"""The trainer walked as a learner would, in Debian's Chromium, on a 1280-px desktop and a 375-px phone,
in English and in Spanish: a class's exercises one after another without leaving the board (solve,
"Next exercise", hint, the solution played), a course chapter's next exercise and the way back, a
game replayed with the arrow keys, playing on against the real Stockfish, and the questions' pages.
Every page keeps its language, its feedback in the viewport and its width on the screen; whether a
line mates is decided by python-chess, not read back from the page. Screenshots go to
tests/artifacts/walk-<device>-<lang>-<step>.png.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from urllib.parse import quote

import chess
import pytest

from chesskb.service.i18n import STRINGS
from tests.conftest import DATA, run_cli
from tests.live_server import serve
from tests.test_pages_browser import ARTIFACTS, CHROMIUM, click_move

if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is not installed", allow_module_level=True)

DEVICES = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {
        "viewport": {"width": 375, "height": 740},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
    },
}


def _engine() -> str | None:
    from chesskb.kb.analysis.engine import engine_path

    return engine_path()


@pytest.fixture(scope="module")
def base_url(tmp_path_factory) -> Iterator[str]:
    store = tmp_path_factory.mktemp("walk") / "store"
    files = [
        DATA / "lichess" / "puzzles.csv",
        DATA / "pychess" / "mate_in_2.pgn",
        DATA / "games" / "kasparov-deep-blue-1997.pgn",
    ]
    assert run_cli("import", *map(str, files), store=store).exit_code == 0
    assert run_cli("course", "import", str(DATA / "courses" / "first-steps.yaml"), store=store).exit_code == 0
    url, server = serve(store)
    yield url
    server.shutdown()


@pytest.fixture(params=[(device, lang) for device in DEVICES for lang in ("en", "es")], ids=lambda p: f"{p[0]}-{p[1]}")
def walker(request, browser):
    device, lang = request.param
    context = browser.new_context(**DEVICES[device])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page, device, lang
    context.close()
    assert not errors, errors


def _url(base: str, path: str, lang: str) -> str:
    return base + path + (("&" if "?" in path else "?") + "lang=es" if lang == "es" else "")


def _shot(page, device: str, lang: str, step: str, full: bool = False) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"walk-{device}-{lang}-{step}.png"), full_page=full)


def _fits(page) -> None:
    """Nothing wider than the screen (tables scroll inside their own box)."""
    width = page.evaluate("window.innerWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, page.url


def _in_view(page, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    height = page.evaluate("window.innerHeight")
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, (selector, box, height)


def _solution(page) -> dict:
    return page.evaluate("JSON.parse(document.getElementById('solution-data').textContent)")


def _solve(page, data: dict) -> chess.Board:
    """Play the learner's moves of the line by clicking; the page answers each with the reply. The
    feedback stays in view after every move."""
    board = chess.Board(data["fen"])
    for index, ply in enumerate(data["plies"]):
        board.push_uci(ply["uci"])
        if index % 2 == 0:
            click_move(page, ply["uci"])
            page.wait_for_selector(f'#board[data-ply="{min(index + 2, len(data["plies"]))}"]')
            _in_view(page, "#solve-status")
    return board


def test_a_learner_goes_through_a_class_without_leaving_the_board(walker, base_url):
    page, device, lang = walker
    s = STRINGS[lang]
    page.goto(_url(base_url, "/class/MateInTwo", lang))
    cards = page.eval_on_selector_all("ul.cards a.position-link", "els => els.map(e => e.href)")
    assert len(cards) >= 3
    _fits(page)
    page.click("ul.cards a.position-link >> nth=0")
    page.wait_for_selector("#board.interactive svg")
    assert page.get_attribute("html", "lang") == lang
    _fits(page)
    # exercise 1: solved by clicking; python-chess says the line ends in mate
    final = _solve(page, _solution(page))
    assert final.is_checkmate()
    page.wait_for_selector('#board[data-solved="true"]')
    assert s["solved"] in page.inner_text("#solve-status")
    _in_view(page, "#solve-status")
    assert page.is_visible("#next-exercise") and s["next_exercise"] in page.inner_text("#next-exercise")
    _shot(page, device, lang, "1-solved")
    # exercise 2, in the same class and language: a hint, then the solution played on the board
    page.click("#next-exercise")
    page.wait_for_selector("#board.interactive svg")
    assert page.url == cards[1] and page.get_attribute("html", "lang") == lang
    data = _solution(page)
    first = data["plies"][0]["uci"]
    piece = chess.Board(data["fen"]).piece_type_at(chess.parse_square(first[:2]))
    page.click("#hint")
    assert s["hint_piece"].format(piece=s["piece_" + chess.piece_name(piece)]) in page.inner_text("#solve-status")
    _in_view(page, "#solve-status")
    page.click("#hint")
    assert first[2:4] in page.inner_text("#solve-status")
    _shot(page, device, lang, "2-hint")
    page.click("#show-solution")
    page.wait_for_selector('#board[data-shown="true"]', timeout=20000)
    shown = chess.Board(page.get_attribute("#board", "data-fen"))
    assert shown.is_checkmate()  # the solution played to the end mates
    assert s["solution_shown"] in page.inner_text("#solve-status")
    _shot(page, device, lang, "3-solution")
    # exercise 3: "Start again" during the reply leaves the board at the start, then it is solved
    page.click("#next-exercise")
    page.wait_for_selector("#board.interactive svg")
    assert page.url == cards[2]
    data = _solution(page)
    click_move(page, data["plies"][0]["uci"])
    page.click("#restart")
    page.wait_for_timeout(900)
    assert page.get_attribute("#board", "data-ply") == "0"
    assert page.get_attribute("#board", "data-fen").split()[0] == data["fen"].split()[0]
    assert _solve(page, data).is_checkmate()
    page.wait_for_selector('#board[data-solved="true"]')
    page.click("#back-link")
    page.wait_for_url("**/class/MateInTwo*")
    assert page.get_attribute("html", "lang") == lang


def test_a_course_chapter_next_exercise_and_back(walker, base_url):
    page, device, lang = walker
    s = STRINGS[lang]
    page.goto(_url(base_url, "/course/first-steps", lang))
    page.wait_for_selector("section.chapter")
    _fits(page)
    _shot(page, device, lang, "4-course", full=True)
    links = page.eval_on_selector_all("#chapter-1 a.exercise-link", "els => els.map(e => e.href)")
    assert len(links) > 1
    page.click("#chapter-1 a.exercise-link >> nth=0")
    page.wait_for_selector("#board.interactive svg")
    data = _solution(page)
    board = _solve(page, data)
    assert board.is_checkmate() or not data["plies"][-1]["san_en"].endswith("#")
    page.wait_for_selector('#board[data-solved="true"]')
    _in_view(page, "#solve-status")
    page.click("#next-exercise")
    page.wait_for_selector("#board.interactive svg")
    assert page.url == links[1] and page.get_attribute("html", "lang") == lang
    assert s["back_to_course"] in page.inner_text("#back-link")
    page.click("#back-link")
    page.wait_for_selector("section.chapter")
    assert "/course/first-steps" in page.url and page.get_attribute("html", "lang") == lang


def _kasparov_game(base_url: str) -> tuple[str, chess.pgn.Game]:
    import json
    import urllib.request

    import chess.pgn

    sparql = (
        "SELECT ?m ?n WHERE { ?m a cp:Match ; cp:hasPlayerWhite ?w . ?w cp:name ?name "
        'FILTER(CONTAINS(?name, "Kasparov")) ?m cp:plyCount ?n } ORDER BY DESC(?n) LIMIT 1'
    )
    request = urllib.request.Request(
        base_url + "/sparql?query=" + quote(sparql), headers={"Accept": "application/sparql-results+json"}
    )
    row = json.load(urllib.request.urlopen(request))["results"]["bindings"][0]
    plies = int(row["n"]["value"])
    with open(DATA / "games" / "kasparov-deep-blue-1997.pgn", encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            if len(list(game.mainline_moves())) == plies and "Kasparov" in game.headers["White"]:
                return row["m"]["value"], game
    pytest.fail("the game is not in the file")


def test_a_game_replayed_with_the_arrow_keys(walker, base_url):
    page, device, lang = walker
    iri, game = _kasparov_game(base_url)
    page.goto(_url(base_url, "/page?iri=" + quote(iri, safe=""), lang))
    page.wait_for_selector("#viewer-controls:not([hidden])")
    _fits(page)
    nodes = list(game.mainline())[:12]
    for node in nodes:
        page.keyboard.press("ArrowRight")
        assert page.get_attribute("#viewer-board", "data-fen").split()[0] == node.board().board_fen()
    page.keyboard.press("ArrowLeft")
    assert page.get_attribute("#viewer-board", "data-fen").split()[0] == nodes[-2].board().board_fen()
    assert STRINGS[lang]["flip"] in page.inner_text("#viewer")
    _shot(page, device, lang, "5-game")


@pytest.mark.skipif(_engine() is None, reason="needs Debian's stockfish")
def test_play_on_from_an_exercise_gets_legal_replies(walker, base_url):
    page, device, lang = walker
    s = STRINGS[lang]
    page.goto(_url(base_url, "/class/MateInTwo", lang))
    page.click("ul.cards a.position-link >> nth=0")
    page.wait_for_selector("#board.interactive svg")
    page.click("#play-on")
    page.wait_for_selector("#play-status:not(:empty)")
    board = chess.Board(page.get_attribute("#board", "data-fen"))
    for turn in range(2):
        mine = sorted(board.legal_moves, key=lambda m: m.uci())[0]
        board.push(mine)
        page.fill("#play-input", mine.uci())
        page.press("#play-input", "Enter")
        page.wait_for_selector(f"#board[data-play-plies='{2 * turn + 2}'], #board[data-play-over]", timeout=20000)
        if board.is_game_over():
            break
        shown = page.get_attribute("#board", "data-fen").split()[0]
        replies = [m for m in board.legal_moves if _after(board, m) == shown]
        assert len(replies) == 1, (board.fen(), shown)
        board.push(replies[0])
        _in_view(page, "#play-status")
    # the exercise's own controls are put away while the game is on, and come back when it stops
    assert not page.is_visible("#restart") and not page.is_visible("#move-input")
    engine_note = s["engine_elo"].split("{")[0].strip()
    assert engine_note in page.inner_text("#play-engine")
    assert page.get_attribute("html", "lang") == lang
    _fits(page)
    _shot(page, device, lang, "6-play-on")
    page.click("#play-stop")
    assert page.is_visible("#restart") and page.is_visible("#move-input")


def _after(board: chess.Board, move: chess.Move) -> str:
    copy = board.copy(stack=False)
    copy.push(move)
    return copy.board_fen()


def test_the_questions_fit_the_screen_in_the_language(walker, base_url):
    page, device, lang = walker
    s = STRINGS[lang]
    page.goto(_url(base_url, "/queries", lang))
    assert s["queries_title"] in page.inner_text("h1")
    _fits(page)
    _shot(page, device, lang, "7-queries")
    page.goto(_url(base_url, "/queries/exercises-by-difficulty", lang))
    page.wait_for_selector("table.results")
    _fits(page)
    from chesskb.queries import load_query

    assert page.inner_text("h1") == load_query("exercises-by-difficulty").in_language(lang).title
    _shot(page, device, lang, "8-query")
