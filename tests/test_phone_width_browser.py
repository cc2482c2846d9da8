"""Every kind of page in a real Chromium at a phone's width (375 px) and on a desktop, in English and
Spanish, on the knowledge base demo.sh builds: no page is wider than the screen, none logs a console
error (a Content-Security-Policy refusal included), none asks for anything that is not there (the
favicon), and the SPARQL editor talks to this server only (it used to ask prefix.cc). Screenshots of each
page type at both widths are written to tests/artifacts/pages/ (git-ignored)."""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from tests.live_server import serve

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).parent / "artifacts" / "pages"
PHONE, DESKTOP = 375, 1280

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is not installed (scripts/setup.sh installs it)", allow_module_level=True)

ID = "https://w3id.org/chesskb/id/"


def _json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=60) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def site(demo_store):
    url, server = serve(demo_store)
    yield url
    server.shutdown()


@pytest.fixture(scope="module")
def pages(site) -> dict[str, str]:
    """One URL of every page type (path and query), found through the site's own JSON."""
    source = _json(f"{site}/page.json?iri={quote(ID + 'source/dortmund-1996-1997')}")
    game = source["games"][0]["url"]
    header = _json(site + game.replace("/page?", "/page.json?"))["header"]
    return {
        "home": "/",
        "themes": "/classes",
        "class": "/class/MateInOne",
        "exercise": f"/page?iri={quote(ID + 'position/lichess-000rZ')}",
        "game": game,
        "player": header["black"]["url"],
        "event": header["event"]["url"],
        "source": f"/page?iri={quote(ID + 'source/dortmund-1996-1997')}",
        "search": "/search?q=polgar",
        "find": "/find",
        "questions": "/queries",
        "question": "/queries/positions-of-player-as-black",
        "sparql": "/sparql",
        "courses": "/courses",
        "course": "/course/first-steps",
        "not-found": "/class/NoSuchClass",
    }


def _visit(browser, url: str, width: int) -> tuple[object, object, list[str], list[str]]:
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    problems: list[str] = []
    hosts: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda exc: problems.append(f"script error: {exc}"))
    page.on("request", lambda r: hosts.append(urlsplit(r.url).netloc))
    page.goto(url)
    page.wait_for_load_state("load")
    page.wait_for_timeout(500)  # the page's scripts (the SPARQL editor's included) have run
    return context, page, problems, hosts


@pytest.mark.parametrize("lang", ["en", "es"])
def test_no_page_is_wider_than_a_phone_nor_logs_an_error(browser, site, pages, lang):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    too_wide, errors = [], []
    for name, path in pages.items():
        url = site + path + (("&" if "?" in path else "?") + "lang=es" if lang == "es" else "")
        for width in (PHONE, DESKTOP):
            context, page, problems, hosts = _visit(browser, url, width)
            try:
                wide = page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
                if width == PHONE and wide > PHONE:
                    too_wide.append(f"{name} ({lang}): {wide} px")
                expected = [p for p in problems if not (name == "not-found" and "404" in p)]
                errors += [f"{name} ({lang}, {width}): {p}" for p in expected]
                errors += [f"{name} ({lang}): asked {h}" for h in set(hosts) if h != urlsplit(site).netloc]
                page.screenshot(path=str(ARTIFACTS / f"{name}-{lang}-{width}.png"), full_page=width == PHONE)
            finally:
                context.close()
    assert not too_wide, too_wide
    assert not errors, errors


def test_favicon_is_served_and_start_training_carries_the_saved_rating(browser, site):
    with urllib.request.urlopen(site + "/favicon.ico", timeout=30) as response:
        assert response.status == 200 and response.headers["Content-Type"].startswith("image/")
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(site + "/")
        assert page.get_attribute("#start-training", "href") == "/train"  # no rating saved yet
        page.evaluate('localStorage.setItem("chesskb:rating", JSON.stringify({rating: 1620.4, deviation: 80}))')
        page.reload()
        assert page.get_attribute("#start-training", "href") == "/train?rating=1620"
        page.goto(site + "/?lang=es")
        assert page.get_attribute("#start-training", "href") == "/train?lang=es&rating=1620"
    finally:
        context.close()
