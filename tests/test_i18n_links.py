"""A Spanish page links only to Spanish pages: every local link, in every page reachable from
``/?lang=es``, carries ``lang=es`` (``url_for`` adds it, ``service.i18n.register_language``), and every
GET form sends it. Static files and board images have no language; the language switch goes to English.

The store is built by the real importer from small fixtures (a round robin, 30 lichess puzzles)."""

from __future__ import annotations

import re
from collections import deque
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.conftest import web_app

LANGUAGE_FREE = ("/static/", "/board.svg")
_LINK = re.compile(r"<(a|link|form)\b([^>]*)>", re.S)
_ATTR = re.compile(r'\b(href|action|hreflang|method)="([^"]*)"')
MAX_PAGES = 400


@pytest.fixture(scope="module")
def client(small_store):
    app = web_app(small_store, QUERY_WORKERS=0)
    return app.test_client()


def _local(url: str) -> bool:
    parts = urlsplit(url)
    return not parts.scheme and not parts.netloc and parts.path.startswith("/")


def _spanish(url: str) -> bool:
    return parse_qs(urlsplit(url).query).get("lang") == ["es"]


def _forms_without_lang(body: str) -> list[str]:
    """GET forms (a GET form drops its action's query) without a hidden lang=es field; a form without a
    method is a script's (the typed-move box), not a navigation."""
    missing = []
    for form in re.findall(r"<form\b.*?</form>", body, re.S):
        head = dict(_ATTR.findall(form.split(">", 1)[0]))
        if head.get("method", "").lower() != "get" or head.get("action", "").startswith("/sparql"):
            continue  # the SPARQL editor sends queries, not pages
        if not re.search(r'<input type="hidden" name="lang" value="es">', form):
            missing.append(head.get("action", ""))
    return missing


def test_every_link_of_a_spanish_page_stays_spanish(client) -> None:
    start = [
        "/?lang=es",
        "/classes?lang=es",
        "/courses?lang=es",
        "/queries?lang=es",
        "/search?q=alpha&lang=es",
        "/queries/mate-in-one?lang=es",
        "/find?pattern=Qf7&lang=es",
    ]
    queue, seen, pages, kinds = deque(start), set(start), 0, set()
    problems: list[tuple[str, str]] = []
    while queue and pages < MAX_PAGES:
        url = queue.popleft()
        response = client.get(url, headers={"Accept": "text/html"})
        if response.status_code != 200 or response.mimetype != "text/html":
            continue
        pages += 1
        kinds.add(urlsplit(url).path)
        body = response.get_data(as_text=True)
        assert '<html lang="es">' in body, url
        problems += [(url, f"form {action}") for action in _forms_without_lang(body)]
        for tag, attributes in _LINK.findall(body):
            attrs = dict(_ATTR.findall(attributes))
            link = unescape(attrs.get("href") or attrs.get("action") or "")
            if not link or not _local(link) or link.startswith(LANGUAGE_FREE):
                continue
            if attrs.get("hreflang") == "en":  # the switch to English
                assert parse_qs(urlsplit(link).query).get("lang") == ["en"], (url, link)
                continue
            if tag == "form":
                continue  # checked above: the hidden field carries the language
            if not _spanish(link):
                problems.append((url, link))
            elif tag == "a" and link not in seen and not urlsplit(link).path.endswith(".json"):
                seen.add(link)
                queue.append(link)
    assert not problems, problems[:20]
    # the walk reached every kind of page (else "no problem" would prove little)
    assert {"/", "/classes", "/courses", "/queries", "/search", "/find", "/page"} <= kinds, kinds
    assert any(path.startswith("/class/") for path in kinds) and any(path.startswith("/queries/") for path in kinds)
    assert pages > 40, pages
