"""Facts read straight off a board: side to move, castling, material, phase, position key.

The phase rule lives in ``kb.analysis.phase`` (``game_phase`` is re-exported here for callers).
"""

from __future__ import annotations

import chess

from chesskb.kb.analysis.board_index import board_squares
from chesskb.kb.analysis.phase import game_phase

__all__ = ["board_facts", "game_phase", "material", "material_signature", "pieces_key", "position_key", "side_pieces"]

PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}
_SIGNATURE_ORDER = (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)
#: The letters a pieces key counts one by one (pawns are one ``P`` whatever their number).
_SIDE_KEY_ORDER = "".join(chess.piece_symbol(p).upper() for p in _SIGNATURE_ORDER[:-1])


def position_key(board: chess.Board, placement: str | None = None) -> str:
    """Placement, side, castling and *legal* en passant: equal keys mean the same position.

    Move counters are dropped (pgn-extract's ``--deletesamesetup`` semantics), and an en-passant
    square is kept only when a capture there is legal, so FENs that differ only in a meaningless
    en-passant field or in counters give one key. ``placement``: ``board.board_fen()`` when the
    caller has it already (writing it is most of the cost).
    """
    ep = chess.square_name(board.ep_square) if board.has_legal_en_passant() and board.ep_square is not None else "-"
    return f"{placement or board.board_fen()} {'w' if board.turn else 'b'} {board.castling_xfen()} {ep}"


def material(board: chess.Board, color: chess.Color) -> int:
    return sum(value * chess.popcount(board.pieces_mask(piece, color)) for piece, value in PIECE_VALUES.items())


def material_signature(board: chess.Board) -> str:
    """Pieces of each side in the usual order, e.g. ``KRP vs KR``."""
    sides = []
    for color in (chess.WHITE, chess.BLACK):
        sides.append("".join(chess.piece_symbol(p).upper() * len(board.pieces(p, color)) for p in _SIGNATURE_ORDER))
    return " vs ".join(sides)


def pieces_key(letters: str) -> str:
    """One side's pieces as ``cp:whitePieces``/``cp:blackPieces`` store them, from its piece letters in
    any order (``"PRKP"``): the signature's order with any number of pawns written as one ``P``
    (``KRP``: king, rook and pawns), so "rook and pawns against a rook" is one exact value to look
    up instead of a pattern to test on every position. Canned-query parameters go through it too."""
    pieces = "".join(letter * letters.count(letter) for letter in _SIDE_KEY_ORDER)
    return pieces + ("P" if "P" in letters else "")


def side_pieces(board: chess.Board, color: chess.Color) -> str:
    """The :func:`pieces_key` of ``color``'s pieces on ``board``."""
    return pieces_key("".join(chess.piece_symbol(p).upper() * len(board.pieces(p, color)) for p in _SIGNATURE_ORDER))


def legend(board: chess.Board) -> dict[str, bool | int | str | None]:
    """The original diagram's legend (seed-000 §8.4): side to move, castling rights, the en passant
    square as the FEN gives it (None: "-"), and the counters. The one reading of it: the knowledge
    base states these facts (``board_facts``) and the position page shows them (``service.boards``)."""
    return {
        "sideToMove": "white" if board.turn == chess.WHITE else "black",
        "whiteCastleKingside": board.has_kingside_castling_rights(chess.WHITE),
        "whiteCastleQueenside": board.has_queenside_castling_rights(chess.WHITE),
        "blackCastleKingside": board.has_kingside_castling_rights(chess.BLACK),
        "blackCastleQueenside": board.has_queenside_castling_rights(chess.BLACK),
        "halfMoveClock": board.halfmove_clock,
        "fullMoveNumber": board.fullmove_number,
        "enPassantSquare": chess.square_name(board.ep_square) if board.ep_square is not None else None,
    }


def board_facts(board: chess.Board) -> dict[str, bool | int | str]:
    white = material(board, chess.WHITE)
    black = material(board, chess.BLACK)
    shown = legend(board)
    placement = board.board_fen()  # once for the two facts that start from it
    en_passant = shown.pop("enPassantSquare")
    facts: dict[str, bool | int | str] = {
        **shown,  # type: ignore[dict-item]  # only the en passant square may be None
        "whiteMaterial": white,
        "blackMaterial": black,
        "materialBalance": white - black,
        "pieceCount": chess.popcount(board.occupied),
        "materialSignature": material_signature(board),
        "whitePieces": side_pieces(board, chess.WHITE),
        "blackPieces": side_pieces(board, chess.BLACK),
        "positionKey": position_key(board, placement),
        # the 64 squares as one string, so that a pattern (kb.search.patterns) is a standard SPARQL REGEX
        "boardSquares": board_squares(board, placement),
        "gamePhase": game_phase(board),
    }
    if en_passant is not None:
        facts["enPassantSquare"] = en_passant
    return facts
