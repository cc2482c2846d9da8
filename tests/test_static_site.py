"""``chesskb site`` and ``chesskb html``: the pages as files with relative links, working from disk."""

from __future__ import annotations

import re
from pathlib import Path

import chess.pgn
import flask
import pytest
import rdflib

from tests.conftest import DATA, run_cli
from tests.pgn_slices import write_games
from tests.shared_proofs import shared_proofs  # noqa: F401 (autouse: the run's verification cache)

FIXTURES = Path(__file__).parent / "fixtures"


def readable_games(path: Path) -> int:
    """The games python-chess reads from a PGN file without an error."""
    count = 0
    with path.open(encoding="utf-8", errors="replace") as handle:  # a latin-1 name or two
        while (game := chess.pgn.read_game(handle)) is not None:
            count += not game.errors
    return count


def _links(root: Path) -> tuple[int, list[str]]:
    """Every local link of every page, and the ones that do not resolve to a file."""
    total, broken = 0, []
    for page in root.rglob("*.html"):
        for link in re.findall(r'(?:href|src)="([^"]*)"', page.read_text(encoding="utf-8")):
            target = link.split("#")[0]
            if not target or target.startswith(("http://", "https://")):
                continue
            total += 1
            if target.startswith("/") or not (page.parent / target).exists():
                broken.append(f"{page.relative_to(root)} -> {link}")
    return total, broken


#: Games of the mate-in-2 collection the fast lane's site is made of: more than a class page holds
#: (``service.classes.PAGE_SIZE``, 24), so the class pages' "next" links are crawled and checked too.
SLICE_GAMES = 30
MATE_IN_2 = DATA / "pychess" / "mate_in_2.pgn"


@pytest.fixture(
    scope="module",
    params=[
        pytest.param(SLICE_GAMES, id="first-30-games"),
        # the whole collection (96 games): every page of it rendered twice, 40 CPU-s
        pytest.param(None, id="whole-collection", marks=pytest.mark.slow),
    ],
)
def html_site(request, tmp_path_factory) -> tuple[Path, Path, list[str]]:
    """(the site ``chesskb html`` writes for a mate-in-2 collection, the PGN file it was made from, the
    media types of the answers the app gave while writing it)."""
    folder = tmp_path_factory.mktemp("site")
    source = (
        MATE_IN_2 if request.param is None else write_games(MATE_IN_2, range(request.param), folder / "mate-in-2.pgn")
    )
    out = folder / "mate-in-2"
    answers: list[str] = []

    def answered(_app: object, response: flask.Response, **_: object) -> None:
        answers.append(response.mimetype if response.status_code == 200 else str(response.status_code))

    with flask.request_finished.connected_to(answered):
        result = run_cli("html", str(source), "-o", str(out))
    assert result.exit_code == 0, result.output
    return out, source, answers


def test_html_writes_a_linked_site_with_the_owl_export(html_site: tuple[Path, Path, list[str]]) -> None:
    site, source, _ = html_site
    games = readable_games(source)
    assert games == (SLICE_GAMES if source != MATE_IN_2 else 96)
    total, broken = _links(site)
    assert total > 10 * games and broken == []
    pages = list((site / "resource").glob("*.html"))
    positions = [p for p in pages if 'id="solution-data"' in p.read_text(encoding="utf-8")]
    assert len([p for p in positions if not p.name.endswith(".es.html")]) == games
    assert (site / "index.es.html").exists() and (site / "static" / "solve.js").exists()
    assert (site / "class" / "MateInTwo-page2.html").exists()  # a class page's "next" link, followed
    graph = rdflib.Graph().parse(site / "chesskb.owl", format="xml")
    mate_in_two = rdflib.URIRef("http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#MateInTwo")
    assert len(set(graph.subjects(rdflib.RDF.type, mate_in_two))) >= games - games // 16
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "/sparql" not in home and 'action="/search"' not in home and "chesskb.owl" in home


def test_each_file_of_the_site_is_rendered_once(html_site: tuple[Path, Path, list[str]]) -> None:
    """The crawl asks the app for each page once, however many spellings of its URL the pages link to
    (``/page?iri=X`` and the Spanish page's switch back, ``/page?iri=X&lang=en``, are one English page)."""
    site, _, answers = html_site
    written = [p for p in site.rglob("*") if p.is_file() and p.name != "chesskb.owl"]
    kept = [
        m
        for m in answers
        if m in ("text/html", "image/svg+xml", "text/css", "text/javascript", "application/javascript")
    ]
    assert len(written) > 100 and len(kept) == len(written), (len(kept), len(written))


def test_site_of_one_source_holds_only_that_source(tmp_path: Path) -> None:
    store = tmp_path / "store"
    for path in (DATA / "games" / "kasparov-deep-blue-1997.pgn", FIXTURES / "hostile.pgn"):
        assert run_cli("import", str(path), store=store).exit_code == 0
    out = tmp_path / "site"
    result = run_cli("site", "-o", str(out), "--source", "kasparov-deep-blue-1997", store=store)
    assert result.exit_code == 0, result.output
    text = " ".join(p.read_text(encoding="utf-8") for p in out.rglob("*.html"))
    assert "Kasparov" in text and "Deep Blue" in text
    assert "Mallory" not in text and "<script>alert" not in text
    assert _links(out)[1] == []
    home = re.sub(r"<[^>]+>", " ", (out / "index.html").read_text(encoding="utf-8"))
    assert "hostile" not in home  # the other source is not listed
    games = len(re.findall(r"^\[Event ", (DATA / "games" / "kasparov-deep-blue-1997.pgn").read_text(), re.M))
    assert re.search(rf"Positions:\s*{games}\b", home), home  # this source's count, not the whole KB's
    assert run_cli("site", "-o", str(tmp_path / "none"), "--source", "nope", store=store).exit_code != 0


def test_hostile_text_is_escaped_in_the_static_site(tmp_path: Path) -> None:
    out = tmp_path / "hostile"
    assert run_cli("html", str(FIXTURES / "hostile.pgn"), "-o", str(out)).exit_code == 0
    for page in out.rglob("*.html"):
        body = page.read_text(encoding="utf-8")
        # Executable scripts are ours; data scripts (JSON, JSON-LD) may hold the text but cannot
        # be closed early by it: every <script> is closed by its own </script>.
        executable = re.findall(r"<script(?![^>]*application/(?:ld\+)?json)[^>]*>(.*?)</script>", body, re.S)
        assert all("alert(" not in script for script in executable), page
        assert body.count("<script") == body.count("</script>"), page
        assert "<script>alert" not in body and "<img src=x" not in body


def test_html_refuses_a_file_without_games(tmp_path: Path) -> None:
    empty = tmp_path / "empty.pgn"
    empty.write_text("", encoding="utf-8")
    result = run_cli("html", str(empty), "-o", str(tmp_path / "out"))
    assert result.exit_code != 0 and "nothing" in result.output
    assert not (tmp_path / "out" / "index.html").exists()
