"""``chesskb export``: the knowledge base as RDF (for Protégé and RDF tools), OWL/XML, or the exercises as PGN."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import BinaryIO

import click

from chesskb.kb.export.rdf import write_export
from chesskb.kb.safe_output import atomic_output
from chesskb.kb.store import Store
from chesskb.service.commands.base import CliContext, DataProblem, UsageProblem


@click.command("export")
@click.option(
    "--format", "fmt", type=click.Choice(["owl", "owlxml", "ttl", "nt", "nq", "jsonld", "pgn"]), required=True
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Output file (default: standard output).",
)
@click.option("--source", default=None, help="Export only this source (with the ontology).")
@click.pass_obj
def command(obj: CliContext, fmt: str, output: Path | None, source: str | None) -> None:
    """Export the knowledge base; --format owl is RDF/XML (ontology + individuals) for Protégé,
    owlxml the same in OWL/XML (written by the OWL API; needs Java), --format pgn the exercises as
    PGN (SetUp/FEN, solution and comments) for other chess software."""
    store = obj.open_store()
    if fmt == "pgn":
        _export_pgn(store, output, source, obj.base_iri)
        return
    write = _write_owlxml if fmt == "owlxml" else write_export
    if output is None:
        write(store, fmt, sys.stdout.buffer, source=source, base_iri=obj.base_iri)
        sys.stdout.flush()
        return
    with atomic_output(output) as handle:  # a failed export leaves no half-written file behind
        write(store, fmt, handle, source=source, base_iri=obj.base_iri)
    click.echo(f"wrote {output} ({output.stat().st_size:,} bytes)", err=True)


def _write_owlxml(
    store: Store, fmt: str, output: BinaryIO, *, source: str | None = None, base_iri: str | None = None
) -> None:
    """``write_owlxml``, called as ``write_export`` is, with Java's absence (exit 2) and the OWL API's refusal
    (exit 1) as one line."""
    from chesskb.kb.export.owlxml import ConversionFailed, JavaMissing, write_owlxml

    try:
        write_owlxml(store, output, source=source, base_iri=base_iri)
    except JavaMissing as exc:
        raise UsageProblem(str(exc), show_usage=False) from None
    except ConversionFailed as exc:
        raise DataProblem(str(exc)) from None


def _export_pgn(store: Store, output: Path | None, source: str | None, base_iri: str | None) -> None:
    from chesskb.kb.export.pgn import write_pgn

    if output is None:
        write_pgn(store, sys.stdout, source=source, base_iri=base_iri)
        return
    with atomic_output(output, "w", encoding="utf-8", newline="\n") as handle:
        games = write_pgn(store, handle, source=source, base_iri=base_iri)
    click.echo(f"wrote {output} ({games:,} games)", err=True)
