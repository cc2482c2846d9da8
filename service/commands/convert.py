"""``chesskb convert FILES -o OUT.nq.gz``: an import written as N-Quads, for a server's bulk loader.

See ``kb.export.convert`` for what the file holds, and docs/remote-stores.md for loading it into Oxigraph,
Jena TDB2, QLever or Virtuoso and pointing ``chesskb`` at the result.
"""

from __future__ import annotations

from pathlib import Path

import click

from chesskb.kb.export.convert import convert_files
from chesskb.kb.findings import Finding
from chesskb.kb.importer import ImportRefused
from chesskb.kb.pipeline import default_jobs
from chesskb.kb.store.nquads_parts import MANIFEST, PartNotWritten
from chesskb.service.commands.base import DataProblem, UsageProblem, reading_options
from chesskb.service.progress import TerminalProgress, import_status


@click.command("convert")
@reading_options
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    required=True,
    help="The N-Quads file to write (gzip when it ends in .gz, e.g. kb.nq.gz); with --parts, a folder.",
)
@click.option(
    "--parts",
    is_flag=True,
    default=False,
    help="Write a folder of gzip N-Quads parts, each unit's written by its worker, and manifest.sha256 "
    "listing them (with --cluster the folder must be shared by every worker at the same path; docs/cluster.md).",
)
@click.pass_context
def command(
    ctx: click.Context,
    files: tuple[Path, ...],
    output: Path,
    source: str | None,
    themes: tuple[str, ...],
    lang: str | None,
    jobs: int | None,
    cluster: str | None,
    parts: bool,
) -> None:
    """Write what `import` would load (analysis included) as N-Quads for a SPARQL server's bulk loader."""
    base_iri = ctx.obj.base_iri if ctx.obj is not None else None

    status = TerminalProgress()

    def on_finding(finding: Finding) -> None:
        status.done()
        click.echo(str(finding), err=True)

    try:
        report = convert_files(
            list(files),
            output,
            source=source,
            themes=themes,
            base_iri=base_iri,
            lang=lang,
            jobs=jobs or default_jobs(),
            progress=import_status(status),
            on_finding=on_finding,
            cluster=cluster,
            parts=parts,
        )
    except ImportRefused as exc:
        raise UsageProblem(str(exc)) from None
    except PartNotWritten as exc:
        raise UsageProblem(f"{exc}; no manifest was written", show_usage=False) from None
    finally:
        status.done()
    if report.games == 0:
        raise DataProblem(
            f"nothing converted: no readable game in {len(files)} file(s); "
            f"{report.errors} error(s); {output} was not written"
        )
    names = ", ".join(s.name for s in report.sources)
    click.echo(
        f"converted {report.games} games of {names} ({report.errors} skipped with errors, "
        f"{report.seconds:.1f} s) -> {output / MANIFEST if parts else output}"
    )
