"""``chesskb bench-queries``: time every canned query against the store, in one process.

The figures are what a user of the embedded store sees from Python: query planning, evaluation and
reading every row. Each query runs once untimed first so the store's caches (and Oxigraph's
lazily opened column families) are warm, then ``--repeat`` timed runs.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass

import click
from pyoxigraph import QueryBoolean

from chesskb.kb.store.base import QueryResult, Store, Term
from chesskb.service.commands.base import CliContext


@dataclass
class QueryTiming:
    """The public JSON shape of one row: ``{"name", "median_ms", "p95_ms", "rows"}``."""

    name: str
    median_ms: float
    p95_ms: float
    rows: int


def percentile(samples: list[float], fraction: float) -> float:
    """Nearest-rank percentile: with few samples an interpolated p95 would invent a value."""
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), math.ceil(fraction * len(ordered))))
    return ordered[rank - 1]


def count_rows(result: QueryResult) -> int:
    """Rows of a SELECT, triples of a CONSTRUCT, 1 for an ASK (reading them is part of the cost)."""
    if isinstance(result, QueryBoolean):
        return 1
    return sum(1 for _ in result)


def time_query(store: Store, text: str, bindings: Mapping[str, Term] | None, repeat: int) -> tuple[list[float], int]:
    """Milliseconds of ``repeat`` runs after one warm-up run, and the row count."""
    rows = count_rows(store.query(text, bindings=bindings))
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        rows = count_rows(store.query(text, bindings=bindings))
        samples.append((time.perf_counter() - start) * 1000.0)
    return samples, rows


def bench_queries(store: Store, repeat: int, names: tuple[str, ...] = ()) -> list[QueryTiming]:
    """Time the canned queries (all, or those named) with their default parameters; a query with a
    parameter that has no default is left out."""
    from chesskb.queries import list_queries
    from chesskb.queries.executor import prepare

    timings = []
    for canned in list_queries():
        if names and canned.name not in names:
            continue
        if any(p.default is None for p in canned.params):
            continue  # needs a value only the user has (e.g. a position IRI): no default to time
        # the default page, bound as every run of the query is (queries.executor.prepare)
        samples, rows = time_query(store, prepare(canned.name, {}, public=True), None, repeat)
        timings.append(
            QueryTiming(canned.name, round(statistics.median(samples), 2), round(percentile(samples, 0.95), 2), rows)
        )
    return timings


@click.command("bench-queries")
@click.option(
    "--repeat",
    default=10,
    show_default=True,
    type=click.IntRange(1, 10_000),
    help="Timed runs per query (after one warm-up run).",
)
@click.option("--name", "names", multiple=True, metavar="NAME", help="Only this canned query (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.pass_obj
def command(obj: CliContext, repeat: int, names: tuple[str, ...], fmt: str) -> None:
    """Time every canned query with its default parameters: median and p95 in milliseconds."""
    timings = bench_queries(obj.open_store(), repeat, names)
    if fmt == "json":
        json.dump([asdict(t) for t in timings], sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    width = max([len(t.name) for t in timings] + [4])
    click.echo(f"{'name':<{width}}  {'median_ms':>10}  {'p95_ms':>10}  {'rows':>8}")
    for t in timings:
        click.echo(f"{t.name:<{width}}  {t.median_ms:>10.2f}  {t.p95_ms:>10.2f}  {t.rows:>8}")
