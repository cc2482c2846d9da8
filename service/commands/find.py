"""``chesskb find PATTERN``: positions whose board matches a pattern (the language is in ``kb.search.patterns``)."""

from __future__ import annotations

import sys

import click

from chesskb.kb.store import QuerySyntaxError
from chesskb.service.commands.base import CliContext, DataProblem, UsageProblem


@click.command("find")
@click.argument("pattern", default="")
@click.option("--side", type=click.Choice(["w", "b", "white", "black"]), default=None, help="Side to move.")
@click.option(
    "--material",
    default=None,
    metavar="SIG",
    help="Material, White's pieces then Black's: KRP-KR; '+' after a side: at least these (KR+-K).",
)
@click.option(
    "--either-colour",
    "--either-color",
    "either_colour",
    is_flag=True,
    help="Also match the colour-flipped pattern (ranks mirrored, colours, side and material swapped).",
)
@click.option("--source", default=None, help="Only positions of this source.")
@click.option(
    "--limit", type=click.IntRange(min=0), default=100, show_default=True, help="Rows to return (0: every row)."
)
@click.option("--offset", type=click.IntRange(min=0), default=0, help="Rows to skip (for the next page).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True)
@click.option(
    "--show-sparql",
    is_flag=True,
    help="Print the standard SPARQL query instead of running it (for any SPARQL 1.1 store).",
)
@click.pass_obj
def command(
    obj: CliContext,
    pattern: str,
    side: str | None,
    material: str | None,
    either_colour: bool,
    source: str | None,
    limit: int,
    offset: int,
    fmt: str,
    show_sparql: bool,
) -> None:
    """Positions matching PATTERN: pieces on squares (Nf5 kg8 R*7) or a FEN-form board
    (*/*/*/*/???PP???/*/*/*), optionally with the side to move (w/b) and material (KRP-KR)."""
    from chesskb.kb.mapping.iris import IriMinter
    from chesskb.kb.search.patterns import PatternError, parse
    from chesskb.kb.vocab import PREFIXES
    from chesskb.queries.find import FindError, find_query, has_board_strings, has_positions, page_query
    from chesskb.service.commands.output import write_result

    try:
        parsed = parse(pattern, side=side, material=material, either_colour=either_colour)
        graph = IriMinter(obj.base_iri).source_graph(source).value if source else None
        sparql = find_query(parsed, source_graph=graph, limit=limit, offset=offset)
    except (PatternError, FindError) as exc:
        raise UsageProblem(str(exc)) from None
    if show_sparql:
        prologue = "".join(f"PREFIX {prefix}: <{iri}>\n" for prefix, iri in PREFIXES.items() if f"{prefix}:" in sparql)
        click.echo(prologue + sparql, nl=False)
        return
    store = obj.open_store()
    if not has_board_strings(store) and has_positions(store):
        raise DataProblem(
            "the positions in this store have no cp:boardSquares (imported before patterns "
            "existed): import the sources again to search them by pattern"
        )
    try:
        sparql = page_query(store, parsed, source_graph=graph, limit=limit, offset=offset)
        write_result(store.query(sparql), fmt, sys.stdout.buffer)
    except QuerySyntaxError as exc:  # a bug here, not the user's: the pattern never reaches SPARQL as text
        raise DataProblem(f"internal SPARQL error: {exc}") from None
    sys.stdout.flush()
