"""Pattern search (``chesskb find``) speed over a store of N distinct positions.

The store holds what the find query reads (type, ``cp:boardSquares``, ``cp:pieceOn``, ``cp:pieceIn``,
``cp:pieceCount``, ``cp:sideToMove``, ``cp:materialSignature``, ``cp:whitePieces``/``cp:blackPieces``,
``cp:fen``, a label), written with the importer's own functions
(``kb.analysis.board_index``, ``kb.search.patterns``, ``kb.analysis.board_facts``)
for N *distinct* positions: the lichess puzzle boards of
``bench/corpus.py`` (the shared dev CSV and ``data/``), each walked a few random legal moves
(seeded), so no two rows share a board string — replicating the same boards would let the store's
cache answer most string lookups and flatter the figures. Building it this way takes minutes where
a full import of 1M puzzles takes half an hour.

    python bench/patterns.py build 1000000 /tmp/bench/patterns-1m
    python bench/patterns.py run /tmp/bench/patterns-1m --repeat 5
    python bench/patterns.py index /tmp/bench/patterns-1m   # a store built before cp:pieceIn gains it

``run --lookups pieceOn`` measures the query as a store without ``cp:pieceIn`` gets it.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import time
from pathlib import Path

import chess
from pyoxigraph import RdfFormat
from pyoxigraph import Store as OxStore

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpus import csv_rows  # noqa: E402
from chesskb.kb.analysis.board_facts import board_facts, side_pieces  # noqa: E402
from chesskb.kb.analysis.board_index import pieces_in, pieces_on  # noqa: E402
from chesskb.kb.search.patterns import parse, sparql_string  # noqa: E402
from chesskb.kb.vocab import CP, CP_IRI, PREFIXES  # noqa: E402
from chesskb.queries.find import INDEXES, find_query  # noqa: E402

#: (label, pattern, options) measured; from common (a page fills at once) to absent (every board tested).
PATTERNS: tuple[tuple[str, str, dict], ...] = (
    ("kg8 (common)", "kg8", {}),
    ("Nf5 kg8", "Nf5 kg8", {}),
    ("R*7 kg8, white to move", "R*7 kg8", {"side": "w"}),
    ("d4+e4 pawns (FEN form)", "*/*/*/*/???PP???/*/*/*", {}),
    ("back rank, either colour", "*k?/*ppp/*/*/*/*/*/*", {"either_colour": True}),
    ("KRP-KR exact", "", {"material": "KRP-KR"}),
    ("queens both sides (KQ+-KQ+)", "", {"material": "KQ+-KQ+"}),
    ("absent: Kh8 kh1 (no match)", "Kh8 kh1", {}),
    ("Q*8 q*1 (two 8-square groups)", "Q*8 q*1", {}),
    ("A*8 a*1: nothing to look up, every board tested until 100", "A*8 a*1", {}),
    # patterns that fix no square (issue 24, item 5): common, then rare
    ("no square: *R* on rank 7 (FEN form)", "*/*R*/*/*/*/*/*/*", {}),
    ("no square: rooks doubled on rank 7 (rare)", "*/*R*R*/*/*/*/*/*/*", {}),
    ("no square: *[QR]* rank 8, *[qr]* rank 1", "*[QR]*/*/*/*/*/*/*/*[qr]*", {}),
    ("no square: [Qq]** (any queen)", "[Qq]**", {}),
    ("no square: Q** q** N** n** (rare)", "Q** q** N** n**", {}),
    ("no square: !P*2 !p*7, black to move", "!P*2 !p*7", {"side": "b"}),
    ("no square: no pawns, !P** !p** (rare)", "!P** !p**", {}),
    ("no square: 6 empty ranks (rare)", "8/8/8/*/*/8/8/8", {}),
    ("no square: side only (w)", "", {"side": "w"}),
    ("no square: material KQQ+-K+ (rare)", "", {"material": "KQQ+-K+"}),
    ("no square: material KRR+-KRR+", "", {"material": "KRR+-KRR+"}),
    # fewer than a page at 1M: the whole store is searched
    ("none: three rooks on rank 7", "*/*R*R*R*/*/*/*/*/*/*", {}),
    ("none: material KQQQ+-KQQ+", "", {"material": "KQQQ+-KQQ+"}),
    ("none: Q** q** !P** !p**", "Q** q** !P** !p**", {}),
    ("none: only rank 1 (8/8/8/8/8/8/8/*)", "8/8/8/8/8/8/8/*", {}),
    ("none: absences only, !P*2 !P*3 !P*4 !p*7 !p*6 !p*5", "!P*2 !P*3 !P*4 !p*7 !p*6 !p*5", {}),
)


def positions(n: int, seed: int = 7):
    """N distinct boards: puzzle positions walked 0..k random legal moves."""
    _, rows = csv_rows()
    bases = []
    for row in rows:
        board = chess.Board(row["FEN"])
        board.push_uci(row["Moves"].split()[0])
        bases.append(board)
    rng = random.Random(seed)
    seen: set[str] = set()
    index = 0
    while len(seen) < n:
        board = bases[index % len(bases)].copy(stack=False)
        for _ in range(index // len(bases) % 12):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        index += 1
        key = board.fen()
        if key in seen:
            continue
        seen.add(key)
        yield len(seen), board


#: The board facts (``kb.analysis.board_facts``) the find query reads, written as the importer writes them.
FACTS = ("boardSquares", "sideToMove", "materialSignature", "whitePieces", "blackPieces", "pieceCount")


def _literal(value: str | int) -> str:
    return f'"{value}"^^<http://www.w3.org/2001/XMLSchema#integer>' if isinstance(value, int) else sparql_string(value)


def build(n: int, out: Path) -> None:
    started = time.perf_counter()
    nt = out.with_suffix(".nt")
    out.parent.mkdir(parents=True, exist_ok=True)
    cp = lambda name: str(CP.term(name))  # noqa: E731
    with nt.open("w", encoding="utf-8") as handle:
        for number, board in positions(n):
            facts = board_facts(board)
            s = f"<https://bench.example/position/{number}>"
            handle.write(f"{s} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> {cp('Position')} .\n")
            for prop in FACTS:
                handle.write(f"{s} {cp(prop)} {_literal(facts[prop])} .\n")
            handle.write(f"{s} {cp('fen')} {sparql_string(board.fen())} .\n")
            for piece in pieces_on(board):  # the piece indexes stores imported before issue 36 hold
                handle.write(f"{s} {cp('pieceOn')} {sparql_string(piece)} .\n")
            for region in pieces_in(board):
                handle.write(f"{s} {cp('pieceIn')} {sparql_string(region)} .\n")
            handle.write(f'{s} <http://www.w3.org/2000/01/rdf-schema#label> "Position {number}" .\n')
    generated = time.perf_counter() - started
    store = OxStore(str(out))
    store.bulk_load(path=str(nt), format=RdfFormat.N_TRIPLES)
    store.flush()
    store.optimize()
    nt.unlink()
    print(
        f"built {n:,} positions in {out}: generated in {generated:.0f} s, "
        f"loaded in {time.perf_counter() - started - generated:.0f} s",
        flush=True,
    )


def add_index(path: Path) -> None:
    """Give a store built before ``cp:pieceIn`` (and the piece counts) what ``build`` writes now,
    from its own board strings, and say what it cost in quads and bytes per position."""
    store = OxStore(str(path))
    missing = [
        prop
        for prop in ("pieceIn", "pieceCount", "whitePieces", "blackPieces")
        if not store.query(f"ASK {{ ?p <{CP_IRI}{prop}> ?v }}")
    ]
    if "pieceIn" not in missing and not store.query(f'ASK {{ ?p <{CP_IRI}pieceIn> ?v FILTER(REGEX(?v, "^[2-8]")) }}'):
        missing.append("pieceIn")  # built before the counted values (2R*7): the store keeps each value once
    if not missing:
        print("nothing to add")
        return
    before_quads, before_bytes = len(store), _size(path)
    nt = path.with_suffix(".index.nt")
    rows = store.query(f"SELECT ?p ?b WHERE {{ ?p <{CP_IRI}boardSquares> ?b }}")
    count = 0
    with nt.open("w", encoding="utf-8") as handle:
        for row in rows:
            count += 1
            placement = re.sub(r"\.+", lambda m: str(len(m.group())), row["b"].value)
            board = chess.Board(placement + " w - - 0 1")
            values = {
                "pieceIn": pieces_in(board),
                "pieceCount": [chess.popcount(board.occupied)],
                "whitePieces": [side_pieces(board, chess.WHITE)],
                "blackPieces": [side_pieces(board, chess.BLACK)],
            }
            for prop in missing:
                for value in values[prop]:
                    handle.write(f"<{row['p'].value}> <{CP_IRI}{prop}> {_literal(value)} .\n")
    store.bulk_load(path=str(nt), format=RdfFormat.N_TRIPLES)
    store.flush()
    store.optimize()
    nt.unlink()
    quads, size = len(store) - before_quads, _size(path) - before_bytes
    print(
        f"added {', '.join(missing)} to {count:,} positions: {quads:,} quads ({quads / count:.1f} per position), "
        f"{size / 1e6:,.0f} MB on disk ({size / count:.0f} bytes per position; {before_bytes / 1e6:,.0f} MB before)"
    )


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def run(path: Path, repeat: int, limit: int, lookups: frozenset[str], only: str | None = None) -> None:
    store = OxStore.read_only(str(path))
    total = int(
        next(iter(store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ ?p {CP.boardSquares} ?b }}", prefixes=PREFIXES)))[
            "n"
        ].value
    )
    print(
        f"{total:,} positions; page of {limit} rows; lookups on {', '.join(sorted(lookups)) or 'nothing'}; "
        f"median of {repeat} runs (first run kept apart); load average {os.getloadavg()[0]:.1f}"
    )
    print("| pattern | rows | first run | median |\n|---|---|---|---|")
    for label, text, options in PATTERNS:
        if only and only not in label:
            continue
        sparql = find_query(parse(text, **options), limit=limit, piece_index=lookups)
        times = []
        rows = 0
        for _ in range(repeat + 1):
            started = time.perf_counter()
            rows = len(list(store.query(sparql, prefixes=PREFIXES)))
            times.append(time.perf_counter() - started)
        print(
            f"| {label} | {rows} | {times[0] * 1000:,.0f} ms | {statistics.median(times[1:]) * 1000:,.0f} ms |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("n", type=int)
    b.add_argument("out", type=Path)
    r = sub.add_parser("run")
    r.add_argument("store", type=Path)
    r.add_argument("--repeat", type=int, default=5)
    r.add_argument("--limit", type=int, default=100)
    r.add_argument(
        "--lookups",
        default=",".join(INDEXES),
        help="index properties the query may look up (comma-separated; '' for none)",
    )
    r.add_argument("--only", default=None, help="only the patterns whose label contains this")
    i = sub.add_parser("index")
    i.add_argument("store", type=Path)
    args = parser.parse_args()
    if args.command == "build":
        build(args.n, args.out)
    elif args.command == "index":
        add_index(args.store)
    else:
        run(args.store, args.repeat, args.limit, frozenset(filter(None, args.lookups.split(","))), args.only)


if __name__ == "__main__":
    main()
