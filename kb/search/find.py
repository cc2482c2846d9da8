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

from collections.abc import Collection

from pyoxigraph import NamedNode

from chesskb.kb.search.patterns import Anchor, Pattern, sparql_condition, sparql_string
from chesskb.kb.store import Store
from chesskb.kb.store.bindings import with_values
from chesskb.kb.store.executor import ask
from chesskb.kb.vocab import CP

#: Rows per page when none is asked for, as the canned queries answer.
DEFAULT_LIMIT = 100
#: The properties lookups and pre-tests may use (``cp:pieceCount`` and ``cp:whitePieces``/``cp:blackPieces``
#: are board facts every imported position has; a store built otherwise may lack them).
INDEXES = ("pieceOn", "pieceIn", "pieceCount", "whitePieces")
#: Index lookups joined before the board strings are tested (each further one is a join per candidate).
MOST_LOOKUPS = 2
#: A lookup expected to find more than this share of the positions is not run: reading a found
#: position's board by its IRI costs several times reading the next board of a scan (measured at 100k:
#: about 30 against 8 microseconds on the loaded machine), so beyond it a scan is cheaper.
MAX_LOOKUP_SHARE = 0.3


class FindError(ValueError):
    """The search cannot run as asked (the message says why)."""


def find_query(pattern: Pattern, *, source_graph: str | None = None, limit: int = DEFAULT_LIMIT,
               offset: int = 0, piece_index: bool | Collection[str] = True) -> str:
    """The SPARQL SELECT (``?position ?label ?fen``) for ``pattern``; ``limit`` 0 means every row.

    ``piece_index`` names the index properties the store's positions carry (:data:`INDEXES`, as
    :func:`has_piece_index` finds them; ``True``: all, ``False``: none). The most selective lookups
    the pattern implies (:meth:`Pattern.anchors`) run first, so only the positions they find have
    their board string tested: at 1M positions a pattern that finds nothing tests every board in
    about 2 s, and the same pattern looked up answers in milliseconds.
    """
    if pattern.is_empty():
        raise FindError("the pattern is empty: describe pieces (Nf5 kg8), a board (ranks with '/'), "
                        "a side (w/b) or a material signature (KRP-KR)")
    if limit < 0 or offset < 0:
        raise FindError("limit and offset are not negative")
    indexes = frozenset(INDEXES if piece_index is True else (piece_index or ()))
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
    chosen = [_chosen(v.anchors(), indexes) for v in variants]
    distinct = ""
    if all(chosen):
        branches = [_lookups(anchors, prefix=f"v{n}") for n, anchors in enumerate(chosen)]
        constants.insert(0, branches[0] if len(branches) == 1 else " UNION ".join(f"{{ {b} }}" for b in branches))
        # a position may hold two values of one lookup ([QR]*8: a queen and a rook) or both variants' pieces
        if len(branches) > 1 or any(len(a.values) > 1 for anchors in chosen for a in anchors):
            distinct = "DISTINCT "
    else:  # nothing selective to look up: scan short values first, the board strings of the survivors only
        constants[:0] = _pretests(variants, indexes)
    body = "\n  ".join(constants + [board] + lines)
    page = (f"LIMIT {limit}" if limit else "") + (f" OFFSET {offset}" if offset else "")
    text = (f"SELECT {distinct}?position ?label ?fen WHERE {{\n  {body}\n  FILTER({condition})\n"
            f"  ?position cp:fen ?fen .\n  OPTIONAL {{ ?position rdfs:label ?label }}\n}}\n{page}".rstrip() + "\n")
    # the source is a value: bound as a term (VALUES), never pasted into the text
    return with_values(text, {"sourceGraph": NamedNode(source_graph)}) if source_graph is not None else text


def _chosen(anchors: list[Anchor], indexes: frozenset[str]) -> list[Anchor]:
    """The lookups worth running: on indexes the store has, selective enough (a lookup that most
    positions pass, such as ``K**``, costs more to join than testing the board), the best
    :data:`MOST_LOOKUPS`."""
    usable = [a for a in anchors if a.property in indexes and a.share <= MAX_LOOKUP_SHARE]
    return usable[:MOST_LOOKUPS]


def _pretests(variants: list[Pattern], indexes: frozenset[str]) -> list[str]:
    """A triple pattern and a FILTER over ``cp:whitePieces``/``cp:blackPieces`` that every match
    satisfies (:meth:`Pattern.pieces_regexes`). Oxigraph keeps these short values inline and reads
    them in index order, so testing all of them costs a fraction of reading every board string, and
    only the survivors' boards are read. Empty when some variant gives no such test."""
    if "whitePieces" not in indexes:
        return []
    tests, used = [], set()
    for variant in variants:
        regexes = variant.pieces_regexes()
        if not regexes:
            return []
        used |= set(regexes)
        tests.append("(" + " && ".join(f"REGEX(?{colour}, {sparql_string(regex)})"
                                       for colour, regex in sorted(regexes.items())) + ")")
    lines = [f"?position cp:{colour}Pieces ?{colour} ." for colour in ("white", "black") if colour in used]
    return lines + [f"FILTER({' || '.join(dict.fromkeys(tests))})"]


def _lookups(anchors: list[Anchor], *, prefix: str) -> str:
    """Triple patterns that find the positions holding one value of every lookup (by index)."""
    parts = []
    for n, anchor in enumerate(anchors):
        terms = [str(v) if isinstance(v, int) else sparql_string(v) for v in anchor.values]
        if len(terms) == 1:
            parts.append(f"?position cp:{anchor.property} {terms[0]} .")
        else:
            var = f"?{prefix}index{n}"
            parts.append(f"VALUES {var} {{ {' '.join(terms)} }} ?position cp:{anchor.property} {var} .")
    return " ".join(parts)


def has_board_strings(store: Store) -> bool:
    """Whether the store's positions carry ``cp:boardSquares`` (stores imported before it do not)."""
    return ask(store, "has-board-strings")


def has_piece_index(store: Store) -> frozenset[str]:
    """The index properties (:data:`INDEXES`) the store's positions carry: stores imported before
    ``cp:pieceOn`` or ``cp:pieceIn`` existed lack them, and a lookup on a missing index would find
    nothing. Empty (false) when there is none."""
    return frozenset(prop for prop in INDEXES if ask(store, "has-piece-index", {"prop": CP.term(prop)}))


def has_positions(store: Store) -> bool:
    return ask(store, "has-positions")
