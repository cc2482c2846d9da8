"""What naming a listing's resources costs as the store grows: ``title-facts`` and ``game-title-facts``
(``service.titles``) for 200 IRIs each, on stores of N synthetic games (issue 34 item 5).

    .venv/bin/python bench/title_facts.py [--sizes 1000,10000,100000] [--repeat 5]

Each game has the statements a title is composed from, shaped as the importer writes them: a Match with
two players (5,000 distinct, one label each), an event (2,000, one name each), a round, a board and a
label; its first position with its types, ply, FEN and game. The store is in memory (pyoxigraph); the
queries are the named ones, bound as the pages bind them. A query whose patterns were scanned whole
would grow with N; one that starts from the bound IRIs stays near flat.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyoxigraph import Literal, NamedNode, Quad, Store

from chesskb.kb.store.executor import prepare
from chesskb.kb.vocab import CP, PREFIXES, RDF_IRI, RDFS_IRI

BASE = "https://w3id.org/chesskb/id/"
PLAYERS, EVENTS = 5000, 2000


def build(size: int) -> Store:
    graph, rdf_type, label = NamedNode(BASE + "graph/bench"), NamedNode(RDF_IRI + "type"), NamedNode(RDFS_IRI + "label")
    quads = []
    for i in range(size):
        match, position, board = (
            NamedNode(f"{BASE}match/{i}"),
            NamedNode(f"{BASE}position/{i}-0"),
            NamedNode(f"{BASE}board/{i}"),
        )
        white, black = NamedNode(f"{BASE}player/w{i % PLAYERS}"), NamedNode(f"{BASE}player/b{i % PLAYERS}")
        event = NamedNode(f"{BASE}event/e{i % EVENTS}")
        quads += [
            Quad(match, rdf_type, CP.Match, graph),
            Quad(match, CP.hasPlayerWhite, white, graph),
            Quad(match, CP.hasPlayerBlack, black, graph),
            Quad(match, CP.hasEvent, event, graph),
            Quad(match, CP.round, Literal(str(i % 9 + 1)), graph),
            Quad(match, CP.hasBoard, board, graph),
            Quad(match, label, Literal(f"W{i} vs B{i}"), graph),
            Quad(board, rdf_type, CP.Board, graph),
            Quad(position, rdf_type, CP.Position, graph),
            Quad(position, rdf_type, CP.Exercise, graph),
            Quad(position, CP.hasMatch, match, graph),
            Quad(position, CP.hasBoard, board, graph),
            Quad(position, CP.plyInGame, Literal("0"), graph),
            Quad(position, CP.fen, Literal("4k3/8/8/8/8/8/8/4K2R w K - 0 1"), graph),
        ]
        if i < PLAYERS:
            quads += [
                Quad(white, label, Literal(f"White {i}"), graph),
                Quad(black, label, Literal(f"Black {i}"), graph),
            ]
        if i < EVENTS:
            quads.append(Quad(event, CP.eventName, Literal(f"Event {i}"), graph))
    store = Store()
    store.bulk_extend(quads)
    return store


def timed(store: Store, text: str, repeat: int) -> tuple[float, int]:
    times, rows = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        rows = len(list(store.query(text, use_default_graph_as_union=True, prefixes=dict(PREFIXES))))
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'games':>8} {'build s':>8} {'title-facts ms':>15} {'game-title-facts ms':>20}")
    for size in (int(s) for s in args.sizes.split(",")):
        start = time.perf_counter()
        store = build(size)
        built = time.perf_counter() - start
        step = max(1, size // 100)
        things = [
            NamedNode(f"{BASE}{kind}/{i}{suffix}")
            for kind, suffix in (("position", "-0"), ("board", ""))
            for i in range(0, size, step)
        ][:200]
        games = [NamedNode(f"{BASE}match/{i}") for i in range(0, size, max(1, size // 200))][:200]
        facts, facts_rows = timed(store, prepare("title-facts", {"s": things}), args.repeat)
        game_facts, game_rows = timed(store, prepare("game-title-facts", {"m": games}), args.repeat)
        assert facts_rows == len(things) and game_rows == len(games), (facts_rows, game_rows)
        print(f"{size:>8} {built:>8.1f} {facts:>15.1f} {game_facts:>20.1f}")


if __name__ == "__main__":
    main()
