"""The importer and the validator against hostile input: nothing crashes, good games always land.

The corpus is built here, at test time (a 100 MB comment does not belong in git); every file mixes
good games with the bad thing, so each test checks both halves of the promise: the bad part is
reported with file and game, and every good game is imported.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chesskb.kb.checks.pgn_lint import lint_file
from chesskb.kb.store import open_store
from tests.conftest import run_cli

GOOD = '[Event "Good {n}"]\n[White "Anna {n}"]\n[Black "Boris {n}"]\n[Result "*"]\n\n1. {first} Nf6 *\n\n'
# Distinct games need distinct moves: the same moves from the same start are one game (issue 7).
FIRST_MOVES = [f"{file}{rank}" for rank in (3, 4) for file in "abcdefgh"]


def good_games(count: int, first: int = 0) -> str:
    return "".join(GOOD.format(n=n, first=FIRST_MOVES[n]) for n in range(first, first + count))


def _games_in_store(store: Path) -> int:
    rows = open_store(str(store)).query("SELECT (COUNT(DISTINCT ?m) AS ?n) WHERE { ?m a cp:Match }")
    return int(next(iter(rows))["n"].value)


def _import(path: Path, store: Path, *args: str):
    result = run_cli("import", *args, str(path), store=store)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


HOSTILE_GAMES = {
    # name: (bad game text, the rule reported for it or None when the game is imported)
    "nul-byte": ('[Event "nul"]\n\n1. e4 {a\x00b} e5 *\n\n', None),
    "illegal-move": ('[Event "illegal"]\n\n1. e4 e5 2. Ke3 *\n\n', "illegal-move"),
    "python-chess-crash": ('[Event "crash"]\n\n1. e4 (1. Nh6) (1. d4) e5 *\n\n', "pgn-unreadable"),
    "nested-variations": ('[Event "deep"]\n\n1. e4 ' + "(1. d4 " * 3000 + ")" * 3000 + " e5 *\n\n", None),
    "unclosed-comment": ('[Event "open"]\n\n1. e4 {never closed e5 *\n\n', "comment-unclosed"),
    "spanish-letters": ('[Event "es"]\n\n1. e4 e5 2. Cf3 Cc6 *\n\n', "foreign-piece-letter"),
    "bad-fen": ('[Event "fen"]\n[SetUp "1"]\n[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n\n*\n\n', "fen-invalid"),
    "script-tags": (
        '[Event "<script>alert(1)</script>"]\n[White "\\"quoted\\" <b>"]\n\n'
        "1. e4 {</script><script>alert(2)</script>} e5 *\n\n",
        None,
    ),
    "stray-brackets": ('[Event "brackets"]\n\n1. e4 ) } ] e5 *\n\n', None),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_GAMES))
def test_a_hostile_game_costs_only_itself(tmp_path: Path, name: str) -> None:
    bad, rule = HOSTILE_GAMES[name]
    path = tmp_path / f"{name}.pgn"
    path.write_text(good_games(2) + bad + good_games(2, 2), encoding="utf-8")
    store = tmp_path / "store"
    result = _import(path, store)
    assert result.exit_code == 0, result.output
    imported = _games_in_store(store)
    if rule is None:
        assert imported == 5
    else:
        assert imported == 4
        assert f"{name}.pgn: game 3" in result.output
    assert all(finding.level != "error" or finding.game == 3 for finding in lint_file(path))


def test_crlf_and_mixed_encodings_import_every_game(tmp_path: Path) -> None:
    path = tmp_path / "mixed.pgn"
    latin1 = '[Event "Café"]\n[White "Müller, Jörg"]\n[Black "Ñúñez"]\n\n1. e4 *\n\n'.encode("latin-1")
    path.write_bytes(good_games(2).replace("\n", "\r\n").encode() + latin1 + good_games(1, 2).encode())
    store = tmp_path / "store"
    assert _import(path, store).exit_code == 0
    assert _games_in_store(store) == 4
    names = {
        row["n"].value for row in open_store(str(store)).query("SELECT ?n WHERE { ?p a cp:Player ; rdfs:label ?n }")
    }
    assert "Müller, Jörg" in names or any("Müller" in name for name in names)
    assert list(lint_file(path)) == []


@pytest.mark.parametrize(
    ("content", "rule"),
    [
        (b"", None),
        (b'[Event "x"]\n[Site "y"]\n', None),
        (bytes(range(256)) * 40, "file-binary"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 4000, "file-binary"),
    ],
)
def test_files_without_games_are_reported_and_leave_the_store_unchanged(
    tmp_path: Path, content: bytes, rule: str | None
) -> None:
    store = tmp_path / "store"
    seed = tmp_path / "seed.pgn"
    seed.write_text(good_games(1), encoding="utf-8")
    assert _import(seed, store).exit_code == 0
    path = tmp_path / "hostile.pgn"
    path.write_bytes(content)
    result = _import(path, store)
    if rule is not None:
        assert result.exit_code != 0 and "not text" in result.output
        assert [finding.rule for finding in lint_file(path)] == [rule]
    assert _games_in_store(store) == 1 + (1 if content.startswith(b"[Event") else 0)


def test_a_100_mb_comment_drops_its_game_and_the_games_around_it_are_imported(tmp_path: Path) -> None:
    """Issue 35 (item 5): a line longer than ``MAX_LINE_BYTES`` is never held whole; its game is
    reported by number and line and left out (it used to be read whole and its comment cut)."""
    path = tmp_path / "big.pgn"
    with path.open("w", encoding="utf-8") as handle:
        handle.write(good_games(1))
        handle.write('[Event "big"]\n\n1. e4 {')
        chunk = "a very long lesson Nxe5 " * 40_000
        for _ in range(105):
            handle.write(chunk)
        handle.write("} e5 *\n\n")
        handle.write(good_games(1, 1))
    assert path.stat().st_size > 100_000_000
    store = tmp_path / "store"
    result = _import(path, store)
    first = good_games(1).count("\n") + 1  # the big game's first line; its comment is two lines on
    assert f"big.pgn: game 2 (line {first}): game dropped: line {first + 2} is longer than" in result.output, (
        result.output[-2000:]
    )
    assert "(MAX_LINE_BYTES)" in result.output
    assert _games_in_store(store) == 2
    long_literals = open_store(str(store)).query(
        "SELECT ?s WHERE { ?s ?p ?t FILTER(isLiteral(?t) && STRLEN(STR(?t)) > 20000) }"
    )
    assert list(long_literals) == []
    findings = list(lint_file(path))
    assert [(f.rule, f.line) for f in findings if f.level == "error"] == [("input-too-large", first + 2)]


def test_validate_json_of_a_hostile_file_is_valid_json(tmp_path: Path) -> None:
    path = tmp_path / "h.pgn"
    path.write_text("".join(bad for bad, _ in HOSTILE_GAMES.values()), encoding="utf-8")
    result = run_cli("validate", str(path), "--format", "json")
    assert result.exit_code == 1
    findings = json.loads(result.output)["findings"]
    assert {"illegal-move", "foreign-piece-letter", "fen-invalid", "brace-unmatched"} <= {f["rule"] for f in findings}
    assert all({"level", "rule", "message", "file"} <= set(f) for f in findings)
