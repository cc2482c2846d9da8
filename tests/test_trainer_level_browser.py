"""The trainer at lichess's level (issue 34, item 3), in Debian's Chromium against the real service:
the opponent's move into a lichess puzzle is played and highlighted first; a hint or the shown
solution makes a solve "solved with help"; no theme is visible before the exercise is solved; the
learner's Glicko-2 rating (checked against Glickman's worked example) and streak; ``/train``; and the
typed-move box right under the board on a phone. Expected answers come from the puzzle CSV itself,
read with python-chess.
"""

from __future__ import annotations

import csv
import json
import math
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from urllib.parse import parse_qs, quote, urlsplit

import chess
import pytest

from tests.conftest import BASE, CHROMIUM, ROOT, run_cli
from tests.live_server import serve
from tests.test_pages_browser import ARTIFACTS, click_move

PUZZLES = ROOT / "tests" / "fixtures" / "puzzles-30.csv"

if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is not installed", allow_module_level=True)


def _puzzles() -> dict[str, dict[str, str]]:
    with open(PUZZLES, encoding="utf-8", newline="") as handle:
        return {row["PuzzleId"]: row for row in csv.DictReader(handle)}


def _one_move_puzzles() -> list[dict[str, str]]:
    """The puzzles of the file whose solution is one move (the learner's mate), in file order."""
    return [row for row in _puzzles().values() if len(row["Moves"].split()) == 2]


@pytest.fixture(scope="module")
def puzzle_url(tmp_path_factory) -> Iterator[str]:
    work = tmp_path_factory.mktemp("level")
    store = work / "store"
    result = run_cli("import", "--jobs", "1", str(PUZZLES), store=store)
    assert result.exit_code == 0, result.output
    course = work / "course.yaml"  # two hand-picked one-move puzzles
    picked = ", ".join(f"{BASE}position/lichess-{row['PuzzleId']}" for row in _one_move_puzzles()[:2])
    course.write_text(
        f"id: level-test\ntitle: Two mates\nchapters:\n  - title: Mates\n    level: beginner\n"
        f"    exercises: [{picked}]\n",
        encoding="utf-8",
    )
    result = run_cli("course", "import", str(course), store=store)
    assert result.exit_code == 0, result.output
    url, server = serve(store)
    yield url
    server.shutdown()


def _page_of(puzzle_id: str) -> str:
    return "/page?iri=" + quote(f"{BASE}position/lichess-{puzzle_id}", safe="")


def _placement(fen: str) -> str:
    return fen.split()[0]


def _one_move_puzzle() -> dict[str, str]:
    return _one_move_puzzles()[0]


def _solve(page, row: dict[str, str]) -> None:
    """Play the learner's moves of the CSV solution (the opponent's replies come by themselves)."""
    moves = row["Moves"].split()[1:]
    for index in range(0, len(moves), 2):
        page.wait_for_selector(f'#board[data-ply="{index}"]')
        click_move(page, moves[index])


# --- the opponent's move into the puzzle ---------------------------------------------------------


def test_the_move_into_a_puzzle_is_played_and_highlighted(page, puzzle_url):
    row = _one_move_puzzle()
    setup = chess.Move.from_uci(row["Moves"].split()[0])
    before = chess.Board(row["FEN"])
    san = before.san(setup)
    after = before.copy()
    after.push(setup)
    page.goto(puzzle_url + _page_of(row["PuzzleId"]), wait_until="domcontentloaded")
    # first the CSV's position, before the opponent's move
    assert page.get_attribute("#board", "data-lead-in") == "pending"
    assert _placement(page.get_attribute("#board", "data-fen")) == before.board_fen()
    page.wait_for_selector('#board[data-lead-in="played"].interactive')
    assert _placement(page.get_attribute("#board", "data-fen")) == after.board_fen()
    for square in (setup.uci()[:2], setup.uci()[2:4]):
        assert "last" in page.get_attribute(f"#board rect.square.{square}", "class")
    assert san in page.inner_text("#solve-status")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "trainer-lead-in.png"))
    _solve(page, row)
    page.wait_for_selector('#board[data-solved="true"]')


# --- solved with help ------------------------------------------------------------------------------


def test_a_hint_makes_the_solve_solved_with_help(page, puzzle_url):
    row = _one_move_puzzle()
    page.goto(puzzle_url + _page_of(row["PuzzleId"]))
    page.wait_for_selector("#board.interactive")
    page.click("#hint")
    _solve(page, row)
    page.wait_for_selector('#board[data-solved="help"]')
    assert page.inner_text("#solved") == "0" and page.inner_text("#helped") == "1"
    key = f"chesskb:{BASE}position/lichess-{row['PuzzleId']}"
    stored = json.loads(page.evaluate(f"window.localStorage.getItem({json.dumps(key)})"))
    assert stored["solved"] == 0 and stored["helped"] == 1
    # solving again on the same page, after the help was seen, is still with help
    page.click("#restart")
    _solve(page, row)
    page.wait_for_selector('#board[data-solved="help"]')
    assert page.inner_text("#solved") == "0" and page.inner_text("#helped") == "2"


def test_the_shown_solution_is_not_a_solve(page, puzzle_url):
    row = _one_move_puzzle()
    page.goto(puzzle_url + _page_of(row["PuzzleId"]))
    page.wait_for_selector("#board.interactive")
    page.click("#show-solution")
    page.wait_for_selector('#board[data-shown="true"]', timeout=20000)
    page.click("#restart")
    _solve(page, row)
    page.wait_for_selector('#board[data-solved="help"]')
    assert page.inner_text("#solved") == "0"


# --- no theme before it is solved ------------------------------------------------------------------


def test_no_theme_is_visible_before_the_puzzle_is_solved(page, puzzle_url):
    row = _one_move_puzzle()
    page.goto(puzzle_url + _page_of(row["PuzzleId"]))
    page.wait_for_selector("#board.interactive")
    themes = [
        t.strip() for t in page.eval_on_selector_all("#themes ul.classes a", "els => els.map(e => e.textContent)")
    ]
    assert themes, "the puzzle's classes are listed (folded) on the page"
    visible = page.inner_text("body")  # innerText leaves out what closed <details> hide
    title = page.title()
    for theme in themes:
        assert theme.lower() not in visible.lower(), theme
        assert theme.lower() not in title.lower(), theme
    assert row["PuzzleId"] in page.inner_text("h1")
    _solve(page, row)
    page.wait_for_selector('#board[data-solved="true"]')
    assert all(theme in page.inner_text("#themes") for theme in themes)


# --- the learner's rating ---------------------------------------------------------------------------


def test_glicko2_reproduces_glickmans_worked_example(page, puzzle_url):
    """Glickman, "Example of the Glicko-2 system": 1500/200/0.06 with tau 0.5 against 1400/30 (win),
    1550/100 (loss), 1700/300 (loss) gives 1464.06, 151.52 and 0.05999."""
    page.goto(puzzle_url + _page_of(_one_move_puzzle()["PuzzleId"]))
    result = page.evaluate("""window.ChessKB.rating.update({rating: 1500, deviation: 200, volatility: 0.06},
        [{rating: 1400, deviation: 30, score: 1}, {rating: 1550, deviation: 100, score: 0},
         {rating: 1700, deviation: 300, score: 0}], 0.5)""")
    assert result["rating"] == pytest.approx(1464.06, abs=0.01)
    assert result["deviation"] == pytest.approx(151.52, abs=0.01)
    assert result["volatility"] == pytest.approx(0.05999, abs=0.00001)  # the paper prints five decimals


def _glicko2_one_game(
    rating: float,
    deviation: float,
    volatility: float,
    opponent: float,
    opponent_rd: float,
    score: float,
    tau: float = 0.75,
) -> tuple[float, float]:
    """Glicko-2 for one game, written from Glickman's paper for this test (rating, deviation)."""
    scale = 173.7178
    mu, phi, mu_j, phi_j = (rating - 1500) / scale, deviation / scale, (opponent - 1500) / scale, opponent_rd / scale
    g = 1 / math.sqrt(1 + 3 * phi_j**2 / math.pi**2)
    e = 1 / (1 + math.exp(-g * (mu - mu_j)))
    v = 1 / (g * g * e * (1 - e))
    delta = v * g * (score - e)
    a = math.log(volatility**2)

    def f(x: float) -> float:
        return (
            math.exp(x) * (delta**2 - phi**2 - v - math.exp(x)) / (2 * (phi**2 + v + math.exp(x)) ** 2)
            - (x - a) / tau**2
        )

    low, high = a, None
    if delta**2 > phi**2 + v:
        high = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > 1e-6:
        c = low + (low - high) * f_low / (f_high - f_low)
        f_c = f(c)
        if f_c * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2
        high, f_high = c, f_c
    sigma = math.exp(low / 2)
    phi_new = 1 / math.sqrt(1 / (phi**2 + sigma**2) + 1 / v)
    return (mu + phi_new**2 * g * (score - e)) * scale + 1500, phi_new * scale


def test_a_clean_solve_raises_the_rating_and_the_streak_a_miss_ends_it(page, puzzle_url):
    first, second = _one_move_puzzles()[:2]
    page.goto(puzzle_url + _page_of(first["PuzzleId"]))
    page.wait_for_selector("#board.interactive")
    _solve(page, first)
    page.wait_for_selector('#board[data-solved="true"]')
    learner = json.loads(page.evaluate("window.localStorage.getItem('chesskb:rating')"))
    rating, deviation = _glicko2_one_game(1500, 350, 0.06, int(first["Rating"]), int(first["RatingDeviation"]), 1)
    assert learner["rating"] == pytest.approx(rating, abs=0.01)
    assert learner["deviation"] == pytest.approx(deviation, abs=0.01)
    assert learner["streak"] == 1 and learner["best"] == 1
    assert page.inner_text("#learner-rating") == str(round(rating)) and page.inner_text("#streak") == "1"
    # solving the same puzzle again does not rate it again
    page.click("#restart")
    _solve(page, first)
    page.wait_for_selector('#board[data-solved="true"]')
    assert json.loads(page.evaluate("window.localStorage.getItem('chesskb:rating')")) == learner
    # a wrong first move on the next puzzle: a loss, the streak ends (the best stays)
    page.goto(puzzle_url + _page_of(second["PuzzleId"]))
    page.wait_for_selector("#board.interactive")
    board = chess.Board(second["FEN"])
    board.push_uci(second["Moves"].split()[0])
    wrong = sorted(m.uci() for m in board.legal_moves if m.uci() != second["Moves"].split()[1])[0]
    click_move(page, wrong)
    page.wait_for_selector(f'#board[data-refused="{wrong}"]')
    after = json.loads(page.evaluate("window.localStorage.getItem('chesskb:rating')"))
    rating2, _ = _glicko2_one_game(
        learner["rating"],
        learner["deviation"],
        learner["volatility"],
        int(second["Rating"]),
        int(second["RatingDeviation"]),
        0,
    )
    assert after["rating"] == pytest.approx(rating2, abs=0.01) and after["rating"] < learner["rating"]
    assert after["streak"] == 0 and after["best"] == 1


# --- /train -----------------------------------------------------------------------------------------


def _redirect(url: str) -> tuple[int, str]:
    class NoFollow(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    try:
        urllib.request.build_opener(NoFollow).open(url)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Location", "")
    raise AssertionError(f"{url} did not redirect")


def _nearest(rating: int, count: int = 12) -> set[str]:
    """The puzzles whose CSV rating is among the ``count`` nearest ``rating`` (ties included)."""
    distances = sorted(abs(int(row["Rating"]) - rating) for row in _puzzles().values())
    cut = distances[count - 1]
    return {pid for pid, row in _puzzles().items() if abs(int(row["Rating"]) - rating) <= cut}


@pytest.mark.parametrize("rating", [None, 600, 1700, 2600])
def test_train_redirects_to_a_puzzle_near_the_rating(puzzle_url, rating):
    url = puzzle_url + "/train" + (f"?rating={rating}" if rating is not None else "")
    for _ in range(5):
        status, location = _redirect(url)
        assert status == 302
        query = parse_qs(urlsplit(location).query)
        assert query["from"] == ["train"]
        puzzle_id = query["iri"][0].rsplit("lichess-", 1)[1]
        assert puzzle_id in _nearest(1500 if rating is None else rating)


@pytest.mark.parametrize("bad", ["abc", "-5", "99999"])
def test_train_refuses_a_rating_that_is_not_one(puzzle_url, bad):
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(puzzle_url + "/train?rating=" + bad)
    assert caught.value.code == 400


def test_next_exercise_in_training_carries_the_rating(page, puzzle_url):
    row = _one_move_puzzle()
    page.goto(puzzle_url + "/train?rating=" + row["Rating"])
    page.wait_for_selector("#board.interactive")
    assert "from=train" in page.url
    played = next(pid for pid in _puzzles() if f"lichess-{pid}" in page.url)
    _solve(page, _puzzles()[played])
    page.wait_for_selector('#board[data-solved="true"]')
    learner = json.loads(page.evaluate("window.localStorage.getItem('chesskb:rating')"))
    href = page.get_attribute("#next-exercise", "href")
    assert urlsplit(href).path == "/train" and parse_qs(urlsplit(href).query)["rating"] == [
        str(round(learner["rating"]))
    ]


# --- the phone ----------------------------------------------------------------------------------------


def test_the_move_box_sits_under_the_board_on_a_phone(browser, puzzle_url):
    context = browser.new_context(
        viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True, device_scale_factor=2
    )
    page = context.new_page()
    page.goto(puzzle_url + _page_of(_one_move_puzzle()["PuzzleId"]))
    page.wait_for_selector("#board.interactive")
    board = page.locator("#board").bounding_box()
    form = page.locator("#move-form").bounding_box()
    assert 0 <= form["y"] - (board["y"] + board["height"]) < 24, (board, form)
    assert form["y"] + form["height"] <= page.evaluate("window.innerHeight")
    assert page.evaluate("document.documentElement.scrollWidth") <= 376
    page.screenshot(path=str(ARTIFACTS / "trainer-phone-move-box.png"))
    context.close()


# --- "Play on": the end of the game says who won and how ------------------------------------------


def test_play_on_says_who_won_and_how(page, puzzle_url):
    row = _one_move_puzzle()
    board = chess.Board(row["FEN"])
    board.push_uci(row["Moves"].split()[0])
    mate = chess.Move.from_uci(row["Moves"].split()[1])
    learner_wins = "1-0" if board.turn == chess.WHITE else "0-1"
    board.push(mate)
    assert board.is_checkmate() and board.result() == learner_wins  # the CSV's one-move solution mates
    page.goto(puzzle_url + _page_of(row["PuzzleId"]))
    page.wait_for_selector("#board.interactive")
    page.click("#play-on")
    page.wait_for_selector("#play-status:not(:empty)")
    assert page.input_value("#play-elo") == "1350"
    page.fill("#play-input", mate.uci())
    page.press("#play-input", "Enter")
    page.wait_for_selector("#board[data-play-over]", timeout=20000)
    assert page.inner_text("#play-status") == f"You won: you gave checkmate ({learner_wins})."


# --- course progress and the progress file ------------------------------------------------------------


def test_course_progress_tells_help_apart_and_the_file_keeps_the_rating(browser, puzzle_url, tmp_path):
    helped, clean = _one_move_puzzles()[:2]
    course = puzzle_url + "/course/level-test"
    context = browser.new_context(viewport={"width": 1100, "height": 900}, accept_downloads=True)
    page = context.new_page()
    page.goto(course)
    page.click("#chapter-1 li:nth-child(1) a.exercise-link")
    page.wait_for_selector("#board.interactive")
    page.click("#hint")
    _solve(page, helped)
    page.wait_for_selector('#board[data-solved="help"]')
    page.goto(course)
    first = "#chapter-1 li:nth-child(1)"
    assert "helped" in page.get_attribute(first, "class") and "solved" not in page.get_attribute(first, "class")
    assert page.inner_text("#chapter-1 .progress") == "0"  # solved with help does not count
    page.click("#chapter-1 li:nth-child(2) a.exercise-link")
    page.wait_for_selector("#board.interactive")
    _solve(page, clean)
    page.wait_for_selector('#board[data-solved="true"]')
    page.goto(course)
    assert "solved" in page.get_attribute("#chapter-1 li:nth-child(2)", "class")
    assert page.inner_text("#chapter-1 .progress") == "1"
    learner = json.loads(page.evaluate("window.localStorage.getItem('chesskb:rating')"))
    assert learner["rated"] == 2 and learner["streak"] == 1  # the hint was a loss, the clean solve a win
    with page.expect_download() as download_info:
        page.click("#export-progress")
    saved = tmp_path / "progress.json"
    download_info.value.save_as(str(saved))
    context.close()
    entries = json.loads(saved.read_text(encoding="utf-8"))["entries"]
    assert entries["chesskb:rating"] == learner

    fresh = browser.new_context(viewport={"width": 390, "height": 844})  # another browser
    page = fresh.new_page()
    page.goto(course)
    page.set_input_files("#import-progress", str(saved))
    page.wait_for_selector("#chapter-1 li.helped")
    assert json.loads(page.evaluate("window.localStorage.getItem('chesskb:rating')")) == learner
    assert page.inner_text("#chapter-1 .progress") == "1"
    fresh.close()
