"""A SPARQL server written by ``RemoteStore`` keeps what each source says exact, through imports,
removals and re-imports, and on a dataset a server's own loader brought in.

The merge fixtures (the club bulletin shares positions, games, players and events with the Polgar
puzzles and Tal's mate in two) go into a real ``oxigraph serve``, one source per file. What the
server holds is decoded subject by subject with ``kb.store.layout`` (right for the earlier layout and
the compact one alike) and compared with what each source says on its own: each file converted
alone, decoded the same way. Expected answers never come from the server under test.

``RemoteStore`` and ``chesskb convert`` write the earlier layout (every statement in its graph and in
the default graph; ``kb/store/remote.py`` says why): ``test_the_server_holds_the_earlier_layout``
pins that, so the two stay in one layout (a statement of one layout's writer on the other's data
would be attributed to the wrong source).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from pyoxigraph import BlankNode, DefaultGraph, NamedNode, Quad, RdfFormat, parse, serialize

from chesskb.kb.importer import import_files, remove_source
from chesskb.kb.store import layout
from chesskb.kb.store.remote import RemoteStore
from tests.conftest import BASE, DATA
from tests.live_server import oxigraph_binary, oxigraph_server
from tests.pgn_slices import sliced_source
from tests.shared_proofs import shared_proofs  # noqa: F401 (autouse: one verification cache)

MERGE = Path(__file__).parent / "fixtures" / "merge"
FILES = {
    "polgar-puzzles": MERGE / "polgar-puzzles.pgn",
    "mate_in_2": DATA / "pychess" / "mate_in_2.pgn",
    "club-bulletin": MERGE / "club-bulletin.pgn",
}
#: Of the mate-in-2 collection: Tal v Benko (game 49), whose position the club bulletin shares, the games of
#: Benko and Judit Polgár (43, 95), players the merge fixtures name differently, and the first eight. What
#: is compared (each source's statements decoded from the server, the merge as their union) does not
#: depend on the other 85 games, which each import sent and each check read back over HTTP again.
MATE_IN_2_GAMES = [*range(8), 43, 49, 95]
mate_in_2_slice = sliced_source(FILES, "mate_in_2", MATE_IN_2_GAMES)
META = NamedNode(BASE + "graph/_meta")
IMPORTED_AT = "http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#importedAt"
ALL_QUADS = "SELECT ?g ?s ?p ?o WHERE { { GRAPH ?g { ?s ?p ?o } } UNION { ?s ?p ?o } }"

#: (owner, subject, predicate, object): one statement a graph's owner makes.
Said = set[tuple[NamedNode, object, NamedNode, object]]


def _by_subject(quads: Iterable[Quad]) -> dict[object, list[Quad]]:
    return layout.by_subject(quads)


def _said(quads: Iterable[Quad]) -> Said:
    """What the sources and the meta graph say about every named subject (import times aside)."""
    out: Said = set()
    for subject, about in _by_subject(quads).items():
        if isinstance(subject, BlankNode):
            continue  # the ontology's lists
        for owner, statements in layout.decode(about).items():
            if layout.is_source(owner) or owner == META:
                out |= {
                    (owner, q.subject, q.predicate, q.object) for q in statements if q.predicate.value != IMPORTED_AT
                }
    return out


@pytest.fixture(scope="module")
def converted(tmp_path_factory) -> dict[str, list[Quad]]:
    """Per source, every quad a conversion of its file alone writes."""
    from chesskb.kb.export.convert import convert_files

    out: dict[str, list[Quad]] = {}
    for name, path in FILES.items():
        target = tmp_path_factory.mktemp("convert") / f"{name}.nq"
        convert_files([path], target, source=name)
        out[name] = list(parse(target.read_bytes(), format=RdfFormat.N_QUADS))
    return out


@pytest.fixture(scope="module")
def own(converted) -> dict[str, Said]:
    """Per source, what it says on its own (its graphs and its description in ``_meta``)."""
    out = {name: _said(quads) for name, quads in converted.items()}
    for name, said in out.items():
        assert {owner for owner, *_ in said} == {NamedNode(BASE + f"graph/{name}"), META}
    return out


def _stored(store: RemoteStore) -> list[Quad]:
    return [
        Quad(row["s"], row["p"], row["o"], row["g"] if row["g"] is not None else DefaultGraph())
        for row in store.query(ALL_QUADS)
    ]


def _check(store: RemoteStore, own: dict[str, Said], names: Iterable[str]) -> None:
    """The server says what the sources ``names`` say, each its own, and its merge is their union."""
    stored = _stored(store)
    assert _said(stored) == set().union(*(own[name] for name in names))
    merge = {q.triple for q in stored if isinstance(q.graph_name, DefaultGraph)}
    decoded = {
        q.triple
        for subject, about in _by_subject(stored).items()
        if not isinstance(subject, BlankNode)
        for said in layout.decode(about).values()
        for q in said
    }
    assert {t for t in merge if not isinstance(t.subject, BlankNode)} == decoded
    assert "staging" not in " ".join(g.value for g in store.named_graphs())


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[RemoteStore]:
    with oxigraph_server(tmp_path / "oxigraph") as base:
        yield RemoteStore(base + "/query", update_endpoint=base + "/update")


def _import(store: RemoteStore, name: str) -> None:
    assert import_files(store, [FILES[name]], source=name, jobs=1).games > 0


def test_sources_keep_their_own_statements_through_imports_removals_and_reimports(server, own) -> None:
    names = list(FILES)
    for name in names:
        _import(server, name)
    _check(server, own, names)
    for name in names:  # each removed, then imported again (after the others: another order)
        assert remove_source(server, name)
        _check(server, own, [n for n in names if n != name])
        _import(server, name)
        _check(server, own, names)


def test_the_server_holds_the_earlier_layout(server, own) -> None:
    """Every statement of the default graph is held by a named graph: nothing is stored once only."""
    for name in FILES:
        _import(server, name)
    stored = _stored(server)
    held = {q.triple for q in stored if not isinstance(q.graph_name, DefaultGraph)}
    assert {
        q.triple for q in stored if isinstance(q.graph_name, DefaultGraph) and not isinstance(q.subject, BlankNode)
    } <= held


def _earlier_layout(quads: Iterable[Quad]) -> bytes:
    """N-Quads in the earlier layout: what every graph says about a subject in that graph, and again
    in the default graph."""
    out: list[Quad] = []
    for subject, about in _by_subject(quads).items():
        if isinstance(subject, BlankNode):
            out += about
            continue
        for said in layout.decode(about).values():
            for q in said:
                out += [q, Quad(q.subject, q.predicate, q.object, DefaultGraph())]
    return serialize(out, format=RdfFormat.N_QUADS)


def test_a_dataset_loaded_by_the_servers_own_loader_is_written_exactly(tmp_path: Path, converted, own) -> None:
    """Two sources in the earlier layout, loaded with ``oxigraph load``; then the third is imported,
    one of the first two removed and imported again."""
    dump = tmp_path / "kb.nq"
    dump.write_bytes(_earlier_layout(converted["polgar-puzzles"]) + _earlier_layout(converted["club-bulletin"]))
    location = tmp_path / "oxigraph"
    subprocess.run(
        [oxigraph_binary(), "load", "--location", str(location), "--file", str(dump)], check=True, capture_output=True
    )
    with oxigraph_server(location) as base:
        store = RemoteStore(base + "/query", update_endpoint=base + "/update")
        _check(store, own, ["polgar-puzzles", "club-bulletin"])
        _import(store, "mate_in_2")
        _check(store, own, list(FILES))
        assert remove_source(store, "club-bulletin")
        _check(store, own, ["polgar-puzzles", "mate_in_2"])
        _import(store, "club-bulletin")
        _check(store, own, list(FILES))
