"""Mate claims no proof made true (issue 32): listed by ``merge-report``, shown only as the source's claim.

The store is built by the real importer from tests/fixtures/claims/open-claims.pgn (see its README). The
expected claims are read here from the file's own ``Termination`` tags and decided here: a refuted claim
by the brute force of ``tests.test_exercises`` (no mate within the count against every defence), a proven
one the same way. The mate in 14 is beyond any brute force: it is undecided because the proof's node
budget runs out, and the test asserts only what that allows (kept as a claim, never asserted, never false).
"""

from __future__ import annotations

import json
from pathlib import Path

import chess
import chess.pgn
import pytest

from tests.conftest import run_cli, web_app
from tests.test_exercises import mates_within

CLAIMS = Path(__file__).parent / "fixtures" / "claims" / "open-claims.pgn"
BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
#: The class a claimed length names (the ontology's: beyond five, OtherMate).
CLASS_OF = {1: "MateInOne", 2: "MateInTwo", 3: "MateInThree", 4: "MateInFour", 5: "MateInFive"}
REPORT_KEYS = {"games", "near_misses", "players", "events", "links", "claims"}


def claims_in_file() -> list[dict]:
    """Each game's claim as the file states it, with the verdict a brute force allows (None: beyond it)."""
    found = []
    with open(CLAIMS, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            moves = int(game.headers["Termination"].split()[-1])
            board = game.board()
            verdict = None
            if moves <= 3:
                verdict = "proven" if mates_within(board.copy(), moves) else "refuted"
            found.append(
                {
                    "fen": board.fen(),
                    "event": game.headers["Event"],
                    "moves": moves,
                    "claim": CLASS_OF.get(moves, "OtherMate"),
                    "verdict": verdict,
                }
            )
    return found


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """Imported without the engine (it only proposes moves: the verdicts are the same, tests/test_proofs.py,
    and the undecided proof costs 7 s instead of a minute of proposals)."""
    path = tmp_path_factory.mktemp("claims") / "store"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CHESSKB_ENGINE", "none")
        result = run_cli("import", "--jobs", "1", "--source", "drills", str(CLAIMS), store=path)
    assert result.exit_code == 0, result.output
    assert "undecided" in result.output + (result.stderr or "")
    return path


@pytest.fixture(scope="module")
def position_of(store) -> dict[str, str]:
    """The position IRI of each FEN in the file."""
    from chesskb.kb.store import open_store

    rows = open_store(str(store)).query("SELECT ?p ?fen WHERE { ?p a cp:Exercise ; cp:fen ?fen }")
    return {row["fen"].value: row["p"].value for row in rows}


@pytest.fixture(scope="module")
def client(store):
    return web_app(store).test_client()


def _by(claims: list[dict], verdict: str | None) -> list[dict]:
    return [claim for claim in claims_in_file() if claim["verdict"] == verdict]


def test_the_file_holds_one_claim_of_each_kind():
    """The expectations below need an undecided, a refuted and a proven claim (else they prove nothing)."""
    assert [claim["verdict"] for claim in claims_in_file()] == [None, "refuted", "proven"]


def test_merge_report_lists_the_undecided_and_refuted_claims(store, position_of):
    result = run_cli("merge-report", "--format", "json", store=store)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert set(report) == REPORT_KEYS  # every earlier key kept
    rows = [{key: row[key] for key in ("source", "position", "claim", "moves", "status")} for row in report["claims"]]
    expected = [
        {
            "source": "drills",
            "position": position_of[claim["fen"]],
            "claim": claim["claim"],
            "moves": claim["moves"],
            "status": claim["verdict"] or "undecided",
        }
        for claim in claims_in_file()
        if claim["verdict"] != "proven"
    ]
    assert sorted(rows, key=str) == sorted(expected, key=str)
    labels = {row["position"]: row["label"] for row in report["claims"]}
    for claim in claims_in_file():
        if claim["verdict"] != "proven":
            assert claim["event"] in labels[position_of[claim["fen"]]]


def test_merge_report_text_names_each_open_claim(store, position_of):
    text = run_cli("merge-report", store=store).output
    assert "Mate claims refuted or undecided: 2" in text
    (undecided,) = _by(claims_in_file(), None)
    (refuted,) = _by(claims_in_file(), "refuted")
    assert "undecided: OtherMate in 14 — " in text and f"<{position_of[undecided['fen']]}>" in text
    assert "refuted: MateInThree in 3 — " in text and f"<{position_of[refuted['fen']]}>" in text


def test_a_report_without_open_claims_says_so(tmp_path):
    path = tmp_path / "store"
    proven = tmp_path / "proven.pgn"
    with open(CLAIMS, encoding="utf-8") as handle:
        games = [game for game in iter(lambda: chess.pgn.read_game(handle), None)]
    proven.write_text(str(games[-1]) + "\n", encoding="utf-8")  # the mate in one alone
    assert run_cli("import", "--jobs", "1", str(proven), store=path).exit_code == 0
    report = json.loads(run_cli("merge-report", "--format", "json", store=path).output)
    assert report["claims"] == []


def test_the_position_page_shows_each_claim_as_the_sources_with_its_verdict(client, position_of):
    for claim in claims_in_file():
        iri = position_of[claim["fen"]]
        data = client.get("/page.json", query_string={"iri": iri}).get_json()
        shown = [(c["claim"], c["moves"], c["status"]) for c in data["claims"]]
        assert shown == [(claim["claim"], claim["moves"], claim["verdict"] or "undecided")]
        names = {c["name"] for c in data["classes"]}
        assert (claim["claim"] in names) == (claim["verdict"] == "proven")  # only a proof makes it a member
        body = client.get("/page", query_string={"iri": iri}, headers=BROWSER).get_data(as_text=True)
        assert "Claimed by the source" in body
        status = {"proven": "proven: a member", "refuted": "refuted: proven false", None: "undecided: neither proven"}
        assert status[claim["verdict"]] in body
        spanish = client.get("/page", query_string={"iri": iri, "lang": "es"}, headers=BROWSER).get_data(as_text=True)
        assert "Lo que afirma la fuente" in spanish
        spanish_status = {"proven": "demostrado: es de", "refuted": "refutado: demostrado falso", None: "sin decidir"}
        assert spanish_status[claim["verdict"]] in spanish


def test_the_class_page_lists_an_undecided_claim_apart_from_its_members(client, position_of):
    (undecided,) = _by(claims_in_file(), None)
    iri = position_of[undecided["fen"]]
    data = client.get(f"/class/{undecided['claim']}.json").get_json()
    assert iri not in {p["iri"] for p in data["positions"]}
    assert [(p["iri"], p["claim"]["moves"], p["claim"]["status"]) for p in data["claimed"]] == [(iri, 14, "undecided")]
    assert data["count"] == len(data["positions"]) == 0  # nothing proven in this store
    body = client.get(f"/class/{undecided['claim']}", headers=BROWSER).get_data(as_text=True)
    section = body.split('id="claimed-unproven"')[1]
    assert "Claimed by a source, not proven" in section and undecided["fen"] in section
    assert undecided["fen"] not in body.split('id="claimed-unproven"')[0]  # not among the members' cards
    spanish = client.get(f"/class/{undecided['claim']}?lang=es", headers=BROWSER).get_data(as_text=True)
    assert "Afirmado por una fuente, sin demostrar" in spanish and "sin decidir" in spanish


def test_a_refuted_claim_is_neither_member_nor_candidate(client, position_of):
    (refuted,) = _by(claims_in_file(), "refuted")
    iri = position_of[refuted["fen"]]
    data = client.get(f"/class/{refuted['claim']}.json").get_json()
    assert iri not in {p["iri"] for p in data["positions"]} | {p["iri"] for p in data["claimed"]}
    body = client.get(f"/class/{refuted['claim']}", headers=BROWSER).get_data(as_text=True)
    assert 'id="claimed-unproven"' not in body


def test_a_proven_claim_is_a_member_and_no_candidate(client, position_of):
    (proven,) = _by(claims_in_file(), "proven")
    iri = position_of[proven["fen"]]
    data = client.get(f"/class/{proven['claim']}.json").get_json()
    assert iri in {p["iri"] for p in data["positions"]} and data["claimed"] == []
