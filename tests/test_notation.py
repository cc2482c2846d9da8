"""Foreign piece letters: ``import --lang`` reads them right, and without it nothing is misread.

Fixtures (tests/fixtures/notation/): the FIDE Laws' appendix example game written by hand in English,
Spanish, French and German letters, and the Spanish text exactly as seed 000 quotes it (with its typo
``5.Dxd5`` and ``a.p.`` for en passant).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chesskb.kb.reading.notation import english_san_to, san_to_english, to_english_movetext
from chesskb.kb.store import open_store
from tests.conftest import run_cli

NOTATION = Path(__file__).parent / "fixtures" / "notation"


def _games(store: Path) -> list[tuple[str, str]]:
    rows = open_store(str(store)).query("SELECT ?m ?moves WHERE { ?p cp:hasMatch ?m ; cp:move ?moves }")
    return sorted((row["m"].value, row["moves"].value) for row in rows)


@pytest.mark.parametrize("lang", ["es", "fr", "de", "it"])
def test_import_lang_reads_the_same_game_as_english(tmp_path: Path, lang: str) -> None:
    english_store, foreign_store = tmp_path / "en", tmp_path / lang
    assert run_cli("import", str(NOTATION / "fide-laws-en.pgn"), store=english_store).exit_code == 0
    file = NOTATION / f"fide-laws-{'es' if lang == 'it' else lang}.pgn"  # Italian letters are Spanish's
    result = run_cli("import", "--lang", lang, str(file), store=foreign_store)
    assert result.exit_code == 0, result.output
    english, foreign = _games(english_store), _games(foreign_store)
    assert len(english) == 1 and [iri for iri, _ in foreign] == [iri for iri, _ in english]
    assert "Nf3" in foreign[0][1] and "Kb1" in foreign[0][1] and "Cf3" not in foreign[0][1]


def test_without_lang_foreign_letters_are_refused_not_misread(tmp_path: Path) -> None:
    result = run_cli("import", str(NOTATION / "fide-laws-es.pgn"), store=tmp_path / "s")
    assert result.exit_code != 0
    assert "fide-laws-es.pgn: game 1 (line 1): 'Cf3'" in result.output and "--lang" in result.output


def test_the_seeds_spanish_game_shows_its_real_typo(tmp_path: Path) -> None:
    result = run_cli("validate", "--lang", "es", str(NOTATION / "fide-laws-seed-es.pgn"), "--format", "json")
    assert result.exit_code == 1
    import json

    errors = [f for f in json.loads(result.output)["findings"] if f["level"] == "error"]
    assert [(f["rule"], f["line"], f["column"]) for f in errors] == [("illegal-move", 9, 40)]
    assert "'Dxd5'" in errors[0]["message"]


@pytest.mark.parametrize(
    ("lang", "foreign", "english"),
    [
        ("es", "Rb1", "Kb1"),
        ("es", "Txe8+", "Rxe8+"),
        ("es", "e8=D#", "e8=Q#"),
        ("it", "Axf7", "Bxf7"),
        ("fr", "Fg5", "Bg5"),
        ("fr", "Rg1", "Kg1"),
        ("de", "Sbd2", "Nbd2"),
        ("de", "Kb1", "Kb1"),
        ("nl", "Pc3", "Nc3"),
        ("pl", "Hd8", "Qd8"),
        ("es", "O-O-O", "O-O-O"),
    ],
)
def test_san_translation_both_ways(lang: str, foreign: str, english: str) -> None:
    assert san_to_english(lang, foreign) == english
    assert english_san_to(lang, english) == foreign


def test_comments_are_not_translated() -> None:
    text = "1. e4 {Cf3 would be Spanish} e5 2. Cf3 ; Dd1 in a line comment\n"
    assert to_english_movetext(text, "es") == "1. e4 {Cf3 would be Spanish} e5 2. Nf3 ; Dd1 in a line comment\n"


def test_unknown_language_is_a_clear_error(tmp_path: Path) -> None:
    result = run_cli("validate", "--lang", "xx", str(NOTATION / "fide-laws-es.pgn"))
    assert result.exit_code == 2 and "xx" in result.output
