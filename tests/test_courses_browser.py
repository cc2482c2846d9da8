"""A learner passing a chapter in a real browser (Debian's Chromium through Playwright): the next
chapter is locked until enough of this one is solved on the board; progress survives a download and
an upload into a fresh browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import DATA, run_cli
from tests.live_server import serve
from tests.test_pages_browser import ARTIFACTS, click_move

COURSE = DATA / "courses" / "first-steps.yaml"


@pytest.fixture(scope="module")
def course_url(tmp_path_factory) -> Iterator[str]:
    store = tmp_path_factory.mktemp("course-browser") / "store"
    for source in (DATA / "lichess" / "puzzles.csv", DATA / "pychess" / "mate_in_2.pgn"):
        assert run_cli("import", str(source), store=store).exit_code == 0
    assert run_cli("course", "import", str(COURSE), store=store).exit_code == 0
    url, server = serve(store)
    yield url + "/course/first-steps"
    server.shutdown()


def _solve_here(page) -> None:
    data = page.evaluate("JSON.parse(document.getElementById('solution-data').textContent)")
    for index in range(0, len(data["plies"]), 2):
        click_move(page, data["plies"][index]["uci"])
        page.wait_for_selector(f'#board[data-ply="{min(index + 2, len(data["plies"]))}"]')
    page.wait_for_selector('#board[data-solved="true"]')


def test_a_learner_passes_chapter_one_and_chapter_two_unlocks(browser, course_url: str, tmp_path: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1100, "height": 900}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(course_url)
    assert page.get_attribute("#chapter-1", "class") == "chapter"
    assert "locked" in page.get_attribute("#chapter-2", "class")
    assert page.is_visible("#chapter-2 .lock-note")
    # the padlock is drawn by CSS, not an emoji that shows as an empty box without an emoji font
    assert "padlock" in page.get_attribute("#chapter-2 .status", "class")
    assert page.inner_text("#chapter-2 .status") == ""
    exercises = page.eval_on_selector_all("#chapter-1 li[data-iri]", "els => els.map(e => e.dataset.iri)")
    needed = -(-len(exercises) * 80 // 100)  # 80 %, rounded up
    for number, _ in enumerate(exercises[:needed]):
        page.goto(course_url)
        page.click(f"#chapter-1 li:nth-child({number + 1}) a.exercise-link")
        page.wait_for_selector("#board.interactive svg")
        _solve_here(page)
        page.goto(course_url)
        if number < needed - 1:
            assert "locked" in page.get_attribute("#chapter-2", "class")
    page.wait_for_selector("#chapter-1.passed")
    assert "locked" not in page.get_attribute("#chapter-2", "class")
    assert "padlock" not in page.get_attribute("#chapter-2 .status", "class")
    assert "locked" in page.get_attribute("#chapter-3", "class")
    assert page.inner_text("#chapter-1 .progress") == str(needed)
    page.screenshot(path=str(ARTIFACTS / "course-chapter-passed.png"), full_page=True)
    with page.expect_download() as download_info:
        page.click("#export-progress")
    saved = tmp_path / "progress.json"
    download_info.value.save_as(str(saved))
    context.close()
    assert not errors, errors

    fresh = browser.new_context(viewport={"width": 390, "height": 844})  # another browser, phone-sized
    page = fresh.new_page()
    page.goto(course_url)
    assert "locked" in page.get_attribute("#chapter-2", "class")
    page.set_input_files("#import-progress", str(saved))
    page.wait_for_selector("#chapter-1.passed")
    assert "locked" not in page.get_attribute("#chapter-2", "class")
    fresh.close()


def test_an_opening_line_says_where_and_why_the_learner_left_the_book(browser, tmp_path_factory) -> None:
    store = tmp_path_factory.mktemp("openings") / "store"
    assert run_cli("import", str(DATA / "openings" / "seed-001-openings.pgn"), store=store).exit_code == 0
    assert run_cli("course", "import", str(DATA / "courses" / "openings.yaml"), store=store).exit_code == 0
    url, server = serve(store)
    try:
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.goto(url + "/course/openings")
        assert page.locator("#chapter-1 li[data-iri]").count() == 19
        page.click("#chapter-1 li:nth-child(1) a.exercise-link")
        page.wait_for_selector("#board.interactive svg")
        data = page.evaluate("JSON.parse(document.getElementById('solution-data').textContent)")
        assert data["opening"] is True
        book = data["plies"][0]
        wrong = "a2a3" if book["uci"] != "a2a3" else "h2h3"
        click_move(page, wrong)
        page.wait_for_selector(f'#board[data-refused="{wrong}"]')
        status = page.inner_text("#solve-status")
        assert f"left the book at move 1: the book move is {book['san']}" in status
        assert book["comment"] in status
        _solve_here(page)
        assert "Solved" in page.inner_text("#solve-status")
        page.screenshot(path=str(ARTIFACTS / "opening-line.png"), full_page=True)
    finally:
        server.shutdown()
