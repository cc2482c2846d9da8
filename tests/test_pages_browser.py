"""End-to-end: a real Chromium (Debian's /usr/bin/chromium, driven by Playwright) against the real
service on a real HTTP server: solving by clicking, a wrong move refused, the solution revealed,
the class tree walked to a position, a phone-sized screen, hostile text that must not run.
Screenshots are kept in tests/artifacts/.
"""

from __future__ import annotations

import os
from pathlib import Path

import chess
import pytest

from tests.boards import mates_in_one
from tests.conftest import run_cli
from tests.live_server import serve

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).parent / "artifacts"
FIXTURES = Path(__file__).parent / "fixtures"

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is not installed (scripts/setup.sh installs it)", allow_module_level=True)


def click_move(page, uci: str) -> None:
    page.click(f"#board rect.square.{uci[:2]}")
    page.click(f"#board rect.square.{uci[2:4]}")


def a_mate_in_two(page, base_url: str) -> tuple[str, dict]:
    """A mate-in-two position reached as a learner would: theme tree -> class page -> position."""
    page.goto(base_url + "/classes")
    page.click('a[data-class="MateInTwo"]')
    page.wait_for_url("**/class/MateInTwo*")
    page.click("ul.cards a.position-link >> nth=0")
    page.wait_for_selector("#board.interactive svg")
    data = page.evaluate("JSON.parse(document.getElementById('solution-data').textContent)")
    return page.url, data


def a_move_that_does_not_mate_in_two(board: chess.Board) -> chess.Move:
    """A first move with a defence after which no mate in one follows: a truly wrong move.

    Any other move might be a second solution (a dual), which the trainer rightly accepts.
    """
    for move in board.legal_moves:
        if move.promotion:  # clicked moves here are plain from-to squares
            continue
        board.push(move)
        if board.is_checkmate():
            board.pop()
            continue
        defended = False
        for defence in list(board.legal_moves):
            board.push(defence)
            defended = not mates_in_one(board)
            board.pop()
            if defended:
                break
        board.pop()
        if defended:
            return move
    raise AssertionError("every first move mates in two")


def test_solve_by_clicking_with_a_wrong_move_refused(page, base_url):
    ARTIFACTS.mkdir(exist_ok=True)
    _url, data = a_mate_in_two(page, base_url)
    plies = data["plies"]
    assert len(plies) >= 3 and plies[0]["solver"] and not plies[1]["solver"]
    assert page.is_visible("#solve")  # the script ran and showed the solving panel
    board = chess.Board(data["fen"])
    wrong = a_move_that_does_not_mate_in_two(board)
    click_move(page, wrong.uci())
    page.wait_for_selector(f'#board[data-refused="{wrong.uci()}"]')
    assert "not the move" in page.inner_text("#solve-status")
    assert page.get_attribute("#board", "data-ply") == "0"
    page.screenshot(path=str(ARTIFACTS / "solve-wrong-move.png"))
    for index in range(0, len(plies), 2):
        click_move(page, plies[index]["uci"])
        expected = min(index + 2, len(plies))
        page.wait_for_selector(f'#board[data-ply="{expected}"]')
    page.wait_for_selector('#board[data-solved="true"]')
    assert "Solved" in page.inner_text("#solve-status")
    assert page.get_attribute("#board", "data-fen") == plies[-1]["fen"]
    assert page.inner_text("#attempts") == "1" and page.inner_text("#solved") == "1"
    page.screenshot(path=str(ARTIFACTS / "solve-solved.png"), full_page=True)
    # the counters live in localStorage: a reload keeps them
    page.reload()
    page.wait_for_selector("#board.interactive svg")
    assert page.inner_text("#solved") == "1"
    # the solution, hidden until asked for
    assert not page.is_visible("details.solution p.line")
    page.click("details.solution summary")
    assert page.is_visible("details.solution p.line")
    assert plies[0]["san"] in page.inner_text("details.solution p.line")


def wider_than_the_screen(page) -> list[str]:
    """What sticks out on the right (for the failure message)."""
    return page.evaluate("""Array.from(document.querySelectorAll('body *'))
        .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5)
        .map(e => e.tagName + ' ' + (e.textContent || '').slice(0, 40))""")


def test_solution_reveals_without_javascript_on_a_phone(browser, base_url):
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 375, "height": 740}, is_mobile=True, device_scale_factor=2
    )
    page = context.new_page()
    page.goto(base_url + "/class/MateInOne")
    page.click("ul.cards a.position-link >> nth=0")
    page.wait_for_selector("#board svg")
    # nothing to click without the script: the solving panel and the trainer's buttons stay hidden
    assert not page.is_visible("#solve") and not page.is_visible("#trainer-buttons")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375 + 1, (page.url, width, wider_than_the_screen(page))  # no horizontal scrolling
    page.click("details.solution summary")
    assert page.is_visible("details.solution p.line")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "phone-no-js.png"), full_page=True)
    for path in ("/", "/classes", "/class/MateInOne", "/search?q=kasparov"):
        page.goto(base_url + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 376, (path, width, wider_than_the_screen(page))
    context.close()


def test_hostile_text_does_not_run_in_the_browser(browser, tmp_path):
    store = tmp_path / "store"
    assert run_cli("import", str(FIXTURES / "hostile.pgn"), store=store).exit_code == 0
    url, server = serve(store)
    try:
        context = browser.new_context()
        page = context.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(url + "/class/Position")
        page.click("ul.cards a.position-link >> nth=0")
        page.wait_for_selector("#board.interactive svg")
        page.click("details.solution summary")
        click_move(page, "a1b1")  # the refuted alternative: its comment holds </script><!--
        page.wait_for_selector('#board[data-refused="a1b1"]')
        assert "</script><!-- too slow -->" in page.inner_text("#solve-status")
        for link in page.eval_on_selector_all("section.game a", "els => els.map(e => e.href)"):
            page.goto(link)
        page.goto(url + "/search?q=%3Cscript%3Ealert(1)%3C/script%3E")
        assert dialogs == []
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "hostile-search.png"))
        context.close()
    finally:
        server.shutdown()


def drag_move(page, uci: str) -> None:
    start = page.locator(f"#board rect.square.{uci[:2]}").bounding_box()
    end = page.locator(f"#board rect.square.{uci[2:4]}").bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=5)
    page.mouse.up()


def test_typed_and_dragged_moves_in_spanish(page, base_url):
    url, data = a_mate_in_two(page, base_url)
    page.goto(url + "&lang=es")
    page.wait_for_selector("#board.interactive svg")
    plies = page.evaluate("JSON.parse(document.getElementById('solution-data').textContent)")["plies"]
    assert plies[0]["san"] == plies[0]["san_en"].translate(str.maketrans("KQRBN", "RDTAC"))
    board = chess.Board(data["fen"])
    wrong = a_move_that_does_not_mate_in_two(board)
    page.fill("#move-input", board.san(wrong).translate(str.maketrans("KQRBN", "RDTAC")))
    page.press("#move-input", "Enter")
    # An off-line move is judged by the server (POST judge): wait for its answer, not a fixed time.
    page.wait_for_selector(f'#board[data-refused="{wrong.uci()}"]')
    assert "Esa no es la jugada" in page.inner_text("#solve-status")
    page.fill("#move-input", plies[0]["san"])  # Spanish letters (Txg6+) are understood
    page.press("#move-input", "Enter")
    page.wait_for_selector('#board[data-ply="2"]')
    drag_move(page, plies[2]["uci"])
    if len(plies) > 3:
        page.wait_for_selector('#board[data-ply="4"]')
        page.fill("#move-input", plies[4]["uci"])
        page.press("#move-input", "Enter")
    page.wait_for_selector('#board[data-solved="true"]')
    assert "¡Resuelto!" in page.inner_text("#solve-status")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "solve-spanish-typed-dragged.png"), full_page=True)
