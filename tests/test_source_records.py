"""A source read from several files keeps one SourceRecord per game: each says its own file, its
number in that file and its line, checked against python-chess's own reading of the same files.

Two files of one source both have a game 1; the records used to be named by that number alone,
so game 1 of the second file landed on game 1 of the first (one record with two files and two
labels: wrong provenance, and ``cp:sourceFile`` is functional in spirit — the record said two
things at once)."""

from __future__ import annotations

import io
from pathlib import Path

import chess.pgn
from pyoxigraph import NamedNode

from chesskb.kb.importer import import_files
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.store import EmbeddedStore

from .conftest import BASE, ROOT

FIXTURES = ROOT / "tests" / "fixtures"
RECORDS = """SELECT ?record ?file ?number ?line WHERE { ?record a cp:SourceRecord ; cp:inSource ?source ;
  cp:sourceFile ?file ; cp:gameNumber ?number ; cp:lineNumber ?line }"""


def games_by_python_chess(path: Path) -> list[tuple[str, int, int]]:
    """(file name, game number, first line) of each game python-chess reads in ``path``."""
    text = path.read_text(encoding="utf-8")
    handle = io.StringIO(text)
    found, number = [], 0
    while True:
        offset = handle.tell()
        game = chess.pgn.read_game(handle)
        if game is None:
            break
        number += 1
        # the game's first line: the first non-blank line from where python-chess started reading
        before = text[:offset]
        skipped = len(text[offset:]) - len(text[offset:].lstrip("\n"))
        found.append((path.name, number, before.count("\n") + text[offset : offset + skipped].count("\n") + 1))
    return found


def stored_records(store: EmbeddedStore, source: str) -> dict[str, list[tuple[str, int, int]]]:
    """Per record IRI, every (file, number, line) it states."""
    minter = IriMinter(BASE)
    records: dict[str, list[tuple[str, int, int]]] = {}
    for row in store.query(RECORDS, bindings={"source": minter.source(source)}):
        records.setdefault(row["record"].value, []).append(
            (row["file"].value, int(row["number"].value), int(row["line"].value))
        )
    return records


def test_two_files_of_one_source_keep_a_record_per_game(tmp_path: Path) -> None:
    first, second = FIXTURES / "round-robin.pgn", FIXTURES / "identity" / "two-ratings.pgn"
    expected = games_by_python_chess(first) + games_by_python_chess(second)
    assert len({number for _, number, _ in expected}) < len(expected)  # both files have a game 1
    store = EmbeddedStore(tmp_path / "store")
    import_files(store, [first, second], source="both", base_iri=BASE)
    records = stored_records(store, "both")
    assert all(len(facts) == 1 for facts in records.values()), records  # one file, number, line each
    assert sorted(facts[0] for facts in records.values()) == sorted(expected)
    # the records are numbered on across the files, in the order the files were given
    minter = IriMinter(BASE)
    in_order = [records[minter.source_record("both", n).value][0] for n in range(1, len(expected) + 1)]
    assert in_order == expected


def test_appending_a_file_numbers_its_records_after_the_source_and_its_games_from_one(tmp_path: Path) -> None:
    # twelve games first: the last record is game/12, which a plain string maximum would miss (game/9)
    first, later = FIXTURES / "identity" / "double-round-robin.pgn", FIXTURES / "identity" / "two-ratings.pgn"
    assert len(games_by_python_chess(first)) >= 10
    store = EmbeddedStore(tmp_path / "store")
    import_files(store, [first], source="growing", base_iri=BASE)
    before = stored_records(store, "growing")
    import_files(store, [later], source="growing", base_iri=BASE, append=True)
    after = stored_records(store, "growing")
    assert {iri: facts for iri, facts in after.items() if iri in before} == before  # nothing rewritten
    added = sorted(facts[0] for iri, facts in after.items() if iri not in before)
    assert added == sorted(games_by_python_chess(later))  # game 1 of the appended file says 1
    minter = IriMinter(BASE)
    numbers = sorted(minter.record_number(NamedNode(iri))[1] for iri in after)
    assert numbers == list(range(1, len(after) + 1))
