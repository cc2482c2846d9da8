"""Deep queries are refused before Oxigraph's parser sees them (issue 35: ``{`` × 5,000 crashed it).

Oxigraph's parser and planner recurse once per level of the query's tree, and a process runs out
of stack (a segmentation fault, not a Python error) past about 1,000 nested calls or 10,000 chained
FILTERs. ``service.query_guard.nesting`` bounds that depth from the text (QUERY_MAX_NESTING); these
tests check that the bound counts what deepens the tree and nothing else, that pyoxigraph itself
survives every shape at the default bound (in a child process, so a crash fails the test instead of
ending pytest), and that ``chesskb serve`` and ``chesskb query`` refuse a deeper query with a clear
message while a second client is still served.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from urllib.parse import quote

import pytest

from chesskb.service.app import DEFAULT_SETTINGS
from chesskb.service.query_guard import TooDeep, check_nesting, nesting
from tests.conftest import ROOT
from tests.live_server import http, live_server

LIMIT = DEFAULT_SETTINGS["QUERY_MAX_NESTING"]
CRASHING = "SELECT * WHERE " + "{" * 5000 + "}" * 5000

#: Query shapes whose tree grows one level per repetition (``n`` levels of the measure, roughly).
SHAPES: dict[str, Callable[[int], str]] = {
    "nested groups": lambda n: "SELECT * WHERE " + "{" * n + "}" * n,
    "nested calls": lambda n: "SELECT * WHERE { BIND(" + "STR(" * (n - 2) + "1" + ")" * (n - 2) + " AS ?x) }",
    "nested parentheses": lambda n: "ASK { FILTER(" + "(" * (n - 2) + "1" + ")" * (n - 2) + ") }",
    "nested EXISTS": lambda n: "ASK { " + "FILTER EXISTS { " * (n // 2) + "}" * (n // 2) + " }",
    "nested OPTIONAL": lambda n: "ASK { " + "OPTIONAL { " * (n // 2) + "}" * (n // 2) + " }",
    "nested subqueries": lambda n: "ASK " + "{ SELECT * WHERE " * (n // 2) + "{}" + "}" * (n // 2),
    "negations": lambda n: "ASK { FILTER(" + "!" * (n - 2) + "true) }",
    "or chain": lambda n: "ASK { FILTER(true" + " || true" * (n - 2) + ") }",
    "sum chain": lambda n: "ASK { FILTER(1" + " + 1" * (n - 2) + " > 0) }",
    "FILTER chain": lambda n: "ASK { " + "FILTER(true) " * (n - 1) + "}",
    "OPTIONAL chain": lambda n: "ASK { " + "OPTIONAL {} " * (n - 1) + "}",
    "UNION chain": lambda n: "ASK { {}" + " UNION {}" * (n - 1) + " }",
    "path sequence": lambda n: "ASK { ?s <http://x/p>" + "/<http://x/p>" * (n - 1) + " ?o }",
    "path alternatives": lambda n: "ASK { ?s <http://x/p>" + "|<http://x/p>" * (n - 1) + " ?o }",
}


def test_the_measure_counts_brackets_and_chaining_operators():
    assert nesting("SELECT * WHERE { ?s ?p ?o }") == 2  # the group, and `*`
    assert nesting("ASK {{{{}}}}") == 4
    assert nesting("ASK { {} {} {} {} }") == 2  # siblings are not deeper
    assert nesting("ASK { FILTER(?a || ?b && ?c) }") == 1 + 1 + 3  # group + call + FILTER, ||, &&
    assert nesting(CRASHING) == 5000 + 1  # and `*`


def test_what_hides_text_from_the_parser_is_not_counted():
    hidden = '''ASK { # {{{{ (((( || ||
        ?s <http://x/a-b> "((((||||" . ?s ?p '{{{{' . ?s ?p """}}}}""" }'''
    assert nesting(hidden) == 1


def test_values_data_is_flat_however_many_rows():
    rows = " ".join(f"(<http://x/{n}> {n})" for n in range(5000))
    assert nesting(f"SELECT * WHERE {{ VALUES (?a ?b) {{ {rows} }} }}") <= 3


def test_escaped_brackets_are_counted_as_the_parser_decodes_them():
    assert nesting("ASK " + "\\u007B" * 600) == 600


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_shape_past_the_bound_is_refused(shape):
    deep = SHAPES[shape](LIMIT + 20)
    with pytest.raises(TooDeep, match="QUERY_MAX_NESTING"):
        check_nesting(deep, LIMIT)


_SURVIVES = """
import sys
from pyoxigraph import Store
store = Store()
for query in sys.stdin.read().split("\\x00"):
    try:
        result = store.query(query)
        bool(result) if query.startswith("ASK") else list(result)
    except (SyntaxError, OSError, ValueError) as exc:
        print("error:", exc)
print("alive")
"""


@pytest.mark.slow  # every query shape at the default nesting bound, in a child process
def test_pyoxigraph_survives_every_shape_at_the_default_bound():
    """The default is safe: each shape as deep as the bound lets through runs in pyoxigraph, in a child
    process (its main thread has the stack a query worker has), and the process lives."""
    queries = []
    for shape in SHAPES.values():
        depth = LIMIT
        while nesting(shape(depth)) > LIMIT:
            depth -= 1
        queries.append(shape(depth))
        assert nesting(queries[-1]) > LIMIT * 0.8, queries[-1][:80]  # the shape really is near the bound
    done = subprocess.run(
        [sys.executable, "-c", _SURVIVES], input="\x00".join(queries), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0 and done.stdout.endswith("alive\n"), (done.returncode, done.stdout[-500:])


def test_chesskb_query_refuses_a_deep_query_with_a_clear_message(small_store):
    done = subprocess.run(
        [sys.executable, "-m", "chesskb", "--store", str(small_store), "query", CRASHING],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    assert "nested or chained too deeply" in done.stderr and "QUERY_MAX_NESTING" in done.stderr, done.stderr


def test_chesskb_serve_refuses_a_deep_query_and_serves_the_next_client(small_store):
    with live_server(small_store, "--workers", "1") as base:
        for _ in range(5):  # a storm of them: none reaches the single worker
            status, _, body = http(
                "POST",
                base + "/sparql",
                body=CRASHING.encode(),
                headers={"Content-Type": "application/sparql-query"},
                source="127.0.0.30",
            )
            assert status == 400 and b"QUERY_MAX_NESTING" in body, (status, body[:300])
        status, _, body = http(
            "GET", base + "/sparql?query=" + quote("ASK " + "{" * 1000 + "}" * 1000), source="127.0.0.30"
        )
        assert status == 400 and b"QUERY_MAX_NESTING" in body, (status, body[:300])
        status, _, body = http("GET", base + "/sparql?query=" + quote("ASK { ?s ?p ?o }"), source="127.0.1.31")
        assert status == 200 and b"true" in body, (status, body[:300])
        # the attacker's address was not backed off either: a refused query cost no worker
        status, _, _ = http("GET", base + "/sparql?query=" + quote("ASK {}"), source="127.0.0.30")
        assert status == 200
