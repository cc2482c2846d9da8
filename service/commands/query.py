"""``chesskb query``: a SPARQL string, a .rq file or a canned query by name, over the whole knowledge base."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from chesskb.kb.store import QuerySyntaxError
from chesskb.queries import QueryError, load_query
from chesskb.queries.executor import prepare
from chesskb.queries.find import has_piece_index, pattern_scan
from chesskb.service.app import environment_setting
from chesskb.service.commands.base import CliContext, UsageProblem
from chesskb.service.commands.output import write_result
from chesskb.service.query_guard import TooDeep, check_nesting


def _parse_params(values: tuple[str, ...]) -> dict[str, str]:
    params = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key:
            raise UsageProblem(f"--param expects k=v, got {value!r}")
        params[key] = rest
    return params


@click.command("query")
@click.argument("sparql", required=False)
@click.option(
    "--file",
    "query_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read the query from a .rq file.",
)
@click.option("--name", default=None, help="Run the canned query queries/NAME.rq.")
@click.option("--param", "params", multiple=True, metavar="K=V", help="Canned query parameter (repeatable).")
@click.option(
    "--format", "fmt", type=click.Choice(["table", "json", "csv", "tsv", "xml"]), default="table", show_default=True
)
@click.pass_obj
def command(
    obj: CliContext, sparql: str | None, query_file: Path | None, name: str | None, params: tuple[str, ...], fmt: str
) -> None:
    """Run a SPARQL query over the whole knowledge base (all sources, the ontology included)."""
    given = [x for x in (sparql, query_file, name) if x]
    if len(given) != 1:
        raise UsageProblem("give exactly one of: a SPARQL string, --file F.rq, --name NAME")
    store = obj.open_store()
    if name:
        try:  # a canned query: bound and paged by the one query path (queries.executor)
            query = load_query(name)
            indexes = has_piece_index(store) if query.has_pattern else frozenset()
            scan = pattern_scan(store) if query.has_pattern else None
            text = prepare(name, _parse_params(params), public=True, indexes=indexes, scan=scan)
        except QueryError as exc:
            raise UsageProblem(str(exc)) from None
    else:
        if params:
            raise UsageProblem("--param goes with --name")
        text = query_file.read_text(encoding="utf-8") if query_file else str(sparql)
        try:  # before the store's parser, which would crash this process (setting QUERY_MAX_NESTING)
            check_nesting(text, int(environment_setting("QUERY_MAX_NESTING")))
        except TooDeep as exc:
            raise UsageProblem(str(exc)) from None
    try:
        result = store.query(text)
        write_result(result, fmt, sys.stdout.buffer)
    except QuerySyntaxError as exc:
        raise UsageProblem(f"SPARQL syntax error: {exc}") from None
    sys.stdout.flush()
