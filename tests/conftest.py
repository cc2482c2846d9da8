"""Shared fixtures: the shipped data, a CLI runner, the web app, and a real store built by the real importer.

Markers are applied here, from what a test uses, so no test file repeats them (CONTRIBUTING.md, "The fast
lane"): ``browser`` (Chromium through Playwright), ``java`` (HermiT or the OWL API), ``engine`` (stockfish),
``store`` (a store built by the importer), ``slow`` (starts ``chesskb serve``; others carry it by hand).
``pytest -m "not browser and not java and not slow" -n auto`` is the fast lane. The stores several files read
are built once per run and shared by the xdist workers (``built_once``).
"""

from __future__ import annotations

import fcntl
import inspect
import os
import shutil
from collections.abc import Callable, Iterator
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


@pytest.fixture(scope="session", autouse=True)
def own_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``$XDG_CACHE_HOME`` inside the run, for every test and the commands they start: ``convert`` and
    imports into a SPARQL server keep their verification cache in the user's cache directory
    (``kb.analysis.verify_cache.cache_location``), so without this a test read verdicts an earlier run, or
    another checkout, had left in ``~/.cache/chesskb``, and its cost and its path depended on them."""
    folder = tmp_path_factory.mktemp("cache-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(folder))
        yield folder


def run_cli(*args: str, store: Path | str | None = None, input: str | None = None):
    """Run ``chesskb`` in-process; returns click's Result (stdout, stderr, exit code)."""
    from chesskb.service.cli import cli

    argv = (["--store", str(store)] if store is not None else []) + list(args)
    return CliRunner().invoke(cli, argv, input=input, catch_exceptions=False)


def web_app(store: Path | str, **config: Any) -> Flask:
    """The web app over the store directory ``store``, with ``config`` added to ``STORE``: the one way the page
    tests build their app, so a new setting or a change to ``create_app`` is made once.

    Its queries run in the test's process (``QUERY_WORKERS=0``, what ``chesskb site`` does): a page's answer is
    the same either way, and each lane of worker processes costs about half a CPU-second to start. A test of
    the workers themselves (isolation, time-outs, a killed worker) asks for them: ``web_app(store,
    QUERY_WORKERS=2)``."""
    from chesskb.kb.store import open_store
    from chesskb.service.app import create_app

    return create_app({"STORE": str(store), "QUERY_WORKERS": 0, **config}, store=open_store(str(store)))


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], object]) -> Path:
    """The store ``build(path)`` makes, built once per test run and shared by every pytest-xdist worker.

    Each xdist worker is a process with its own session, so a session fixture used to run once per worker:
    with ``-n 2`` the demo KB, the fast lane's biggest cost, was imported twice. The workers of one run share
    the parent of their base temporary directories; the first worker to take the lock builds the store
    there and the others wait for it and read the same files. The tests only read these stores (a reader
    opens the live generation read-only, and the store's own lock lets readers in several processes share
    it); a test that writes copies the store first. A build that fails leaves no ``built`` mark, so every
    worker that needs the store tries again and fails the same way, with its own message.

    The build's imports share the run's verification cache (``tests.shared_proofs``): the session stores
    import the same collections, and each proved their mates again.
    """
    from tests.shared_proofs import proofs_of_the_run

    if os.environ.get("PYTEST_XDIST_WORKER") is None:  # one process: its own temporary directory
        store = tmp_path_factory.mktemp(name) / "store"
        with proofs_of_the_run(tmp_path_factory):
            build(store)
        return store
    shared = tmp_path_factory.getbasetemp().parent / f"shared-{name}"
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed, or the process ends
        if not (shared / "built").exists():
            shutil.rmtree(shared / "store", ignore_errors=True)  # what a failed build left
            with proofs_of_the_run(tmp_path_factory):
                build(shared / "store")
            (shared / "built").touch()
    return shared / "store"


def import_into(store: Path, *args: str) -> None:
    """``chesskb import ARGS`` into ``store``, failing the fixture with the command's output.

    A game the analysis failed on is skipped with a finding while the import still succeeds; in a
    fixture that is a bug of ours (an engine that once timed out cost the data store a puzzle, and 23
    tests failed far from the cause), so it fails the fixture here, with its message."""
    result = run_cli("import", *args, store=store)
    assert result.exit_code == 0, result.output
    assert "analysis failed" not in result.output, result.output


@pytest.fixture(scope="session")
def data_store(tmp_path_factory) -> Path:
    """A store holding every shipped collection, imported once per test run."""
    files = sorted(str(p) for p in DATA.rglob("*") if p.suffix in (".pgn", ".csv") and "tools" not in p.parts)
    return built_once(tmp_path_factory, "kb", lambda store: import_into(store, *files))


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory) -> Path:
    """The knowledge base scripts/demo.sh builds (its own import lines, and the courses), once per test run."""
    from tests.demo_kb import build_demo_store

    return built_once(tmp_path_factory, "demo", build_demo_store)


@pytest.fixture(scope="session")
def small_store(tmp_path_factory) -> Path:
    """A double round robin and 30 lichess puzzles (tests/fixtures): every kind of page, built in seconds."""
    fixtures = ROOT / "tests" / "fixtures"
    files = (str(fixtures / "round-robin.pgn"), str(fixtures / "puzzles-30.csv"))
    return built_once(tmp_path_factory, "small", lambda store: import_into(store, *files, "--jobs", "1"))


@pytest.fixture(scope="session")
def competency_store(tmp_path_factory) -> Path:
    """The store the competency questions are asked of (``tests/competency.py``), once per test run: six
    test files read it, and each used to import it again."""
    from tests.competency import build_store

    return built_once(tmp_path_factory, "competency", build_store)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: without it, never called
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """With ``-n``, send each test file whole to one worker (xdist's ``loadfile``) instead of spreading its
    tests over the workers (``load``): a module's fixtures (a store it imports, a server it starts) then
    run once per run, not once per worker that got one of its tests. An explicit ``--dist`` other than
    ``load`` is kept."""
    if config.getoption("dist") != "load":
        return None
    from xdist.scheduler import LoadFileScheduling

    return LoadFileScheduling(config, log)


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
#: Text that starts ``chesskb serve`` in a process of its own, with its query workers (``tests/live_server.py``):
#: seconds of CPU before the first request, whatever the test asks. A test whose own source or whose fixtures'
#: source holds it is ``slow`` (CONTRIBUTING.md, "The fast lane"); the in-process server (``serve``) is not.
SLOW_SOURCE: tuple[str, ...] = ("live_server(", "start_server(")


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
    if any(word in text for text in (source, *_fixture_sources(item)) for word in SLOW_SOURCE):
        found.add("slow")
    return found


def _fixture_sources(item: pytest.Item) -> list[str]:
    """The source of every fixture ``item`` uses, directly or through other fixtures."""
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    sources = []
    for name in getattr(item, "fixturenames", ()):
        for definition in definitions.get(name, ()):
            try:
                sources.append(inspect.getsource(definition.func))
            except (OSError, TypeError):  # a fixture pytest makes at run time (``request``)
                continue
    return sources


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
