"""Each mate claim is decided once: copies and re-imports of the same positions ask nobody again.

The counts are the importer's own (how many claims the search, the engine and the cache decided);
the expected numbers come from python-chess over the same files, and the statuses the cache gives
must be the ones a cold import stored.
"""

from __future__ import annotations

import re
from pathlib import Path

import chess
import pytest

from chesskb.kb.analysis.engine import engine_path
from chesskb.kb.analysis.verify import PROOF_RULE
from chesskb.kb.analysis.verify_cache import CACHE_FILE, VerificationCache, claim_key
from chesskb.kb.importer import import_files
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.reading import read_records
from chesskb.kb.reading.records import GameRecord
from chesskb.kb.store import EmbeddedStore

from .conftest import BASE, DATA
from .pgn_slices import write_games

needs_engine = pytest.mark.skipif(engine_path() is None, reason="no stockfish (scripts/setup.sh installs it)")


def mate_claims(path: Path) -> dict[int, tuple[str, int]]:
    """Game number -> (position, N) for every line that ends in the solver's mate, by python-chess alone."""
    claims = {}
    for record in read_records(path):
        if not isinstance(record, GameRecord) or not record.solution:
            continue
        board = chess.Board(record.start_fen)
        for move in record.solution:
            board.push(move)
        if board.is_checkmate() and len(record.solution) % 2 == 1:
            start = chess.Board(record.start_fen)
            ep = chess.square_name(start.ep_square) if start.has_legal_en_passant() and start.ep_square else "-"
            position = f"{start.board_fen()} {start.turn} {start.castling_xfen()} {ep}"
            claims[record.location.game_number] = (position, (len(record.solution) + 1) // 2)
    return claims


def copy_with_new_sites(source: Path, target: Path) -> Path:
    """The collection again under another name, as a second source would bring it."""
    text = source.read_bytes().decode("latin-1")
    target.write_text(re.sub(r'^\[Site "(.*)"\]', r'[Site "\1 (copy)"]', text, flags=re.MULTILINE), encoding="utf-8")
    return target


def statuses(store: EmbeddedStore, source: str) -> dict[int, str]:
    graph = IriMinter(BASE).source_graph(source)
    rows = store.query(
        """SELECT DISTINCT ?n ?status WHERE { GRAPH ?g { ?r a ?record }  # the source's records
        ?p cp:mateVerification ?status ; cp:hasMatch ?m . ?m dcterms:source ?r . ?r cp:gameNumber ?n }""",
        bindings={"g": graph},
    )
    return {int(row["n"].value): row["status"].value for row in rows}


@needs_engine
def test_a_second_import_of_the_same_positions_asks_the_engine_nothing(tmp_path: Path) -> None:
    path = DATA / "pychess" / "mate_in_3.pgn"
    claims = mate_claims(path)
    distinct = len(set(claims.values()))
    assert distinct == 40  # every problem of the file is a different position
    store = EmbeddedStore(tmp_path / "store")
    first = import_files(store, [path], source="mates", jobs=2)
    assert first.verification.engine == distinct and first.verification.cached == 0
    copy = copy_with_new_sites(path, tmp_path / "mate_in_3_copy.pgn")
    second = import_files(store, [copy], source="copy", jobs=2)
    assert second.verification.engine == 0 and second.verification.searched == 0
    assert second.verification.cached == len(claims)
    assert statuses(store, "copy") == statuses(store, "mates")
    assert statuses(store, "copy")[22] == statuses(store, "copy")[25] == "proven"  # once "refuted-engine"
    assert (tmp_path / "store" / CACHE_FILE).is_file()


@needs_engine
def test_copies_within_one_import_are_decided_once(tmp_path: Path) -> None:
    path = DATA / "pychess" / "mate_in_3.pgn"
    copy = copy_with_new_sites(path, tmp_path / "mate_in_3_copy.pgn")
    report = import_files(EmbeddedStore(tmp_path / "store"), [path, copy], jobs=1)
    assert report.verification.engine == len(set(mate_claims(path).values()))
    assert report.verification.cached == len(mate_claims(copy))


def test_short_mates_are_searched_once_across_imports_without_an_engine(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CHESSKB_ENGINE", "none")
    path = DATA / "pychess" / "mate_in_2.pgn"
    claims = mate_claims(path)
    store = EmbeddedStore(tmp_path / "store")
    first = import_files(store, [path], source="a", jobs=1)
    assert first.verification.searched == len(set(claims.values()))
    assert first.verification.searched + first.verification.cached == len(claims) == 96
    second = import_files(store, [path], source="b", jobs=2)
    assert second.verification.searched == 0 and second.verification.cached == len(claims)
    assert statuses(store, "b") == statuses(store, "a")
    assert set(statuses(store, "a").values()) == {"proven"}


def test_with_the_cache_turned_off_every_import_decides_again(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CHESSKB_ENGINE", "none")
    monkeypatch.setenv("CHESSKB_VERIFY_CACHE", "none")
    # 12 problems of the collection: each import must search every distinct claim again, at any size
    path = write_games(DATA / "pychess" / "mate_in_2.pgn", range(12), tmp_path / "mate_in_2.pgn")
    store = EmbeddedStore(tmp_path / "store")
    distinct = len(set(mate_claims(path).values()))
    assert distinct == 12
    for source in ("a", "b"):
        assert import_files(store, [path], source=source, jobs=1).verification.searched == distinct
    assert not (tmp_path / "store" / CACHE_FILE).exists()


def test_the_key_keeps_what_decides_the_answer_and_drops_the_rest() -> None:
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    later = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 7 40")  # counters far from the 50-move rule
    near_draw = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 99 80")  # the rule could end a mate in 3
    assert claim_key(board, 1, "search") == claim_key(later, 1, "search")
    assert claim_key(board, 3, "search") != claim_key(near_draw, 3, "search")
    assert claim_key(board, 1, "search") != claim_key(board, 2, "search")
    assert claim_key(board, 3, "engine:a") != claim_key(board, 3, "engine:b")


def test_a_worker_reads_what_the_importer_saved(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    writer = VerificationCache(path)
    reader = VerificationCache(path, writer=False)
    assert reader.get("k") is None
    writer.save([("k", "verified-engine")])
    assert reader.get("k") == "verified-engine"
    reader.put("j", "refuted-engine")
    assert writer.get("j") is None  # a worker's decision reaches the file only through the importer
    writer.save(reader.take_new())
    assert VerificationCache(path, writer=False).get("j") == "refuted-engine"


def test_answers_of_the_old_engine_rule_are_never_reused(tmp_path: Path, monkeypatch) -> None:
    """A cache written before proofs held "refuted-engine" for pychess's games 22 and 25 (true mates in
    three): neither an entry under the old engine key nor an old-style value under the new key is taken."""
    monkeypatch.setenv("CHESSKB_ENGINE", "none")
    source = DATA / "pychess" / "mate_in_3.pgn"
    records = {r.location.game_number: r for r in read_records(source) if isinstance(r, GameRecord)}
    path = tmp_path / "two.pgn"
    path.write_text(_games(source, (22, 25)), encoding="utf-8")
    store = EmbeddedStore(tmp_path / "store")
    cache = VerificationCache(tmp_path / "store" / CACHE_FILE)
    old = []
    for n in (22, 25):
        board = records[n].start_board()
        old += [
            (claim_key(board, 3, "engine:/usr/games/stockfish:1:2:300000"), "refuted-engine"),
            (claim_key(board, 3, PROOF_RULE), "refuted-engine"),
        ]
    cache.save(old)
    cache.close()
    report = import_files(store, [path], source="two", jobs=1)
    assert report.verification.searched == 2 and report.verification.cached == 0
    assert set(statuses(store, "two").values()) == {"proven"}


def _games(path: Path, numbers: tuple[int, ...]) -> str:
    """The PGN text of the games ``numbers`` (1-based) of ``path``, as the file writes them."""
    games = re.split(r"\n(?=\[Event )", path.read_bytes().decode("latin-1"))
    return "\n".join(games[n - 1].strip() + "\n" for n in numbers)


def test_the_suite_keeps_its_verdicts_out_of_the_users_cache(monkeypatch, own_cache_home: Path):
    """A store-less command's cache (``convert``, an import into a server) lands in the run's own cache
    home (``tests/conftest.py``), never in the ``~/.cache/chesskb`` earlier runs and other checkouts share."""
    from chesskb.kb.analysis.verify_cache import CACHE_ENV, cache_location

    monkeypatch.delenv(CACHE_ENV, raising=False)
    where = cache_location(None)
    assert where is not None and where.is_relative_to(own_cache_home)
    assert not where.is_relative_to(Path.home() / ".cache")
