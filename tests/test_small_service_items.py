"""Issue 35, item 10: the small ones, each against a live ``chesskb serve``.

* Time parameters of 20+ digits made 9 canned-query URLs answer 500 (``OverflowError``); numbers
  of any size, ``1e400`` and ``nan`` are a 400 with the reason now.
* ``"elo": Infinity`` (Python's JSON reads it) was a 500 on ``/play``; a JSON array as an authoring
  body was a 500 on every authoring URL.
* Error responses and the SPARQL editor vary by ``Accept`` and now say so (``Vary: Accept``).
* ``/author/pgn`` wrote ``"``, line breaks and ``}`` as they were: tags that end early, a comment
  that ends early; a 1M-character comment was answered "saved" and cut to 10,000.
"""

from __future__ import annotations

import io
import json

import chess.pgn
import pytest

from chesskb.kb.reading.pgn import MAX_COMMENT_CHARS
from chesskb.queries import list_queries
from tests.conftest import DATA, run_cli
from tests.live_server import http, live_server

TOKEN = "a-long-enough-authoring-token"
AUTH = {"X-Author-Token": TOKEN, "Content-Type": "application/json"}
#: A back-rank mate: the smallest exercise the authoring page takes.
FEN = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    store = tmp_path_factory.mktemp("small-items") / "store"
    assert (
        run_cli("import", "--jobs", "1", str(DATA / "games" / "kasparov-deep-blue-1997.pgn"), store=store).exit_code
        == 0
    )
    with live_server(store, env={"CHESSKB_AUTHOR_TOKEN": TOKEN}) as url:
        yield url


def _numeric_params() -> list[tuple[str, str, str]]:
    return [
        (query.name, param.name, param.type)
        for query in list_queries()
        for param in query.params
        if param.type in ("time", "integer", "decimal", "date")
    ]


def test_huge_numbers_in_canned_query_parameters_are_400(base: str) -> None:
    from urllib.parse import urlencode

    checked = _numeric_params()
    assert any(kind == "time" for _, _, kind in checked)
    for name, param, kind in checked:
        for value in ("9" * 25, "-" + "9" * 25, "9" * 20 + ":00", "1e400", "nan", "inf"):
            status, _headers, body = http("GET", f"{base}/queries/{name}.json?{urlencode({param: value})}")
            assert status < 500, (name, param, value, status, body[:200])
            if kind in ("time", "decimal"):
                assert status == 400, (name, param, value, status, body[:200])
                assert f"parameter '{param}' expects {kind}" in json.loads(body)["error"]


def test_infinite_elo_is_refused(base: str) -> None:
    for elo in ("Infinity", "-Infinity", "NaN", "1e400"):
        body = f'{{"fen": "{chess.STARTING_FEN}", "moves": [], "elo": {elo}}}'.encode()
        status, _, answer = http("POST", f"{base}/play", body=body, headers={"Content-Type": "application/json"})
        assert status == 400 and "elo must be a number" in json.loads(answer)["error"], (elo, status, answer)


@pytest.mark.parametrize("url", ["/author/check", "/author/pgn", "/author/save", "/author/course"])
def test_an_authoring_body_that_is_not_an_object_is_400(base: str, url: str) -> None:
    for body in (b"[1, 2]", b'"text"', b"42"):
        status, headers, answer = http("POST", base + url, body=body, headers=AUTH)
        assert status == 400 and "send a JSON object" in json.loads(answer)["error"], (body, status, answer)
        assert "accept" in headers.get("vary", "").lower()


def test_errors_and_the_editor_say_they_vary_by_accept(base: str) -> None:
    for url, accept in (
        ("/no-such-page", "text/html"),
        ("/no-such-page", "application/json"),
        ("/queries/no-such-query", "text/html"),
        ("/sparql?query=SELEC", "application/json"),
        ("/sparql?query=SELEC", "text/html"),
        ("/sparql", "text/html"),
        ("/sparql", "text/turtle"),
    ):
        status, headers, _ = http("GET", base + url, headers={"Accept": accept})
        assert "accept" in headers.get("vary", "").lower(), (url, accept, status, headers)


def _exercise(**parts: object) -> bytes:
    return json.dumps({"fen": FEN, "moves": [{"uci": "a1a8", "comment": parts.pop("comment", "")}], **parts}).encode()


def test_author_pgn_escapes_tags_and_comments(base: str) -> None:
    title = 'The "back rank" \\ lesson\nline two'
    comment = 'mate { on the "back" rank\n\n[Event "not a game"] too\n%not an escape'
    status, _, answer = http(
        "POST",
        f"{base}/author/pgn",
        headers=AUTH,
        body=_exercise(title=title, event='Club }"{ night', intro="see {this", comment=comment),
    )
    assert status == 200, answer
    text = answer.decode()
    assert '[Annotator "The \\"back rank\\" \\\\ lesson line two"]' in text
    assert '[Event "Club }\\"{ night"]' in text
    game = chess.pgn.read_game(io.StringIO(text))
    assert chess.pgn.read_game(io.StringIO(text[text.index("\n\n") :])) is not None  # one game, whole
    assert game.errors == [] and [m.uci() for m in game.mainline_moves()] == ["a1a8"]
    said = game.variations[0].comment
    assert said == comment  # as typed: the blank line and the "%" line are the comment's text
    assert game.comment == "see {this"


def test_saved_tags_and_comments_read_back_as_written(base: str) -> None:
    title = 'Mate "in one" \\ back rank'
    comment = "the rook {takes} nothing: (a) [b] ｝ stays"
    status, _, answer = http(
        "POST",
        f"{base}/author/save",
        headers=AUTH,
        body=_exercise(title=title, comment=comment.replace("}", ""), source="escapes"),
    )
    assert status == 200, answer
    query = (
        "PREFIX cp: <http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#> "
        'SELECT ?a WHERE { ?m cp:annotator ?a FILTER(CONTAINS(?a, "in one")) }'
    )
    found = http("GET", f"{base}/sparql?query=" + _quote(query), headers={"Accept": "application/json"})
    rows = json.loads(found[2])["results"]["bindings"]
    assert [row["a"]["value"] for row in rows] == [title]  # unescaped: as the teacher wrote it
    query = 'SELECT ?c WHERE { ?s ?p ?c FILTER(CONTAINS(STR(?c), "{takes")) }'  # the movetext, comments in it
    found = http("GET", f"{base}/sparql?query=" + _quote(query), headers={"Accept": "application/json"})
    said = [row["c"]["value"] for row in json.loads(found[2])["results"]["bindings"]]
    assert said and all("{ " + comment.replace("}", "") + " }" in text for text in said), said  # as typed


def test_a_closing_brace_in_a_comment_is_refused_not_changed(base: str) -> None:
    """A PGN comment ends at its first ``}`` and has no escape: such a comment is refused (422, naming
    where and why), for the download and the save alike, and nothing is saved."""
    for body, where in (
        (_exercise(comment="the rook } the king", source="braces"), "the comment of move 1"),
        (_exercise(intro="see {this}", source="braces"), "the introduction"),
    ):
        for url in ("/author/pgn", "/author/save"):
            status, _, answer = http("POST", base + url, headers=AUTH, body=body)
            message = json.loads(answer)["error"]
            assert status == 422 and message.startswith(where) and "'}'" in message, (url, status, message)
    sources = json.loads(http("GET", f"{base}/index.json")[2])["sources"]
    assert "braces" not in {source["name"] for source in sources}


def _quote(text: str) -> str:
    from urllib.parse import quote

    return quote(text)


def test_a_comment_longer_than_the_importer_keeps_is_refused(base: str) -> None:
    for where, body in (
        ("the comment of move 1", _exercise(comment="x" * 1_000_000, source="long")),
        ("the introduction", _exercise(intro="y" * (MAX_COMMENT_CHARS + 1), source="long")),
    ):
        status, _, answer = http("POST", f"{base}/author/save", headers=AUTH, body=body)
        message = json.loads(answer)["error"]
        assert status == 422 and where in message and "MAX_COMMENT_CHARS" in message, (status, message)
    status, _, answer = http("POST", f"{base}/author/save", headers=AUTH, body=_exercise(title="t" * 256))
    assert status == 422 and "MAX_TAG_CHARS" in json.loads(answer)["error"]
    sources = json.loads(http("GET", f"{base}/index.json")[2])["sources"]
    assert "long" not in {source["name"] for source in sources}  # nothing saved
