"""Every page and its JSON twin are made one way (``service.render``): the ``.json`` URL, ``?format=json``
and ``Accept: application/json`` give the same JSON; a browser gets HTML; errors take the same rule and
one JSON shape, ``/sparql``'s included.

The store is built by the real importer from small fixtures (a round robin, the first 30 lichess puzzles
of ``data/lichess/puzzles.csv``); the expected JSON of each page is the
page's own twin, compared across the three ways of asking for it (the twins' contents are checked
against the files by test_pages, test_courses and test_find_browser)."""

from __future__ import annotations

import pytest

from tests.conftest import web_app

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
JSON = {"Accept": "application/json"}

#: (page URL, its JSON twin's URL): one view each (``render.page_route``).
PAGES = [
    ("/", "/index.json"),
    ("/classes", "/classes.json"),
    ("/class/Position", "/class/Position.json"),
    ("/search?q=alpha", "/search.json?q=alpha"),
    ("/courses", "/courses.json"),
    ("/queries", "/queries.json"),
    ("/queries/mate-in-one", "/queries/mate-in-one.json"),
    ("/find?pattern=Qf7", "/find.json?pattern=Qf7"),
    ("/page?iri={player}", "/page.json?iri={player}"),
]


@pytest.fixture(scope="module")
def client(small_store):
    app = web_app(small_store, QUERY_WORKERS=0)
    return app.test_client()


@pytest.fixture(scope="module")
def player(client) -> str:
    """The IRI of the fixture's first player, as search finds it."""
    found = client.get("/search.json?q=alpha").get_json()["groups"]["players"]
    assert [p["label"] for p in found] == ["Alpha, Ann"]
    return found[0]["iri"]


def _with(url: str, extra: str) -> str:
    return url + ("&" if "?" in url else "?") + extra


@pytest.mark.parametrize(("page", "twin"), PAGES)
def test_a_page_and_its_twin_are_the_same_data(client, player: str, page: str, twin: str) -> None:
    page, twin = page.format(player=player), twin.format(player=player)
    by_suffix = client.get(twin, headers=BROWSER)  # the suffix wins over a browser's Accept
    assert by_suffix.status_code == 200 and by_suffix.mimetype == "application/json", twin
    expected = by_suffix.get_json()
    assert expected  # a page with nothing in it would prove nothing
    for response in (client.get(_with(page, "format=json"), headers=BROWSER), client.get(page, headers=JSON)):
        assert response.status_code == 200 and response.mimetype == "application/json", page
        assert response.get_json() == expected, page
        assert response.headers["Vary"] == "Accept"
    for headers in (BROWSER, {}, {"Accept": "*/*"}):
        html = client.get(page, headers=headers)
        assert html.status_code == 200 and html.mimetype == "text/html", (page, headers)


def test_the_class_pager_links_stay_in_the_format_asked_for(client) -> None:
    data = client.get("/class/Position.json").get_json()
    assert data["count"] > 24, "the fixture must give the class a second page"
    assert data["next"].startswith("/class/Position.json?")
    html = client.get("/class/Position", headers=BROWSER).get_data(as_text=True)
    assert 'href="/class/Position?page=2"' in html


def test_linked_data_pages_offer_rdf_and_refuse_what_they_cannot_give(client, player: str) -> None:
    turtle = client.get(f"/page?iri={player}", headers={"Accept": "text/turtle"})
    assert turtle.status_code == 200 and turtle.mimetype == "text/turtle"
    assert player in turtle.get_data(as_text=True)
    assert client.get(f"/page?iri={player}", headers={"Accept": "image/png"}).status_code == 406
    # a plain page has no RDF form: it stays HTML for any Accept
    assert client.get("/classes", headers={"Accept": "text/turtle"}).mimetype == "text/html"


def test_errors_take_the_pages_rule_and_one_json_shape(client) -> None:
    for url, headers in (
        ("/class/NoSuchClass.json", BROWSER),
        ("/class/NoSuchClass", {}),
        ("/class/NoSuchClass?format=json", BROWSER),
        ("/class/NoSuchClass", JSON),
    ):
        response = client.get(url, headers=headers)
        assert response.status_code == 404 and response.get_json() == {
            "ok": False,
            "status": 404,
            "error": "no theme class named 'NoSuchClass'",
        }, (url, headers)
    page = client.get("/class/NoSuchClass", headers=BROWSER)
    assert page.status_code == 404 and page.mimetype == "text/html"
    sparql = client.get("/sparql?query=SELEKT", headers={"Accept": "application/sparql-results+json"})
    assert sparql.status_code == 400 and set(sparql.get_json()) == {"ok", "status", "error"}
    assert sparql.get_json()["ok"] is False and sparql.get_json()["status"] == 400
