"""A position for the page: python-chess's SVG board, the original's legend, and the solution line.

Everything chess is computed here with python-chess, server-side, so the solving script in the
browser only compares moves and swaps pieces: each ply carries its UCI, SAN, the teacher's comment
and the FEN after it, and each solver ply the comments of the alternatives the source gave.
"""

from __future__ import annotations

import functools
import io
import re
from dataclasses import dataclass, field
from typing import Any

import chess
import chess.pgn
import chess.svg

from chesskb.kb.analysis.board_facts import legend as board_legend

from .i18n import localise_san


def board_svg(board: chess.Board, *, size: int = 360, coordinates: bool = True, flipped: bool | None = None) -> str:
    """python-chess's board with every piece defined in ``<defs>``.

    python-chess defines only the pieces on the board; the solving script may promote to a piece
    that was not there, so the missing definitions are added (they are python-chess's own).
    """
    if flipped is None:
        flipped = board.turn == chess.BLACK
    return _drawn(board.board_fen(), size, coordinates, flipped)


#: Boards kept drawn (``_drawn``): a page and its twin in the other language draw the same boards.
DRAWN_BOARDS = 256


@functools.lru_cache(maxsize=DRAWN_BOARDS)
def _drawn(placement: str, size: int, coordinates: bool, flipped: bool) -> str:
    """``board_svg`` of a piece placement: python-chess draws only the pieces (its ``<desc>`` is the
    board's text, the pieces again), so the placement is all a drawing depends on."""
    svg = chess.svg.board(chess.BaseBoard(placement), size=size, coordinates=coordinates, flipped=flipped)
    present = set(re.findall(r'<g id="([a-z]+-[a-z]+)"', svg))
    missing = "".join(chess.svg.PIECES[symbol] for symbol in "PNBRQKpnbrqk" if _piece_id(symbol) not in present)
    if missing:
        svg = (
            svg.replace("<defs>", "<defs>" + missing, 1)
            if "<defs>" in svg
            else svg.replace("<desc>", f"<defs>{missing}</defs><desc>", 1)
        )
    return svg


def _piece_id(symbol: str) -> str:
    colour = "white" if symbol.isupper() else "black"
    return f"{colour}-{chess.piece_name(chess.PIECE_SYMBOLS.index(symbol.lower()))}"


@dataclass
class Legend:
    """The original diagram's legend (seed-000 §8.4): side to move, castling, counters."""

    side_to_move: str
    castling: dict[str, dict[str, bool]]
    en_passant: str | None
    halfmove_clock: int
    move_number: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "side_to_move": self.side_to_move,
            "castling": self.castling,
            "en_passant": self.en_passant,
            "halfmove_clock": self.halfmove_clock,
            "move_number": self.move_number,
        }


def legend(fen: str) -> Legend:
    """The legend of ``fen`` for the page, read by the rule the knowledge base states it with
    (``kb.analysis.board_facts.legend``)."""
    facts = board_legend(chess.Board(fen))
    return Legend(
        side_to_move=str(facts["sideToMove"]),
        castling={
            colour: {
                "kingside": bool(facts[f"{colour}CastleKingside"]),
                "queenside": bool(facts[f"{colour}CastleQueenside"]),
            }
            for colour in ("white", "black")
        },
        en_passant=facts["enPassantSquare"],  # type: ignore[arg-type]
        halfmove_clock=int(facts["halfMoveClock"]),  # type: ignore[arg-type]
        move_number=int(facts["fullMoveNumber"]),  # type: ignore[arg-type]
    )


@dataclass
class Ply:
    uci: str
    san: str
    fen: str  # after the move
    number: str  # "1." or "1..." for display
    comment: str = ""
    solver: bool = True  # played by the side that solves (else an automatic reply)
    alternatives: dict[str, str] = field(default_factory=dict)  # uci -> teacher's comment
    san_en: str = ""  # the English SAN, so a learner may type either
    legal: list[dict[str, Any]] = field(default_factory=list)  # the solver's legal moves before this ply
    mates: bool = False  # the move gives mate: any mating move is as good

    def as_dict(self) -> dict[str, Any]:
        out = {
            "uci": self.uci,
            "san": self.san,
            "san_en": self.san_en or self.san,
            "fen": self.fen,
            "number": self.number,
            "comment": self.comment,
            "solver": self.solver,
            "alternatives": self.alternatives,
            "mates": self.mates,
        }
        if self.solver:
            out["legal"] = self.legal
        return out


def legal_moves(board: chess.Board, lang: str) -> list[dict[str, Any]]:
    """Every legal move of the side to move, as the solving script needs them to judge a learner's
    move without a chess library: UCI, SAN in English and in ``lang``, and whether it mates.

    With these the script tells an illegal move from a legal wrong one, accepts another mate where
    the line's move mates, and reads typed moves in SAN, UCI or Spanish letters in any case."""
    out = []
    for move in board.legal_moves:
        san = board.san(move)
        out.append({"uci": move.uci(), "san_en": san, "san": localise_san(san, lang), "mate": san.endswith("#")})
    return out


def _solver_ply(board: chess.Board, move: chess.Move, lang: str, **fields: Any) -> Ply:
    """A ply with the legal moves before it (for a solver's ply) and whether it mates."""
    san = board.san(move)
    solver = fields.pop("solver")
    after = board.copy(stack=False)
    after.push(move)
    return Ply(
        uci=move.uci(),
        san=localise_san(san, lang),
        san_en=san,
        fen=after.fen(),
        number=_number(board),
        solver=solver,
        legal=legal_moves(board, lang) if solver else [],
        mates=after.is_checkmate(),
        **fields,
    )


@dataclass
class Line:
    """The solution as the learner meets it: start FEN, the plies, the comment before the first."""

    fen: str
    plies: list[Ply]
    intro: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"fen": self.fen, "intro": self.intro, "plies": [p.as_dict() for p in self.plies]}


def solution_line(fen: str, movetext: str | None, solution_uci: str | None, lang: str = "en") -> Line:
    """The main line from ``fen``: from the movetext (with its comments and variations) when it
    parses from that position into the stored UCI solution, else from that solution alone; SAN in
    ``lang``'s letters."""
    line = _from_movetext(fen, movetext, lang) if movetext else None
    if line is None or not line.plies or (solution_uci and [p.uci for p in line.plies] != solution_uci.split()):
        # the importer's checked solution wins over text that reads differently (an unclosed comment …)
        line = _from_uci(fen, solution_uci or "", lang)
    return line


def _number(board: chess.Board) -> str:
    return f"{board.fullmove_number}." if board.turn == chess.WHITE else f"{board.fullmove_number}..."


def _from_movetext(fen: str, movetext: str, lang: str) -> Line | None:
    text = f'[FEN "{fen}"]\n[SetUp "1"]\n\n{movetext} *\n'
    try:
        game = chess.pgn.read_game(io.StringIO(text))
    except (ValueError, IndexError):
        return None
    if game is None or game.errors:
        return None
    solver = game.board().turn
    plies: list[Ply] = []
    node: chess.pgn.GameNode = game
    while node.variations:
        parent = node
        node = parent.variations[0]
        if not node.move:  # a null move ("--") cannot be played on a board: the line stops there
            break
        board = parent.board()
        alternatives = {
            alt.move.uci(): " ".join(alt.comment.split()) or _first_comment(alt)
            for alt in parent.variations[1:]
            if alt.move
        }
        plies.append(
            _solver_ply(
                board,
                node.move,
                lang,
                comment=" ".join(node.comment.split()),
                solver=board.turn == solver,
                alternatives=alternatives,
            )
        )
    return Line(fen=chess.Board(fen).fen(), plies=plies, intro=" ".join(game.comment.split()))


def _first_comment(node: chess.pgn.ChildNode) -> str:
    """A variation's first comment (the teacher's reason, often after the reply: ``(28. Bd6+ Kc8 {wins})``)."""
    while node.variations:
        node = node.variations[0]
        if node.comment:
            return " ".join(node.comment.split())
    return ""


def _from_uci(fen: str, solution_uci: str, lang: str) -> Line:
    board = chess.Board(fen)
    solver = board.turn
    plies: list[Ply] = []
    for token in solution_uci.split():
        try:
            move = chess.Move.from_uci(token)
        except ValueError:
            break
        if move not in board.legal_moves:
            break
        plies.append(_solver_ply(board, move, lang, solver=board.turn == solver))
        board.push(move)
    return Line(fen=chess.Board(fen).fen(), plies=plies)


def line_text(line: Line) -> list[dict[str, str]]:
    """The line as numbered tokens for the HTML solution (a number only before white or first moves)."""
    out = []
    for index, ply in enumerate(line.plies):
        show_number = index == 0 or (ply.number.endswith(".") and not ply.number.endswith("..."))
        out.append({"number": ply.number if show_number else "", "san": ply.san, "comment": ply.comment})
    return out


# --- a whole game for the viewer -----------------------------------------------------------------

#: The usual symbols of the numeric annotation glyphs (PGN standard §10); others show as ``$n``.
NAG_SYMBOLS = {
    1: "!",
    2: "?",
    3: "!!",
    4: "??",
    5: "!?",
    6: "?!",
    7: "□",
    10: "=",
    13: "∞",
    14: "⩲",
    15: "⩱",
    16: "±",
    17: "∓",
    18: "+−",
    19: "−+",
    22: "⨀",
    23: "⨀",
    32: "⟳",
    33: "⟳",
    36: "→",
    37: "→",
    40: "↑",
    41: "↑",
    132: "⇆",
    133: "⇆",
    140: "∆",
    146: "N",
}

#: Moves in a game shown by the viewer (every node of every variation); a longer text is cut there.
MAX_GAME_NODES = 3000


def nag_text(nag: int) -> str:
    return NAG_SYMBOLS.get(nag, f"${nag}")


def game_tree(fen: str, movetext: str, lang: str = "en") -> dict[str, Any] | None:
    """The game as the viewer replays it: a flat list of moves (nodes), each with its parent, its
    variations (``children``, the main continuation first), SAN in ``lang``, comment, NAG symbols and
    the FEN after it. Node 0 is the start (no move). Everything chess is done here, so the script
    (and the static site, without a server) only draws FENs. None when the text does not parse."""
    text = f'[FEN "{fen}"]\n[SetUp "1"]\n\n{movetext} *\n'
    try:
        game = chess.pgn.read_game(io.StringIO(text))
    except (ValueError, IndexError):
        return None
    if game is None:
        return None
    nodes: list[dict[str, Any]] = [
        {
            "id": 0,
            "parent": None,
            "fen": game.board().fen(),
            "san": "",
            "uci": "",
            "number": "",
            "comment": " ".join(game.comment.split()),
            "nags": [],
            "children": [],
            "main": True,
            "ply": 0,
        }
    ]
    stack: list[tuple[chess.pgn.GameNode, int, int, bool]] = [(game, 0, 0, True)]
    while stack and len(nodes) < MAX_GAME_NODES:
        parent, parent_id, ply, main = stack.pop()
        board = parent.board()
        children = []
        for index, child in enumerate(parent.variations):
            if not child.move or not board.is_legal(child.move) or len(nodes) >= MAX_GAME_NODES:
                continue
            san = board.san(child.move)
            node_id = len(nodes)
            after = board.copy(stack=False)
            after.push(child.move)
            nodes.append(
                {
                    "id": node_id,
                    "parent": parent_id,
                    "uci": child.move.uci(),
                    "san": localise_san(san, lang),
                    "number": _number(board),
                    "fen": after.fen(),
                    "comment": " ".join(child.comment.split()),
                    "nags": [nag_text(n) for n in sorted(child.nags)],
                    "children": [],
                    "main": main and index == 0,
                    "ply": ply + 1,
                    "before": " ".join(child.starting_comment.split()),
                }
            )
            children.append((child, node_id))
        nodes[parent_id]["children"] = [node_id for _, node_id in children]
        for index, (child, node_id) in reversed(list(enumerate(children))):
            stack.append((child, node_id, ply + 1, main and index == 0))
    return {"fen": nodes[0]["fen"], "nodes": nodes, "cut": bool(stack)}


def move_into(tree: dict[str, Any] | None, fen: str) -> tuple[str, str] | None:
    """The game's move that led to ``fen`` (the opponent's last move before an exercise taken from
    the game) and the FEN it was played from, found on the main line by the position itself (board,
    side, castling, en passant); None when the main line never reaches ``fen``."""
    if not tree:
        return None
    key = " ".join(fen.split()[:4])
    for node in tree["nodes"]:
        if node["main"] and node["uci"] and " ".join(node["fen"].split()[:4]) == key:
            return tree["nodes"][node["parent"]]["fen"], node["uci"]
    return None


def lead_in(fen_before: str, uci: str, fen: str, lang: str = "en") -> dict[str, str] | None:
    """The move into an exercise for the trainer to play first: ``{"fen": before, "uci", "san",
    "number"}``, or None when the move is not legal there or does not give the exercise's board
    (stored data that disagrees with itself is not shown)."""
    try:
        board = chess.Board(fen_before)
        move = chess.Move.from_uci(uci)
    except ValueError:
        return None
    if not board.is_legal(move):
        return None
    number, san = _number(board), board.san(move)
    board.push(move)
    if board.board_fen() != fen.split(" ")[0]:
        return None
    return {"fen": fen_before, "uci": uci, "san": localise_san(san, lang), "number": number}
