"""Shared fixtures: the shipped data, a CLI runner, and a real store built by the real importer."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

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
    result = run_cli("import", str(fixtures / "round-robin.pgn"), str(fixtures / "puzzles-30.csv"), "--jobs", "1",
                     store=store)
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
