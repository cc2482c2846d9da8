"""Where a pattern search starts: the index lookups and pre-tests a pattern implies.

Shared by ``chesskb find`` / ``/find`` (``queries.find``) and the canned query
``positions-matching-pattern`` (``queries``): both write the lines below at the head of their WHERE
group, so the REGEX tests of ``kb.search.patterns.sparql_condition`` read only the boards of the
positions an index found. Every line is a necessary condition (a matching position holds one of its
values), never a sufficient one: the answers are the same with or without them, only faster. A store
without an index (imported before it existed) is given none of its lookups (``has_piece_index``).
"""

from __future__ import annotations

from collections.abc import Collection

from chesskb.kb.search.patterns import Anchor, Pattern, sparql_string

#: The properties lookups and pre-tests may use (``cp:pieceCount`` and ``cp:whitePieces``/``cp:blackPieces``
#: are board facts every imported position has; a store built otherwise may lack them). ``cp:pieceOn`` and
#: ``cp:pieceIn`` are no longer written (issue 36: the embedded store keeps a board index beside the triples,
#: ``kb.store.board_file``), but stores imported before still carry them, and a lookup on them still helps.
INDEXES = ("pieceOn", "pieceIn", "pieceCount", "whitePieces")
#: The ones every import writes today: what a query for an unknown store (``--show-sparql``) may assume.
WRITTEN = ("pieceCount", "whitePieces")
#: Index lookups joined before the board strings are tested (each further one is a join per candidate).
MOST_LOOKUPS = 2
#: A lookup expected to find more than this share of the positions is not run: reading a found
#: position's board by its IRI costs several times reading the next board of a scan (measured at 100k:
#: about 30 against 8 microseconds on the loaded machine), so beyond it a scan is cheaper.
MAX_LOOKUP_SHARE = 0.3


def index_lines(pattern: Pattern, indexes: Collection[str]) -> tuple[list[str], bool]:
    """The lines a query about ``pattern`` starts its WHERE group with, on the ``indexes`` the
    store has, and whether a position may then come more than once (the query needs DISTINCT: a
    position holding two values of one lookup, ``[QR]*8``, or both variants' pieces)."""
    available = frozenset(indexes)
    variants = pattern.variants()
    chosen = [_chosen(v.anchors(), available) for v in variants]
    if all(chosen):
        branches = [_lookups(anchors, prefix=f"v{n}") for n, anchors in enumerate(chosen)]
        line = branches[0] if len(branches) == 1 else " UNION ".join(f"{{ {b} }}" for b in branches)
        repeats = len(branches) > 1 or any(len(a.values) > 1 for anchors in chosen for a in anchors)
        return [line], repeats
    # nothing selective to look up: scan short values first, the board strings of the survivors only
    return _pretests(variants, available), False


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
        tests.append(
            "("
            + " && ".join(f"REGEX(?{colour}, {sparql_string(regex)})" for colour, regex in sorted(regexes.items()))
            + ")"
        )
    lines = [f"?position cp:{colour}Pieces ?{colour} ." for colour in ("white", "black") if colour in used]
    return [*lines, f"FILTER({' || '.join(dict.fromkeys(tests))})"]


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
