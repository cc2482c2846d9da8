"""The SPARQL editor (vendored YASGUI) in a real Chromium against a live ``chesskb serve``: it takes
its endpoint from the server, never from the page's URL (``#endpoint=http://evil/…`` was honoured, and
YASGUI renders a foreign endpoint's results as markup), and the Content-Security-Policy stops the page
from talking to any other host even when a script tries."""

from __future__ import annotations

import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote, urlsplit

import pytest

from tests.live_server import live_server

CHROMIUM = "/usr/bin/chromium"
pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is not installed (scripts/setup.sh installs it)", allow_module_level=True)

#: What a hostile endpoint would answer: a result whose value is markup that runs script.
EVIL_RESULT = (
    b'{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"literal",'
    b'"value":"<img src=x onerror=\\"document.title=\'pwned\'\\">"}}]}}'
)


@pytest.fixture(scope="module")
def evil():
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            hits.append(f"{self.command} {self.path}")
            self.send_response(200)
            self.send_header("Content-Type", "application/sparql-results+json")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(EVIL_RESULT)

        do_GET = do_POST = do_OPTIONS = _answer

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/sparql", hits
    server.shutdown()


def open_shared_link(page, base: str, fragment: str):
    """Open ``/sparql#<fragment>`` and wait for the query it carries to be answered.

    YASGUI runs the query of a shared link by itself as the page loads. Clicking the query button
    while that request is still in flight (a busy machine) cancels it rather than sending another,
    so the tests wait for the page's own request instead of clicking."""
    with page.expect_response(lambda r: r.url.startswith(base + "/sparql") and r.request.method == "POST") as info:
        page.goto(f"{base}/sparql#{fragment}")
    page.wait_for_selector(".yasqe .CodeMirror")
    return info.value


@pytest.fixture(scope="module")
def base(competency_store):
    with live_server(competency_store) as url:
        yield url


def test_editor_ignores_an_endpoint_from_the_url(browser, base, evil):
    evil_url, hits = evil
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    query = "SELECT ?x WHERE { BIND(42 AS ?x) }"
    answer = open_shared_link(page, base, f"query={quote(query)}&endpoint={quote(evil_url, safe='')}&requestMethod=GET")
    assert "endpoint" not in page.url  # dropped from the address before YASGUI read it
    assert answer.status == 200  # the shared query ran here, by POST, not at the link's endpoint
    page.wait_for_selector(".yasr table td, .yasr .dataTable")
    assert "42" in page.inner_text(".yasr")
    # even a script on the page cannot reach another host (connect-src 'self')
    blocked = page.evaluate(f"fetch({evil_url!r}).then(() => 'reached', () => 'blocked')")
    assert blocked == "blocked"
    assert page.title() != "pwned"
    netloc = urlsplit(evil_url).netloc
    assert not [url for url in requests if urlsplit(url).netloc == netloc]
    assert hits == []
    assert not errors, errors
    context.close()


def test_editor_endpoint_typed_by_hand_is_pinned_back(browser, base, evil):
    evil_url, hits = evil
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{base}/sparql")
    page.wait_for_selector(".yasqe .CodeMirror")
    field = page.locator(".yasgui .controlbar input").first
    field.fill(evil_url)
    field.press("Enter")
    with page.expect_response(lambda r: r.url.startswith(base + "/sparql") and r.request.method == "POST"):
        page.click(".yasqe_queryButton")
    assert hits == []
    context.close()


def test_an_individual_in_the_results_opens_its_page_here(browser, base):
    """Result IRIs of this knowledge base (https://w3id.org/…) open the local page, not the IRI."""
    context = browser.new_context()
    page = context.new_page()
    query = (
        "PREFIX cp: <http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#>\n"
        "SELECT ?position WHERE { ?position a cp:MateInOne } LIMIT 3"
    )
    assert open_shared_link(page, base, f"query={quote(query)}").status == 200
    link = page.locator(".yasr a[href^='https://w3id.org/']").first
    link.wait_for()
    iri = link.get_attribute("href")
    with page.expect_navigation() as navigation:
        link.click()
    assert navigation.value.status == 200
    assert page.url.startswith(base + "/page?iri=") and urlsplit(page.url).query == "iri=" + quote(iri, safe="")
    assert page.locator("h1").count() == 1  # the position's own page, served here
    context.close()


def test_result_links_carry_no_handlers_and_no_script_links(browser, base):
    """Issue 35 (item 10): YASR wrote an IRI into ``href='…'`` as it was, so an IRI holding a quote
    added an ``onmouseover`` attribute and ``javascript:`` IRIs became links (only the CSP stopped
    them). Both come back as text now; an http IRI is still a link."""
    page = browser.new_page()
    query = (
        "SELECT ?x WHERE { VALUES ?x { <javascript:document.title='pwned'> "
        "<http://example.org/a'onmouseover='document.title=1'> <http://example.org/plain> } }"
    )
    assert open_shared_link(page, base, f"query={quote(query)}").status == 200
    page.wait_for_selector(".yasr table td a.iri")
    table = page.inner_text(".yasr table")
    assert "javascript:document.title='pwned'" in table and "a'onmouseover='document.title=1'" in table
    found = page.evaluate("""() => ({
        handlers: [...document.querySelectorAll('.yasr *')].filter(e => [...e.attributes].some(
            a => a.name.startsWith('on'))).length,
        scripts: document.querySelectorAll('.yasr a[href^="javascript:" i]').length,
        links: [...document.querySelectorAll('.yasr a.iri')].map(a => a.getAttribute('href')),
    })""")
    assert found["handlers"] == 0 and found["scripts"] == 0
    assert found["links"] == ["http://example.org/a'onmouseover='document.title=1'", "http://example.org/plain"]
    page.hover(".yasr a.iri")
    assert page.title() != "pwned" and page.title() != "1"
    page.close()
