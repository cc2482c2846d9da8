"""Every command's error path ends in the exit code the CLI's one table gives (``service.cli``: 0 done,
1 the data said no, 2 the command could not do what was asked), run as a user runs it: a real
``python -m chesskb`` process, so ``main``'s mapping is what is tested, not click's test runner."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from chesskb.service.cli import cli
from chesskb.service.commands.base import EXIT_DATA, EXIT_OK, EXIT_USAGE

from .conftest import ROOT

GAME = """[Event "Exit codes"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0
"""


def chesskb(*args: str, store: Path | str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "chesskb"] + (["--store", str(store)] if store else []) + list(args)
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=cwd or ROOT)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("exits")
    paths = {
        "game": folder / "game.pgn",
        "binary": folder / "binary.pgn",
        "badname": folder / "_hidden.pgn",
        "badfen": folder / "badfen.pgn",
        "course": folder / "course.yaml",
        "store": folder / "store",
    }
    paths["game"].write_text(GAME, encoding="utf-8")
    paths["badname"].write_text(GAME, encoding="utf-8")
    paths["binary"].write_bytes(b"\x00\x01\x02 not a pgn \x00")
    paths["badfen"].write_text('[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n[SetUp "1"]\n\n*\n', encoding="utf-8")
    paths["course"].write_text("not: [a course\n", encoding="utf-8")
    done = chesskb("import", str(paths["game"]), store=paths["store"])
    assert done.returncode == EXIT_OK, done.stderr
    return paths


def _assert_exit(result: subprocess.CompletedProcess, code: int, *words: str) -> None:
    assert result.returncode == code, (result.returncode, result.stdout[-500:], result.stderr[-500:])
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr, (word, result.stderr[-500:])


def test_the_table_is_in_the_help() -> None:
    shown = chesskb("--help")
    _assert_exit(shown, EXIT_OK)
    assert "Exit codes: 0" in " ".join(shown.stdout.split())
    assert cli.epilog and "130 interrupted" in cli.epilog


@pytest.mark.parametrize(
    "args, code, words",
    [
        (["import", "{badname}"], EXIT_USAGE, ["invalid source name"]),  # ImportRefused
        (["import", "{game}", "--theme", "NoSuchTheme"], EXIT_USAGE, ["unknown theme class"]),
        (["import", "{missing}"], EXIT_USAGE, ["no such file"]),
        (["import", "{binary}"], EXIT_DATA, ["nothing imported"]),
        (["html", "{badname}", "-o", "{out}"], EXIT_USAGE, ["invalid source name"]),  # was 1: now as import
        (["html", "{binary}", "-o", "{out}"], EXIT_DATA, ["no readable game"]),
        (["convert", "{game}", "--theme", "NoSuchTheme", "-o", "{out}.nq"], EXIT_USAGE, ["unknown theme class"]),
        (["convert", "{binary}", "-o", "{out}.nq"], EXIT_DATA, ["nothing converted"]),
        (["query"], EXIT_USAGE, ["give exactly one of"]),
        (["query", "SELECT WHERE {{"], EXIT_USAGE, ["SPARQL syntax error"]),
        (["query", "--name", "no-such-query"], EXIT_USAGE, []),
        (["export", "--format", "ttl", "--source", "nope"], EXIT_DATA, ["no source named 'nope'"]),
        (["export", "--format", "nope"], EXIT_USAGE, []),
        (["remove-source", "nope"], EXIT_DATA, ["no source named 'nope'"]),
        (["validate"], EXIT_USAGE, ["give --fen FEN"]),
        (["validate", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"], EXIT_DATA, []),
        (["validate", "--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"], EXIT_OK, []),
        (["validate", "{badfen}"], EXIT_DATA, []),
        (["validate", "{game}"], EXIT_OK, []),
        (["classify", "{binary}", "--no-engine"], EXIT_DATA, ["nothing classified"]),
        (["course", "import", "{course}"], EXIT_USAGE, []),
        (["course", "export", "https://w3id.org/chesskb/id/course/nope"], EXIT_DATA, ["no course"]),
        (["find", "Zz9"], EXIT_USAGE, []),
        (["site", "-o", "{out}", "--source", "nope"], EXIT_DATA, ["no source named 'nope'"]),
        (["serve", "--port", "99999"], EXIT_USAGE, []),
        (["bench-queries", "--repeat", "0"], EXIT_USAGE, []),
        (["no-such-command"], EXIT_USAGE, []),
    ],
)
def test_error_paths_exit_with_the_table_s_code(
    files, tmp_path: Path, args: list[str], code: int, words: list[str]
) -> None:
    values = {name: str(path) for name, path in files.items()} | {
        "missing": str(tmp_path / "missing.pgn"),
        "out": str(tmp_path / "out"),
    }
    _assert_exit(chesskb(*[arg.format(**values) for arg in args], store=files["store"]), code, *words)


def test_check_of_an_unknown_source_decides_nothing(files) -> None:
    _assert_exit(
        chesskb("check", "--source", "nope", "--no-cache", store=files["store"]), EXIT_USAGE, "no source named 'nope'"
    )


def test_check_without_java_decides_nothing(files, tmp_path: Path) -> None:
    """No Java on PATH: exit 2 (1 would claim an inconsistency), the message without a usage line."""
    env_bin = tmp_path / "bin"
    env_bin.mkdir()
    argv = [sys.executable, "-m", "chesskb", "--store", str(files["store"]), "check", "--no-cache"]
    result = subprocess.run(
        argv, capture_output=True, text=True, timeout=300, cwd=ROOT, env={"PATH": str(env_bin), "HOME": str(tmp_path)}
    )
    _assert_exit(result, EXIT_USAGE, "Java")
    assert "Usage:" not in result.stderr


@pytest.mark.parametrize("command", [["stats"], ["sources"], ["merge-report"], ["query", "ASK {}"]])
def test_a_store_that_cannot_be_reached_is_exit_1(command: list[str]) -> None:
    """Port 9 (discard) on this machine: nothing listens, the connection is refused at once."""
    result = chesskb(*command, store="http://127.0.0.1:9/sparql")
    _assert_exit(result, EXIT_DATA, "error:")
