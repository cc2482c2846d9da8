"""A write that at least doubles a large embedded store ends with a full compaction of the new
generation (``kb.store.embedded.OPTIMIZE_WHEN_GROWN`` and ``OPTIMIZE_MIN_BYTES``).

What a user relies on: compaction changes no statement and leaves fewer table files (what makes a
million-puzzle store smaller and its look-ups faster, bench/README.md); it is not paid again by
every small import into a large store (its cost is the whole store's size), nor by small stores.
The size floor is lowered here so that the shipped collections count as large; which writes were
compacted is seen by wrapping the real compaction, which still runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chesskb.kb.importer import import_files, remove_source
from chesskb.kb.store import embedded
from chesskb.kb.store.embedded import EmbeddedStore, table_bytes
from chesskb.kb.vocab import CP
from tests.conftest import DATA
from tests.shared_proofs import shared_proofs  # noqa: F401 (autouse: one verification cache)

LARGE = DATA / "pychess" / "mate_in_2.pgn"
SMALL = Path(__file__).parent / "fixtures" / "merge" / "club-bulletin.pgn"
#: Different at every import (its time): not compared.
VOLATILE = {CP.importedAt}


@pytest.fixture
def compactions(monkeypatch) -> list[int]:
    """One entry per compaction run from now on, with no size floor."""
    done: list[int] = []
    real = embedded.compact_files

    def recording(store) -> None:
        real(store)
        done.append(1)

    monkeypatch.setattr(embedded, "compact_files", recording)
    monkeypatch.setattr(embedded, "OPTIMIZE_MIN_BYTES", 0)
    return done


def _quads(store: EmbeddedStore) -> set:
    store.close()
    return {q for q in store._reader().quads_for_pattern(None, None, None, None) if q.predicate not in VOLATILE}


def _live(store: EmbeddedStore) -> Path:
    return store.path / store.generation()


def test_compaction_keeps_every_statement_in_fewer_files(tmp_path, compactions, monkeypatch) -> None:
    compacted = EmbeddedStore(tmp_path / "compacted")
    import_files(compacted, [SMALL, LARGE])
    assert compactions == [1]
    monkeypatch.setattr(embedded, "OPTIMIZE_MIN_BYTES", 2**62)  # the same import, never compacted
    plain = EmbeddedStore(tmp_path / "plain")
    import_files(plain, [SMALL, LARGE])
    assert compactions == [1]
    assert _quads(compacted) == _quads(plain)
    assert len(list(_live(compacted).glob("*.sst"))) < len(list(_live(plain).glob("*.sst")))


def test_only_writes_that_double_the_store_compact_it(tmp_path, compactions) -> None:
    store = EmbeddedStore(tmp_path / "kb")
    import_files(store, [SMALL], source="club-bulletin")  # into an empty store: doubles it
    assert len(compactions) == 1

    import_files(store, [LARGE], source="mate_in_2")
    grew = table_bytes(_live(store)) >= 2 * table_bytes(store.path / _previous(store))
    assert len(compactions) == 1 + grew

    before = len(compactions)
    import_files(store, [SMALL], source="club-bulletin-again")  # what the store holds, again: small
    remove_source(store, "mate_in_2")  # a store that shrinks is not compacted either
    assert len(compactions) == before


def test_small_stores_are_never_compacted(tmp_path, compactions, monkeypatch) -> None:
    monkeypatch.setattr(embedded, "OPTIMIZE_MIN_BYTES", 256 * 2**20)
    store = EmbeddedStore(tmp_path / "kb")
    import_files(store, [SMALL, LARGE])
    assert compactions == []


def test_chesskb_compact_compacts_the_files(tmp_path, compactions) -> None:
    store = EmbeddedStore(tmp_path / "kb")
    import_files(store, [LARGE])
    before = _quads(store)
    store.compact()
    assert len(compactions) == 2
    assert _quads(store) == before


def _previous(store: EmbeddedStore) -> str:
    """The generation the last write replaced (kept until the next write)."""
    return sorted(
        entry.name
        for entry in store.path.iterdir()
        if entry.name.startswith("gen-") and entry.name != store.generation()
    )[-1]
