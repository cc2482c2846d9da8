"""The trainer's judge (issue 32): ``POST /judge`` says whether a learner's move keeps the forced mate.

The exercise page embeds the stored line with every legal move per solver ply; a learner who plays
another move than the line's is not wrong if the mate still holds. The script then sends the position
(``fen``, attacker to move), the ``move`` (UCI) and the attacker's moves ``left`` to mate; the server
decides by proof (``kb.analysis.proof.judge_move``) and answers

    {"verdict": "proven" | "refuted" | "undecided", "mate": bool,
     "reply": {"uci", "san", "san_en", "number"} | null, "fen": after the move and the reply,
     "left": the attacker's moves left, "legal": the learner's legal moves there (as the page's plies)}

The reply is the most resilient defence (the one whose mate takes longest). The work one request may
cause is bounded by ``JUDGE_NODES`` (``kb.analysis.proof``: then "undecided"), ``left`` by
``JUDGE_MAX_LEFT``, and a client address waits for one question at a time (429 beyond).
"""

from __future__ import annotations

from typing import Any

import chess
from flask import Blueprint, Response, jsonify, request

from chesskb.kb.analysis.proof import JUDGE_MAX_LEFT, judge_move

from .boards import legal_moves
from .errors import ServiceError
from .executor import ClientLimiter
from .i18n import current_lang, localise_san

bp = Blueprint("judge", __name__)
blueprint = bp

#: One question per client address at a time: a proof is CPU in the server's own process.
_CLIENTS = ClientLimiter(1, setting="JUDGE_NODES", what="trainer questions")


def _position(body: Any) -> tuple[chess.Board, chess.Move, int]:
    if (
        not isinstance(body, dict)
        or not isinstance(body.get("fen"), str)
        or not isinstance(body.get("move"), str)
        or not isinstance(body.get("left"), int)
        or isinstance(body.get("left"), bool)
    ):
        raise ServiceError(400, 'send JSON {"fen": "…", "move": "e2e4", "left": 2}')
    try:
        board = chess.Board(body["fen"])
        move = chess.Move.from_uci(body["move"])
    except ValueError as error:
        raise ServiceError(400, f"not a position and move: {error}") from None
    if not board.is_valid() or move not in board.legal_moves:
        raise ServiceError(400, f"{body['move']} is not a legal move in {body['fen']}")
    if not 1 <= body["left"] <= JUDGE_MAX_LEFT:
        raise ServiceError(400, f"left must be 1 to {JUDGE_MAX_LEFT} (JUDGE_MAX_LEFT)")
    return board, move, body["left"]


@bp.route("/judge", methods=["POST"])
def judge() -> Response:
    """Judge one learner's move (see the module docstring for the JSON shapes)."""
    board, move, left = _position(request.get_json(silent=True))
    with _CLIENTS.slot(request.remote_addr or "?"):
        verdict = judge_move(board, move, left)
    lang = current_lang()
    board.push(move)
    reply: dict[str, Any] | None = None
    if verdict.reply is not None:
        san = board.san(verdict.reply)
        reply = {
            "uci": verdict.reply.uci(),
            "san": localise_san(san, lang),
            "san_en": san,
            "number": f"{board.fullmove_number}{'.' if board.turn == chess.WHITE else '...'}",
        }
        board.push(verdict.reply)
    return jsonify(
        {
            "verdict": verdict.verdict,
            "mate": verdict.mate,
            "reply": reply,
            "fen": board.fen(),
            "left": verdict.reply_left,
            "legal": legal_moves(board, lang) if reply is not None else [],
        }
    )
