"""A damaged store, planted symlinks at output paths, and terminal escapes in data (issue 18.6).

* A few flipped bytes in a RocksDB table file made ``chesskb stats`` allocate 23 GB: Oxigraph reads
  the files without verifying their checksums. Every generation now carries a manifest checked at
  open; the damaged store is refused with a clear error, fast, under a memory bound (``prlimit``
  style: ``RLIMIT_AS`` on the child process).
* ``export -o OUT`` wrote through a symlink planted at ``OUT.partial``; ``site -o DIR`` through one
  planted at any page's path.
* An escape sequence in a player's name reached ``chesskb query``'s table as is.
"""

from __future__ import annotations

import os
import random
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chesskb.kb.store.manifest import MANIFEST, TRUST_UNLISTED, VERIFIED
from tests.conftest import DATA, ROOT, run_cli
from tests.test_hostile_input import good_games

#: The address space a damaged store's command gets (1.5 GB: the store in these tests is 1 MB).
MEMORY_BOUND = 1_500_000_000


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("damage") / "store"
    assert (
        run_cli("import", "--jobs", "1", str(DATA / "games" / "kasparov-deep-blue-1997.pgn"), store=store).exit_code
        == 0
    )
    return store


def _copy(pristine: Path, to: Path) -> Path:
    shutil.copytree(pristine, to, symlinks=True)
    return to / os.readlink(to / "CURRENT")


def _bounded(*args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BOUND, MEMORY_BOUND))

    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "chesskb", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=120,
    )
    return result, time.monotonic() - started


def _tables(generation: Path) -> list[Path]:
    return sorted(generation.glob("*.sst"), key=lambda p: p.stat().st_size, reverse=True)


def test_every_generation_has_a_manifest_of_its_files(pristine: Path) -> None:
    generation = pristine / os.readlink(pristine / "CURRENT")
    import json

    listed = json.loads((generation / MANIFEST).read_text())["files"]
    assert {p.name for p in _tables(generation)} <= set(listed)
    assert all(listed[p.name]["size"] == p.stat().st_size for p in _tables(generation))


@pytest.mark.slow  # damaged copies, three commands in child processes on each
@pytest.mark.parametrize("damage", ["flipped bytes", "truncated", "missing", "garbage run"])
def test_a_damaged_store_is_refused_fast_with_a_clear_error(pristine: Path, tmp_path: Path, damage: str) -> None:
    rng = random.Random(damage)
    for table in range(2):  # the two largest table files, one at a time
        generation = _copy(pristine, tmp_path / f"s{table}")
        victim = _tables(generation)[table]
        data = bytearray(victim.read_bytes())
        if damage == "flipped bytes":
            for _ in range(8):
                data[rng.randrange(len(data))] ^= 1 + rng.randrange(255)
        elif damage == "garbage run":
            start = rng.randrange(len(data) - 8)
            data[start : start + 8] = b"\xff" * 8
        elif damage == "truncated":
            data = data[: rng.randrange(len(data))]
        if damage == "missing":
            victim.unlink()
        else:
            victim.write_bytes(bytes(data))
        for command in (["stats"], ["query", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"]):
            result, seconds = _bounded("--store", str(tmp_path / f"s{table}"), *command)
            assert result.returncode == 1, (command, result.returncode, result.stderr[-500:])
            assert "the store is damaged" in result.stderr and victim.name in result.stderr, result.stderr
            assert "Traceback" not in result.stderr and seconds < 30
        # a write does not carry the damage into a new generation either
        result, _ = _bounded("--store", str(tmp_path / f"s{table}"), "import", str(DATA / "pychess" / "mate_in_2.pgn"))
        assert result.returncode == 1 and "the store is damaged" in result.stderr, result.stderr[-500:]
        assert os.readlink(tmp_path / f"s{table}" / "CURRENT") == generation.name


@pytest.mark.parametrize("damage", ["flipped bytes", "garbage run"])
def test_damage_with_the_modification_time_put_back_is_caught(pristine: Path, tmp_path: Path, damage: str) -> None:
    """Issue 35 (item 5): size and mtime are no proof; the file was read by RocksDB and ``stats``
    ended in ``std::bad_alloc``. The store is opened once first, so its files are proven (the
    ``CHESSKB-VERIFIED`` record) before the damage: the record must not hide it."""
    rng = random.Random(damage)
    store = tmp_path / "s"
    generation = _copy(pristine, store)
    assert _bounded("--store", str(store), "stats")[0].returncode == 0
    assert (store / VERIFIED).exists()
    for victim in _tables(generation)[:3]:  # one at a time, each put back after
        before = victim.stat()
        original = victim.read_bytes()
        data = bytearray(original)
        if damage == "flipped bytes":
            for _ in range(8):
                data[rng.randrange(len(data))] ^= 1 + rng.randrange(255)
        else:
            start = rng.randrange(len(data) - 64)
            data[start : start + 64] = b"\xff" * 64
        victim.write_bytes(bytes(data))
        os.utime(victim, ns=(before.st_atime_ns, before.st_mtime_ns))  # the time put back
        assert victim.stat().st_mtime_ns == before.st_mtime_ns and victim.stat().st_size == before.st_size
        result, seconds = _bounded("--store", str(store), "stats")
        assert result.returncode == 1, result.stderr[-500:]
        assert "the store is damaged" in result.stderr and victim.name in result.stderr, result.stderr
        assert "bad_alloc" not in result.stderr and seconds < 30
        victim.write_bytes(original)
        os.utime(victim, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert _bounded("--store", str(store), "stats")[0].returncode == 0  # restored: read again, and right


def test_an_unchanged_store_is_proven_without_reading_it_again(pristine: Path, tmp_path: Path) -> None:
    """After one opening every listed file has a proof matching its ``stat``; a second opening
    keeps the record as it is (nothing read, nothing rewritten)."""
    import json

    store = tmp_path / "s"
    generation = _copy(pristine, store)
    assert _bounded("--store", str(store), "stats")[0].returncode == 0
    record = json.loads((store / VERIFIED).read_text())
    listed = json.loads((generation / MANIFEST).read_text())["files"]
    assert record["generation"] == generation.name and set(record["files"]) == set(listed)
    for name, proof in record["files"].items():
        stat = (generation / name).stat()
        assert proof == [stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]
    written = (store / VERIFIED).stat().st_mtime_ns
    assert _bounded("--store", str(store), "stats")[0].returncode == 0
    assert (store / VERIFIED).stat().st_mtime_ns == written


def test_a_write_records_proofs_of_the_files_it_read(tmp_path: Path) -> None:
    """The files a write listed by reading them are proven for its generation at once; the ones it
    linked from the generation before are left for the first opening to read (linking moved their ctime)."""
    import json

    store = tmp_path / "s"
    for path in (DATA / "games" / "kasparov-deep-blue-1997.pgn", DATA / "pychess" / "mate_in_2.pgn"):
        assert run_cli("import", "--jobs", "1", str(path), store=store).exit_code == 0
        generation = store / os.readlink(store / "CURRENT")
        record = json.loads((store / VERIFIED).read_text())
        assert record["generation"] == generation.name and record["files"]
        for name, proof in record["files"].items():
            stat = (generation / name).stat()
            assert proof == [stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns], name
        linked = {p.name for p in generation.iterdir() if p.is_file() and p.stat().st_nlink > 1}
        assert not linked & set(record["files"])


def test_a_generation_without_a_manifest_is_refused_unless_trusted(pristine: Path, tmp_path: Path) -> None:
    store = tmp_path / "s"
    generation = _copy(pristine, store)
    (generation / MANIFEST).unlink()
    result, _ = _bounded("--store", str(store), "stats")
    assert result.returncode == 1 and "has no manifest" in result.stderr and TRUST_UNLISTED in result.stderr
    assert not (generation / MANIFEST).exists()
    env = {**os.environ, TRUST_UNLISTED: "1"}
    trusted = subprocess.run(
        [sys.executable, "-m", "chesskb", "--store", str(store), "stats"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert trusted.returncode == 0, trusted.stderr
    assert (generation / MANIFEST).exists()  # listed as it is: checked from now on, the setting no longer needed
    assert _bounded("--store", str(store), "stats")[0].returncode == 0


def test_an_undamaged_copy_opens(pristine: Path, tmp_path: Path) -> None:
    """Copying a store (new modification times) costs one checksum pass, not an error."""
    shutil.copytree(pristine, tmp_path / "copy", symlinks=True, copy_function=shutil.copy)
    result, _ = _bounded("--store", str(tmp_path / "copy"), "stats")
    assert result.returncode == 0, result.stderr


def test_export_does_not_write_through_a_planted_symlink(pristine: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "kb.ttl"
    for fmt in ("ttl", "pgn"):
        (tmp_path / "kb.ttl.partial").unlink(missing_ok=True)
        os.symlink(victim, tmp_path / "kb.ttl.partial")
        result = run_cli("export", "--format", fmt, "-o", str(out), store=pristine)
        assert result.exit_code == 0, result.output
        assert victim.read_text() == "precious" and out.stat().st_size > 100 and not out.is_symlink()
    os.unlink(out)
    os.symlink(victim, out)  # a link at the output itself is replaced, not written through
    assert run_cli("export", "--format", "nt", "-o", str(out), store=pristine).exit_code == 0
    assert victim.read_text() == "precious" and not out.is_symlink()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".kb.ttl.")]  # no temporary left


@pytest.mark.slow  # builds the static site of a store with planted links
def test_site_does_not_write_through_planted_symlinks(tmp_path: Path) -> None:
    # the site of one short game: the links are planted where every site writes (its index, its OWL file,
    # its resource folder), so the store's size changes nothing checked and six long games cost 2x the CPU
    pgn = tmp_path / "one.pgn"
    pgn.write_text(good_games(1), encoding="utf-8")
    store = tmp_path / "store"
    assert run_cli("import", "--jobs", "1", str(pgn), store=store).exit_code == 0
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "site"
    out.mkdir()
    for name in ("index.html", "chesskb.owl", "index.html.partial"):
        os.symlink(victim, out / name)
    result = run_cli("site", "-o", str(out), store=store)
    assert result.exit_code == 0, result.output
    assert victim.read_text() == "precious" and not (out / "index.html").is_symlink()
    shutil.rmtree(out)
    out.mkdir()
    os.symlink(elsewhere, out / "resource")  # a planted folder: pages would land outside the site
    result = run_cli("site", "-o", str(out), store=store)
    assert result.exit_code != 0 and "link out of" in result.output
    assert list(elsewhere.iterdir()) == []


ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b[31m\u202e"


def test_terminal_escapes_in_data_are_shown_escaped(tmp_path: Path) -> None:
    pgn = tmp_path / "evil.pgn"
    pgn.write_text(
        good_games(12) + f'[Event "Evil{ESCAPES}"]\n[White "Mallory{ESCAPES}"]\n[Black "B"]\n[Result "*"]\n\n'
        f"1. e4 {{lesson{ESCAPES}}} e5 *\n\n"
        f'[Event "Bad"]\n[White "W"]\n[Black "B"]\n[Result "*"]\n\n1. e4 e5 2. Ke3{ESCAPES} *\n\n'
        f'[Event "Bad FEN"]\n[SetUp "1"]\n[FEN "8/8/8{ESCAPES} w - - 0 1"]\n[Result "*"]\n\n*\n\n',
        encoding="utf-8",
    )
    store = tmp_path / "store"
    imported = subprocess.run(
        [sys.executable, "-m", "chesskb", "--store", str(store), "import", str(pgn)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert imported.returncode == 0, imported.stderr
    assert "\x1b" not in imported.stdout + imported.stderr and "\u202e" not in imported.stderr
    assert "8/8/8\\x1b]0;owned\\x07" in imported.stderr  # the error line quotes the FEN, escaped
    table = run_cli("query", "SELECT ?name WHERE { ?p cp:name ?name FILTER(STRSTARTS(?name, 'Mallory')) }", store=store)
    assert table.exit_code == 0
    assert "\x1b" not in table.output and "\x07" not in table.output and "\u202e" not in table.output
    assert "Mallory\\x1b]0;owned\\x07\\x1b[2J\\x1b[31m\\u202e" in table.output
    # the machine formats carry the data itself
    tsv = run_cli(
        "query",
        "--format",
        "json",
        "SELECT ?name WHERE { ?p cp:name ?name FILTER(STRSTARTS(?name, 'Mallory')) }",
        store=store,
    )
    assert "Mallory\\u001B]0;owned" in tsv.output or "Mallory\\u001b]0;owned" in tsv.output


def test_the_web_service_refuses_a_damaged_store_with_503(pristine: Path, tmp_path: Path) -> None:
    """Pages answer a clear 503 naming the damage, never a 500 "internal error"."""
    from chesskb.service.app import create_app

    generation = _copy(pristine, tmp_path / "s")
    victim = _tables(generation)[0]
    victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 2])
    for workers in (0, 1):  # in the request's process, and in the executor's worker processes
        _assert_refused(
            create_app({"STORE": str(tmp_path / "s"), "QUERY_WORKERS": workers, "PAGE_WORKERS": workers}).test_client()
        )


def _assert_refused(client) -> None:
    for url in ("/", "/classes.json", "/queries/mate-in-one.json", "/sparql?query=ASK%7B%7D"):
        answer = client.get(url)
        assert answer.status_code == 503, (url, answer.status_code, answer.get_data(as_text=True)[:300])
        assert "damaged" in answer.get_data(as_text=True)


def test_convert_does_not_write_through_a_planted_symlink(tmp_path: Path) -> None:
    import gzip

    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "kb.nq.gz"
    os.symlink(victim, tmp_path / "kb.nq.gz.partial")  # where convert used to write its temporary file
    source = DATA / "games" / "kasparov-deep-blue-1997.pgn"
    result = run_cli("convert", "--jobs", "1", str(source), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert victim.read_text() == "precious" and not out.is_symlink()
    with gzip.open(out, "rt", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    assert lines and all(line.endswith(" .") for line in lines)  # whole N-Quads, gzip trailer included
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".kb.nq.gz.")]  # no temporary left
