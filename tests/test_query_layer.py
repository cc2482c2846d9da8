"""One data-access layer (issue 20): every question the service, the CLI and ``kb/`` ask is a named
query in ``queries/``, bound with typed terms, run through one executor.

The structure test walks ``kb/``, ``service/`` and the Python of ``queries/`` with ``ast`` and fails on
any string that looks like SPARQL outside the ``.rq`` files, apart from the few places listed in
``ALLOWED`` with the reason they must write query text themselves.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, Store

from chesskb.kb.reading.names import name_key
from chesskb.kb.store.bindings import with_values
from chesskb.kb.vocab import PREFIXES
from chesskb.queries import QueryError, list_internal, list_queries, load_internal, load_query

ROOT = Path(__file__).resolve().parent.parent

#: A SPARQL query or update: a query form or update verb followed on its line by a group, a WHERE
#: group, or a GRAPH pattern. (SQL in ``kb/analysis/verify_cache.py`` has no braces: not matched.)
SPARQL = re.compile(
    r"\b(SELECT|ASK|CONSTRUCT|DESCRIBE|INSERT|DELETE)\b[^\n]*?\{|"
    r"\bWHERE\s*\{|\bGRAPH\s+[?<{⟨]",
    re.IGNORECASE,
)

#: Files that may hold SPARQL text, and why.
ALLOWED: dict[str, str] = {
    "kb/store/remote.py": "the store protocol over HTTP: SPARQL Update and reading graphs back are how a "
    "remote store implements replace_graphs/quads/named_graphs (terms written by pyoxigraph)",
    "kb/store/embedded.py": "the store protocol on disk (no query text today; listed with remote.py)",
    "kb/store/virtuoso.py": "Virtuoso's bulk loader, part of the remote store for Virtuoso: after loading it lists "
    "the loaded graphs in the registry graph RemoteStore reads (IRIs written by pyoxigraph)",
    "queries/find.py": "a query compiler: the pattern search is written from constants kb.search.patterns "
    "derives from the parsed pattern (escaped), as the canned queries' pattern type is; "
    "the source graph is bound with VALUES",
    "service/executor.py": "ALL_TRIPLES reads a CONSTRUCT answer back out of an in-memory graph (no values)",
}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def sparql_strings(folders: tuple[str, ...] = ("kb", "service", "queries")) -> list[tuple[str, int, bool, str]]:
    """(file, line, is an f-string, text) of every string constant that looks like SPARQL."""
    hits = []
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            skip = _docstrings(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.JoinedStr):
                    skip.update(id(part) for part in node.values)
                    text = "".join(part.value if isinstance(part, ast.Constant) else "⟨…⟩" for part in node.values)
                    formatted = True
                elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                    text, formatted = node.value, False
                else:
                    continue
                if SPARQL.search(text):
                    hits.append((path.relative_to(ROOT).as_posix(), node.lineno, formatted, text))
    return hits


def test_no_sparql_text_outside_queries_and_the_store_implementations() -> None:
    stray = [f"{file}:{line}: {text[:70]!r}" for file, line, _, text in sparql_strings() if file not in ALLOWED]
    assert stray == [], "write these as named queries in queries/internal/:\n" + "\n".join(stray)


def test_no_query_is_built_by_formatting_outside_the_store_protocol() -> None:
    """f-strings that write SPARQL paste text into a query; only the store implementations may (they
    write pyoxigraph-escaped terms) and the pattern compiler (constants it escapes itself)."""
    allowed = {"kb/store/remote.py", "kb/store/embedded.py", "kb/store/virtuoso.py", "queries/find.py"}
    formatted = [f"{file}:{line}" for file, line, is_f, _ in sparql_strings() if is_f and file not in allowed]
    assert formatted == []


def test_the_scanner_finds_sparql_it_is_shown() -> None:
    """The structure test can fail: the pattern catches the forms the code used to write."""
    for text in (
        'SELECT ?p WHERE { GRAPH <g> { ?p cp:positionKey "k" } }',
        "ASK { ?position a cp:Position }",
        "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }",
        "GRAPH <x> { ?s ?p ?o }",
    ):
        assert SPARQL.search(text), text
    assert not SPARQL.search("SELECT status FROM claims WHERE key = ?")


def _sample(param) -> object:
    samples = {
        "iri": NamedNode("http://example.org/x"),
        "class": "Exercise",
        "integer": "1",
        "decimal": "1.5",
        "date": "2000-01-01",
        "time": "12:00",
        "boolean": "true",
        "pattern": "Nf5",
        "pieces": "KR",
        "name": "Polgar",
        "keyword": "white",
        "string": 'a "quoted" } value',
    }
    value = samples[param.type]
    return [value, value] if param.many else value


@pytest.mark.parametrize("query", list_internal(), ids=lambda q: q.name)
def test_every_internal_query_binds_and_parses(query) -> None:
    given = {p.name: _sample(p) for p in query.params if p.default is None}
    text = with_values(query.unpaged_text(given), query.bind(given))
    Store().query(text, prefixes=PREFIXES)  # a syntax error raises


def test_internal_queries_are_not_public() -> None:
    """The public list (/queries, ``chesskb queries``) is the top-level files only, and an internal
    name neither shadows a public one nor loads as one."""
    public = {q.name for q in list_queries()}
    assert public == {path.stem for path in (ROOT / "queries").glob("*.rq")}
    internal = {q.name for q in list_internal()}
    assert internal and not internal & public
    for name in sorted(internal):
        with pytest.raises(QueryError):
            load_query(name)


def test_list_parameters_bind_one_row_each_and_values_stay_literals() -> None:
    query = load_internal("literal-values-by-graph")
    hostile = "http://example.org/a> } DROP ALL #"
    with pytest.raises(QueryError):
        query.bind({"subject": [hostile]})  # not an IRI: refused before any text is written
    bound = query.bind({"subject": [NamedNode("http://example.org/a"), "http://example.org/b"]})
    text = with_values(query.unpaged_text(), bound)
    assert "VALUES ?subject { <http://example.org/a> <http://example.org/b> }" in text
    with pytest.raises(QueryError):
        query.bind({"subject": Literal("x")})  # a list parameter takes a list


# --- one rule per question: standings ------------------------------------------------------------

ROUND_ROBIN = ROOT / "tests" / "fixtures" / "round-robin.pgn"
SCORE = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}


def _python_chess_standings(path: Path) -> dict[str, tuple[float, int, int]]:
    """(points, finished games, unfinished games) per player name key, read by python-chess."""
    import chess.pgn

    table: dict[str, list] = {}
    with open(path, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            result = game.headers.get("Result", "*")
            for colour, index in (("White", 0), ("Black", 1)):
                row = table.setdefault(name_key(game.headers[colour]), [0.0, 0, 0])
                if result in SCORE:
                    row[0] += SCORE[result][index]
                    row[1] += 1
                else:
                    row[2] += 1
    return {key: tuple(row) for key, row in table.items()}


def test_event_standings_query_and_event_page_agree_with_python_chess(tmp_path: Path) -> None:
    """Issue 20: on round-robin.pgn the query counted unfinished games as played while the page
    skipped them; both now follow kb.reports.standings, and both match python-chess's reading."""
    from chesskb.kb.store import open_store
    from chesskb.queries.executor import run
    from chesskb.service.app import create_app
    from tests.conftest import run_cli

    expected = _python_chess_standings(ROUND_ROBIN)
    assert any(row[2] for row in expected.values())  # the fixture has an unfinished game
    store_path = tmp_path / "store"
    assert run_cli("import", "--jobs", "1", str(ROUND_ROBIN), store=store_path).exit_code == 0
    store = open_store(str(store_path))
    rows = run(store, "event-standings", {"event": "Fixture Round Robin"}, public=True)
    by_query = {
        name_key(row["name"].value): (float(row["score"].value), int(row["games"].value), int(row["unfinished"].value))
        for row in rows
    }
    [event] = [row["e"].value for row in store.query("SELECT DISTINCT ?e WHERE { ?m cp:hasEvent ?e }")]
    client = create_app({"STORE": str(store_path)}, store=store).test_client()
    page = client.get("/page.json", query_string={"iri": event}).get_json()
    by_page = {name_key(row["name"]): (row["points"], row["played"], row["unfinished"]) for row in page["standings"]}
    assert by_query == expected
    assert by_page == expected


# --- the merge report: a constant number of queries ------------------------------------------------


class CountingStore:
    """A real store that counts the queries asked of it (the report's cost, not a mock)."""

    def __init__(self, store) -> None:
        self.store = store
        self.location = store.location
        self.queries = 0

    def query(self, sparql: str, **options):
        self.queries += 1
        return self.store.query(sparql, **options)


def test_merge_report_asks_the_same_number_of_queries_for_one_or_many_merged_games(tmp_path: Path) -> None:
    """The same games imported as two sources are merged; one game or all of them, the report asks
    the same number of queries (it used to ask four per game)."""
    import chess.pgn

    from chesskb.kb.merge.report import merge_report
    from chesskb.kb.store import open_store
    from tests.conftest import run_cli

    with open(ROOT / "tests" / "fixtures" / "competency.pgn", encoding="utf-8") as handle:
        games = []
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(str(game))
    assert len(games) > 5
    counts = []
    for name, chosen in (("one", games[:1]), ("all", games)):
        path = tmp_path / name
        for source in ("first", "second"):
            file = tmp_path / f"{name}-{source}.pgn"
            file.write_text("\n\n".join(chosen) + "\n", encoding="utf-8")
            assert run_cli("import", "--jobs", "1", "--source", source, str(file), store=path).exit_code == 0
        store = CountingStore(open_store(str(path)))
        report = merge_report(store)
        counts.append((len(report["games"]), store.queries))
    (one_games, one_queries), (all_games, all_queries) = counts
    assert one_games == 1 and all_games > 5
    assert all_queries == one_queries


# --- the time limit reaches a remote store ----------------------------------------------------------


def test_query_timeout_reaches_a_remote_store(tmp_path: Path) -> None:
    """QUERY_TIMEOUT is the HTTP timeout of each query on a SPARQL server: a runaway query answers
    503 naming the setting, as a killed worker does on the embedded store, instead of hanging."""
    import time

    from chesskb.kb.store.remote import RemoteStore
    from chesskb.service.app import create_app
    from tests.live_server import oxigraph_server

    with oxigraph_server(tmp_path / "oxigraph") as base:
        remote = RemoteStore(base + "/query", update_endpoint=base + "/update")
        remote.update("INSERT DATA { " + " ".join(f"<urn:s{i}> <urn:p> {i} ." for i in range(300)) + " }")
        client = create_app(
            {"STORE": base + "/query", "UPDATE_ENDPOINT": base + "/update", "QUERY_TIMEOUT": 1, "TESTING": True}
        ).test_client()
        fast = client.get(
            "/sparql",
            query_string={"query": "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"},
            headers={"Accept": "application/sparql-results+json"},
        )
        assert fast.status_code == 200 and fast.get_json()["results"]["bindings"][0]["n"]["value"] == "300"
        runaway = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"  # 8e9 rows
        started = time.monotonic()
        answer = client.get(
            "/sparql", query_string={"query": runaway}, headers={"Accept": "application/sparql-results+json"}
        )
        elapsed = time.monotonic() - started
    assert answer.status_code == 503, answer.get_data(as_text=True)
    assert "QUERY_TIMEOUT" in answer.get_data(as_text=True)
    assert elapsed < 10
