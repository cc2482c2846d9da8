"""One bulk load per generation (issue 36, item 2): the embedded store's streamed write.

An import whose batches are one source's new subjects is written by a single bulk load over the
whole stream (``kb.store.embedded._stream_load``) instead of one load per 16 MB. These tests import
real collections through the real importer and check that the streamed write

* is taken (every batch in the one load, no joined load after it) by a first import, and by the
  re-import of a store's only source;
* stores exactly the quads of the per-subject path (each subject decoded and encoded by
  ``kb.store.layout``'s rules) and of the joined loads it replaces, counted and compared quad for quad;
* stops at the first batch it may not take (another source's, shared subjects) and leaves the rest to
  the joined loads, with the same quads again;
* when the statements' producer fails in the middle of the load, raises that failure and leaves the
  previous generation live and untouched, and no staging copy behind.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import chess.pgn
import pytest
from pyoxigraph import Quad

from chesskb.kb.importer import import_files, import_statements, plan_import
from chesskb.kb.store import embedded
from chesskb.kb.store.base import SerializedBatch, Statement
from chesskb.kb.store.embedded import EmbeddedStore
from tests.shared_proofs import shared_proofs  # noqa: F401 (autouse: one verification cache)
from tests.test_embedded_layout import DERIVED, FILES


def _quads(store: EmbeddedStore) -> list[Quad]:
    """Every stored quad but the ones each write recomputes or stamps (``DERIVED``), sorted."""
    store.close()
    return sorted(
        (q for q in store._reader().quads_for_pattern(None, None, None, None) if q.predicate not in DERIVED), key=str
    )


def _import(path: Path, names: list[str], *, fast: bool = True) -> EmbeddedStore:
    store = EmbeddedStore(path)
    store.fast_paths = fast
    for name in names:
        import_files(store, [FILES[name]], source=name)
    return store


def _import_joined(path: Path, names: list[str], monkeypatch: pytest.MonkeyPatch) -> EmbeddedStore:
    """The import as written before the single load: every batch through the joined loads."""
    with monkeypatch.context() as patch:
        patch.setattr(embedded, "STREAM_LOAD", False)
        return _import(path, names)


def _starting_positions(path: Path) -> set[str]:
    """The FENs the games of a PGN file start from, read by python-chess."""
    fens = set()
    with path.open(encoding="utf-8", errors="replace") as handle:  # a latin-1 name or two: FENs are ASCII
        while (game := chess.pgn.read_game(handle)) is not None:
            fens.add(_placement(game.board().fen()))
    return fens


def _placement(fen: str) -> str:
    """A FEN without its move counters (board, side, castling, en passant)."""
    return " ".join(fen.split()[:4])


def test_a_first_import_is_one_load_with_the_quads_of_the_other_paths(tmp_path, monkeypatch) -> None:
    streamed = _import(tmp_path / "streamed", ["mate_in_2"])
    assert streamed.last_write is not None
    assert streamed.last_write.streamed_batches > 1  # several workers' batches, one load
    assert streamed.last_write.joined_loads == 0
    per_subject = _import(tmp_path / "per-subject", ["mate_in_2"], fast=False)
    joined = _import_joined(tmp_path / "joined", ["mate_in_2"], monkeypatch)
    assert joined.last_write is not None and joined.last_write.joined_loads > 0
    quads = _quads(streamed)
    assert len(quads) == len(_quads(per_subject)) == len(_quads(joined))
    assert quads == _quads(per_subject) == _quads(joined)
    # and what the store says is the file's: one position per distinct start python-chess reads
    stored = {
        _placement(row["fen"].value) for row in streamed.query("SELECT ?fen WHERE { ?p a cp:Position ; cp:fen ?fen }")
    }
    assert _starting_positions(FILES["mate_in_2"]) <= stored


def test_a_second_source_sharing_subjects_leaves_the_stream_for_the_joined_loads(tmp_path, monkeypatch) -> None:
    names = ["polgar-puzzles", "club-bulletin"]
    streamed = _import(tmp_path / "streamed", names)
    assert streamed.last_write is not None and streamed.last_write.joined_loads > 0  # the bulletin shares subjects
    quads = _quads(streamed)
    assert quads == _quads(_import_joined(tmp_path / "joined", names, monkeypatch))
    assert quads == _quads(_import(tmp_path / "per-subject", names, fast=False))


def test_reimporting_the_only_source_is_one_load(tmp_path) -> None:
    store = _import(tmp_path / "s", ["mate_in_2"])
    first = _quads(store)
    import_files(store, [FILES["mate_in_2"]], source="mate_in_2")
    assert store.last_write is not None and store.last_write.joined_loads == 0
    assert store.last_write.streamed_batches > 1
    assert _quads(store) == first


class ProducerDied(RuntimeError):
    """The statements' producer failing half way (a worker's crash, an interrupted import)."""


def _failing(statements: Iterator[Statement], after: int, seen: list[int]) -> Iterator[Statement]:
    for item in statements:
        yield item
        if isinstance(item, SerializedBatch):
            seen.append(1)
            if len(seen) == after:
                raise ProducerDied("the producer died after some batches")


@pytest.mark.parametrize("earlier", [[], ["polgar-puzzles"]], ids=["empty-store", "store-with-a-source"])
def test_a_failure_mid_load_leaves_the_previous_generation_live(tmp_path, earlier) -> None:
    store = _import(tmp_path / "s", earlier)
    before_link = os.readlink(store.path / "CURRENT") if earlier else None
    before = _quads(store) if earlier else []
    plan = plan_import([FILES["mate_in_2"]], source="mate_in_2", store_location=store.location)
    seen: list[int] = []
    with pytest.raises(ProducerDied):
        store.replace_graphs([], _failing(import_statements(plan), 2, seen))
    assert len(seen) == 2
    assert store.last_write is not None and store.last_write.streamed_batches >= 1  # the copy held loaded batches
    if earlier:
        assert os.readlink(store.path / "CURRENT") == before_link
        assert _quads(store) == before
    else:
        assert not (store.path / "CURRENT").exists()
    assert not [entry for entry in os.listdir(store.path) if entry.endswith(".partial")]
    if not earlier:  # nothing was published: the store still answers as an empty one
        count = next(iter(store.query("SELECT (COUNT(*) AS ?n) WHERE { ?p a cp:Position }")))
        assert int(count["n"].value) == 0
