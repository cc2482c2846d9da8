"""Finding positions by pattern: the one SELECT that ``chesskb find`` and the ``/find`` page run.

This is a query *compiler*, like the ``pattern`` parameter of the canned queries: the text it writes
is made only of constants ``kb.search.patterns`` derives from the parsed pattern and writes escaped
(``sparql_string``), never of the user's text; the source graph is bound as a term (``VALUES``).
The pattern becomes a FILTER of constant REGEX tests (``kb.search.patterns.sparql_condition``); the side to
move and an exact material signature, when they hold for every variant of the pattern, are written
as triple patterns with constants instead, so Oxigraph starts from their index rather than testing
every position. Rows come in store order, a page at a time (no ORDER BY: sorting would visit every
match, while a page stops at its last row).
"""

from __future__ import annotations

from chesskb.kb.search.patterns import Pattern, sparql_condition, sparql_string
from pyoxigraph import NamedNode

from chesskb.kb.store import Store
from chesskb.kb.store.bindings import with_values
from chesskb.kb.store.executor import ask

#: Rows per page when none is asked for, as the canned queries answer.
DEFAULT_LIMIT = 100


class FindError(ValueError):
    """The search cannot run as asked (the message says why)."""


def find_query(pattern: Pattern, *, source_graph: str | None = None, limit: int = DEFAULT_LIMIT,
               offset: int = 0, piece_index: bool = True) -> str:
    """The SPARQL SELECT (``?position ?label ?fen``) for ``pattern``; ``limit`` 0 means every row.

    With ``piece_index`` (the store has ``cp:pieceOn``), the pieces the pattern fixes are looked up
    first, so only the positions holding them have their board string tested: at 100k positions
    ``Nf5 kg8`` took 11 ms this way against 253 ms testing every board, and the lookup grows with the
    matches, not with the store.
    """
    if pattern.is_empty():
        raise FindError("the pattern is empty: describe pieces (Nf5 kg8), a board (ranks with '/'), "
                        "a side (w/b) or a material signature (KRP-KR)")
    if limit < 0 or offset < 0:
        raise FindError("limit and offset are not negative")
    variants = pattern.variants()
    sides = {v.side for v in variants}
    exact = {v.exact_signature() for v in variants}
    board = "?position cp:boardSquares ?board ." if source_graph is None else \
        "GRAPH ?sourceGraph { ?position cp:boardSquares ?board }"
    constants: list[str] = []
    lines: list[str] = []
    side, signature = "?side", "?signature"
    if len(sides) == 1 and None not in sides:
        side = sparql_string(next(iter(sides)))
        constants.append(f"?position cp:sideToMove {side} .")
    elif any(v.side for v in variants):
        lines.append("?position cp:sideToMove ?side .")
    if len(exact) == 1 and None not in exact:
        signature = sparql_string(next(iter(exact)))
        constants.append(f"?position cp:materialSignature {signature} .")
    elif any(v.material for v in variants):
        lines.append("?position cp:materialSignature ?signature .")
    condition = sparql_condition(pattern, side=side, signature=signature)
    anchors = [v.anchors() for v in variants] if piece_index else [[]]
    distinct = ""
    if all(anchors):
        branches = [_lookups(groups, prefix=f"v{n}") for n, groups in enumerate(anchors)]
        constants.insert(0, branches[0] if len(branches) == 1 else " UNION ".join(f"{{ {b} }}" for b in branches))
        # a position may hold two values of a group (two rooks on the 7th) or both variants' pieces
        if len(branches) > 1 or any(len(group) > 1 for groups in anchors for group in groups):
            distinct = "DISTINCT "
    body = "\n  ".join(constants + [board] + lines)
    page = (f"LIMIT {limit}" if limit else "") + (f" OFFSET {offset}" if offset else "")
    text = (f"SELECT {distinct}?position ?label ?fen WHERE {{\n  {body}\n  FILTER({condition})\n"
            f"  ?position cp:fen ?fen .\n  OPTIONAL {{ ?position rdfs:label ?label }}\n}}\n{page}".rstrip() + "\n")
    # the source is a value: bound as a term (VALUES), never pasted into the text
    return with_values(text, {"sourceGraph": NamedNode(source_graph)}) if source_graph is not None else text


def _lookups(groups: list[list[str]], *, prefix: str) -> str:
    """Triple patterns that find the positions holding one value of every group (by index)."""
    parts = []
    for n, group in enumerate(groups):
        if len(group) == 1:
            parts.append(f"?position cp:pieceOn {sparql_string(group[0])} .")
        else:
            var = f"?{prefix}piece{n}"
            parts.append(f"VALUES {var} {{ {' '.join(sparql_string(v) for v in group)} }} ?position cp:pieceOn {var} .")
    return " ".join(parts)


def has_board_strings(store: Store) -> bool:
    """Whether the store's positions carry ``cp:boardSquares`` (stores imported before it do not)."""
    return ask(store, "has-board-strings")


def has_piece_index(store: Store) -> bool:
    """Whether the store's positions carry ``cp:pieceOn`` (stores imported before it do not)."""
    return ask(store, "has-piece-index")


def has_positions(store: Store) -> bool:
    return ask(store, "has-positions")
