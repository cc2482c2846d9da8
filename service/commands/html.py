"""``chesskb html FILE.pgn -o DIR``: one PGN file as a static web site, without a store.

The file is imported into a temporary store (the importer's checks and analysis, the same pages)
which is thrown away afterwards: the original program's "PGN in, web pages out", linked.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from chesskb.kb.importer import ImportRefused, import_files
from chesskb.kb.store import EmbeddedStore
from chesskb.service.commands.base import CliContext, DataProblem, UsageProblem
from chesskb.service.commands.site import write_site


@click.command("html")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--lang", default=None, metavar="CODE", help="Piece letters of the file's language (es, it, fr, de …).")
@click.pass_obj
def command(obj: CliContext, file: Path, out_dir: Path, lang: str | None) -> None:
    """Turn one PGN file into a static web site of its positions (no store needed)."""
    with tempfile.TemporaryDirectory(prefix="chesskb-html-") as tmp:
        store = EmbeddedStore(Path(tmp) / "store")
        try:
            report = import_files(
                store,
                [file],
                base_iri=obj.base_iri,
                lang=lang,
                jobs=1,
                on_finding=lambda finding: click.echo(str(finding), err=True),
            )
        except ImportRefused as exc:  # a usage error, as in `import` (it used to exit 1 here)
            raise UsageProblem(str(exc)) from None
        if report.games == 0:
            raise DataProblem(f"{file}: no readable game; nothing written")
        files = write_site(store, out_dir, base_iri=obj.base_iri)
    click.echo(f"wrote {files} files for {report.games} games to {out_dir} (open {out_dir / 'index.html'})")
