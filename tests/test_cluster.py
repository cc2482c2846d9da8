"""``convert`` and ``import`` on a Dask cluster (``--cluster``): a real ``LocalCluster`` of two worker
processes bound to loopback, whose output must be what ``--jobs 2`` writes on this machine; and
``convert --parts``, where each unit's worker writes its own part file, locally or on the cluster."""

from __future__ import annotations

import gzip
import hashlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import DATA, ROOT, run_cli

distributed = pytest.importorskip("distributed", reason="the test extra installs dask[distributed]")

FILES = [
    ROOT / "tests" / "fixtures" / "round-robin.pgn",
    ROOT / "tests" / "fixtures" / "puzzles-30.csv",
    DATA / "pychess" / "mate_in_2.pgn",
]
IMPORTED_AT = "ChessPosition.owl#importedAt>"


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
    ) as cluster:
        yield cluster.scheduler_address


def statements(path: Path) -> list[bytes]:
    """The distinct statements of a file, or of the parts a folder's manifest lists, sorted: the
    conversion's time aside (it differs every run), and the ontology's blank nodes (new labels in
    every process) by their number."""
    lines: set[bytes] = set()
    for file in listed_parts(path) if path.is_dir() else [path]:
        with gzip.open(file) as handle:
            lines.update(line for line in handle if IMPORTED_AT.encode() not in line)
    return [*sorted(line for line in lines if b"_:" not in line), b"blank: %d" % sum(b"_:" in line for line in lines)]


def manifest(folder: Path) -> dict[str, str]:
    """The folder's ``manifest.sha256``, file name -> SHA-256, after checking each listed file has it."""
    listed = {}
    for line in (folder / "manifest.sha256").read_text(encoding="utf-8").splitlines():
        digest, name = line.split("  ", 1)
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
        listed[name] = digest
    return listed


def listed_parts(folder: Path) -> list[Path]:
    return [folder / name for name in manifest(folder)]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    """What ``convert --jobs 2`` writes as one file: every other way of converting must write the same."""
    output = tmp_path_factory.mktemp("reference") / "local.nq.gz"
    assert run_cli("convert", "--jobs", "2", *map(str, FILES), "-o", str(output)).exit_code == 0
    found = statements(output)
    assert len(found) > 5_000
    return found


def test_convert_on_a_cluster_writes_what_local_workers_write(
    scheduler: str, reference: list[bytes], tmp_path: Path
) -> None:
    remote = tmp_path / "cluster.nq.gz"
    result = run_cli("convert", "--cluster", scheduler, *map(str, FILES), "-o", str(remote))
    assert result.exit_code == 0, result.output
    expected = reference
    assert statements(remote) == expected
    # a second run on the same workers sends every statement again (the workers forget the first run)
    again = tmp_path / "again.nq.gz"
    assert run_cli("convert", "--cluster", scheduler, *map(str, FILES), "-o", str(again)).exit_code == 0
    assert statements(again) == expected


def test_import_on_a_cluster_stores_what_a_local_import_stores(scheduler: str, tmp_path: Path) -> None:
    local, remote = tmp_path / "local", tmp_path / "cluster"
    assert run_cli("import", "--jobs", "2", *map(str, FILES[:2]), store=local).exit_code == 0
    result = run_cli("import", "--cluster", scheduler, *map(str, FILES[:2]), store=remote)
    assert result.exit_code == 0, result.output
    for name in ("sources", "mate-in-one", "positions-by-side-and-goal", "event-standings"):
        assert (
            run_cli("query", "--name", name, "--format", "csv", store=remote).output
            == run_cli("query", "--name", name, "--format", "csv", store=local).output
        ), name


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.live_server import free_port

    monkeypatch.setattr("chesskb.kb.cluster.CONNECT_TIMEOUT", 2)

    result = run_cli(
        "convert", "--cluster", f"tcp://127.0.0.1:{free_port()}", str(FILES[0]), "-o", str(tmp_path / "out.nq.gz")
    )
    assert result.exit_code != 0 and "no Dask scheduler answers" in result.output
    assert not (tmp_path / "out.nq.gz").exists()


def test_parts_written_by_the_workers_hold_what_one_file_holds(
    scheduler: str, reference: list[bytes], tmp_path: Path
) -> None:
    """``--jobs 1`` as one file, ``--jobs 2 --parts`` and ``--cluster --parts``: the same statements. A part
    an earlier run left in the folder is not in the manifest, so a loader following it does not load it."""
    single = tmp_path / "one.nq.gz"
    assert run_cli("convert", "--jobs", "1", *map(str, FILES), "-o", str(single)).exit_code == 0
    assert statements(single) == reference
    local, remote = tmp_path / "local-parts", tmp_path / "cluster-parts"
    remote.mkdir()
    stale = remote / "round-robin.0000000001.0123456789abcdef0123.nq.gz"
    stale.write_bytes(gzip.compress(b"<urn:x:stale> <urn:x:p> <urn:x:o> .\n"))
    assert run_cli("convert", "--jobs", "2", "--parts", *map(str, FILES), "-o", str(local)).exit_code == 0
    result = run_cli("convert", "--cluster", scheduler, "--parts", *map(str, FILES), "-o", str(remote))
    assert result.exit_code == 0, result.output
    assert "manifest.sha256" in result.output
    assert statements(local) == reference and statements(remote) == reference
    # one part per unit that had games (4: 6 + 30 + 64 + 32 games), then the driver's
    assert len(manifest(remote)) == 5 and list(manifest(remote))[-1] == "driver.nq.gz"
    assert stale.name not in manifest(remote) and stale.exists()
    # the units' parts are named by their content: the local workers wrote the very same files
    units = {name: digest for name, digest in manifest(remote).items() if name != "driver.nq.gz"}
    assert units == {name: digest for name, digest in manifest(local).items() if name != "driver.nq.gz"}
    assert not [path.name for path in remote.iterdir() if path.name.endswith(".partial")]
    for folder in (local, remote):  # graphs.txt: the listed parts' graphs, under this manifest's digest
        assert listed_graphs(folder) == graphs_of(listed_parts(folder))


def listed_graphs(folder: Path) -> set[str]:
    """The graphs ``graphs.txt`` lists, after checking its first line names the folder's manifest."""
    header, *graphs = (folder / "graphs.txt").read_text(encoding="utf-8").splitlines()
    assert header == "# manifest sha256 " + hashlib.sha256((folder / "manifest.sha256").read_bytes()).hexdigest()
    return set(graphs)


def graphs_of(parts: list[Path]) -> set[str]:
    """The named graphs of the quads in ``parts``, read with pyoxigraph's N-Quads parser."""
    from pyoxigraph import NamedNode, RdfFormat, parse

    graphs = set()
    for part in parts:
        with gzip.open(part) as handle:
            graphs.update(
                q.graph_name.value
                for q in parse(handle, format=RdfFormat.N_QUADS)
                if isinstance(q.graph_name, NamedNode)
            )
    assert len(graphs) > 3  # the ontology's, the sources' and their inferred graphs, the links' and counts'
    return graphs


def test_a_graph_list_of_another_manifest_is_not_used(tmp_path: Path) -> None:
    """``graphs.txt`` is written just before the manifest: if a run stops between the two, or the
    manifest is edited, the list names another manifest and a loader reads the parts instead."""
    from chesskb.kb.store.nquads_parts import manifest_graphs

    folder = tmp_path / "parts"
    assert run_cli("convert", "--jobs", "1", "--parts", *map(str, FILES), "-o", str(folder)).exit_code == 0
    assert manifest_graphs(folder) == graphs_of(listed_parts(folder))
    listed = (folder / "graphs.txt").read_text(encoding="utf-8")
    (folder / "graphs.txt").write_text(listed + "not an iri\n", encoding="utf-8")  # edited by hand: said, not used
    with pytest.raises(ValueError, match=r"graphs.txt, line \d+: not a graph IRI"):
        manifest_graphs(folder)
    (folder / "graphs.txt").write_text(listed, encoding="utf-8")
    lines = (folder / "manifest.sha256").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "manifest.sha256").write_text("".join(lines[1:]), encoding="utf-8")
    assert manifest_graphs(folder) is None
    (folder / "graphs.txt").unlink()
    assert manifest_graphs(folder) is None


def test_a_task_run_twice_writes_the_same_part(
    scheduler: str, reference: list[bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dask runs a task again when a worker is lost after it finished; here every unit's task is sent
    twice (the copies race on the two workers, each with its own memory of the run), and the run is
    repeated into the same folder: the parts' names and bytes do not change, nor the statements."""
    from chesskb.kb import cluster, importer

    class EachTaskTwice(cluster.ClusterUnitProcessor):
        def submit(self, unit):  # type: ignore[no-untyped-def]
            self.copies = getattr(self, "copies", [])
            self.copies.append(super().submit(unit))
            return super().submit(unit)

        def run(self, units):  # type: ignore[no-untyped-def]
            yield from super().run(units)
            copies, self.copies = getattr(self, "copies", []), []
            assert copies and all(copy.result().part is not None for copy in copies)  # the copies wrote too

    folder = tmp_path / "parts"
    args = ("convert", "--cluster", scheduler, "--parts", *map(str, FILES), "-o", str(folder))
    assert run_cli(*args).exit_code == 0
    first = manifest(folder)
    monkeypatch.setattr(importer, "ClusterUnitProcessor", EachTaskTwice)
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    again = manifest(folder)  # each listed file has the digest listed
    assert {k: v for k, v in again.items() if k != "driver.nq.gz"} == {
        k: v for k, v in first.items() if k != "driver.nq.gz"
    }
    assert statements(folder) == reference
    assert result.output.count("converted 132 games") == 1  # the driver counted each unit once
    assert not [path.name for path in folder.iterdir() if path.name.endswith(".partial")]


def test_parts_need_a_folder_and_a_file_needs_a_file(tmp_path: Path) -> None:
    existing = tmp_path / "kb.nq.gz"
    existing.write_bytes(b"")
    result = run_cli("convert", "--parts", str(FILES[0]), "-o", str(existing))
    assert result.exit_code == 2 and "is not a folder" in result.output
    result = run_cli("convert", str(FILES[0]), "-o", str(tmp_path))
    assert result.exit_code == 2 and "is a folder" in result.output
    assert [path.name for path in tmp_path.iterdir()] == ["kb.nq.gz"]
    # nothing readable: no folder is left behind (nor a manifest in one that was there)
    bad = tmp_path / "bad.pgn"
    bad.write_bytes(b"\x00\x01\x02 not a pgn")
    result = run_cli("convert", "--jobs", "1", "--parts", str(bad), "-o", str(tmp_path / "parts"))
    assert result.exit_code == 1 and not (tmp_path / "parts").exists()
    result = run_cli("convert", "--jobs", "1", "--parts", str(bad), "-o", str(tmp_path))
    assert result.exit_code == 1 and sorted(path.name for path in tmp_path.iterdir()) == ["bad.pgn", "kb.nq.gz"]


def test_a_part_that_cannot_be_written_names_the_host_and_folder(tmp_path: Path) -> None:
    from chesskb.kb.store.nquads_parts import PartNotWritten, write_part

    missing = tmp_path / "not-shared"
    with pytest.raises(PartNotWritten, match=r"not-shared.*every worker shares"):
        write_part(missing, "a.nq.gz", b"data", ())
    assert write_part(tmp_path, "a.nq.gz", b"data", ()).sha256 == hashlib.sha256(b"data").hexdigest()
    assert (tmp_path / "a.nq.gz").read_bytes() == b"data"


def test_mining_many_shards_on_a_cluster_stores_what_local_mining_stores(scheduler: str, tmp_path: Path) -> None:
    """``import --mine`` over a source cut into shards (a file per game here), on the cluster's workers
    (each with its own stockfish) and with ``--jobs 2``: the same store, mined exercises included."""
    from chesskb.kb.analysis.engine import engine_path

    if engine_path() is None:
        pytest.skip("no stockfish (scripts/setup.sh installs it)")
    shards = tmp_path / "shards"
    shards.mkdir()
    games = [
        game
        for path in (DATA / "pgn-extract" / "test-checkmate.pgn", FILES[0])
        for game in re.split(r"(?m)^(?=\[Event )", path.read_text(encoding="utf-8"))
        if game.strip()
    ]
    for number, game in enumerate(games, 1):
        (shards / f"shard-{number:02d}.pgn").write_text(game, encoding="utf-8")
    files = sorted(map(str, shards.iterdir()))
    assert len(files) == 8
    local, remote = tmp_path / "local", tmp_path / "cluster"
    args = ("import", "--mine", "--source", "month", *files)
    assert run_cli(*args[:1], "--jobs", "2", *args[1:], store=local).exit_code == 0
    result = run_cli(*args[:1], "--cluster", scheduler, *args[1:], store=remote)
    assert result.exit_code == 0, result.output
    mined = "SELECT ?fen WHERE { ?p a cp:MateInOne ; cp:plyInGame ?ply ; cp:fen ?fen FILTER (?ply > 0) } ORDER BY ?fen"
    found = run_cli("query", mined, "--format", "tsv", store=remote).output
    assert "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2" in found  # fool's mate, mined
    assert found == run_cli("query", mined, "--format", "tsv", store=local).output
    for name in ("sources", "mate-in-one", "positions-by-side-and-goal", "event-standings"):
        assert (
            run_cli("query", "--name", name, "--format", "csv", store=remote).output
            == run_cli("query", "--name", name, "--format", "csv", store=local).output
        ), name
