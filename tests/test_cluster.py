"""``convert`` and ``import`` on a Dask cluster (``--cluster``): a real ``LocalCluster`` of two worker
processes bound to loopback, whose output must be what ``--jobs 2`` writes on this machine."""

from __future__ import annotations

import gzip
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
    """The file's distinct statements, sorted: the conversion's time aside (it differs every run), and
    the ontology's blank nodes (new labels in every process) by their number."""
    with gzip.open(path) as handle:
        lines = {line for line in handle if IMPORTED_AT.encode() not in line}
    return [*sorted(line for line in lines if b"_:" not in line), b"blank: %d" % sum(b"_:" in line for line in lines)]


def test_convert_on_a_cluster_writes_what_local_workers_write(scheduler: str, tmp_path: Path) -> None:
    local, remote = tmp_path / "local.nq.gz", tmp_path / "cluster.nq.gz"
    assert run_cli("convert", "--jobs", "2", *map(str, FILES), "-o", str(local)).exit_code == 0
    result = run_cli("convert", "--cluster", scheduler, *map(str, FILES), "-o", str(remote))
    assert result.exit_code == 0, result.output
    expected = statements(local)
    assert len(expected) > 5_000 and statements(remote) == expected
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
