"""One ``Finding`` for every problem (import, validate, check), written out by the adapters of
``kb.findings`` in the shapes the CLI and HTTP have always printed."""

from __future__ import annotations

import json

import pytest

from chesskb.kb.checks.fen import fen_warnings, validate_fen
from chesskb.kb.checks.pgn_lint import lint_text as lint_pgn
from chesskb.kb.findings import (
    Finding,
    fen_json,
    fen_kind,
    fen_text,
    inconsistency_finding,
    inconsistency_from_json,
    inconsistency_json,
    inconsistency_text,
    lint_line,
    shacl_finding,
    shacl_from_json,
    shacl_json,
    shacl_text,
    unsatisfiable_finding,
    unsatisfiable_text,
)

BAD_FENS = [
    "",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq e9 01 0",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RCBQKBNR w KQkq - 0 1",
    "k7/8/8/8/8/8/8/7K\tw - - 0 1",
]


@pytest.mark.parametrize("fen", BAD_FENS)
def test_fen_problems_are_findings_in_the_public_shape(fen: str) -> None:
    errors = validate_fen(fen)
    assert errors and all(isinstance(error, Finding) and error.level == "error" for error in errors)
    for error in errors:
        assert list(fen_json(error)) == ["kind", "field", "message"]  # `validate --fen --format json`, key order too
        assert fen_json(error)["kind"] == fen_kind(error) in ("syntax", "semantic")
        assert fen_text(error) == f"{fen_kind(error)} error in {error.field}: {error.message}".replace("\t", "\\t")


def test_fen_warnings_are_warning_findings() -> None:
    warnings = fen_warnings("r3k2r/8/8/8/8/8/8/R3K2R w qkQK - 3 1")
    assert [(w.level, w.field) for w in warnings] == [("warning", "castling")]
    assert fen_text(warnings[0]).startswith("warning (castling): ")
    assert fen_json(warnings[0])["kind"] == "semantic"


def test_lint_findings_keep_their_json_and_line() -> None:
    findings = lint_pgn('[Event "x"]\n[White "a\x1b[2J"]\n\n1. e4 e5 2. Nf9 *\n', file="f.pgn")
    assert findings
    for finding in findings:
        data = finding.to_dict()
        assert set(data) <= {"level", "rule", "message", "file", "game", "line", "column"}  # README's shape
        assert json.loads(json.dumps(data)) == data
        assert lint_line(finding) == f"{finding.level}: {finding} [{finding.rule}]"
        assert "\x1b" not in lint_line(finding)


def test_shacl_violations_round_trip_through_the_cache_shape() -> None:
    hostile = shacl_finding("https://w3id.org/chesskb/id/player/x", 'Evil "name"\x07', "cp:name", "empty", "src")
    data = shacl_json(hostile)
    assert list(data) == ["source", "iri", "label", "path", "message"]
    assert shacl_from_json(json.loads(json.dumps(data))) == hostile
    assert list(shacl_json(shacl_finding("i", "", "cp:fen", "m"))) == ["iri", "label", "path", "message"]
    assert shacl_text(hostile) == '<https://w3id.org/chesskb/id/player/x> "Evil "name"\x07" cp:name: empty'


def test_inconsistencies_round_trip_through_the_cache_shape() -> None:
    details = {
        "individuals": [{"iri": "i", "label": "L"}],
        "statements": ["<i> rdf:type cp:Position"],
        "axioms": ["DisjointClasses(cp:Player cp:Position)"],
        "minimal": False,
        "reasoner_message": "",
    }
    finding = inconsistency_finding("src", details)
    data = inconsistency_json(finding)
    assert data == {"source": "src", **details} and next(iter(data)) == "source"
    assert inconsistency_from_json(json.loads(json.dumps(data))) == finding
    lines = inconsistency_text(finding, 2)
    assert lines[0] == "inconsistency 2 in src (not narrowed down fully):"
    assert lines[1:] == [
        '  individual <i>  "L"',
        "  statement  <i> rdf:type cp:Position",
        "  axiom      DisjointClasses(cp:Player cp:Position)",
    ]
    assert unsatisfiable_text(unsatisfiable_finding("urn:c")) == "unsatisfiable class <urn:c>"
