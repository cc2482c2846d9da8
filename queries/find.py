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

from collections.abc import Collection, Sequence

from pyoxigraph import NamedNode

from chesskb.kb.search.board_scan import candidate_rows, has_board, matching_rows
from chesskb.kb.search.lookups import INDEXES, WRITTEN, index_lines
from chesskb.kb.search.patterns import Pattern, sparql_condition, sparql_string
from chesskb.kb.store import EmbeddedStore, Store
from chesskb.kb.store.base import Queryable
from chesskb.kb.store.bindings import with_values
from chesskb.kb.store.board_file import BoardIndex
from chesskb.kb.store.results import solutions
from chesskb.kb.vocab import CP
from chesskb.queries import Scan, position_values
from chesskb.queries.executor import ask
from chesskb.queries.source_statements import graphs_of

#: Rows per page when none is asked for, as the canned queries answer.
DEFAULT_LIMIT = 100


class FindError(ValueError):
    """The search cannot run as asked (the message says why)."""


#: The board of a position the source states, in either store layout (``kb/store/layout.py``): in the
#: source's graph, or in the default graph only (held by no named graph) about a position the source types.
#: The board is read from the default graph first, so the lookups before it still lead.
_SOURCE_BOARD = """?position cp:boardSquares ?board .
  FILTER(EXISTS { GRAPH ?sourceGraph { ?position cp:boardSquares ?board } }
         || (NOT EXISTS { GRAPH ?held { ?position cp:boardSquares ?board } }
             && (EXISTS { GRAPH ?sourceGraph { ?position a ?marker } }
                 || EXISTS { GRAPH ?sourceInferred { ?position a ?marker } })))"""


def find_query(
    pattern: Pattern,
    *,
    source_graph: str | None = None,
    limit: int = DEFAULT_LIMIT,
    offset: int = 0,
    piece_index: bool | Collection[str] = WRITTEN,
    positions: Sequence[str] | None = None,
) -> str:
    """The SPARQL SELECT (``?position ?label ?fen``) for ``pattern``; ``limit`` 0 means every row.

    ``piece_index`` names the index properties the store's positions carry (:data:`INDEXES`, as
    :func:`has_piece_index` finds them; by default those every import writes, :data:`WRITTEN`; ``True``:
    all, ``False``: none). The most selective lookups
    the pattern implies (:meth:`Pattern.anchors`) run first, so only the positions they find have
    their board string tested: at 1M positions a pattern that finds nothing tests every board in
    about 2 s, and the same pattern looked up answers in milliseconds. ``positions``: test only these
    positions (IRIs a board index scan kept, :func:`find_on_index`), named in a ``VALUES`` block.
    """
    if pattern.is_empty():
        raise FindError(
            "the pattern is empty: describe pieces (Nf5 kg8), a board (ranks with '/'), "
            "a side (w/b) or a material signature (KRP-KR)"
        )
    if limit < 0 or offset < 0:
        raise FindError("limit and offset are not negative")
    indexes = frozenset(INDEXES if piece_index is True else (piece_index or ()))
    variants = pattern.variants()
    sides = {v.side for v in variants}
    exact = {v.exact_signature() for v in variants}
    board = "?position cp:boardSquares ?board ." if source_graph is None else _SOURCE_BOARD
    constants: list[str] = []
    lines: list[str] = []
    side = _value_or_variable("cp:sideToMove", "?side", sides, any(v.side for v in variants), constants, lines)
    signature = _value_or_variable(
        "cp:materialSignature", "?signature", exact, any(v.material for v in variants), constants, lines
    )
    condition = sparql_condition(pattern, side=side, signature=signature)
    starts, repeats = index_lines(pattern, indexes) if positions is None else ([position_values(positions)], False)
    constants[:0] = starts
    distinct = "DISTINCT " if repeats else ""
    body = "\n  ".join([*constants, board, *lines])
    page = (f"LIMIT {limit}" if limit else "") + (f" OFFSET {offset}" if offset else "")
    text = (
        f"SELECT {distinct}?position ?label ?fen WHERE {{\n  {body}\n  FILTER({condition})\n"
        f"  ?position cp:fen ?fen .\n  OPTIONAL {{ ?position rdfs:label ?label }}\n}}\n{page}".rstrip()
        + "\n"
    )
    # the source is a value: bound as a term (VALUES), never pasted into the text
    if source_graph is None:
        return text
    graph, inferred = graphs_of(NamedNode(source_graph))
    return with_values(text, {"sourceGraph": graph, "sourceInferred": inferred})


def _value_or_variable(
    prop: str, variable: str, values: set[str | None], needed: bool, constants: list[str], lines: list[str]
) -> str:
    """What the filter compares ``prop`` with: the one value every variant asks for, written as a
    constant pattern (a lookup the store can start from), else ``variable``, matched only when some
    variant asks for it. Appends the pattern to ``constants`` or ``lines`` and returns the term."""
    only = next(iter(values)) if len(values) == 1 else None
    if only is not None:
        term = sparql_string(only)
        constants.append(f"?position {prop} {term} .")
        return term
    if needed:
        lines.append(f"?position {prop} {variable} .")
    return variable


#: Positions a scan kept whose boards the first query tests; each further query tests twice as many,
#: up to :data:`MOST_CHECKED` (a pattern the scan narrows little still takes few queries).
FIRST_CHECKED = 128
MOST_CHECKED = 65_536


#: The most positions a scan may keep for a canned query to be given them all (a ``VALUES`` block,
#: ``pattern_scan``); a pattern the scan narrows less is looked up as on any store.
MOST_SCANNED = 20_000


def pattern_scan(store: Store) -> Scan | None:
    """For a canned query with a pattern parameter: every position the pattern matches, found on the
    store's board index (the scan, then the pattern's own regular expressions), or None (no index,
    nothing about the board, or more than :data:`MOST_SCANNED` candidates). The query still tests them."""
    index = board_index_of(store)
    if index is None:
        return None

    def scan(pattern: Pattern) -> list[str] | None:
        rows = candidate_rows(pattern, index) if has_board(pattern) else None
        if rows is None or len(rows) > MOST_SCANNED:
            return None
        return list(dict.fromkeys(index.iri(row) for row in matching_rows(pattern, index, rows)))

    return scan


def board_index_of(store: Store) -> BoardIndex | None:
    """The store's board index (``kb.store.board_file``): only the embedded store has one, and only
    for generations written since it existed."""
    return store.board_index() if isinstance(store, EmbeddedStore) else None


def find_on_index(
    store: Queryable,
    index: BoardIndex,
    pattern: Pattern,
    *,
    source_graph: str | None = None,
    limit: int = DEFAULT_LIMIT,
    offset: int = 0,
) -> str:
    """The query (as :func:`find_query` writes it) for one page of ``pattern``'s matches, found by
    scanning ``index``: the scan keeps the positions whose boards may match (``kb.search.board_scan``),
    and its regular expressions, applied to growing runs of them, keep those that do; the store then tests
    those with the same REGEX (and the source) until the page is full; the returned query names exactly the
    page's positions. Pages follow the index's order."""
    rows = candidate_rows(pattern, index)
    wanted = offset + limit if limit else len(rows)
    found: dict[str, None] = {}
    matched: list[int] = []  # rows whose board matches, not yet asked about
    start, size = 0, FIRST_CHECKED
    while len(found) < wanted and (matched or start < len(rows)):
        if not matched:
            matched = matching_rows(pattern, index, rows[start : start + size])
            start, size = start + size, min(size * 2, MOST_CHECKED)
            continue
        asked, matched = matched[: wanted - len(found)], matched[wanted - len(found) :]
        text = find_query(pattern, source_graph=source_graph, limit=0, positions=[index.iri(r) for r in asked])
        found.update((row["position"].value, None) for row in solutions(store.query(text)))
    page = list(found)[offset : offset + limit if limit else None]
    return find_query(pattern, source_graph=source_graph, limit=0, positions=page)


def page_query(
    store: Store,
    pattern: Pattern,
    *,
    reading: Queryable | None = None,
    source_graph: str | None = None,
    limit: int = DEFAULT_LIMIT,
    offset: int = 0,
) -> str:
    """The query of one page of ``pattern``'s matches as ``chesskb find`` and ``/find`` run it: narrowed
    by ``store``'s board index when it has one and the pattern describes the board (:func:`find_on_index`),
    else with the lookups ``store``'s statements allow (:func:`has_piece_index`). Queries run on
    ``reading`` (the service's bounded reader), by default ``store`` itself."""
    reading = reading or store
    index = board_index_of(store) if has_board(pattern) else None
    if index is not None:
        return find_on_index(reading, index, pattern, source_graph=source_graph, limit=limit, offset=offset)
    return find_query(
        pattern, source_graph=source_graph, limit=limit, offset=offset, piece_index=has_piece_index(reading)
    )


def has_board_strings(store: Queryable) -> bool:
    """Whether the store's positions carry ``cp:boardSquares`` (stores imported before it do not)."""
    return ask(store, "has-board-strings")


def has_piece_index(store: Queryable) -> frozenset[str]:
    """The index properties (:data:`INDEXES`) the store's positions carry: stores imported before
    ``cp:pieceOn`` or ``cp:pieceIn`` existed lack them, and a lookup on a missing index would find
    nothing. Empty (false) when there is none."""
    return frozenset(prop for prop in INDEXES if ask(store, "has-piece-index", {"prop": CP.term(prop)}))


def has_positions(store: Queryable) -> bool:
    return ask(store, "has-positions")
