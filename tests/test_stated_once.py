"""Exercises stated once and claims answered by what is proven (issue 32).

* every shipped source, and a set-up mate imported with ``--mine``: at most one ``rdfs:label`` and one
  ``cp:move`` per position per source record, and no canned query lists a position twice;
* a refuted mate (a line that mates only because the defence helped) answers no mate question; a
  "mate in three" that mates in one answers as a mate in one. Expected answers by python-chess here.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import chess
import pytest

from chesskb.kb.analysis.engine import engine_path
from chesskb.kb.store import open_store
from chesskb.queries import list_queries
from tests.conftest import run_cli
from tests.test_proofs import brute_mates
from tests.test_queries import run

FIXTURES = Path(__file__).parent / "fixtures" / "issue32"
needs_engine = pytest.mark.skipif(engine_path() is None, reason="no stockfish (scripts/setup.sh installs it)")


def stated_twice(store) -> list[tuple[str, int, int, int]]:
    """(position, labels, move texts, source records) wherever a position has more than one label or move
    text and more than its source records can account for (the merged statements live in the default
    graph: one record per source that holds the position's game or puzzle)."""
    rows = store.query("""SELECT ?p (COUNT(DISTINCT ?l) AS ?labels) (COUNT(DISTINCT ?mv) AS ?moves)
                                   (COUNT(DISTINCT ?rec) AS ?records) WHERE {
        ?p cp:fen ?fen .
        OPTIONAL { ?p rdfs:label ?l } OPTIONAL { ?p cp:move ?mv }
        OPTIONAL { { ?p cp:hasMatch ?m . ?m dcterms:source ?rec } UNION { ?p dcterms:source ?rec } } }
        GROUP BY ?p""")
    out = []
    for row in rows:
        labels, moves, records = (int(row[name].value) for name in ("labels", "moves", "records"))
        if max(labels, moves) > max(1, records):
            out.append((row["p"].value, labels, moves, records))
    return out


def listed_twice(store) -> dict[str, list[str]]:
    """Canned queries (with their defaults) whose rows name a position more than once."""
    out = {}
    for query in list_queries():
        rows = run(store, query.name)
        if rows and "position" in rows[0]:
            twice = [iri for iri, n in Counter(row["position"] for row in rows if row["position"]).items() if n > 1]
            if twice:
                out[query.name] = twice
    return out


def test_every_shipped_source_states_each_position_once(data_store):
    store = open_store(str(data_store))
    assert stated_twice(store) == []
    assert listed_twice(store) == {}


@needs_engine
def test_mining_a_set_up_mate_reuses_the_exercise(tmp_path):
    """Polgár's set-up mate in one imported with --mine: the mined moment at ply 0 is the record's own
    exercise, not a second label ("…, 30...") and a second move text on the same position."""
    board = chess.Board("r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 30")
    assert brute_mates(board.copy(), 1)
    store_path = tmp_path / "store"
    result = run_cli("import", "--mine", str(FIXTURES / "polgar-setup.pgn"), store=store_path)
    assert result.exit_code == 0, result.output
    store = open_store(str(store_path))
    assert stated_twice(store) == []
    assert listed_twice(store) == {}
    rows = run(store, "mate-in-one")
    assert len({row["position"] for row in rows}) == len(rows) == 1


@pytest.fixture(scope="module")
def claims_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("claims") / "store"
    result = run_cli("import", str(FIXTURES / "claims.pgn"), store=path)
    assert result.exit_code == 0, result.output
    return open_store(str(path))


def test_a_refuted_mate_answers_no_mate_question(claims_store):
    refuted = chess.Board("rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - 0 5")
    assert not brute_mates(refuted.copy(), 2)  # 6. g4 was White's help: any other move survives
    for n in (1, 2, 3):
        assert not [
            r
            for r in run(claims_store, "mate-in-n-by-player", n=n, player="Helper")
            if refuted.fen().split()[0] in (r["label"] or "") or r["n"] == "2"
        ]
    fens = {r["fen"] for r in run(claims_store, "positions-by-side-and-goal", side="black", goal="mate")}
    assert refuted.fen() not in fens
    fens = {r["fen"] for r in run(claims_store, "positions-by-side-and-goal", side="black", goal="win")}
    assert refuted.fen() not in fens
    status = claims_store.query(f"""SELECT ?s ?v WHERE {{ ?p cp:fen "{refuted.fen()}" ;
        cp:claimStatus ?s ; cp:mateVerification ?v }}""")
    assert [(row["s"].value, row["v"].value) for row in status] == [("MateInTwo in 2 refuted", "refuted")]


def test_a_mate_in_three_that_mates_in_one_answers_as_a_mate_in_one(claims_store):
    board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 30")
    assert brute_mates(board.copy(), 1)
    for n, listed in ((1, True), (3, False)):
        rows = run(claims_store, "mate-in-n-by-player", n=n, player="Refuter")
        assert bool(rows) == listed, n
    types = {
        row["t"].value.rsplit("#", 1)[-1]
        for row in claims_store.query(f"""SELECT ?t WHERE {{ ?p cp:fen "{board.fen()}" ; a ?t }}""")
    }
    assert "MateInOne" in types and "MateInThree" not in types
    status = claims_store.query(f"""SELECT ?s WHERE {{ ?p cp:fen "{board.fen()}" ; cp:claimStatus ?s }}""")
    assert [row["s"].value for row in status] == ["MateInThree in 3 proven, shortest 1"]
