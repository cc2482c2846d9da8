"""``chesskb convert`` + a server's own loader give the knowledge base an import gives.

The files are converted, loaded with ``oxigraph load`` into a new directory, served by ``oxigraph
serve`` and read over real HTTP; the same files are imported into the embedded store. The default
graph (the merge) must be the same statement for statement on both sides, and so must what every
graph says about every subject, decoded by ``kb.store.layout`` (the file is in the earlier layout,
every statement in its graph too, and the embedded store may be in the compact one: both decode the
same). The import time in the meta graph aside, and blank-node labels, which each load draws anew.
"""

from __future__ import annotations

import gzip
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from pyoxigraph import BlankNode, DefaultGraph, Quad

from chesskb.kb.store import EmbeddedStore, layout
from chesskb.kb.store.remote import RemoteStore
from tests.conftest import DATA, run_cli
from tests.live_server import oxigraph_binary, oxigraph_server
from tests.shared_proofs import shared_proofs  # noqa: F401 (autouse: one verification cache)

FILES = [
    DATA / "pychess" / "mate_in_2.pgn",
    DATA / "games" / "kasparov-deep-blue-1997.pgn",
    DATA / "lichess" / "puzzles.csv",
    DATA / "pgn-extract" / "odds.pgn",
]
IMPORTED_AT = "http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#importedAt"
ALL_QUADS = """SELECT ?g ?s ?p ?o WHERE { { GRAPH ?g { ?s ?p ?o } } UNION { ?s ?p ?o } }"""


def _text(term) -> str:
    return "_:" if isinstance(term, BlankNode) else str(term)


def dataset(store) -> tuple[Counter, Counter]:
    """The merge as (s, p, o) text, and what each graph's owner says about each subject as (owner,
    s, p, o) text: blank nodes anonymised, import times left out."""
    merge: Counter = Counter()
    by_subject: dict[object, list[Quad]] = {}
    for row in store.query(ALL_QUADS):
        if row["p"].value == IMPORTED_AT:
            continue
        if row["g"] is None:
            merge[(_text(row["s"]), str(row["p"]), _text(row["o"]))] += 1
        by_subject.setdefault(row["s"], []).append(
            Quad(row["s"], row["p"], row["o"], row["g"] if row["g"] is not None else DefaultGraph())
        )
    said: Counter = Counter()
    for subject, quads in by_subject.items():
        if isinstance(subject, BlankNode):  # the ontology's lists: a bookkeeping graph's, stored in full
            said.update(
                (str(q.graph_name), "_:", str(q.predicate), _text(q.object))
                for q in quads
                if not isinstance(q.graph_name, DefaultGraph)
            )
            continue
        for owner, statements in layout.decode(quads).items():
            said.update(
                (str(owner), _text(t.subject), str(t.predicate), _text(t.object))
                for t in {q.triple for q in statements}
            )
    return merge, said


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Counter, Counter]:
    """What an import of ``FILES`` into the embedded store holds, by ``dataset``: imported once for the
    module, since both ways of converting are compared with the same import."""
    embedded = tmp_path_factory.mktemp("embedded") / "store"
    assert run_cli("import", "--jobs", "2", *map(str, FILES), store=embedded).exit_code == 0
    return dataset(EmbeddedStore(embedded))


@pytest.mark.slow  # converts, loads and imports the same files
@pytest.mark.parametrize("parts", [False, True], ids=["one-file", "parts"])
def test_convert_then_oxigraph_load_serves_what_an_import_stores(
    tmp_path: Path, parts: bool, imported: tuple[Counter, Counter]
) -> None:
    """One file, or (``--parts``) the parts the workers wrote and the driver's, as the manifest lists them."""
    output = tmp_path / ("parts" if parts else "kb.nq.gz")
    result = run_cli("convert", "--jobs", "2", *(["--parts"] if parts else []), *map(str, FILES), "-o", str(output))
    assert result.exit_code == 0, result.output
    assert "converted" in result.output and output.exists()
    files = (
        [output / line.split("  ", 1)[1] for line in (output / "manifest.sha256").read_text().splitlines()]
        if parts
        else [output]
    )
    assert len(files) > (4 if parts else 0)
    with gzip.open(files[0], "rt", encoding="utf-8") as handle:
        assert handle.readline().rstrip().endswith(".")
    loaded = tmp_path / "oxigraph"
    subprocess.run(
        [oxigraph_binary(), "load", "--location", str(loaded), "--file", *map(str, files)],
        check=True,
        capture_output=True,
    )
    with oxigraph_server(loaded, read_only=True) as base:
        remote = dataset(RemoteStore(base + "/query"))
        assert sum(imported[0].values()) > 10_000 and sum(imported[1].values()) > 10_000
        assert remote == imported
        # and chesskb answers from it as from the embedded store
        sources = run_cli("--store", base + "/query", "sources", "--format", "json")
        assert sources.exit_code == 0 and '"mate_in_2"' in sources.output


def test_nothing_readable_writes_no_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pgn"
    bad.write_bytes(b"\x00\x01\x02 not a pgn")
    output = tmp_path / "kb.nq.gz"
    result = run_cli("convert", "--jobs", "1", str(bad), "-o", str(output))
    assert result.exit_code == 1
    assert not output.exists() and not list(tmp_path.glob("kb.nq.gz*"))
