"""Shared fixtures: the shipped data, a CLI runner, the web app, and a real store built by the real importer.

Markers are applied here, from what a test uses, so no test file repeats them (CONTRIBUTING.md, "The fast
lane"): ``browser`` (Chromium through Playwright), ``java`` (HermiT or the OWL API), ``engine`` (stockfish),
``store`` (a store built by the importer). ``pytest -m "not browser and not java" -n auto`` is the fast lane.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import CliRunner

if TYPE_CHECKING:
    from flask import Flask

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
BASE = "https://w3id.org/chesskb/id/"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


def run_cli(*args: str, store: Path | str | None = None, input: str | None = None):
    """Run ``chesskb`` in-process; returns click's Result (stdout, stderr, exit code)."""
    from chesskb.service.cli import cli

    argv = (["--store", str(store)] if store is not None else []) + list(args)
    return CliRunner().invoke(cli, argv, input=input, catch_exceptions=False)


def web_app(store: Path | str, **config: Any) -> Flask:
    """The web app over the store directory ``store``, with ``config`` added to ``STORE``
    (``web_app(small_store, QUERY_WORKERS=0)``: queries run in the test's process): the one way the page
    tests build their app, so a new setting or a change to ``create_app`` is made once."""
    from chesskb.kb.store import open_store
    from chesskb.service.app import create_app

    return create_app({"STORE": str(store), **config}, store=open_store(str(store)))


@pytest.fixture(scope="session")
def data_store(tmp_path_factory) -> Path:
    """A store holding every shipped collection, imported once per test session."""
    store = tmp_path_factory.mktemp("kb") / "store"
    files = sorted(str(p) for p in DATA.rglob("*") if p.suffix in (".pgn", ".csv") and "tools" not in p.parts)
    result = run_cli("import", *files, store=store)
    assert result.exit_code == 0, result.output
    return store


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory) -> Path:
    """The knowledge base scripts/demo.sh builds (its own import lines, and the courses), once per session."""
    from tests.demo_kb import build_demo_store

    return build_demo_store(tmp_path_factory.mktemp("demo") / "store")


@pytest.fixture(scope="session")
def small_store(tmp_path_factory) -> Path:
    """A double round robin and 30 lichess puzzles (tests/fixtures): every kind of page, built in seconds."""
    fixtures = ROOT / "tests" / "fixtures"
    store = tmp_path_factory.mktemp("small") / "store"
    result = run_cli(
        "import", str(fixtures / "round-robin.pgn"), str(fixtures / "puzzles-30.csv"), "--jobs", "1", store=store
    )
    assert result.exit_code == 0, result.output
    return store


@pytest.fixture(scope="session")
def engine():
    """The UCI engine an import would use (None without one: ``CHESSKB_ENGINE=none`` or no stockfish),
    opened for the session and stopped at its end; nothing starts it before a test asks."""
    from chesskb.kb.analysis.engine import open_engine

    with open_engine() as opened:
        yield opened


CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright (both installed by scripts/setup.sh), one per test module."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is not installed (scripts/setup.sh installs it)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def base_url(data_store):
    """The shipped collections served in this process (``tests.live_server.serve``), one server per module."""
    from tests.live_server import serve

    url, server = serve(data_store)
    yield url
    server.shutdown()


@pytest.fixture()
def page(browser):
    """A desktop-sized Chromium page that fails its test on any script error (kept in ``page.errors``)."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    yield page
    context.close()
    assert not errors, errors


# --- markers, from what a test uses ------------------------------------------------------------------------

#: Fixtures (direct or through other fixtures) that put a test under a marker.
MARKER_FIXTURES: dict[str, frozenset[str]] = {
    "browser": frozenset({"browser", "page"}),
    "engine": frozenset({"engine"}),
    "store": frozenset({"data_store", "small_store", "base_url"}),
}
#: Words in a skip condition's reason that say what the test needs (``needs_engine``, ``pytestmark`` skips).
MARKER_REASONS: dict[str, tuple[str, ...]] = {
    "browser": ("chromium", "playwright"),
    "engine": ("stockfish",),
    "java": ("java",),
}
#: Text in a test's own source that starts what a marker names: ``chesskb check`` and the OWL/XML export run
#: Java, owlready2's reasoner is HermiT; a module that imports Playwright drives Chromium.
MARKER_SOURCE: dict[str, tuple[str, ...]] = {
    "java": ('cli("check"', 'chesskb("check"', "hermit(", "sync_reasoner", '"owlxml"'),
    "browser": ("playwright",),
}


def _markers_for(item: pytest.Item) -> set[str]:
    """The markers ``item`` earns: by its fixtures, its skip reasons, and its (or its module's) source."""
    fixtures = set(getattr(item, "fixturenames", ()))
    found = {name for name, wanted in MARKER_FIXTURES.items() if wanted & fixtures}
    if any("store" in fixture for fixture in fixtures):  # every store-building fixture is named for it
        found.add("store")
    for mark in item.iter_markers("skipif"):
        reason = str(mark.kwargs.get("reason", "")).lower()
        found |= {name for name, words in MARKER_REASONS.items() if any(word in reason for word in words)}
    source = _source_of(item)
    found |= {name for name, words in MARKER_SOURCE.items() if any(word in source for word in words)}
    if "playwright" in _module_source(item.path):
        found.add("browser")
    return found


_MODULE_SOURCES: dict[Path, str] = {}


def _module_source(path: Path) -> str:
    if path not in _MODULE_SOURCES:
        _MODULE_SOURCES[path] = path.read_text(encoding="utf-8") if path.suffix == ".py" else ""
    return _MODULE_SOURCES[path]


def _source_of(item: pytest.Item) -> str:
    function = getattr(item, "function", None)
    try:
        return inspect.getsource(function) if function is not None else ""
    except (OSError, TypeError):  # a doctest item or a function made at run time
        return ""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for name in sorted(_markers_for(item)):
            item.add_marker(getattr(pytest.mark, name))
