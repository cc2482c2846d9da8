"""``chesskb import``: PGN files and lichess puzzle CSVs into the store (``kb.importer``), with progress."""

from __future__ import annotations

from pathlib import Path

import click

from chesskb.kb.findings import Finding
from chesskb.kb.importer import ImportRefused, group_files, import_files, planned_fingerprint, sources_checksum
from chesskb.kb.merge.freshness import unchanged_sources
from chesskb.kb.pipeline import default_jobs
from chesskb.service.commands.base import CliContext, DataProblem, UsageProblem, counted, reading_options
from chesskb.service.progress import TerminalProgress, import_status


@click.command("import")
@reading_options
@click.option(
    "--mine",
    is_flag=True,
    help="Run the engine (stockfish) over every game and add a Position for each forced mate or "
    "decisive gain the game shows.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Import every source again, even one whose files, options and chesskb code are those it was "
    "imported with (by default such a source is left as it is).",
)
@click.option(
    "--skip-unchanged",
    is_flag=True,
    help="Leave alone every source whose files are byte-identical to the ones it was imported from, "
    "imported by the same chesskb code with the same options and engine: the default, kept for scripts.",
)
@click.pass_obj
def command(
    obj: CliContext,
    files: tuple[Path, ...],
    source: str | None,
    themes: tuple[str, ...],
    lang: str | None,
    jobs: int | None,
    cluster: str | None,
    mine: bool,
    force: bool,
    skip_unchanged: bool,
) -> None:
    """Import PGN files (.pgn, .pgn.gz, .pgn.zst) or lichess puzzle CSVs into the store.

    A source whose files, options, engine and chesskb code are those it was imported with is left as it
    is (importing it again would state the same facts); --force imports it again."""
    if force and skip_unchanged:
        raise UsageProblem("--force and --skip-unchanged contradict each other: give one of them")
    if not force:
        files = _changed_files(obj, files, source, themes, lang, mine)
        if not files:
            return
    progress = TerminalProgress()

    def on_finding(finding: Finding) -> None:
        progress.done()
        click.echo(str(finding), err=True)

    try:
        report = import_files(
            obj.open_store(),
            list(files),
            source=source,
            themes=themes,
            base_iri=obj.base_iri,
            lang=lang,
            jobs=jobs or default_jobs(),
            mine=mine,
            progress=import_status(progress),
            on_finding=on_finding,
            cluster=cluster,
        )
    except ImportRefused as exc:
        raise UsageProblem(str(exc)) from None
    progress.done()
    names = ", ".join(s.name for s in report.sources)
    if report.games == 0:
        raise DataProblem(
            f"nothing imported: no readable game in {len(files)} file(s); "
            f"{report.errors} error(s); the store is unchanged"
        )
    rate = report.games / report.seconds if report.seconds else 0.0
    label = "source" if len(report.sources) == 1 else f"{len(report.sources)} sources:"
    rate_text = f"{rate:,.0f}" if rate >= 10 else f"{rate:.2f}"  # mining runs at a game every few seconds
    click.echo(
        f"imported {counted(report.games, 'game')} into {label} {names} "
        f"({report.errors} skipped with errors, {report.quads} quads, {report.seconds:.1f} s, "
        f"{rate_text} games/s) -> {obj.store_location}"
    )


def _changed_files(
    obj: CliContext, files: tuple[Path, ...], source: str | None, themes: tuple[str, ...], lang: str | None, mine: bool
) -> tuple[Path, ...]:
    """The files of the sources that importing again would change; says which sources are left alone."""
    try:
        groups = group_files(files, source)
        fingerprint = planned_fingerprint(themes, lang=lang, mine=mine)
    except ImportRefused as exc:
        raise UsageProblem(str(exc)) from None
    checksums = {name: sources_checksum(paths) for name, paths in groups.items()}
    unchanged = unchanged_sources(obj.open_store(), checksums, fingerprint, base_iri=obj.base_iri)
    if unchanged:
        click.echo(f"unchanged, not imported again: {len(unchanged)} source(s): {', '.join(sorted(unchanged))}")
    return tuple(path for name, paths in groups.items() if name not in unchanged for path in paths)
