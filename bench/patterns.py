"""Pattern search (``chesskb find``) speed over a store of N distinct positions.

The store holds what the find query reads (type, ``cp:boardSquares``, ``cp:pieceOn``, ``cp:sideToMove``,
``cp:materialSignature``, ``cp:fen``, a label), written with the importer's own functions
(``kb.search.patterns.board_squares``, ``kb.analysis.board_facts``)
for N *distinct* positions: the lichess puzzle boards of
``bench/corpus.py`` (the shared dev CSV and ``data/``), each walked a few random legal moves
(seeded), so no two rows share a board string — replicating the same boards would let the store's
cache answer most string lookups and flatter the figures. Building it this way takes minutes where
a full import of 1M puzzles takes half an hour.

    python bench/patterns.py build 1000000 /tmp/bench/patterns-1m
    python bench/patterns.py run /tmp/bench/patterns-1m --repeat 5
"""

from __future__ import annotations

import argparse
import random
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
from chesskb.kb.analysis.board_facts import material_signature  # noqa: E402
from chesskb.kb.search.find import find_query  # noqa: E402
from chesskb.kb.search.patterns import board_squares, parse, pieces_on, sparql_string  # noqa: E402
from chesskb.kb.vocab import CP, PREFIXES  # noqa: E402

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


def build(n: int, out: Path) -> None:
    started = time.perf_counter()
    nt = out.with_suffix(".nt")
    out.parent.mkdir(parents=True, exist_ok=True)
    cp = lambda name: str(CP.term(name))  # noqa: E731
    with nt.open("w", encoding="utf-8") as handle:
        for number, board in positions(n):
            facts = {"boardSquares": board_squares(board), "materialSignature": material_signature(board),
                     "sideToMove": "white" if board.turn == chess.WHITE else "black"}  # as board_facts writes them
            s = f"<https://bench.example/position/{number}>"
            handle.write(f"{s} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> {cp('Position')} .\n")
            for prop in ("boardSquares", "sideToMove", "materialSignature"):
                handle.write(f"{s} {cp(prop)} {sparql_string(str(facts[prop]))} .\n")
            handle.write(f"{s} {cp('fen')} {sparql_string(board.fen())} .\n")
            for piece in pieces_on(board):  # the index kb.mapping writes for each position
                handle.write(f"{s} {cp('pieceOn')} {sparql_string(piece)} .\n")
            handle.write(f"{s} <http://www.w3.org/2000/01/rdf-schema#label> \"Position {number}\" .\n")
    generated = time.perf_counter() - started
    store = OxStore(str(out))
    store.bulk_load(path=str(nt), format=RdfFormat.N_TRIPLES)
    store.flush()
    store.optimize()
    nt.unlink()
    print(f"built {n:,} positions in {out}: generated in {generated:.0f} s, "
          f"loaded in {time.perf_counter() - started - generated:.0f} s", flush=True)


def run(path: Path, repeat: int, limit: int) -> None:
    store = OxStore.read_only(str(path))
    total = int(next(iter(store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ ?p {CP.boardSquares} ?b }}",
                                      prefixes=PREFIXES)))["n"].value)
    print(f"{total:,} positions; page of {limit} rows; median of {repeat} runs (first run kept apart)")
    print("| pattern | rows | first run | median |\n|---|---|---|---|")
    for label, text, options in PATTERNS:
        sparql = find_query(parse(text, **options), limit=limit)
        times = []
        rows = 0
        for _ in range(repeat + 1):
            started = time.perf_counter()
            rows = len(list(store.query(sparql, prefixes=PREFIXES)))
            times.append(time.perf_counter() - started)
        print(f"| {label} | {rows} | {times[0] * 1000:,.0f} ms | {statistics.median(times[1:]) * 1000:,.0f} ms |",
              flush=True)


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
    args = parser.parse_args()
    if args.command == "build":
        build(args.n, args.out)
    else:
        run(args.store, args.repeat, args.limit)


if __name__ == "__main__":
    main()
