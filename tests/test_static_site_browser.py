"""The static site opened from disk (file://) in a real Chromium: walk the theme tree to a position
and solve it by clicking, exactly as on the served site."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import DATA, run_cli
from tests.test_pages_browser import ARTIFACTS, click_move


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("static") / "site"
    assert run_cli("html", str(DATA / "pychess" / "mate_in_2.pgn"), "-o", str(out)).exit_code == 0
    return out


def test_static_site_from_files_walk_the_tree_and_solve(browser, site: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto((site / "index.html").as_uri())
    page.click('a[href="classes.html"] >> nth=0')
    page.click('a[data-class="MateInTwo"]')
    page.wait_for_url("**/class/MateInTwo.html")
    page.click("ul.cards a.position-link >> nth=0")
    page.wait_for_selector("#board.interactive svg")
    assert page.url.startswith("file://")
    data = page.evaluate("JSON.parse(document.getElementById('solution-data').textContent)")
    plies = data["plies"]
    for index in range(0, len(plies), 2):
        click_move(page, plies[index]["uci"])
        page.wait_for_selector(f'#board[data-ply="{min(index + 2, len(plies))}"]')
    page.wait_for_selector('#board[data-solved="true"]')
    page.click("details.solution summary")
    assert page.is_visible("details.solution p.line")
    page.screenshot(path=str(ARTIFACTS / "static-site-solved.png"), full_page=True)
    context.close()
    assert not errors, errors
