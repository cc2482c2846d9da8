"""``chesskb convert`` + a server's own loader give the knowledge base an import gives.

The files are converted, loaded with ``oxigraph load`` into a new directory, served by ``oxigraph
serve`` and read over real HTTP; the same files are imported into the embedded store. Every quad of
every graph, the default graph (the merge) included, must be the same on both sides (the import time
in the meta graph aside, and blank-node labels, which each load draws anew).
"""

from __future__ import annotations

import gzip
import subprocess
from collections import Counter
from pathlib import Path

from pyoxigraph import BlankNode

from chesskb.kb.store import EmbeddedStore
from chesskb.kb.store.remote import RemoteStore
from tests.conftest import DATA, run_cli
from tests.live_server import oxigraph_binary, oxigraph_server

FILES = [DATA / "pychess" / "mate_in_2.pgn", DATA / "games" / "kasparov-deep-blue-1997.pgn",
         DATA / "lichess" / "puzzles.csv", DATA / "pgn-extract" / "odds.pgn"]
IMPORTED_AT = "http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#importedAt"
ALL_QUADS = """SELECT ?g ?s ?p ?o WHERE { { GRAPH ?g { ?s ?p ?o } } UNION { ?s ?p ?o } }"""


def dataset(store) -> Counter:
    """Every statement as (graph or '', s, p, o) text, blank nodes anonymised, import times left out."""
    def text(term) -> str:
        return "_:" if term is None or isinstance(term, BlankNode) else str(term)

    found: Counter = Counter()
    for row in store.query(ALL_QUADS):
        if row["p"].value != IMPORTED_AT:
            found[(str(row["g"]) if row["g"] is not None else "", text(row["s"]), str(row["p"]), text(row["o"]))] += 1
    return found


def test_convert_then_oxigraph_load_serves_what_an_import_stores(tmp_path: Path) -> None:
    output = tmp_path / "kb.nq.gz"
    result = run_cli("convert", "--jobs", "2", *map(str, FILES), "-o", str(output))
    assert result.exit_code == 0, result.output
    assert "converted" in result.output and output.is_file()
    with gzip.open(output, "rt", encoding="utf-8") as handle:
        assert handle.readline().rstrip().endswith(".")
    loaded = tmp_path / "oxigraph"
    subprocess.run([oxigraph_binary(), "load", "--location", str(loaded), "--file", str(output)],
                   check=True, capture_output=True)
    embedded = tmp_path / "embedded"
    assert run_cli("import", "--jobs", "2", *map(str, FILES), store=embedded).exit_code == 0

    with oxigraph_server(loaded, read_only=True) as base:
        remote = dataset(RemoteStore(base + "/query"))
        local = dataset(EmbeddedStore(embedded))
        assert sum(local.values()) > 20_000
        assert remote == local
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
