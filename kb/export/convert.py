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

With ``--parts`` the output is a folder instead: each unit's worker (local or on a Dask cluster)
writes the unit's statements there itself and sends back only what the driver needs (findings,
counts, the digests and naming statements links and class counts are computed from, the part's
name and digest); the driver writes its own part and, last, the manifest (``kb.store.nquads_parts``).
The union of the parts is the same set of statements as the single file.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import suppress
from pathlib import Path

from pyoxigraph import Quad, RdfFormat
from pyoxigraph import Store as MemoryStore

from chesskb.kb.findings import Finding
from chesskb.kb.importer import (
    ImportRefused,
    ImportReport,
    ProgressCallback,
    _require_some_records,
    import_statements,
    plan_import,
)
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.merge.linking import compute_event_links, compute_links, events_in, link_quads, players_in
from chesskb.kb.pipeline import UnitResult, collect_evidence
from chesskb.kb.safe_output import atomic_output
from chesskb.kb.store.base import QueryResult, SerializedBatch, Statement, Term
from chesskb.kb.store.nquads_parts import (
    DRIVER_PART,
    WrittenPart,
    compressed,
    graph_names,
    part_bytes,
    write_batch,
    write_manifest,
    write_part,
    write_quads,
)
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
    parts: bool = False,
) -> ImportReport:
    """Write to ``output`` (N-Quads, gzip when it ends in ``.gz``) what importing ``paths`` into an
    empty store would hold; returns the import's report (``cluster``: on a Dask scheduler's workers,
    ``kb.cluster``). ``parts``: ``output`` is a folder, each unit's statements written there by its
    worker, the driver's in ``driver.nq.gz``, all listed in ``manifest.sha256`` (``kb.store.nquads_parts``).
    Raises ``ImportRefused`` on usage errors, ``PartNotWritten`` when a worker cannot write its part;
    when not one game is readable, nothing is written."""
    output = Path(output)
    _check_output(output, parts)
    plan = plan_import(
        paths,
        source=source,
        themes=themes,
        base_iri=base_iri,
        lang=lang,
        collect=True,
        cluster=cluster,
        parts=output if parts else None,
    )
    report, minter = plan.report, plan.minter
    evidence = _Evidence(minter.base)
    written: list[WrittenPart] = []

    def on_result(result: UnitResult) -> None:
        evidence.add(result)
        if result.part is not None:
            written.append(result.part)

    made = parts and not output.exists()
    if parts:
        output.mkdir(parents=True, exist_ok=True)  # before any worker writes into it
    statements = _require_some_records(import_statements(plan, jobs, progress, on_finding, on_result), report)
    if statements is None:
        if made:
            with suppress(OSError):
                output.rmdir()  # only if nothing was written into it
        return report
    if parts:
        _write_folder(output, statements, evidence, minter, written)
    else:
        _write_file(output, statements, evidence, minter)
    report.seconds = (dt.datetime.now(dt.timezone.utc) - plan.started).total_seconds()
    return report


def _check_output(output: Path, parts: bool) -> None:
    """A file for a file, a folder for ``parts`` (``ImportRefused`` before anything is read)."""
    if parts and output.exists() and not output.is_dir():
        raise ImportRefused(f"{output} is not a folder: --parts writes a folder of N-Quads parts")
    if not parts and output.is_dir():
        raise ImportRefused(f"{output} is a folder: give a file name, or --parts to write a folder of parts")


def _write_file(output: Path, statements: Iterator[Statement], evidence: _Evidence, minter: IriMinter) -> None:
    """Everything in one N-Quads file (gzip for ``.gz``), renamed into place when complete."""
    # A temporary file of its own beside the output (never a path a stranger could plant a link at).
    with atomic_output(output) as raw, compressed(raw, output.name.endswith(".gz")) as handle:
        single: list[Quad] = []
        for item in statements:
            if isinstance(item, SerializedBatch):
                write_batch(handle, item)
                continue
            single.append(item)
            if len(single) >= 10_000:
                evidence.add_quads(single)
                write_quads(handle, single)
                single = []
        evidence.add_quads(single)
        write_quads(handle, single)
        write_quads(handle, _derived_quads(evidence, minter))


def _write_folder(
    folder: Path, statements: Iterator[Statement], evidence: _Evidence, minter: IriMinter, written: list[WrittenPart]
) -> None:
    """The driver's side of ``--parts``: the workers wrote the units' parts while ``statements`` ran
    (``written``); what remains (ontology, sources' descriptions, links, counts) is the driver's part,
    and the manifest, written last, lists them all."""
    own: list[Quad] = []
    for item in statements:
        if isinstance(item, SerializedBatch):  # the workers keep their statements: nothing comes back
            raise TypeError("a unit's statements came back to the driver of a --parts conversion")
        own.append(item)
    evidence.add_quads(own)
    quads = [*own, *_derived_quads(evidence, minter)]
    driver = write_part(folder, DRIVER_PART, part_bytes(quads), graph_names(quads))
    write_manifest(folder, [*written, driver])


def _derived_quads(evidence: _Evidence, minter: IriMinter) -> list[Quad]:
    """The links graph and the class counts graph, from what the run's statements said."""
    links = compute_links(players_in(evidence)) + compute_event_links(events_in(evidence))
    counts = {name: len(digests) for name, digests in evidence.members.items()}
    return link_quads(links, minter.links_graph) + count_quads(counts, minter.counts_graph)
