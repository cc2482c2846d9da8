"""The store's ``CURRENT`` pointer and its leftovers (issue 35, item 4).

Reproductions: with ``CURRENT`` pointing to ``./gen-000042`` or ``gen-000042/`` (a hand restore with
tab completion), reads worked but the next import deleted every generation and failed; a planted
``.partial`` or next generation made every import end in "internal error: RuntimeError". Each runs
the real ``chesskb`` command in a child process, so what a user sees (exit code, stderr) is tested.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chesskb.kb.store.base import StoreError
from chesskb.kb.store.embedded import CURRENT, EmbeddedStore
from chesskb.kb.store.generations import live_generation
from tests.conftest import DATA, ROOT, run_cli

GAMES = DATA / "games" / "kasparov-deep-blue-1997.pgn"


def _chesskb(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chesskb", "--store", str(store), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _games(store: Path) -> int:
    rows = EmbeddedStore(store).query("SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { ?g a cp:Match }")
    return int(next(iter(rows))["n"].value)


def _generations(store: Path) -> list[str]:
    return sorted(entry.name for entry in store.iterdir() if entry.name.startswith("gen-"))


@pytest.fixture(scope="module")
def two_generations(tmp_path_factory) -> Path:
    """A store written twice: ``gen-000002`` live, ``gen-000001`` the one it replaced."""
    store = tmp_path_factory.mktemp("pointer") / "store"
    for _ in range(2):  # --force: the same file again is otherwise left alone
        assert run_cli("import", "--force", "--jobs", "1", str(GAMES), store=store).exit_code == 0
    assert os.readlink(store / CURRENT) == "gen-000002" and _generations(store) == ["gen-000001", "gen-000002"]
    return store


def _copy(store: Path, to: Path) -> Path:
    shutil.copytree(store, to, symlinks=True)
    return to


def _spellings(store: Path) -> list[str]:
    return [
        "./gen-000002",
        "gen-000002/",
        "./gen-000002/",
        str(store / "gen-000002"),
        str(store / "gen-000002") + "/",
        f"../{store.name}/gen-000002",
        ".//gen-000002",
    ]


@pytest.mark.parametrize("index", range(7))
def test_every_spelling_of_the_live_generation_is_that_generation(
    two_generations: Path, tmp_path: Path, index: int
) -> None:
    store = _copy(two_generations, tmp_path / "s")
    spelling = _spellings(store)[index]
    (store / CURRENT).unlink()
    os.symlink(spelling, store / CURRENT)
    assert live_generation(store) == "gen-000002"
    assert _games(store) == 6
    result = _chesskb(store, "import", "--force", "--jobs", "1", str(GAMES))
    assert result.returncode == 0, result.stderr
    # the new generation, and the one it replaced (the hand-written one): nothing lost, nothing reported
    assert _generations(store) == ["gen-000002", "gen-000003"] and os.readlink(store / CURRENT) == "gen-000003"
    assert "warning" not in result.stderr and _games(store) == 6


def test_garbage_collection_keeps_the_live_generation_and_the_one_before(two_generations: Path, tmp_path: Path) -> None:
    store = _copy(two_generations, tmp_path / "s")
    for expected in (["gen-000002", "gen-000003"], ["gen-000003", "gen-000004"]):
        assert run_cli("import", "--force", "--jobs", "1", str(GAMES), store=store).exit_code == 0
        assert _generations(store) == expected
        # the one before still opens: a reader still querying it, or a way back
        assert _games_in(store / expected[0]) == 6


def _games_in(generation: Path) -> int:
    from pyoxigraph import Store

    from chesskb.kb.vocab import CP_IRI

    rows = Store.read_only(str(generation)).query(f"SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE {{ ?g a <{CP_IRI}Match> }}")
    return int(next(iter(rows))["n"].value)


@pytest.mark.parametrize("planted", ["partial file", "partial folder", "next generation", "far generation"])
def test_stray_entries_never_make_an_import_fail(two_generations: Path, tmp_path: Path, planted: str) -> None:
    store = _copy(two_generations, tmp_path / "s")
    if planted == "partial file":
        (store / "gen-000003.partial").write_text("planted")
    elif planted == "partial folder":
        (store / "gen-000003.partial").mkdir()
        (store / "gen-000003.partial" / "OPTIONS-1").write_text("planted")
    else:
        name = "gen-000003" if planted == "next generation" else "gen-000099"
        (store / name).mkdir()
        (store / name / "keep-me").write_text("someone's")
    (store / "notes.txt").write_text("not ours")
    for _ in range(2):
        result = _chesskb(store, "import", "--force", "--jobs", "1", str(GAMES))
        assert result.returncode == 0, result.stderr
        assert "internal error" not in result.stderr and _games(store) == 6
    assert (store / "notes.txt").read_text() == "not ours"
    assert not any(name.endswith(".partial") for name in os.listdir(store))
    if planted.endswith("generation"):
        name = "gen-000003" if planted == "next generation" else "gen-000099"
        assert (store / name / "keep-me").read_text() == "someone's"  # not ours to delete: reported by name
        assert f"{store / name} is not the live generation" in result.stderr
        assert int(os.readlink(store / CURRENT).split("-")[1]) > int(name.split("-")[1])


def test_a_pointer_outside_the_store_is_refused_and_nothing_is_removed(two_generations: Path, tmp_path: Path) -> None:
    store = _copy(two_generations, tmp_path / "s")
    elsewhere = _copy(two_generations, tmp_path / "other")
    for target in (str(elsewhere / "gen-000002"), "../other/gen-000002", "gen-000002/db", "somewhere"):
        (store / CURRENT).unlink()
        os.symlink(target, store / CURRENT)
        with pytest.raises(StoreError, match="not a generation of this store"):
            live_generation(store)
        result = _chesskb(store, "import", "--force", "--jobs", "1", str(GAMES))
        assert result.returncode != 0 and "not a generation of this store" in result.stderr
        assert "internal error" not in result.stderr
        assert _generations(store) == ["gen-000001", "gen-000002"] and _generations(elsewhere) == _generations(store)


def test_a_store_that_lost_its_pointer_keeps_its_generations(two_generations: Path, tmp_path: Path) -> None:
    store = _copy(two_generations, tmp_path / "s")
    (store / CURRENT).unlink()
    result = _chesskb(store, "import", "--force", "--jobs", "1", str(GAMES))
    assert result.returncode == 0, result.stderr
    assert _generations(store) == ["gen-000001", "gen-000002", "gen-000003"]
    assert os.readlink(store / CURRENT) == "gen-000003"
    assert f"{store / 'gen-000002'} is not the live generation" in result.stderr
