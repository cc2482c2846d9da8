"""The /find board editor in a real Chromium (Playwright) against the real service over HTTP.

Pages are served with a strict Content-Security-Policy (scripts from the site only), so the editor
must work without inline script. What the results show is checked with python-chess on the FENs.
"""

from __future__ import annotations

import json
import urllib.request
from urllib.parse import parse_qs, urlsplit

import chess
import pytest

from tests.test_pages_browser import ARTIFACTS, sync_api

CSP = "script-src 'self'"


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport={"width": 1100, "height": 900})

    def strict(route):
        """Pages get the policy; the rest passes (a request still running at the end is dropped)."""
        try:
            if route.request.resource_type != "document":
                route.continue_()
                return
            response = route.fetch()
            route.fulfill(response=response, headers={**response.headers, "content-security-policy": CSP})
        except sync_api.Error:
            pass

    context.route("**/*", strict)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
    yield page
    context.close()
    assert not errors, errors


def card_fens(page) -> list[str]:
    return page.eval_on_selector_all("#find-results ul.cards img", "els => els.map(e => e.alt)")


def test_draw_a_pattern_and_page_through_the_results(page, base_url):
    page.goto(base_url + "/find")
    page.drag_and_drop('#palette [data-piece="k"]', '#pattern-board [data-square="g8"]')
    page.drag_and_drop('#palette [data-piece="R"]', '#pattern-board [data-square="a1"]')
    assert page.input_value("#pattern") == "kg8 Ra1"
    # a piece moved on the board, then one dragged off it
    page.drag_and_drop('#pattern-board [data-square="a1"] .piece', '#pattern-board [data-square="c7"]')
    assert page.input_value("#pattern") == "kg8 Rc7"
    page.drag_and_drop('#pattern-board [data-square="c7"] .piece', "h1")
    assert page.input_value("#pattern") == "kg8"
    # click placing, and a typed item the board cannot draw is kept
    page.click('#palette [data-piece="P"]')
    page.click('#pattern-board [data-square="h2"]')
    page.fill("#pattern", page.input_value("#pattern") + " !Pg2")
    page.dispatch_event("#pattern", "input")
    assert page.input_value("#pattern") == "kg8 Ph2 !Pg2"
    page.click("#find-submit")
    page.wait_for_selector("#find-results")
    query = parse_qs(urlsplit(page.url).query)
    assert query["pattern"] == ["kg8 Ph2 !Pg2"]
    fens = card_fens(page)
    assert fens
    for fen in fens:
        board = chess.Board(fen)
        assert board.piece_at(chess.G8) == chess.Piece.from_symbol("k")
        assert board.piece_at(chess.H2) == chess.Piece.from_symbol("P")
        assert board.piece_at(chess.G2) != chess.Piece.from_symbol("P")
    page.screenshot(path=str(ARTIFACTS / "find-results.png"), full_page=True)
    # the saved URL gives the same page; the JSON twin the same positions
    page.goto(page.url)
    assert card_fens(page) == fens
    twin = page.get_attribute('#find-results a[type="application/json"]', "href")
    with urllib.request.urlopen(base_url + twin) as response:
        data = json.loads(response.read())
    assert [r["fen"] for r in data["results"]] == fens


def test_paging(page, base_url):
    page.goto(base_url + "/find?pattern=kg8")
    first = card_fens(page)
    assert len(first) == 24
    page.click('#find-results a[rel="next"]')
    page.wait_for_url("**page=2*")
    second = card_fens(page)
    assert second and not set(second) & set(first)
    page.click('#find-results a[rel="prev"]')
    assert card_fens(page) == first


def test_find_similar_from_a_position_page_in_spanish(page, base_url):
    page.goto(base_url + "/classes?lang=es")
    page.click('a[data-class="MateInTwo"]')
    page.click("ul.cards a.position-link >> nth=0")
    page.wait_for_selector("a.find-similar")
    position = page.url
    fen = page.text_content("code.fen")
    page.click("a.find-similar")
    page.wait_for_selector("#find-results")
    assert page.text_content("h1") == "Buscar por patrón"
    board = chess.Board(fen)
    assert len(page.query_selector_all("#pattern-board .piece")) == len(board.piece_map())
    assert page.input_value("#side") == ("w" if board.turn else "b")
    links = page.eval_on_selector_all("#find-results ul.cards a", "els => els.map(e => e.href)")
    assert parse_qs(urlsplit(position).query)["iri"][0] in {parse_qs(urlsplit(link).query)["iri"][0] for link in links}
    # the teacher keeps only the kings and searches again, still in Spanish
    for square in chess.SQUARES:
        piece = board.piece_at(square)
        if piece and piece.piece_type != chess.KING:
            page.drag_and_drop(f'#pattern-board [data-square="{chess.square_name(square)}"] .piece', "h1")
    page.click("#find-submit")
    page.wait_for_selector("#find-results")
    assert parse_qs(urlsplit(page.url).query)["lang"] == ["es"]
    assert len(card_fens(page)) >= 1


def test_a_bad_pattern_is_explained_and_hostile_text_stays_text(page, base_url):
    page.goto(base_url + "/find?pattern=" + "%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
    assert "not a list-form item" in page.text_content("#find-error")
    assert page.query_selector("img[src=x]") is None
