"""The teachers' authoring page: write an exercise in the browser and save it into a source.

Off unless ``AUTHOR_TOKEN`` is configured (``CHESSKB_AUTHOR_TOKEN`` or ``serve --author-token``);
every write needs the token (``X-Author-Token`` header), compared in constant time. The teacher
pastes a FEN (checked by the strict seed-004 validator, ``kb.checks.fen``), plays the solution on
the board (each move checked by python-chess here, so the page needs no chess code), types a comment
per move, ticks the themes, and saves. The exercise becomes one PGN game (``SetUp``/``FEN``, the
line with its comments, ``[Themes "…"]``) in a file ``authored.pgn`` that is *appended* to the named
source (``kb.importer.append_pgn``): it goes through the same reading, analysis and mapping as
any file, and nothing the source already holds is rewritten — a lichess source keeps its
popularity, game URLs and the course exercises that point at it.

A save is all or nothing: it answers success only after its write is published, and an error
(422 "not saved") only when nothing changed (any error finding aborts the write). Saves of one
service are serialised on the store's write lock (each waits up to ``SAVE_WAIT_SECONDS`` for the
one before it, so two teachers saving at once both keep their exercise); a save that cannot get the
lock (another import is writing) answers 409 and changes nothing.
"""

from __future__ import annotations

import hmac
import re
import threading
from typing import Any, cast

import chess
import chess.pgn
from flask import Blueprint, Response, current_app, jsonify, render_template, request

from chesskb.kb.analysis.themes import THEME_CLASSES
from chesskb.kb.checks.fen import board_from_fen, validate_fen
from chesskb.kb.findings import fen_json, fen_text
from chesskb.kb.importer import ImportRefused, NothingAppended, append_pgn
from chesskb.kb.reading.pgn import MAX_COMMENT_CHARS
from chesskb.kb.reading.pgn_tokens import UnwritableComment, comment_text, escape_tag_value
from chesskb.kb.store import Store, StoreBusy
from chesskb.kb.vocab import CP

from . import boards, executor
from .backoff import Backoff
from .errors import ServiceError

bp = Blueprint("authoring", __name__)
blueprint = bp

_SOURCE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: The longest tag value (title, event, site, players): PGN's own bound for a string token.
MAX_TAG_CHARS = 255
#: Seconds a save waits for another save of this service to finish before answering 409.
SAVE_WAIT_SECONDS = 30.0
#: The file name an authored exercise is appended to its source under (listed among its files).
AUTHORED_FILE = "authored.pgn"


def _token() -> str:
    token = current_app.config.get("AUTHOR_TOKEN")
    if not token:
        raise ServiceError(404, "authoring is off on this service (no AUTHOR_TOKEN configured)")
    return str(token)


def _body() -> dict[str, Any]:
    """The request's JSON object (none, or not JSON: an empty one, whose parts are then missing);
    any other JSON value is refused."""
    data = request.get_json(silent=True)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ServiceError(400, f"send a JSON object, not a JSON {type(data).__name__}")
    return data


def _tag(data: dict[str, Any], key: str, default: str) -> str:
    """A tag's value from the request, escaped as PGN writes it (``escape_tag_value``), within
    ``MAX_TAG_CHARS``."""
    value = str(data.get(key) or default)
    if len(value) > MAX_TAG_CHARS:
        raise ServiceError(422, f"{key}: {len(value):,} characters; at most {MAX_TAG_CHARS} (MAX_TAG_CHARS)")
    return escape_tag_value(value)


def _comment(text: Any, where: str) -> str:
    """A comment as a PGN brace comment carries it (``comment_text``), within what the importer keeps
    (``MAX_COMMENT_CHARS``): a longer one, or one PGN cannot hold (a ``}``), is refused, never saved
    cut or changed."""
    try:
        comment = comment_text(str(text or ""))
    except UnwritableComment as exc:
        raise ServiceError(422, f"{where} {exc}") from None
    if len(comment) > MAX_COMMENT_CHARS:
        raise ServiceError(
            422,
            f"{where}: {len(comment):,} characters; a comment has at most {MAX_COMMENT_CHARS:,} (MAX_COMMENT_CHARS)",
        )
    return comment


def _require_token() -> None:
    """The token, checked in constant time; after a wrong one the address waits (``service.backoff``:
    AUTHOR_TOKEN_DELAY, doubling per further wrong token) and its tries meanwhile are not checked."""
    expected = _token()
    failures = _failures()
    client = request.remote_addr or "?"
    wait = failures.wait_left(client)
    if wait:
        raise ServiceError(
            429,
            f"a wrong authoring token was sent from this address: wait {wait} s before the "
            "next try (setting AUTHOR_TOKEN_DELAY)",
            headers={"Retry-After": str(wait)},
        )
    given = request.headers.get("X-Author-Token", "")
    if not hmac.compare_digest(given.encode(), expected.encode()):
        failures.failed(client)
        raise ServiceError(403, "the authoring token is missing or wrong")
    failures.succeeded(client)


def _failures() -> Backoff:
    with _SETUP:
        found = current_app.extensions.get("chesskb.author_failures")
        if found is None:
            first = float(current_app.config["AUTHOR_TOKEN_DELAY"])
            found = current_app.extensions["chesskb.author_failures"] = Backoff(first, LONGEST_TOKEN_DELAY)
    return found


_SETUP = threading.Lock()
#: The longest wait after wrong tokens in a row (the first is AUTHOR_TOKEN_DELAY, each next doubles).
LONGEST_TOKEN_DELAY = 300.0
#: Tokens shorter than this are warned about when the server starts: a guess per second finds them.
SHORTEST_GOOD_TOKEN = 16


@bp.route("/author")
def author_page() -> Response:
    _token()  # 404 when authoring is off
    themes = [(name, CP.term(name).value) for name in sorted(THEME_CLASSES)]  # labelled in the page's language
    return Response(render_template("author.html", themes=themes), mimetype="text/html")


def _start(fen: str) -> chess.Board:
    errors = validate_fen(fen)
    if errors:
        raise ServiceError(422, "; ".join(fen_text(e) for e in errors))
    board = board_from_fen(fen)
    if board is None:
        raise ServiceError(422, "the FEN does not describe a board")
    return board


def _replay(board: chess.Board, moves: list[str]) -> list[str]:
    """The SAN of each move (UCI), played from ``board``; a move that is not legal is refused."""
    sans = []
    for number, uci in enumerate(moves, start=1):
        try:
            move = chess.Move.from_uci(str(uci))
        except ValueError:
            raise ServiceError(422, f"move {number}: {uci!r} is not a move") from None
        if move not in board.legal_moves:
            promotion = chess.Move(move.from_square, move.to_square, chess.QUEEN)
            if move.promotion is None and promotion in board.legal_moves:
                move = promotion
            else:
                raise ServiceError(
                    422, f"move {number}: {board.san(move) if board.is_pseudo_legal(move) else uci} is not legal here"
                )
        sans.append(board.san(move))
        board.push(move)
    return sans


@bp.route("/author/check", methods=["POST"])
def check() -> Response:
    """Validate the FEN and the line so far; answer the board after it (SVG) and each move's SAN."""
    _require_token()
    data = _body()
    fen = str(data.get("fen", ""))
    errors = validate_fen(fen)
    if errors:
        return jsonify({"valid": False, "errors": [fen_json(e) for e in errors]})
    board = _start(fen)
    sans = _replay(board, [str(m) for m in data.get("moves", [])])
    return jsonify(
        {
            "valid": True,
            "errors": [],
            "san": sans,
            "fen": board.fen(),
            "turn": "white" if board.turn else "black",
            "over": board.is_game_over(),
            "svg": boards.board_svg(board, size=360, coordinates=True),
        }
    )


def exercise_pgn(data: dict[str, Any]) -> tuple[str, chess.pgn.Game]:
    """The exercise as a PGN game, after checking every part of it."""
    fen = str(data.get("fen", ""))
    board = _start(fen)
    moves = data.get("moves") or []
    if not moves:
        raise ServiceError(422, "play the solution on the board: an exercise needs at least one move")
    if not isinstance(moves, list):
        raise ServiceError(422, "moves: a list of moves")
    ucis = [str(m.get("uci", "")) if isinstance(m, dict) else str(m) for m in moves]
    comments = [
        _comment(m.get("comment", ""), f"the comment of move {number}") if isinstance(m, dict) else ""
        for number, m in enumerate(moves, start=1)
    ]
    _replay(board.copy(), ucis)
    themes = [str(t) for t in data.get("themes") or []]
    unknown = [t for t in themes if t not in THEME_CLASSES]
    if unknown:
        raise ServiceError(422, f"unknown theme(s): {', '.join(unknown)}")
    game = chess.pgn.Game()
    # python-chess writes tag values as given: they are escaped here (and read back unescaped)
    game.headers["Event"] = _tag(data, "event", "Exercises")
    game.headers["Site"] = _tag(data, "site", "?")
    game.headers["White"] = _tag(data, "white", "?")
    game.headers["Black"] = _tag(data, "black", "?")
    game.headers["Result"] = "*"
    if data.get("title"):
        game.headers["Annotator"] = _tag(data, "title", "")
    game.setup(board)
    if themes:
        game.headers["Themes"] = " ".join(themes)
    intro = _comment(data.get("intro"), "the introduction")
    if intro:
        game.comment = intro
    node: chess.pgn.GameNode = game
    for uci, comment in zip(ucis, comments, strict=True):
        move = chess.Move.from_uci(uci)
        if move not in node.board().legal_moves:
            move = chess.Move(move.from_square, move.to_square, chess.QUEEN)
        node = node.add_variation(move, comment=comment)
    exporter = chess.pgn.StringExporter(headers=True, variations=True, comments=True)
    return game.accept(exporter) + "\n", game


@bp.route("/author/pgn", methods=["POST"])
def as_pgn() -> Response:
    """The exercise as PGN (a download), without saving it."""
    _require_token()
    text, _ = exercise_pgn(_body())
    response = Response(text, mimetype="application/x-chess-pgn")
    response.headers["Content-Disposition"] = 'attachment; filename="exercise.pgn"'
    return response


@bp.route("/author/save", methods=["POST"])
def save() -> Response:
    """Append the exercise to a source (created if new) in one atomic write (see module doc)."""
    _require_token()
    data = _body()
    source = str(data.get("source") or "authored")
    if not _SOURCE_NAME.fullmatch(source):
        raise ServiceError(422, "source name: letters, digits, '-', '_' and '.', up to 64")
    text, game = exercise_pgn(data)
    from chesskb.kb.analysis.board_facts import position_key

    try:
        saved = append_pgn(
            executor.get_store(),
            text,
            position_key(game.board()),
            source=source,
            base_iri=current_app.config["BASE_IRI"],
            wait=SAVE_WAIT_SECONDS,
            file_name=AUTHORED_FILE,
        )
    except NothingAppended as exc:
        raise ServiceError(422, f"not saved: {exc}") from None
    except StoreBusy as exc:
        raise ServiceError(409, f"not saved: {exc}") from None
    except ImportRefused as exc:
        raise ServiceError(422, f"not saved: {exc}") from None
    return jsonify({"saved": True, "source": source, "games": saved.games, "pgn": text, "position": saved.position})


@bp.route("/author/course", methods=["POST"])
def save_course() -> Response:
    """Create or replace a course from its description (the course file's text, YAML), so a teacher
    builds courses in the browser too; the same checks and bounds as ``chesskb course import``. Its
    selections run as the pages' queries do (worker processes, QUERY_TIMEOUT), not in this thread."""
    _require_token()
    from chesskb.kb.courses.course_file import (
        CourseError,
        course_graph,
        course_quads,
        parse_course_text,
        resolve_course,
    )

    text = _body().get("course", "")
    store = executor.get_store()
    reader = executor.PooledReader()  # its own: it is renamed for this course's errors
    reader.location = store.location  # how the course's errors name the knowledge base
    try:
        course = resolve_course(
            parse_course_text(str(text)),
            cast(Store, reader),  # the Store calls it makes
            base_iri=current_app.config["BASE_IRI"],
        )
    except CourseError as exc:
        raise ServiceError(422, str(exc)) from None
    base_iri = current_app.config["BASE_IRI"]
    try:
        with store.writing(wait=SAVE_WAIT_SECONDS):
            store.replace_graphs([course_graph(course.id, base_iri)], course_quads(course, base_iri))
    except StoreBusy as exc:
        raise ServiceError(409, f"not saved: {exc}") from None
    return jsonify(
        {
            "saved": True,
            "course": course.id,
            "chapters": len(course.chapters),
            "exercises": sum(len(c.exercises) for c in course.chapters),
        }
    )
