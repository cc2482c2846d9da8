"""The trainer end to end in Debian's Chromium (Playwright) against the real service and a real
store: replaying a game, fair solving, hints, the solution played, next exercise, "Start again"
during a reply, the phone layout, playing on against the real Stockfish, and the static site's
viewer from file://. Every expectation is computed with python-chess from the same files.
Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import chess
import chess.pgn
import pytest

from tests.conftest import DATA, run_cli
from tests.live_server import serve
from tests.test_pages_browser import ARTIFACTS, CHROMIUM, click_move

FIXTURES = Path(__file__).parent / "fixtures"
GAME = FIXTURES / "trainer-game.pgn"

if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is not installed", allow_module_level=True)


def _engine() -> str | None:
    from chesskb.kb.analysis.engine import engine_path

    return engine_path()


@pytest.fixture(scope="module")
def game_store(tmp_path_factory) -> Path:
    """The hand-made game, imported with --mine when the engine is there (its mate in one is mined)."""
    store = tmp_path_factory.mktemp("trainer") / "store"
    args = ["import", *(["--mine"] if _engine() else []), str(GAME)]
    result = run_cli(*args, store=store)
    assert result.exit_code == 0, result.output
    return store


@pytest.fixture(scope="module")
def game_url(game_store) -> Iterator[str]:
    url, server = serve(game_store)
    yield url
    server.shutdown()


def _the_game() -> chess.pgn.Game:
    with open(GAME, encoding="utf-8") as handle:
        return chess.pgn.read_game(handle)


def _match_iri(store: Path) -> str:
    from chesskb.kb.store import open_store

    rows = list(open_store(str(store)).query("SELECT ?m WHERE { ?m a cp:Match }"))
    assert len(rows) == 1
    return rows[0]["m"].value


def _placement(fen: str) -> str:
    return fen.split()[0]


def _shot(page, name: str, full: bool = False) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=full)


# --- 1. the game viewer ----------------------------------------------------------------------------


def test_replay_a_game_with_arrow_keys_clicks_and_flip(page, game_store, game_url):
    game = _the_game()
    mainline = list(game.mainline())
    page.goto(game_url + "/page?iri=" + quote(_match_iri(game_store), safe=""))
    page.wait_for_selector("#viewer-controls:not([hidden])")
    board = "#viewer-board"
    assert _placement(page.get_attribute(board, "data-fen")) == _placement(game.board().fen())
    for node in mainline:  # step through the main line with the arrow key
        page.keyboard.press("ArrowRight")
        assert _placement(page.get_attribute(board, "data-fen")) == _placement(node.board().fen())
    page.keyboard.press("ArrowRight")  # at the end nothing moves
    assert _placement(page.get_attribute(board, "data-fen")) == _placement(mainline[-1].board().fen())
    page.keyboard.press("ArrowLeft")
    assert _placement(page.get_attribute(board, "data-fen")) == _placement(mainline[-2].board().fen())
    page.keyboard.press("Home")
    assert _placement(page.get_attribute(board, "data-fen")) == _placement(game.board().fen())
    # comments, NAGs and the variation are in the move list; a variation's move can be clicked
    moves_text = page.inner_text("#viewer-moves")
    for comment in ("A weak first move.", "is more usual", "The losing blunder."):
        assert comment in moves_text
    assert "?!" in moves_text and "??" in moves_text
    variation = game.variations[0].variations[0].variations[1]  # 2. e4 instead of 2. Nc3
    assert variation.move.uci() == "e2e4"
    page.click("#viewer-moves a.mv.var >> nth=0")
    assert _placement(page.get_attribute(board, "data-fen")) == _placement(variation.board().fen())
    assert "is more usual" in page.inner_text("#viewer-now")
    page.click("#viewer-moves a.mv.var >> nth=1")  # 2... Nc6 inside the variation
    assert _placement(page.get_attribute(board, "data-fen")) == _placement(variation.variations[0].board().fen())
    # flip: the same position, the board the other way round (h1 now top-left)
    page.click("#v-flip")
    assert page.get_attribute(board, "data-flipped") == "true"
    assert _placement(page.get_attribute(board, "data-fen")) == _placement(variation.variations[0].board().fen())
    h8 = page.locator(f"{board} rect.square.h8").bounding_box()
    a1 = page.locator(f"{board} rect.square.a1").bounding_box()
    assert h8["y"] > a1["y"] and h8["x"] < a1["x"]
    page.keyboard.press("End")
    assert _placement(page.get_attribute(board, "data-fen")) == _placement(
        variation.variations[0].variations[0].board().fen()
    )
    _shot(page, "viewer-game.png")
    if _engine():
        # the mined mate in one is marked where it arises (after 3. g4) and linked to its page
        mark = page.locator("#viewer-moves a.exercise-mark")
        assert mark.count() == 1
        node = int(mark.get_attribute("data-node"))
        page.click(f'#viewer-moves a.mv[data-node="{node}"]')
        assert _placement(page.get_attribute(board, "data-fen")) == _placement(mainline[-2].board().fen())
        mark.click()
        page.wait_for_selector("#board.interactive svg")
        assert _placement(page.get_attribute("#board", "data-fen")) == _placement(mainline[-2].board().fen())
        # the opponent's last move (3. g4) is highlighted on the exercise's board
        last = mainline[-2].move
        for square in (chess.square_name(last.from_square), chess.square_name(last.to_square)):
            assert "last" in page.get_attribute(f"#board rect.square.{square}", "class")


def test_static_site_replays_a_game_from_file(browser, game_store, tmp_path):
    from chesskb.kb.store import open_store
    from chesskb.service.app import create_app
    from chesskb.service.static_site import build_site, file_for

    app = create_app({"STORE": str(game_store)}, store=open_store(str(game_store)))
    out = tmp_path / "site"
    build_site(app, out)
    match = _match_iri(game_store)
    target = out / file_for("/page?iri=" + quote(match, safe=":/"), "text/html")
    if not target.exists():  # the crawler's URL quoting may differ: find the page by its IRI
        target = next(
            p
            for p in (out / "resource").glob("*.html")
            if match in p.read_text(encoding="utf-8") and 'id="game-data"' in p.read_text(encoding="utf-8")
        )
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(target.as_uri())
    page.wait_for_selector("#viewer-controls:not([hidden])")
    game = _the_game()
    for node in list(game.mainline())[:3]:
        page.keyboard.press("ArrowRight")
        assert _placement(page.get_attribute("#viewer-board", "data-fen")) == _placement(node.board().fen())
    assert page.locator("#v-play-on").count() == 0  # playing on needs the service, and the page says so
    assert "needs the running service" in page.inner_text("#viewer")
    _shot(page, "static-site-viewer.png")
    # "Next exercise" without a server: from a class page's list (kept by context.js in sessionStorage)
    listing = out / "class" / "Position.html"
    page.goto(listing.as_uri())
    cards = page.eval_on_selector_all("ul.cards a.position-link", "els => els.map(e => e.href)")
    assert len(cards) >= 2
    page.click("ul.cards a.position-link >> nth=0")
    page.wait_for_selector("#board.interactive svg")
    assert page.get_attribute("#next-exercise", "href") == cards[1]
    page.click("#next-exercise")
    page.wait_for_selector("#board.interactive svg")
    assert page.url == cards[1]
    assert page.locator("#next-exercise").count() == 0  # the last of the list
    page.click("#back-link")
    page.wait_for_selector("ul.cards")
    assert page.url == listing.as_uri()
    context.close()
    assert not errors, errors


# --- 2. fair solving ------------------------------------------------------------------------------


def _mate_in_one_with_two_mates(base_url: str, page) -> tuple[str, dict, list[str]]:
    """A mate-in-one position of the shipped puzzles with more than one mate (python-chess decides)."""
    import json
    import urllib.request

    members = json.load(urllib.request.urlopen(base_url + "/class/MateInOne.json"))
    pages = [members]
    while pages[-1]["next"]:
        assert "/class/MateInOne.json?" in pages[-1]["next"]  # the JSON's pager stays JSON
        pages.append(json.load(urllib.request.urlopen(base_url + pages[-1]["next"])))
    for listing in pages:
        for p in listing["positions"]:
            board = chess.Board(p["fen"])
            mates = []
            for move in board.legal_moves:
                board.push(move)
                if board.is_checkmate():
                    mates.append(move.uci())
                board.pop()
            if len(mates) > 1:
                page.goto(base_url + p["url"])
                page.wait_for_selector("#board.interactive svg")
                data = page.evaluate("JSON.parse(document.getElementById('solution-data').textContent)")
                return p["url"], data, mates
    pytest.fail("no mate in one with two mates in the shipped puzzles")


def test_an_alternative_mate_is_accepted(page, base_url):
    _url, data, mates = _mate_in_one_with_two_mates(base_url, page)
    other = next(m for m in mates if m != data["plies"][0]["uci"])
    click_move(page, other)
    page.wait_for_selector('#board[data-solved="true"]')
    assert page.get_attribute("#board", "data-alternative") == other
    board = chess.Board(data["fen"])
    board.push(chess.Move.from_uci(other))
    assert _placement(page.get_attribute("#board", "data-fen")) == _placement(board.fen())
    assert "Solved" in page.inner_text("#solve-status")
    assert page.evaluate("document.getElementById('themes').open")  # themes shown once solved
    _shot(page, "solve-alternative-mate.png")


def test_illegal_moves_are_told_apart_and_typed_moves_read_in_any_case(page, base_url):
    _url, data, mates = _mate_in_one_with_two_mates(base_url, page)
    assert not page.evaluate("document.getElementById('themes').open")  # hidden before solving
    board = chess.Board(data["fen"])
    # an illegal click: a piece of the side to move onto a square it cannot reach
    illegal = next(
        chess.square_name(f) + chess.square_name(t)
        for f in board.pieces(chess.ROOK, board.turn)
        | board.pieces(chess.QUEEN, board.turn)
        | board.pieces(chess.KING, board.turn)
        for t in chess.SQUARES
        if t != f and not board.is_legal(chess.Move(f, t)) and board.piece_at(t) is None
    )
    click_move(page, illegal)
    page.wait_for_selector('#board[data-refused="illegal"]')
    assert "not legal" in page.inner_text("#solve-status")
    wrong = next(m for m in board.legal_moves if m.uci() not in mates)
    click_move(page, wrong.uci())
    page.wait_for_selector(f'#board[data-refused="{wrong.uci()}"]')
    assert "not the move" in page.inner_text("#solve-status")
    page.fill("#move-input", "zz9")
    page.press("#move-input", "Enter")
    assert "not legal" in page.inner_text("#solve-status")
    # the line's own move typed in lower case (SAN without the capital): understood when unambiguous
    san = data["plies"][0]["san_en"]
    candidates = [
        m
        for m in board.legal_moves
        if re.sub(r"[+#x=]", "", board.san(m)).lower() == re.sub(r"[+#x=]", "", san).lower()
    ]
    typed = san.lower() if len(candidates) == 1 else data["plies"][0]["uci"]
    page.fill("#move-input", typed)
    page.press("#move-input", "Enter")
    page.wait_for_selector('#board[data-solved="true"]')


# --- 3. after solving: next exercise, hint, solution on the board ---------------------------------


def test_next_exercise_in_the_class_context(page, base_url):
    page.goto(base_url + "/class/MateInTwo")
    cards = page.eval_on_selector_all("ul.cards a.position-link", "els => els.map(e => e.href)")
    assert len(cards) >= 2
    page.click("ul.cards a.position-link >> nth=0")
    page.wait_for_selector("#board.interactive svg")
    data = page.evaluate("JSON.parse(document.getElementById('solution-data').textContent)")
    for index in range(0, len(data["plies"]), 2):
        click_move(page, data["plies"][index]["uci"])
        page.wait_for_selector(f'#board[data-ply="{min(index + 2, len(data["plies"]))}"]')
    page.wait_for_selector('#board[data-solved="true"]')
    assert page.is_visible("#next-exercise")
    _shot(page, "solve-next-exercise.png")
    page.click("#next-exercise")
    page.wait_for_selector("#board.interactive svg")
    assert page.url == cards[1]
    assert page.get_attribute("article.position", "data-iri") in cards[1].replace("%3A", ":").replace("%2F", "/")
    page.click("#back-link")
    page.wait_for_url("**/class/MateInTwo*")


@pytest.fixture(scope="module")
def course_url(tmp_path_factory) -> Iterator[str]:
    store = tmp_path_factory.mktemp("trainer-course") / "store"
    for source in (DATA / "lichess" / "puzzles.csv", DATA / "pychess" / "mate_in_2.pgn"):
        assert run_cli("import", str(source), store=store).exit_code == 0
    assert run_cli("course", "import", str(DATA / "courses" / "first-steps.yaml"), store=store).exit_code == 0
    url, server = serve(store)
    yield url + "/course/first-steps"
    server.shutdown()


def test_next_exercise_and_back_in_a_course(page, course_url):
    page.goto(course_url)
    page.wait_for_selector("section.chapter")
    links = page.eval_on_selector_all("#chapter-1 a.exercise-link", "els => els.map(e => e.href)")
    page.click("#chapter-1 a.exercise-link >> nth=0")
    page.wait_for_selector("#board.interactive svg")
    assert len(links) > 1
    assert page.get_attribute("#next-exercise", "href") and page.locator("#next-link").count() == 1
    page.click("#next-link")
    page.wait_for_selector("#board.interactive svg")
    assert page.url == links[1]
    assert "Back to the course" in page.inner_text("#back-link")
    page.click("#back-link")
    page.wait_for_selector("section.chapter")
    assert "/course/" in page.url


def test_hint_then_the_solution_played_on_the_board(page, base_url):
    page.goto(base_url + "/class/MateInTwo")
    page.click("ul.cards a.position-link >> nth=0")
    page.wait_for_selector("#board.interactive svg")
    data = page.evaluate("JSON.parse(document.getElementById('solution-data').textContent)")
    first = data["plies"][0]["uci"]
    board = chess.Board(data["fen"])
    piece = chess.piece_name(board.piece_type_at(chess.parse_square(first[:2])))
    page.click("#hint")
    assert f"Move your {piece}" in page.inner_text("#solve-status")
    assert "hint" in page.get_attribute(f"#board rect.square.{first[:2]}", "class")
    page.click("#hint")
    assert first[2:4] in page.inner_text("#solve-status")
    assert "hint" in page.get_attribute(f"#board rect.square.{first[2:4]}", "class")
    _shot(page, "solve-hint.png")
    page.click("#show-solution")
    page.wait_for_selector('#board[data-shown="true"]', timeout=20000)
    assert page.get_attribute("#board", "data-fen") == data["plies"][-1]["fen"]
    listed = page.inner_text("#solve-moves")
    for ply in data["plies"]:
        assert ply["san"] in listed
        if ply["comment"]:
            assert ply["comment"] in listed
    assert page.inner_text("#solved") == "0"  # shown, not solved
    _shot(page, "solve-solution-played.png")


# --- 4. comments stay, "Start again" during a reply, the phone -------------------------------------


def test_start_again_during_the_reply_cancels_it(page, base_url):
    page.goto(base_url + "/class/MateInTwo")
    page.click("ul.cards a.position-link >> nth=0")
    page.wait_for_selector("#board.interactive svg")
    data = page.evaluate("JSON.parse(document.getElementById('solution-data').textContent)")
    click_move(page, data["plies"][0]["uci"])
    page.click("#restart")  # while the 500 ms reply is pending
    page.wait_for_timeout(900)
    assert page.get_attribute("#board", "data-ply") == "0"
    assert _placement(page.get_attribute("#board", "data-fen")) == _placement(data["fen"])
    assert page.get_attribute("#board", "data-solved") is None
    # and the attempt goes on normally afterwards, comments staying in the move list
    for index in range(0, len(data["plies"]), 2):
        click_move(page, data["plies"][index]["uci"])
        page.wait_for_selector(f'#board[data-ply="{min(index + 2, len(data["plies"]))}"]')
    page.wait_for_selector('#board[data-solved="true"]')
    listed = page.inner_text("#solve-moves")
    assert all(ply["san"] in listed for ply in data["plies"])
    assert all(ply["comment"] in listed for ply in data["plies"] if ply["comment"])


def test_phone_keeps_the_feedback_in_the_viewport(browser, base_url):
    context = browser.new_context(
        viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True, device_scale_factor=2
    )
    page = context.new_page()
    page.goto(base_url + "/class/MateInTwo")
    page.click("ul.cards a.position-link >> nth=0")
    page.wait_for_selector("#board.interactive svg")
    data = page.evaluate("JSON.parse(document.getElementById('solution-data').textContent)")
    board = chess.Board(data["fen"])
    wrong = next(m for m in board.legal_moves if m.uci() != data["plies"][0]["uci"])
    click_move(page, wrong.uci())
    page.wait_for_selector(f'#board[data-refused="{wrong.uci()}"]')
    box = page.locator("#solve-status").bounding_box()
    height = page.evaluate("window.innerHeight")
    assert box["y"] >= 0 and box["y"] + box["height"] <= height, (box, height)
    assert page.evaluate("document.documentElement.scrollWidth") <= 376
    _shot(page, "phone-feedback.png")
    click_move(page, data["plies"][0]["uci"])
    page.wait_for_selector('#board[data-ply="2"]')
    box = page.locator("#solve-status").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= page.evaluate("window.innerHeight")
    context.close()


# --- 5. playing on against the engine ----------------------------------------------------------------


@pytest.mark.skipif(_engine() is None, reason="needs Debian's stockfish")
def test_play_on_against_the_engine_gets_legal_replies(page, base_url):
    page.goto(base_url + "/class/MateInTwo")
    page.click("ul.cards a.position-link >> nth=0")
    page.wait_for_selector("#board.interactive svg")  # solve.js has bound the buttons (it runs after board.js)
    page.click("#play-on")
    page.wait_for_selector("#play")
    page.wait_for_selector("#play-status:not(:empty)")  # CSS, not a JS string: the CSP forbids eval
    assert page.input_value("#play-elo") == "1350"  # the strength the engine really plays (issue 34)
    board = chess.Board(page.get_attribute("#board", "data-fen"))
    for turn in range(3):
        if board.is_game_over():
            break
        mine = sorted(board.legal_moves, key=lambda m: m.uci())[0]
        board.push(mine)
        page.fill("#play-input", mine.uci())
        page.press("#play-input", "Enter")
        plies = 2 * turn + 2
        page.wait_for_selector(f"#board[data-play-plies='{plies}'], #board[data-play-over]", timeout=20000)
        if board.is_game_over():
            break
        shown = page.get_attribute("#board", "data-fen")
        replies = [m for m in board.legal_moves if _after(board, m) == shown.split()[0]]
        assert len(replies) == 1, (board.fen(), shown)  # the engine's reply is legal
        board.push(replies[0])
    assert "Engine at 1350 Elo" in page.inner_text("#play-engine") or "Engine at" in page.inner_text("#play-engine")
    with page.expect_download() as download:
        page.click("#play-download")
    text = Path(download.value.path()).read_text(encoding="utf-8")
    game = chess.pgn.read_game(io.StringIO(text))
    assert [m.uci() for m in game.mainline_moves()] == [m.uci() for m in board.move_stack]
    _shot(page, "play-on-engine.png")


def _after(board: chess.Board, move: chess.Move) -> str:
    copy = board.copy(stack=False)
    copy.push(move)
    return copy.board_fen()


# --- 7. Spanish everywhere the interface speaks ---------------------------------------------------


def _english_phrases() -> dict[str, str]:
    """Interface phrases whose English differs from the Spanish (the fixed parts of templates)."""
    from chesskb.service.i18n import STRINGS

    phrases = {}
    for key, english in STRINGS["en"].items():
        if english == STRINGS["es"][key]:
            continue
        for part in re.split(r"\{[a-z]+\}", english):
            part = part.strip(" .:,()")
            if (len(part) >= 5 and " " in part) or len(part) >= 7:
                phrases[part] = key
    return phrases


def test_spanish_pages_have_no_english_interface_strings(page, base_url, game_store, game_url):
    phrases = _english_phrases()
    assert "Next exercise" in phrases and "Start again" in phrases  # the check can fail
    page.goto(base_url + "/class/MateInTwo?lang=es")
    page.click("ul.cards a.position-link >> nth=0")
    page.wait_for_selector("#board.interactive svg")
    position = page.url
    page.click("#hint")
    urls = [
        base_url + "/?lang=es",
        base_url + "/classes?lang=es",
        base_url + "/class/MateInTwo?lang=es",
        position,
        base_url + "/courses?lang=es",
        base_url + "/queries?lang=es",
        base_url + "/queries/mate-in-one?lang=es",
        base_url + "/search?q=horquilla&lang=es",
        game_url + "/page?iri=" + quote(_match_iri(game_store), safe="") + "&lang=es",
    ]
    for url in urls:
        page.goto(url)
        if url == position:
            page.click("#hint")
            page.click("#play-on") if _engine() else None
            page.wait_for_timeout(300)
        # text the page marks as English (a literal's language), identifiers (code), the rows of a query's
        # result (the KB's data, e.g. a PGN's player "White to move") and the canned queries' descriptions
        # (Spanish sentences naming PGN tags and classes such as "Opening" or "Position"; checked against
        # their English originals by tests/test_spanish_pages.py) are not interface phrases
        text = page.evaluate("""(() => { const body = document.body.cloneNode(true);
            body.querySelectorAll('[lang="en"], code, pre, table.results td, table.queries td')
                .forEach(e => e.remove()); document.body.appendChild(body);
            const text = body.innerText; body.remove(); return text; })()""").replace("ChessPosition KB", "")
        found = [p for p in phrases if re.search(r"\b" + re.escape(p) + r"\b", text)]  # "Española" is not "Español"
        assert not found, (url, found)
        assert page.get_attribute("html", "lang") == "es"
        for href in page.eval_on_selector_all("header.site a", "els => els.map(e => e.getAttribute('href'))"):
            assert "lang=" in href, (url, href)  # every header link keeps the language
    _shot(page, "spanish-game.png")


def test_search_finds_themes_by_synonym_and_openings_without_duplicates(base_url):
    import json
    import urllib.request

    def search(q: str) -> dict:
        return json.load(urllib.request.urlopen(base_url + "/search.json?q=" + quote(q)))["groups"]

    for q in ("fork", "horquilla", "Double attack", "doble ataque"):
        assert [h["iri"].rsplit("#", 1)[-1] for h in search(q).get("themes", [])] == ["DoubleAttack"], q
    mate = search("mate")
    assert "MateInOne" in [h["iri"].rsplit("#", 1)[-1] for h in mate["themes"]]
    assert not any(h["label"].lower() == "mate in one" for h in mate.get("players", []))
    # openings by name and ECO code, one row per game, named by its opening (tags read by python-chess)
    with open(DATA / "openings" / "seed-001-openings.pgn", encoding="utf-8") as handle:
        headers = []
        while (h := chess.pgn.read_headers(handle)) is not None:
            headers.append(h)
    sicilian = [h for h in headers if "sicilian" in (h.get("Opening", "") + h.get("Variation", "")).lower()]
    hits = search("Sicilian")["openings"]
    labels = [h["label"] for h in hits]
    assert len({h["iri"] for h in hits}) == len(hits)
    seed_hits = [label for label in labels if label.split(" ")[0] in {h["ECO"] for h in sicilian}]
    assert len(seed_hits) == len(sicilian)
    for h in sicilian:
        assert any(label.startswith(f"{h['ECO']} {h['Opening']}") for label in seed_hits), h
    eco = headers[0]["ECO"]
    assert any(h["label"].startswith(f"{eco} {headers[0]['Opening']}") for h in search(eco)["games"])


# --- 3. next exercise: canned-query results and sources (HTTP only) --------------------------------


def _get(url: str) -> str:
    import urllib.request

    return urllib.request.urlopen(url).read().decode("utf-8")


def _hrefs(html: str, pattern: str) -> list[str]:
    import html as html_lib

    return [html_lib.unescape(h) for h in re.findall(r'href="(' + pattern + r'[^"]*)"', html)]


def _query(link: str) -> dict[str, list[str]]:
    from urllib.parse import parse_qs, urlsplit

    return parse_qs(urlsplit(link).query)


def test_next_exercise_in_a_canned_query_result(base_url):
    results = _get(base_url + "/queries/mate-in-one")
    links = list(dict.fromkeys(_hrefs(results, "/page")))
    assert len(links) >= 2 and all("from=query/mate-in-one" in link for link in links)
    first = _get(base_url + links[0])
    (following,) = _hrefs(first, r"/page\?[^\"]*i=1")[:1]
    assert _query(following) == _query(links[1])
    assert _hrefs(first, "/queries/mate-in-one") == ["/queries/mate-in-one"]  # back to the results


def test_next_exercise_of_a_source_and_no_empty_next_page(base_url):
    with open(DATA / "pychess" / "mate_in_2.pgn", encoding="latin-1") as handle:  # the file is Latin-1
        fens = []
        while (headers := chess.pgn.read_headers(handle)) is not None:
            fens.append(headers.get("FEN"))
    home = _get(base_url + "/")
    (source,) = [link for link in _hrefs(home, "/page") if "mate_in_2" in link]
    listing = _get(base_url + source)
    games = [link for link in _hrefs(listing, "/page") if "/match/" in link]
    assert 'rel="next"' not in listing or len(games) > 100  # no "Next" to an empty page
    game = _get(base_url + games[0])
    (exercise,) = [link for link in _hrefs(game, "/page") if "from=source/" in link][:1]
    page = _get(base_url + exercise)
    assert f'data-fen="{_four(fens[0])} ' in page  # (the file writes move number 0; the KB says 1)
    (following,) = [link for link in _hrefs(page, "/page") if "from=source/" in link and "i=2" in link][:1]
    assert f'data-fen="{_four(fens[1])} ' in _get(base_url + following)


def _four(fen: str) -> str:
    return " ".join(fen.split()[:4])
