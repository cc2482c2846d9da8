"""The ``chesskb`` command: the interface users and other tools script against.

Command names, options and output shapes here are public; keep them. Errors are one line on
stderr and an exit code, never a traceback. Every command ends in one of these codes, decided here
(``EXIT_*`` and the two exception types of ``service/commands/base.py``, mapped by ``main``), and
listed in ``chesskb --help`` and the README:

* 0 — done; for ``validate`` and ``check`` also: valid, consistent.
* 1 — ``DataProblem``: the command ran and the data said no — invalid or inconsistent data, no
  readable game, no such source or course, a store that cannot be read or written, a failed step.
* 2 — ``UsageProblem``: the command could not do what was asked, so nothing was decided — a wrong
  option, argument, name, file or query, or something it needs is missing or failed (Java, the
  reasoner, stockfish).
* 130 — interrupted (Ctrl-C).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path

import click

from chesskb import __version__
from chesskb.kb.checks.findings import Finding
from chesskb.kb.merge.freshness import import_fingerprint, unchanged_sources
from chesskb.kb.importer import (
    ImportError_,
    group_files,
    import_files,
    remove_source,
    sources_checksum,
    validate_themes,
)
from chesskb.kb.mapping.iris import BASE_IRI_ENV, default_base_iri
from chesskb.kb.pipeline import default_jobs
from chesskb.kb.export.safe_output import atomic_output
from chesskb.kb.export.terminal import printable
from chesskb.kb.store import STORE_ENV, EmbeddedStore, QuerySyntaxError, Store, StoreError, default_store_location
from chesskb.service.commands import (bench_queries, check, classify, convert, course, find, html, merge_report,
                                      queries_cmd, serve, site, validate)
from chesskb.service.commands.base import (EXIT_CODES_HELP, EXIT_DATA, EXIT_INTERRUPTED, EXIT_OK, CliContext,
                                           DataProblem, UsageProblem, reading_options)
from chesskb.service.commands.output import write_result
from chesskb.service.progress import TerminalProgress, import_status

#: Commands that live in their own modules (``service/commands/NAME.py`` exposing ``command``), imported by
#: name: a missing or broken module stops the CLI at start instead of silently dropping its command.
COMMAND_MODULES = (validate, classify, queries_cmd, serve, check, merge_report, site, html, course,
                   bench_queries, convert, find)


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODES_HELP)
@click.option("--store", "store_location", envvar=STORE_ENV, default=None, metavar="PATH|URL",
              help=f"Store directory, or a SPARQL 1.1 endpoint URL (default ${STORE_ENV} or ./chesskb-store).")
@click.option("--update-endpoint", default=None, metavar="URL",
              help="SPARQL Update URL of a remote store, when it differs from the query URL.")
@click.option("--graph-store", default=None, metavar="URL",
              help="Graph Store Protocol URL of a remote store, for loading imports (derived for an Oxigraph "
                   "server; without one, or with '', imports are sent as SPARQL INSERT DATA requests).")
@click.option("--base-iri", envvar=BASE_IRI_ENV, default=None, metavar="IRI",
              help=f"Base IRI of individuals (default ${BASE_IRI_ENV} or {default_base_iri()}).")
@click.version_option(version=__version__, prog_name="chesskb")
@click.pass_context
def cli(ctx: click.Context, store_location: str | None, update_endpoint: str | None, graph_store: str | None,
        base_iri: str | None) -> None:
    """ChessPosition KB: didactic chess positions as a linked knowledge base."""
    ctx.obj = CliContext(store_location or default_store_location(), update_endpoint,
                         base_iri or default_base_iri(), graph_store)


# --- import ---------------------------------------------------------------------------------

@cli.command("import")
@reading_options
@click.option("--mine", is_flag=True,
              help="Run the engine (stockfish) over every game and add a Position for each forced mate or "
                   "decisive gain the game shows.")
@click.option("--skip-unchanged", is_flag=True,
              help="Leave alone every source whose files are byte-identical to the ones it was imported from, "
                   "imported by the same chesskb code with the same options (a fast second start).")
@click.pass_obj
def import_command(obj: CliContext, files: tuple[Path, ...], source: str | None, themes: tuple[str, ...],
                   lang: str | None, jobs: int | None, cluster: str | None, mine: bool, skip_unchanged: bool) -> None:
    """Import PGN files (.pgn, .pgn.gz, .pgn.zst) or lichess puzzle CSVs into the store."""
    if skip_unchanged:
        files = _changed_files(obj, files, source, themes, lang, mine)
        if not files:
            return
    progress = TerminalProgress()

    def on_finding(finding: Finding) -> None:
        progress.done()
        click.echo(str(finding), err=True)

    try:
        report = import_files(obj.open_store(), list(files), source=source, themes=themes,
                              base_iri=obj.base_iri, lang=lang, jobs=jobs or default_jobs(), mine=mine,
                              progress=import_status(progress),
                              on_finding=on_finding, cluster=cluster)
    except ImportError_ as exc:
        raise UsageProblem(str(exc)) from None
    progress.done()
    names = ", ".join(s.name for s in report.sources)
    if report.games == 0:
        raise DataProblem(f"nothing imported: no readable game in {len(files)} file(s); "
                          f"{report.errors} error(s); the store is unchanged")
    rate = report.games / report.seconds if report.seconds else 0.0
    label = "source" if len(report.sources) == 1 else f"{len(report.sources)} sources:"
    rate_text = f"{rate:,.0f}" if rate >= 10 else f"{rate:.2f}"  # mining runs at a game every few seconds
    click.echo(f"imported {report.games} games into {label} {names} "
               f"({report.errors} skipped with errors, {report.quads} quads, {report.seconds:.1f} s, "
               f"{rate_text} games/s) -> {obj.store_location}")


def _changed_files(obj: CliContext, files: tuple[Path, ...], source: str | None, themes: tuple[str, ...],
                   lang: str | None, mine: bool) -> tuple[Path, ...]:
    """The files of the sources that importing again would change; says which sources are left alone."""
    try:
        groups = group_files(files, source)
        fingerprint = import_fingerprint(themes=validate_themes(themes), lang=lang, mine=mine)
    except ImportError_ as exc:
        raise UsageProblem(str(exc)) from None
    checksums = {name: sources_checksum(paths) for name, paths in groups.items()}
    unchanged = unchanged_sources(obj.open_store(), checksums, fingerprint, base_iri=obj.base_iri)
    if unchanged:
        click.echo(f"unchanged, not imported again: {len(unchanged)} source(s): {', '.join(sorted(unchanged))}")
    return tuple(path for name, paths in groups.items() if name not in unchanged for path in paths)


# --- query ----------------------------------------------------------------------------------

def _parse_params(values: tuple[str, ...]) -> dict[str, str]:
    params = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key:
            raise UsageProblem(f"--param expects k=v, got {value!r}")
        params[key] = rest
    return params


@cli.command("query")
@click.argument("sparql", required=False)
@click.option("--file", "query_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Read the query from a .rq file.")
@click.option("--name", default=None, help="Run the canned query queries/NAME.rq.")
@click.option("--param", "params", multiple=True, metavar="K=V", help="Canned query parameter (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "tsv", "xml"]), default="table",
              show_default=True)
@click.pass_obj
def query_command(obj: CliContext, sparql: str | None, query_file: Path | None, name: str | None,
                  params: tuple[str, ...], fmt: str) -> None:
    """Run a SPARQL query over the whole knowledge base (all sources, the ontology included)."""
    from chesskb.kb.search.find import has_piece_index
    from chesskb.kb.store.executor import prepare
    from chesskb.queries import QueryError, load_query

    given = [x for x in (sparql, query_file, name) if x]
    if len(given) != 1:
        raise UsageProblem("give exactly one of: a SPARQL string, --file F.rq, --name NAME")
    store = obj.open_store()
    if name:
        try:  # a canned query: bound and paged by the one query path (kb.store.executor)
            query = load_query(name)
            indexes = has_piece_index(store) if query.has_pattern else frozenset()
            text = prepare(name, _parse_params(params), public=True, indexes=indexes)
        except QueryError as exc:
            raise UsageProblem(str(exc)) from None
    else:
        if params:
            raise UsageProblem("--param goes with --name")
        text = query_file.read_text(encoding="utf-8") if query_file else str(sparql)
    try:
        result = store.query(text)
        write_result(result, fmt, sys.stdout.buffer)
    except QuerySyntaxError as exc:
        raise UsageProblem(f"SPARQL syntax error: {exc}") from None
    sys.stdout.flush()


# --- export, stats, sources -----------------------------------------------------------------

@cli.command("export")
@click.option("--format", "fmt", type=click.Choice(["owl", "owlxml", "ttl", "nt", "nq", "jsonld", "pgn"]),
              required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Output file (default: standard output).")
@click.option("--source", default=None, help="Export only this source (with the ontology).")
@click.pass_obj
def export_command(obj: CliContext, fmt: str, output: Path | None, source: str | None) -> None:
    """Export the knowledge base; --format owl is RDF/XML (ontology + individuals) for Protégé,
    owlxml the same in OWL/XML (written by the OWL API; needs Java), --format pgn the exercises as
    PGN (SetUp/FEN, solution and comments) for other chess software."""
    from chesskb.kb.export.rdf import write_export

    store = obj.open_store()
    if fmt == "pgn":
        _export_pgn(store, output, source, obj.base_iri)
        return
    if fmt == "owlxml":
        write_export = _owlxml_writer()
    if output is None:
        write_export(store, fmt, sys.stdout.buffer, source=source, base_iri=obj.base_iri)
        sys.stdout.flush()
        return
    with atomic_output(output) as handle:  # a failed export leaves no half-written file behind
        write_export(store, fmt, handle, source=source, base_iri=obj.base_iri)
    click.echo(f"wrote {output} ({output.stat().st_size:,} bytes)", err=True)


def _owlxml_writer():
    """``write_owlxml`` with Java's absence (exit 2) and the OWL API's refusal (exit 1) as one line."""
    from chesskb.kb.export.owlxml import ConversionFailed, JavaMissing, write_owlxml

    def write(store: Store, fmt: str, output, **options) -> None:
        try:
            write_owlxml(store, output, **options)
        except JavaMissing as exc:
            raise UsageProblem(str(exc), show_usage=False) from None
        except ConversionFailed as exc:
            raise DataProblem(str(exc)) from None

    return write


def _export_pgn(store: Store, output: Path | None, source: str | None, base_iri: str | None) -> None:
    from chesskb.kb.export.pgn import write_pgn

    if output is None:
        write_pgn(store, sys.stdout, source=source, base_iri=base_iri)
        return
    with atomic_output(output, "w", encoding="utf-8", newline="\n") as handle:
        games = write_pgn(store, handle, source=source, base_iri=base_iri)
    click.echo(f"wrote {output} ({games:,} games)", err=True)


def _engine_note() -> str:
    try:
        engine = importlib.import_module("chesskb.kb.analysis.engine")
    except ImportError:
        return "no engine support in this build: mate claims longer than 2 moves stay unverified"
    return engine.engine_status()


@cli.command("stats")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.pass_obj
def stats_command(obj: CliContext, fmt: str) -> None:
    """Counts of positions, games, players, events and theme classes."""
    from chesskb.kb.reports.stats import kb_stats, list_sources

    store = obj.open_store()
    stats = kb_stats(store)
    stats["sources"] = len(list_sources(store, base_iri=obj.base_iri))
    stats["engine"] = _engine_note()
    if fmt == "json":
        click.echo(json.dumps(stats, indent=2, ensure_ascii=False))
        return
    click.echo(f"store      {stats['store']}")
    for key in ("sources", "positions", "matches", "players", "events"):
        click.echo(f"{key:<10} {stats[key]}")
    click.echo(f"engine     {stats['engine']}")
    if stats["classes"]:
        click.echo("classes (asserted or detected, direct):")
        for name, count in stats["classes"].items():
            click.echo(f"  {name:<22} {count}")


@cli.command("sources")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.pass_obj
def sources_command(obj: CliContext, fmt: str) -> None:
    """The sources in the store with counts, import time and file checksum."""
    from chesskb.kb.reports.stats import list_sources

    sources = list_sources(obj.open_store(), base_iri=obj.base_iri)
    if fmt == "json":
        click.echo(json.dumps(sources, indent=2, ensure_ascii=False))
        return
    if not sources:
        click.echo("no sources")
        return
    for source in sources:
        click.echo(printable(f"{source['name']}  positions={source['positions']} games={source['games']} "
                             f"players={source['players']} imported={source['importedAt']} "
                             f"files={source['files']} checksum={source['checksum']}"))


@cli.command("remove-source")
@click.argument("name")
@click.pass_obj
def remove_source_command(obj: CliContext, name: str) -> None:
    """Remove one source; what other sources also contain stays."""
    if not remove_source(obj.open_store(), name, base_iri=obj.base_iri):
        raise DataProblem(f"no source named {name!r} in {obj.store_location}")
    click.echo(f"removed source {name}")


@cli.command("compact")
@click.pass_obj
def compact_command(obj: CliContext) -> None:
    """Rewrite a store written before the compact layout (each statement also in its source's graph)
    in that layout, its files compacted by RocksDB: same answers, a third of the disk."""
    store = obj.open_store()
    if not isinstance(store, EmbeddedStore):
        raise UsageProblem("compact rewrites an embedded store directory; a SPARQL server keeps the layout "
                           "it was loaded in (docs/remote-stores.md)")
    try:
        done = store.compact()
    except StoreError as exc:
        raise DataProblem(str(exc)) from None
    click.echo(f"compacted {obj.store_location}: {done.read:,} quads -> {done.written:,} "
               f"({done.subjects:,} subjects)")


for _module in COMMAND_MODULES:
    cli.add_command(_module.command)


def main() -> None:
    """Entry point: errors become one line on stderr and an exit code, never a traceback.

    Commands that use the engine open and stop it themselves (``kb.analysis.engine.open_engine``)."""
    _run()


def _run() -> None:
    """Every way a command ends, as an exit code (the table in the module docstring)."""
    try:
        code = cli.main(standalone_mode=False)  # click returns an Exit's code instead of raising it
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(EXIT_DATA)
    except click.ClickException as exc:  # UsageProblem, DataProblem and click's own usage errors
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except (StoreError, OSError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_DATA)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except Exception as exc:  # a bug: still one line, the traceback only on request
        if os.environ.get("CHESSKB_DEBUG"):
            raise
        click.echo(f"internal error: {type(exc).__name__}: {exc} (set CHESSKB_DEBUG=1 for the traceback)",
                   err=True)
        sys.exit(EXIT_DATA)
    sys.exit(code if isinstance(code, int) else EXIT_OK)


if __name__ == "__main__":
    main()
