"""``chesskb site -o DIR [--source NAME]``: the knowledge base (or one source) as a static web site."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import click
from pyoxigraph import Quad

from chesskb.kb.export.rdf import write_export
from chesskb.kb.safe_output import UnsafeOutput, atomic_output
from chesskb.kb.store import EmbeddedStore, Store, StoreError
from chesskb.queries.class_counts import derive_class_counts
from chesskb.service.app import create_app
from chesskb.service.commands.base import CliContext, DataProblem
from chesskb.service.progress import TerminalProgress
from chesskb.service.static_site import build_site


def write_site(
    store: Store,
    out_dir: Path,
    *,
    base_iri: str | None,
    source: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Pages of ``store`` (one ``source`` of it, when given) and its ``.owl`` export into ``out_dir``;
    ``progress`` is told the number of files written so far."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with atomic_output(out_dir / "chesskb.owl") as handle:
        write_export(store, "owl", handle, source=source, base_iri=base_iri)
    if source is None:
        app = create_app({"BASE_IRI": base_iri, "QUERY_WORKERS": 0}, store=store)
        return build_site(app, out_dir, extra={"/chesskb.owl": "chesskb.owl"}, progress=progress) + 1
    with tempfile.TemporaryDirectory(prefix="chesskb-site-") as tmp:
        only = EmbeddedStore(Path(tmp) / "store")  # the source alone, with its provenance
        quads = list(write_quads(store, source, base_iri))
        only.replace_graphs([], quads, derive=[derive_class_counts(base_iri)])  # this source's counts, not the KB's
        app = create_app({"BASE_IRI": base_iri, "QUERY_WORKERS": 0}, store=only)
        return build_site(app, out_dir, extra={"/chesskb.owl": "chesskb.owl"}, progress=progress) + 1


def write_quads(store: Store, source: str, base_iri: str | None) -> Iterator[Quad]:
    """The source's graphs and its own description (not the other sources' descriptions: the site
    of one source lists that source only)."""
    from chesskb.kb.export.rdf import export_quads
    from chesskb.kb.mapping.iris import IriMinter

    minter = IriMinter(base_iri)
    own = minter.source(source)
    for quad in export_quads(store, "nq", source=source, base_iri=base_iri):
        if quad.graph_name == minter.meta_graph and quad.subject != own:
            continue
        yield quad


@click.command("site")
@click.option(
    "-o",
    "--output",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Folder to write the site into.",
)
@click.option("--source", default=None, help="Only this source.")
@click.pass_obj
def command(obj: CliContext, out_dir: Path, source: str | None) -> None:
    """Write the knowledge base as a static web site (pages, boards, solving, the .owl export)."""
    status = TerminalProgress()
    try:
        files = write_site(
            obj.open_store(),
            out_dir,
            base_iri=obj.base_iri,
            source=source,
            progress=lambda written: status.update(f"{written} files written"),
        )
    except (StoreError, UnsafeOutput) as exc:
        raise DataProblem(str(exc)) from None
    finally:
        status.done()
    click.echo(f"wrote {files} files to {out_dir} (open {out_dir / 'index.html'})")
