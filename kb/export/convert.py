"""``chesskb convert``: what an import would load, written as N-Quads for a SPARQL server's own bulk loader.

Loading through SPARQL Update or the Graph Store Protocol writes every statement several times
(staging graph, its real graph, the merge); a server's offline loader (``oxigraph load``, Jena's
``tdb2.tdbloader``, QLever's index builder, Virtuoso's ``ld_dir``) writes each once and runs in
parallel. So ``convert`` runs the importer's pipeline (reading, analysis, mapping, in parallel
workers, streaming) and writes its statements to a file instead of a store, in the store's layout:

* every statement in its named graph (the source's graph, its inferred graph, the ontology, meta),
  and again as a triple of the default graph, which holds the merge: the earlier layout of
  ``kb/store/layout.py``, which decodes the same as the embedded store's compact one and is the
  layout ``RemoteStore`` writes, so a server loaded from this file is written on in one layout
  (``kb/store/remote.py``, "Layout");
* the links graph and the class counts graph, which an import computes from the store afterwards:
  here from what the workers send back (``PipelineSettings.collect``), with the same code
  (``kb.merge.linking``, ``queries.class_counts``) over an in-memory store of the players' and events' names.

The file is written under a temporary name and renamed when complete: a failed or interrupted
conversion leaves no half file under the requested name. ``.gz`` output is gzip (level 1: the file
is very repetitive, and faster compression keeps the writer off the critical path).
"""

from __future__ import annotations

import datetime as dt
import gzip
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from pyoxigraph import Quad, RdfFormat
from pyoxigraph import Store as MemoryStore

from chesskb.kb.findings import Finding
from chesskb.kb.importer import ImportReport, ProgressCallback, _require_some_records, import_statements, plan_import
from chesskb.kb.merge.linking import compute_event_links, compute_links, events_in, link_quads, players_in
from chesskb.kb.pipeline import UnitResult, collect_evidence
from chesskb.kb.safe_output import atomic_output
from chesskb.kb.store.base import QueryResult, SerializedBatch, Term, rdf_bytes
from chesskb.kb.vocab import PREFIXES
from chesskb.queries.class_counts import count_quads


class _Evidence:
    """What links and counts are computed from, gathered while the statements stream past."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.names = MemoryStore()
        self.members: dict[str, set[int]] = {}

    def add(self, result: UnitResult) -> None:
        for name, digests in result.members.items():
            self.members.setdefault(name, set()).update(digests)
        if result.evidence:
            self.names.bulk_load(result.evidence, format=RdfFormat.N_TRIPLES)

    def add_quads(self, quads: Iterable[Quad]) -> None:
        holder = UnitResult()
        collect_evidence(quads, holder, self.base)
        self.add(holder)

    def query(
        self, sparql: str, *, bindings: Mapping[str, Term] | None = None, timeout: float | None = None
    ) -> QueryResult:
        """The one ``Store`` method ``kb.merge.linking`` calls (``Queryable``)."""
        return self.names.query(sparql, prefixes=PREFIXES)


def _write_quads(handle: BinaryIO, quads: list[Quad]) -> None:
    """``quads`` in their graphs and their triples in the default graph (the merge)."""
    if quads:
        handle.write(rdf_bytes(quads, RdfFormat.N_QUADS))
        handle.write(rdf_bytes([q.triple for q in quads], RdfFormat.N_TRIPLES))


def _write_batch(handle: BinaryIO, batch: SerializedBatch) -> None:
    for graph, data in batch.graphs.items():
        # N-Triples escapes line breaks inside literals, so " .\n" only ever ends a statement
        handle.write(data.replace(b" .\n", b" <" + graph.encode() + b"> .\n"))
        handle.write(data)  # the same triples in the default graph


@contextmanager
def _compressed(handle: BinaryIO, gzipped: bool) -> Iterator[BinaryIO]:
    """``handle`` itself, or a gzip stream onto it (closed, so its trailer is written, before the file)."""
    if not gzipped:
        yield handle
        return
    with gzip.GzipFile(filename="", fileobj=handle, mode="wb", compresslevel=1) as packed:
        yield packed  # type: ignore[misc]  # typeshed: GzipFile is an io.BufferedIOBase, not a typing.BinaryIO


def convert_files(
    paths: list[str | Path],
    output: str | Path,
    *,
    source: str | None = None,
    themes: Iterable[str] = (),
    base_iri: str | None = None,
    lang: str | None = None,
    jobs: int = 1,
    progress: ProgressCallback | None = None,
    on_finding: Callable[[Finding], None] | None = None,
    cluster: str | None = None,
) -> ImportReport:
    """Write to ``output`` (N-Quads, gzip when it ends in ``.gz``) what importing ``paths`` into an
    empty store would hold; returns the import's report (``cluster``: on a Dask scheduler's workers,
    ``kb.cluster``). Raises ``ImportRefused`` on usage errors;
    when not one game is readable, nothing is written."""
    output = Path(output)
    plan = plan_import(paths, source=source, themes=themes, base_iri=base_iri, lang=lang, collect=True, cluster=cluster)
    report, minter = plan.report, plan.minter
    evidence = _Evidence(minter.base)
    statements = _require_some_records(import_statements(plan, jobs, progress, on_finding, evidence.add), report)
    if statements is None:
        return report
    # A temporary file of its own beside the output (never a path a stranger could plant a link at).
    with atomic_output(output) as raw, _compressed(raw, output.name.endswith(".gz")) as handle:
        single: list[Quad] = []
        for item in statements:
            if isinstance(item, SerializedBatch):
                _write_batch(handle, item)
                continue
            single.append(item)
            if len(single) >= 10_000:
                evidence.add_quads(single)
                _write_quads(handle, single)
                single = []
        evidence.add_quads(single)
        _write_quads(handle, single)
        links = compute_links(players_in(evidence)) + compute_event_links(events_in(evidence))
        _write_quads(handle, link_quads(links, minter.links_graph))
        counts = {name: len(digests) for name, digests in evidence.members.items()}
        _write_quads(handle, count_quads(counts, minter.counts_graph))
    report.seconds = (dt.datetime.now(dt.timezone.utc) - plan.started).total_seconds()
    return report
