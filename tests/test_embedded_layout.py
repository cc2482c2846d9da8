"""The embedded store writes the compact layout (``kb/store/layout.py``) through the real importer.

Imports of the merge fixtures (one source per file: the club bulletin shares positions, games,
players and events with the Polgar puzzles, with names and dates written differently), checked
against what each file says alone:

* the default graph is the union of what each source's own conversion says (``chesskb convert`` of
  the file alone), and a subject one source asserts keeps only its type statements in named graphs;
* removing a source leaves exactly what importing the others alone gives (quads by owner, the
  default graph), whatever the order of the imports;
* a store written in the earlier layout (every statement in its graph and in the default graph)
  takes imports and removals to the same merged view and the same decoded sources;
* the fast paths (bulk loads of markers and bytes, deletes by SPARQL Update) store exactly what the
  per-subject path stores.
"""

from __future__ import annotations

import shutil
from collections import defaultdict
from pathlib import Path

import pytest
from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat, parse

from chesskb.kb.importer import import_files, remove_source
from chesskb.kb.store import embedded
from chesskb.kb.store import layout as rules
from chesskb.kb.store.embedded import EmbeddedStore
from chesskb.kb.vocab import CP
from tests.conftest import DATA, run_cli
from tests.earlier_layout import earlier_layout
from tests.pgn_slices import sliced_source
from tests.shared_proofs import shared_proofs  # noqa: F401 (autouse: one verification cache)

MERGE = Path(__file__).parent / "fixtures" / "merge"
#: The sources, imported one file each; ``mate_in_2`` is a slice of the collection (``mate_in_2_slice``).
FILES = {
    "polgar-puzzles": MERGE / "polgar-puzzles.pgn",
    "mate_in_2": DATA / "pychess" / "mate_in_2.pgn",
    "club-bulletin": MERGE / "club-bulletin.pgn",
}
#: Of the mate-in-2 collection: Tal v Benko (game 49), whose position the club bulletin shares, the games
#: of Benko and Judit Polgár (43, 95), players the merge fixtures name differently, and the first 40: what
#: the layout tests compare (quads by owner, the merged view, removals) does not depend on the other 53
#: games, which every store here imported again. Not fewer: the named graphs must stay under a third of
#: the store (``test_the_default_graph_is_the_union_of_the_sources``) beside the bookkeeping graphs,
#: whose size is fixed (the ontology: 1,961 quads; with 43 games the named graphs are 29 % of the store,
#: with 11 games 39 %).
MATE_IN_2_GAMES = [*range(40), 43, 49, 95]
#: Recomputed over the whole knowledge base by every write (links between players, class counts)
#: or different at every import (its time): compared apart, or not at all.
DERIVED = {NamedNode("http://www.w3.org/2002/07/owl#sameAs"), CP.candidateSameAs, CP.memberCount, CP.importedAt}


mate_in_2_slice = sliced_source(FILES, "mate_in_2", MATE_IN_2_GAMES)


def _import(path: Path, names, *, fast: bool = True) -> EmbeddedStore:
    store = EmbeddedStore(path)
    store.fast_paths = fast
    for name in names:
        import_files(store, [FILES[name]], source=name)
    return store


def _all_quads(store: EmbeddedStore) -> set[Quad]:
    store.close()
    return {q for q in store._reader().quads_for_pattern(None, None, None, None) if q.predicate not in DERIVED}


def _default(quads) -> set:
    return {q.triple for q in quads if isinstance(q.graph_name, DefaultGraph)}


def _by_owner(quads) -> set:
    return {(None if isinstance(q.graph_name, DefaultGraph) else rules.owner_of(q.graph_name), q.triple) for q in quads}


def _decoded(quads) -> dict:
    """Per subject, per owner graph, the triples it says (``layout.decode``): which graph of a source
    holds a statement is not compared (rule 7 of ``kb.store.layout``)."""
    out = {}
    for subject, stored in rules.by_subject(quads).items():
        out[subject] = {owner: {q.triple for q in said} for owner, said in rules.decode(stored).items() if said}
    return out


def _asserted_by(quads) -> dict:
    out: dict[object, set] = defaultdict(set)
    for q in quads:
        if rules.is_marker(q) and not isinstance(q.graph_name, DefaultGraph) and rules.is_source(q.graph_name):
            out[q.subject].add(q.graph_name)
    return out


@pytest.fixture(scope="module")
def converted(tmp_path_factory) -> dict[str, set]:
    """Per source, the default graph of its file converted alone (everything its import says, links and
    counts apart): computed by ``convert``, which writes batches without the store's writer."""
    from chesskb.kb.export.convert import convert_files

    out = {}
    for name, path in FILES.items():
        target = tmp_path_factory.mktemp("convert") / f"{name}.nq"
        convert_files([path], target, source=name)
        out[name] = {
            q.triple
            for q in parse(target.read_bytes(), format=RdfFormat.N_QUADS)
            if isinstance(q.graph_name, DefaultGraph) and q.predicate not in DERIVED
        }
    return out


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict[tuple[str, ...], set[Quad]]:
    """The quads of stores holding some of the sources, imported one after another in that order."""
    cache: dict[tuple[str, ...], set[Quad]] = {}
    root = tmp_path_factory.mktemp("stores")

    def get(names: tuple[str, ...]) -> set[Quad]:
        if names not in cache:
            cache[names] = _all_quads(_import(root / "-".join(names), names))
        return cache[names]

    return get  # type: ignore[return-value]


def test_the_default_graph_is_the_union_of_the_sources(converted, stores) -> None:
    quads = stores(tuple(FILES))
    assert _default(quads) == set().union(*converted.values())
    asserting = _asserted_by(quads)
    bookkeeping = {
        q.subject
        for q in quads
        if not isinstance(q.graph_name, DefaultGraph) and not rules.is_source(rules.owner_of(q.graph_name))
    }
    alone = {s for s, graphs in asserting.items() if len(graphs) == 1 and s not in bookkeeping}
    shared = {s for s, graphs in asserting.items() if len(graphs) > 1}
    assert alone and shared, "the bulletin shares some individuals with the puzzles and has its own"
    named = [q for q in quads if not isinstance(q.graph_name, DefaultGraph)]
    assert all(rules.is_marker(q) for q in named if q.subject in alone)
    assert len(named) < len(quads) / 3


def test_each_source_decodes_to_what_it_says_alone(stores) -> None:
    together = _decoded(stores(tuple(FILES)))
    for name in FILES:
        graph = NamedNode(f"{rules.owner_of(_source_graph(stores, name)).value}")
        for subject, said in _decoded(stores((name,))).items():
            if graph in said:
                assert together[subject][graph] == said[graph], (name, subject)


def _source_graph(stores, name: str) -> NamedNode:
    return next(
        q.graph_name
        for q in stores((name,))
        if not isinstance(q.graph_name, DefaultGraph) and q.graph_name.value.endswith(f"/graph/{name}")
    )


@pytest.mark.slow  # imports the sources again for each one removed
@pytest.mark.parametrize("order", [tuple(FILES), tuple(reversed(FILES))])
def test_removing_a_source_leaves_what_the_others_alone_give(tmp_path, stores, order) -> None:
    full = _import(tmp_path / "full", order)
    full.close()
    for name in FILES:
        copy = EmbeddedStore(shutil.copytree(full.path, tmp_path / f"without-{name}", symlinks=True))
        assert remove_source(copy, name)
        rest = tuple(other for other in order if other != name)
        after, alone = _all_quads(copy), stores(rest)
        assert _default(after) == _default(alone)
        assert _by_owner(after) == _by_owner(alone)
        assert _asserted_by(after) == _asserted_by(alone)


def test_fast_and_per_subject_paths_store_the_same_quads(tmp_path) -> None:
    names = tuple(FILES)
    fast, slow = _import(tmp_path / "fast", names), _import(tmp_path / "slow", names, fast=False)
    assert _all_quads(fast) == _all_quads(slow)
    for store in (fast, slow):
        remove_source(store, "polgar-puzzles")
    assert _all_quads(fast) == _all_quads(slow)
    for store in (fast, slow):  # a re-import: the source's graphs go and come back in one write
        import_files(store, [FILES["mate_in_2"]], source="mate_in_2")
    assert _all_quads(fast) == _all_quads(slow)
    for name in ("club-bulletin", "mate_in_2"):  # the last one leaves no other source to ask about
        for store in (fast, slow):
            remove_source(store, name)
        assert _all_quads(fast) == _all_quads(slow)
    assert not [
        q
        for q in _all_quads(fast)
        if isinstance(q.graph_name, DefaultGraph)
        and q.subject.value.startswith("https://w3id.org/chesskb/id/position/")
    ]


def test_an_import_of_new_subjects_takes_the_fast_path(tmp_path, monkeypatch) -> None:
    """A source alone: every batch is bulk-loaded as bytes; only the single quads (the ontology, the
    source's description, links and counts: subjects a bookkeeping graph describes) are written
    subject by subject."""
    parsed: list[list[Quad]] = []
    real = embedded._write_quads

    def spy(target, quads, *rest) -> None:
        parsed.append(list(quads))
        real(target, parsed[-1], *rest)

    monkeypatch.setattr(embedded, "_write_quads", spy)
    _import(tmp_path / "s", ["mate_in_2"])
    assert parsed
    for quads in parsed:
        bookkeeping = {q.subject for q in quads if not rules.is_source(rules.owner_of(q.graph_name))}
        assert {q.subject for q in quads} <= bookkeeping


# --- a store in the earlier layout -----------------------------------------------------------------


@pytest.fixture(scope="module")
def old_layout_store(tmp_path_factory) -> Path:
    """A store holding the Polgar puzzles and the club bulletin in the earlier layout, imported once."""
    with earlier_layout():
        store = _import(tmp_path_factory.mktemp("old-layout") / "old", ["polgar-puzzles", "club-bulletin"])
    quads = _all_quads(store)
    named = [q for q in quads if not isinstance(q.graph_name, DefaultGraph)]
    assert {q.triple for q in named} == _default(quads)  # really every statement twice
    assert sum(not rules.is_marker(q) for q in named) > len(named) / 2
    return store.path


@pytest.fixture()
def old_layout(old_layout_store: Path, tmp_path: Path) -> EmbeddedStore:
    """A copy of that store for one test to write."""
    return EmbeddedStore(shutil.copytree(old_layout_store, tmp_path / "old", symlinks=True))


def test_an_old_layout_store_takes_an_import(old_layout, stores) -> None:
    import_files(old_layout, [FILES["mate_in_2"]], source="mate_in_2")
    after, compact = _all_quads(old_layout), stores(("polgar-puzzles", "club-bulletin", "mate_in_2"))
    assert _default(after) == _default(compact)
    assert _decoded(after) == _decoded(compact)
    assert _asserted_by(after) == _asserted_by(compact)


@pytest.mark.parametrize("name", ["polgar-puzzles", "club-bulletin"])
def test_an_old_layout_store_takes_a_removal(old_layout, stores, name) -> None:
    touched = {
        q.subject
        for q in _all_quads(old_layout)
        if not isinstance(q.graph_name, DefaultGraph) and rules.owner_of(q.graph_name).value.endswith(f"/graph/{name}")
    }
    remove_source(old_layout, name)
    rest = tuple(other for other in ("polgar-puzzles", "club-bulletin") if other != name)
    after, compact = _all_quads(old_layout), stores(rest)
    assert _default(after) == _default(compact)
    assert _decoded(after) == _decoded(compact)
    # the subjects the removal touched are re-encoded compactly; the others stay as they were
    assert {(o, t) for o, t in _by_owner(after) if t.subject in touched} == {
        (o, t) for o, t in _by_owner(compact) if t.subject in touched
    }


def test_compact_rewrites_an_earlier_layout_store_with_the_same_answers(old_layout, stores) -> None:
    """``chesskb compact``: a store written before the compact layout shrinks to what writing it
    today gives, as a new generation, and every source says what it said."""
    before = _all_quads(old_layout)
    generation = old_layout.generation()
    result = run_cli("compact", store=old_layout.path)
    assert result.exit_code == 0, result.output
    assert old_layout.generation() != generation  # published like any write
    after, today = _all_quads(old_layout), stores(("polgar-puzzles", "club-bulletin"))
    assert _default(after) == _default(before) == _default(today)
    assert _decoded(after) == _decoded(before)
    assert _by_owner(after) == _by_owner(today)  # as compact as a store written in this layout

    def repeated(quads) -> int:  # statements a source's graphs hold beside its markers
        return sum(
            1
            for q in quads
            if not isinstance(q.graph_name, DefaultGraph)
            and rules.is_source(rules.owner_of(q.graph_name))
            and not rules.is_marker(q)
        )

    assert repeated(after) < 0.2 * repeated(before) and len(after) < len(before)
    again = run_cli("compact", store=old_layout.path)
    assert again.exit_code == 0 and _all_quads(old_layout) == after  # compacting twice changes nothing


def test_compact_needs_an_embedded_store_with_something_in_it(tmp_path) -> None:
    assert run_cli("compact", store=tmp_path / "empty").exit_code == 1
    assert run_cli("compact", store="http://127.0.0.1:9/sparql").exit_code == 2
