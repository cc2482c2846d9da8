"""What one page costs on its way to RDF (issue 37, item 3): store queries, serialisations and parses.

    .venv/bin/python bench/page_path.py [--store DIR]

Without ``--store`` it imports the test fixtures (a double round robin and 30 lichess puzzles) into a
temporary directory. Each page is asked once, in each of its formats, of a fresh app (a cold answer
cache), with queries run in the request thread (QUERY_WORKERS=0) so that a profiler sees every step a
worker would take. It counts, per request:

* ``queries`` — queries handed to the service's executor (``service.executor.run``), with the named
  ones listed (a name twice is the same question asked twice);
* ``ser`` — RDF or result serialisations (pyoxigraph's ``serialize``, a result's ``serialize``,
  rdflib's ``Graph.serialize``);
* ``parse`` — parses of serialised RDF or results (pyoxigraph's ``parse``, ``parse_query_results``,
  ``Store.load``/``bulk_load``, rdflib's ``Graph.parse``);
* ``libs`` — which RDF libraries the request touched (pyoxigraph, rdflib).

Counts, not times: they do not depend on the machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chesskb.kb.store import open_store
from chesskb.service.app import create_app

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SERIALISERS = {"serialize"}
PARSERS = {"parse", "parse_query_results", "load", "bulk_load"}
FORMATS = {
    "HTML": {"Accept": "text/html"},
    "JSON twin": None,
    "Turtle": {"Accept": "text/turtle"},
    "JSON-LD": {"Accept": "application/ld+json"},
}


class Steps:
    """A profiler hook counting the steps of one request."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        self.counts: Counter[str] = Counter()
        self.libraries: set[str] = set()

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event == "c_call":
            owner = getattr(arg, "__self__", None)
            module = getattr(arg, "__module__", None) or type(owner).__module__
            if module and module.startswith("pyoxigraph"):
                self.libraries.add("pyoxigraph")
                self._count(arg.__name__)
        elif event == "call":
            code = frame.f_code
            module = frame.f_globals.get("__name__", "")
            if module == "rdflib.graph" and code.co_name in ("serialize", "parse"):
                self.libraries.add("rdflib")
                self._count(code.co_name)
            elif module.endswith("service.executor") and code.co_name == "run_named":
                self.queries.append(frame.f_locals["name"])
            elif module.endswith("service.executor") and code.co_name == "run":
                self.queries.append("?")  # a named query replaces this mark with its name below

    def _count(self, name: str) -> None:
        if name in SERIALISERS:
            self.counts["ser"] += 1
        elif name in PARSERS:
            self.counts["parse"] += 1

    def named_queries(self) -> list[str]:
        """One entry per query run: ``run_named(name)`` calls ``run``, so a name absorbs the mark after it."""
        out: list[str] = []
        pending_name = False
        for entry in self.queries:
            if entry == "?" and pending_name:
                pending_name = False
                continue
            out.append(entry)
            pending_name = entry != "?"
        return out


def measure(store_dir: str, url: str, headers: dict[str, str] | None) -> Steps:
    app = create_app({"STORE": store_dir, "QUERY_WORKERS": 0}, store=open_store(store_dir))
    client = app.test_client()
    if headers is None:  # the .json twin
        path, _, query = url.partition("?")
        url, headers = f"{path}.json?{query}" if query else f"{path}.json", {}
    steps = Steps()
    sys.setprofile(steps)
    try:
        response = client.get(url, headers=headers)
    finally:
        sys.setprofile(None)
    if response.status_code != 200:
        raise SystemExit(f"{url}: HTTP {response.status_code}: {response.get_data(as_text=True)[:300]}")
    return steps


def pages(store_dir: str) -> dict[str, str]:
    store = open_store(store_dir)

    def first(sparql: str) -> str:
        rows = list(store.query(sparql))
        if not rows:
            raise SystemExit(f"the store has nothing for: {sparql}")
        return rows[0][0].value

    # a position taken from a game whose tags name players and an event: the page with the most context
    game_position = first(
        "SELECT ?p WHERE { ?p a cp:Position ; cp:hasMatch ?m ; cp:hasEvent ?e ; "
        "cp:hasPlayerWhite ?w ; cp:plyInGame ?n . ?m dcterms:source ?record } "
        "ORDER BY DESC(?n > 0) ?p LIMIT 1"
    )
    puzzle = first("SELECT ?p WHERE { ?p a cp:Position ; cp:puzzleId ?id } ORDER BY ?p LIMIT 1")
    match = first(f"SELECT ?m WHERE {{ <{game_position}> cp:hasMatch ?m }} ORDER BY ?m LIMIT 1")
    player = first("SELECT ?p WHERE { ?p a cp:Player } ORDER BY ?p LIMIT 1")
    return {
        "game position": f"/page?iri={game_position}",
        "puzzle position": f"/page?iri={puzzle}",
        "match (resource)": f"/page?iri={match}",
        "player (resource)": f"/page?iri={player}",
        "class MateInOne": "/class/MateInOne",
    }


def imported_fixtures(directory: Path) -> str:
    from click.testing import CliRunner

    from chesskb.service.cli import cli

    store = directory / "store"
    result = CliRunner().invoke(
        cli,
        [
            "--store",
            str(store),
            "import",
            str(FIXTURES / "round-robin.pgn"),
            str(FIXTURES / "puzzles-30.csv"),
            "--jobs",
            "1",
        ],
    )
    if result.exit_code != 0:
        raise SystemExit(result.output)
    return str(store)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", help="an existing store (default: the test fixtures, imported here)")
    parser.add_argument("--verbose", action="store_true", help="list the named queries of each request")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chesskb-page-path-") as tmp:
        store_dir = args.store or imported_fixtures(Path(tmp))
        print(f"{'page':20} {'format':10} {'queries':>7} {'ser':>4} {'parse':>5}  libs")
        for page, url in pages(store_dir).items():
            for fmt, headers in FORMATS.items():
                if url.startswith("/class/") and fmt not in ("HTML", "JSON twin"):
                    continue  # a class page comes as HTML and JSON only (its RDF is embedded in the HTML)
                steps = measure(store_dir, url, headers)
                names = steps.named_queries()
                print(
                    f"{page:20} {fmt:10} {len(names):>7} {steps.counts['ser']:>4} {steps.counts['parse']:>5}  "
                    f"{'+'.join(sorted(steps.libraries))}"
                )
                if args.verbose:
                    print("    " + ", ".join(f"{n} x{c}" if c > 1 else n for n, c in Counter(names).items()))


if __name__ == "__main__":
    main()
