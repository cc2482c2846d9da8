"""Importing a source again (issue 36, item 6): the same files, options, engine and code leave the source as
it is (no new generation), ``--force`` imports it again, and a changed file replaces its source with exactly
what importing the changed file alone gives."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from pyoxigraph import BlankNode

from chesskb.kb.analysis.engine import engine_path
from chesskb.kb.store import EmbeddedStore

from .conftest import DATA, run_cli
from .shared_proofs import shared_proofs  # noqa: F401 (autouse: one verification cache)

GAMES = DATA / "games" / "kasparov-deep-blue-1997.pgn"


def statements(store_path: Path) -> set[tuple]:
    """Every quad of the store but the import time (a new import's) and the ontology's blank nodes (relabelled at
    every load)."""
    return {
        (q.subject, q.predicate, q.object, q.graph_name)
        for q in EmbeddedStore(store_path).quads()
        if not isinstance(q.subject, BlankNode)
        and not isinstance(q.object, BlankNode)
        and not q.predicate.value.endswith("#importedAt")
    }


def live(store_path: Path) -> str:
    return os.readlink(store_path / "CURRENT")


def test_an_unchanged_source_is_left_as_it_is_and_force_imports_it_again(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert run_cli("import", "--jobs", "1", str(GAMES), store=store).exit_code == 0
    generation, before = live(store), statements(store)

    again = run_cli("import", "--jobs", "1", str(GAMES), store=store)
    assert again.exit_code == 0, again.output
    assert again.output.splitlines() == ["unchanged, not imported again: 1 source(s): kasparov-deep-blue-1997"]
    assert live(store) == generation  # nothing written: not even a new generation

    forced = run_cli("import", "--force", "--jobs", "1", str(GAMES), store=store)
    assert forced.exit_code == 0, forced.output
    assert "not imported again" not in forced.output and "into source kasparov-deep-blue-1997" in forced.output
    assert live(store) != generation and statements(store) == before


def test_force_and_skip_unchanged_together_are_refused(tmp_path: Path) -> None:
    result = run_cli("import", "--force", "--skip-unchanged", str(GAMES), store=tmp_path / "store")
    assert result.exit_code == 2 and "contradict" in result.output
    assert not (tmp_path / "store" / "CURRENT").exists()


def test_a_changed_file_is_imported_again_and_the_others_are_not(tmp_path: Path) -> None:
    store, folder = tmp_path / "store", tmp_path / "files"
    folder.mkdir()
    games, mates = folder / "games.pgn", folder / "mates.pgn"
    shutil.copy(GAMES, games)
    shutil.copy(DATA / "pychess" / "mate_in_3.pgn", mates)
    assert run_cli("import", "--jobs", "1", str(games), str(mates), store=store).exit_code == 0
    games.write_text(GAMES.read_text(encoding="utf-8").split("\n\n[Event")[0] + "\n", encoding="utf-8")
    result = run_cli("import", "--jobs", "1", str(games), str(mates), store=store)
    assert result.exit_code == 0, result.output
    assert "unchanged, not imported again: 1 source(s): mates" in result.output
    assert "imported 1 game into source games" in result.output

    alone = tmp_path / "alone"  # the same two files imported into an empty store
    assert run_cli("import", "--jobs", "1", str(games), str(mates), store=alone).exit_code == 0
    assert statements(store) == statements(alone)


@pytest.mark.skipif(
    shutil.which("stockfish") is None and not Path("/usr/games/stockfish").exists(), reason="needs stockfish"
)
def test_an_engine_installed_since_the_import_imports_the_source_again(tmp_path: Path, monkeypatch) -> None:
    """Without an engine a mate claim the built-in search cannot settle stays undecided: the same file
    imported with one may state more, so it is imported again."""
    store = tmp_path / "store"
    monkeypatch.setenv("CHESSKB_ENGINE", "none")
    assert run_cli("import", "--jobs", "1", str(GAMES), store=store).exit_code == 0
    generation = live(store)
    monkeypatch.delenv("CHESSKB_ENGINE")
    assert engine_path() is not None
    again = run_cli("import", "--jobs", "1", str(GAMES), store=store)
    assert again.exit_code == 0 and "not imported again" not in again.output and live(store) != generation
    assert "unchanged, not imported again" in run_cli("import", "--jobs", "1", str(GAMES), store=store).output


def test_replacing_every_source_writes_from_empty_what_a_first_import_writes(tmp_path: Path) -> None:
    """A store holding only the sources an import replaces is written from an empty generation (no copy
    whose every statement is deleted first); with another source stored it takes the general path. Both
    leave exactly what importing the same files into an empty store leaves."""
    from chesskb.kb.importer import import_files
    from chesskb.kb.store import open_store

    games = tmp_path / "games.pgn"
    shutil.copy(GAMES, games)
    path = tmp_path / "store"
    store = open_store(str(path))
    import_files(store, [games])
    assert store.last_write is not None and not store.last_write.from_empty  # a first import: nothing to drop
    games.write_text(GAMES.read_text(encoding="utf-8").split("\n\n[Event")[0] + "\n", encoding="utf-8")
    import_files(store, [games])
    assert store.last_write.from_empty and store.last_write.streamed_batches > 0
    store.close()
    fresh = tmp_path / "fresh"
    assert run_cli("import", "--jobs", "1", str(games), store=fresh).exit_code == 0
    assert statements(path) == statements(fresh)

    mates, first = DATA / "pychess" / "mate_in_2.pgn", tmp_path / "first" / "games.pgn"
    first.parent.mkdir()
    shutil.copy(GAMES, first)  # games.pgn as it was
    both, fresh_both = tmp_path / "both", tmp_path / "fresh-both"
    store = open_store(str(both))
    import_files(store, [first, mates])
    import_files(store, [games])  # one of two sources: the general path
    assert store.last_write is not None and not store.last_write.from_empty
    store.close()
    assert run_cli("import", "--jobs", "1", str(mates), str(games), store=fresh_both).exit_code == 0
    assert statements(both) == statements(fresh_both)


def test_a_failed_import_that_replaces_every_source_leaves_the_store_as_it_was(tmp_path: Path, monkeypatch) -> None:
    """The write from empty fails after its load (a ``derive`` step raises): the live generation is the one
    before, with every statement, and the staging copy is gone."""
    from chesskb.kb import importer
    from chesskb.kb.store import open_store

    games = tmp_path / "games.pgn"
    shutil.copy(GAMES, games)
    path = tmp_path / "store"
    store = open_store(str(path))
    importer.import_files(store, [games])
    generation, before = live(path), statements(path)
    games.write_text(GAMES.read_text(encoding="utf-8").split("\n\n[Event")[0] + "\n", encoding="utf-8")

    def failing(view):
        raise RuntimeError("derive failed")

    monkeypatch.setattr(importer, "derived_graphs", lambda base: [failing])
    with pytest.raises(RuntimeError, match="derive failed"):
        importer.import_files(store, [games])
    assert store.last_write is not None and store.last_write.from_empty
    store.close()
    assert live(path) == generation and statements(path) == before
    assert not any(p.name.endswith(".partial") for p in path.iterdir())
