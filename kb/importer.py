"""Importing files into the knowledge base: read, analyse, map, load — atomically.

``import_files`` is what ``chesskb import`` runs. Each source (``--source NAME``, default the file
stem) becomes its own named graph (plus its inferred graph); importing a source again replaces it.
All sources of one call land in one atomic store write: either everything readable is in the
store afterwards, or (on failure or kill) the store is exactly as before.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pyoxigraph import Literal, NamedNode, Quad

from chesskb.kb.analysis.engine import engine_path
from chesskb.kb.analysis.themes import THEME_CLASSES
from chesskb.kb.analysis.verify import VerifyCounts
from chesskb.kb.analysis.verify_cache import cache_location
from chesskb.kb.cluster import ClusterError, ClusterUnitProcessor
from chesskb.kb.findings import Finding
from chesskb.kb.mapping.game import MappingContext, source_quads
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.merge.freshness import import_fingerprint
from chesskb.kb.merge.linking import derive_links
from chesskb.kb.pipeline import PipelineSettings, UnitProcessor, UnitResult
from chesskb.kb.reading.units import source_units
from chesskb.kb.store import Store, StoreView
from chesskb.kb.store.base import Derive, Replacement, Statement
from chesskb.kb.store.ontology_graph import ONTOLOGY_GRAPH, ontology_quads
from chesskb.kb.vocab import CP, DCTERMS, RDF, XSD
from chesskb.queries.class_counts import derive_class_counts
from chesskb.queries.executor import select

ProgressCallback = Callable[["ImportReport"], None]


class ImportRefused(Exception):
    """The import refused what it was asked, before anything was written: a usage problem (unknown theme, bad
    source name, ``--mine`` without an engine) or, for strict callers, a finding. The commands exit 2 on it.
    (Named ``ImportError_`` before: too near the built-in ``ImportError``, which means a module did not load.)"""


@dataclass
class SourceReport:
    name: str
    files: list[str]
    checksum: str = ""
    imported_with: str = ""  # code and settings of the import (kb.merge.freshness)
    games: int = 0
    errors: int = 0
    matches: set[int] = field(default_factory=set)
    positions: set[int] = field(default_factory=set)
    players: set[str] = field(default_factory=set)


@dataclass
class ImportReport:
    """What an import did; ``findings`` holds every game that was reported and skipped."""

    sources: list[SourceReport] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    quads: int = 0
    seconds: float = 0.0
    #: how the mate claims were decided: built-in searches, engine searches, cache answers
    verification: VerifyCounts = field(default_factory=VerifyCounts)

    @property
    def games(self) -> int:
        return sum(source.games for source in self.sources)

    @property
    def errors(self) -> int:
        return len([f for f in self.findings if f.level == "error"])


def validate_themes(themes: Iterable[str]) -> tuple[str, ...]:
    themes = tuple(themes)
    unknown = [theme for theme in themes if theme not in THEME_CLASSES]
    if unknown:
        raise ImportRefused(
            f"unknown theme class {', '.join(map(repr, unknown))}; valid classes: {', '.join(THEME_CLASSES)}"
        )
    return themes


def validate_source_name(name: str) -> str:
    if not name or any(ch in name for ch in '/\\#?<>" \t\n') or name.startswith((".", "_")):
        raise ImportRefused(
            f"invalid source name {name!r}: use letters, digits, '-', '_' and '.', not starting with '.' or '_'"
        )
    return name


def source_name_for(path: str | Path) -> str:
    """The default source name: the file name without its extensions (``mate_in_2.pgn.gz`` -> ``mate_in_2``)."""
    name = Path(path).name
    for suffix in (".gz", ".zst", ".pgn", ".csv"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name.replace(" ", "_") or "source"


def group_files(paths: Iterable[str | Path], source: str | None = None) -> dict[str, list[Path]]:
    """Files by the source they go into: ``source`` for all of them, else each file's own name."""
    groups: dict[str, list[Path]] = {}
    for path in paths:
        path = Path(path)
        if not path.is_file():
            raise ImportRefused(f"{path}: no such file")
        name = validate_source_name(source or source_name_for(path))
        groups.setdefault(name, []).append(path)
    return groups


def sources_checksum(paths: Iterable[str | Path]) -> str:
    """The checksum a source keeps of its files, in import order."""
    return ";".join(file_checksum(p) for p in paths)


def file_checksum(path: str | Path) -> str:
    hasher = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(chunk)
    return "sha256:" + hasher.hexdigest()


def import_files(
    store: Store,
    paths: list[str | Path],
    *,
    source: str | None = None,
    themes: Iterable[str] = (),
    base_iri: str | None = None,
    lang: str | None = None,
    jobs: int = 1,
    mine: bool = False,
    progress: ProgressCallback | None = None,
    on_finding: Callable[[Finding], None] | None = None,
    append: bool = False,
    strict: bool = False,
    cluster: str | None = None,
) -> ImportReport:
    """Import ``paths`` into ``store``; returns the report. Raises ``ImportRefused`` on usage errors.

    With ``jobs`` > 1, batches of games are read, analysed and mapped in worker processes and
    this process only loads what they return (``kb.pipeline``). ``mine`` runs the engine over every
    game for exercises (``kb.analysis.mining``); without an engine it raises ``ImportRefused`` before reading.
    ``cluster`` (a Dask scheduler's address) runs the batches on that cluster's workers (``kb.cluster``).

    ``append`` adds the files' games to their source instead of replacing it: nothing the source
    holds is dropped or rewritten (a lichess source keeps its popularity, game URLs and the course
    exercises that point at it), the new games are numbered after its last one, and its description
    lists the new file too, with counts recounted over the whole source. ``strict`` makes any error
    finding abort the write (``ImportRefused``; the store is unchanged), for callers that promise
    "all or nothing" (the authoring page).

    Mate claims longer than two moves are decided by the engine ``$CHESSKB_ENGINE`` names (else
    Debian's stockfish), which the import starts only if such a claim comes up and always stops.

    >>> import pathlib, tempfile
    >>> from chesskb.kb.store import open_store
    >>> folder = tempfile.TemporaryDirectory()
    >>> pgn = pathlib.Path(folder.name) / "back-rank.pgn"
    >>> _ = pgn.write_text('[Event "Lesson 1"]\\n[FEN "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"]\\n\\n1. Ra8# *\\n\\n'
    ...                    '[Event "Lesson 2"]\\n\\n1. e4 e5 2. Ke3 *\\n')
    >>> store = open_store(str(pathlib.Path(folder.name) / "store"))
    >>> report = import_files(store, [pgn])
    >>> report.games, [source.name for source in report.sources]
    (1, ['back-rank'])
    >>> [(finding.rule, finding.game) for finding in report.findings]  # game 2: reported and skipped
    [('illegal-move', 2)]
    >>> [row["fen"].value for row in store.query("SELECT ?fen WHERE { ?p a cp:MateInOne ; cp:fen ?fen }")]
    ['6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1']
    >>> store.close(); folder.cleanup()
    """
    if append:
        with store.writing():  # the source's last game number stays the last until this write is in
            return _import_files(
                store, paths, source, themes, base_iri, lang, jobs, mine, progress, on_finding, append, strict, cluster
            )
    return _import_files(
        store, paths, source, themes, base_iri, lang, jobs, mine, progress, on_finding, append, strict, cluster
    )


def _import_files(
    store: Store,
    paths: list[str | Path],
    source: str | None,
    themes: Iterable[str],
    base_iri: str | None,
    lang: str | None,
    jobs: int,
    mine: bool,
    progress: ProgressCallback | None,
    on_finding: Callable[[Finding], None] | None,
    append: bool,
    strict: bool,
    cluster: str | None = None,
) -> ImportReport:
    plan = plan_import(
        paths,
        source=source,
        themes=themes,
        base_iri=base_iri,
        lang=lang,
        mine=mine,
        store_location=store.location,
        cluster=cluster,
    )
    report, minter = plan.report, plan.minter
    if append:
        plan.records_before = {s.name: last_record_number(store, minter, s.name) for s in report.sources}
    statements = import_statements(plan, jobs, progress, on_finding, strict=strict, describe_sources=not append)
    quads = _require_some_records(statements, report)
    if quads is None:
        return report
    describe = [_describe_appended(minter, s, plan.started) for s in report.sources] if append else []
    names = [s.name for s in report.sources]
    remove = [g for name in names for g in (minter.source_graph(name), minter.inferred_graph(name))]
    if not append and holds_only(store, minter, names, remove):
        remove += derived_graph_names(minter)
    # One write, one switch: the data, the source descriptions, the links between players and the
    # class counts are computed from the new state and published together.
    store.replace_graphs(
        [ONTOLOGY_GRAPH] + ([] if append else remove),
        quads,
        remove_subjects=[] if append else [(minter.source(s.name), minter.meta_graph) for s in report.sources],
        derive=describe + derived_graphs(minter.base),
    )
    report.seconds = (dt.datetime.now(dt.timezone.utc) - plan.started).total_seconds()
    return report


def holds_only(store: StoreView, minter: IriMinter, names: Iterable[str], graphs: Iterable[NamedNode]) -> bool:
    """Whether the store holds nothing but the sources ``names`` (their ``graphs``, their descriptions, the
    ontology, links and counts). An import of them then also drops the derived graphs up front (they are
    recomputed from the state the write leaves either way), so that it drops every graph: the embedded
    store writes such a generation from empty, one bulk load as a first import, instead of deleting
    every old statement from a copy and checking each new subject against what is left
    (``kb.store.embedded._drops_everything``, which decides under the write lock). A course, or any
    other source, keeps the write on the general path."""
    kept = {ONTOLOGY_GRAPH, minter.meta_graph, *derived_graph_names(minter)}
    if not set(store.named_graphs()) <= {*graphs, *kept}:
        return False
    described = {row["s"] for row in select(store, "graph-subjects", {"graph": minter.meta_graph})}
    return described <= {minter.source(name) for name in names}


@dataclass
class ImportPlan:
    """What an import (or ``convert``) will read, checked before anything is read."""

    minter: IriMinter
    groups: dict[str, list[Path]]
    report: ImportReport
    settings: PipelineSettings
    started: dt.datetime
    #: Per source, the record number the new records are numbered after (appending; 0 otherwise).
    records_before: dict[str, int] = field(default_factory=dict)
    #: A Dask scheduler's address (``kb.cluster``): units run on its workers instead of local processes.
    cluster: str | None = None


def planned_fingerprint(themes: Iterable[str], *, lang: str | None = None, mine: bool = False) -> str:
    """The ``cp:importedWith`` an import with these options writes on this machine (the engine found by
    ``engine_path`` included): the one place it is decided, so ``import``'s check for unchanged sources
    compares with exactly what an import would record."""
    return import_fingerprint(themes=validate_themes(themes), lang=lang, mine=mine, engine=engine_path() is not None)


def plan_import(
    paths: Iterable[str | Path],
    *,
    source: str | None = None,
    themes: Iterable[str] = (),
    base_iri: str | None = None,
    lang: str | None = None,
    mine: bool = False,
    store_location: str | None = None,
    collect: bool = False,
    cluster: str | None = None,
    parts: Path | None = None,
) -> ImportPlan:
    """Sources, files and settings of an import; raises ``ImportRefused`` on usage errors.

    ``store_location`` decides where the verification cache lives (``cache_location``); ``collect``
    makes the workers also send what links and class counts are computed from (``convert``);
    ``parts`` makes them write each unit's statements into that folder (``convert --parts``).
    """
    started = dt.datetime.now(dt.timezone.utc)
    user_themes = validate_themes(themes)
    engine = engine_path()  # $CHESSKB_ENGINE, else Debian's stockfish: opened by the pipeline, not here
    if mine and engine is None:
        raise ImportRefused(
            "--mine needs a UCI engine and none was found: install Debian's 'stockfish' package "
            "(scripts/setup.sh does) or set CHESSKB_ENGINE to an engine's path; nothing was imported"
        )
    minter = IriMinter(base_iri)
    groups = group_files(paths, source)
    report = ImportReport(sources=[SourceReport(name, [str(p) for p in files]) for name, files in groups.items()])
    imported_with = planned_fingerprint(user_themes, lang=lang, mine=mine)
    for source_report in report.sources:
        source_report.checksum = sources_checksum(groups[source_report.name])
        source_report.imported_with = imported_with
    cache = cache_location(store_location)
    settings = PipelineSettings(
        minter.base,
        user_themes,
        lang,
        mine,
        str(cache) if cache else None,
        collect,
        engine,
        parts=str(parts.absolute()) if parts is not None else None,
    )
    return ImportPlan(minter, groups, report, settings, started, cluster=cluster)


def _processor(plan: ImportPlan, jobs: int) -> UnitProcessor | ClusterUnitProcessor:
    """Where the units run: ``jobs`` local processes, or the Dask cluster the plan names."""
    if plan.cluster:
        processor = ClusterUnitProcessor(plan.settings, plan.cluster)
        try:
            processor.connect()
        except ClusterError as exc:
            processor.cache.close()
            raise ImportRefused(f"{exc}; nothing was imported") from None
        return processor
    return UnitProcessor(plan.settings, jobs)


def import_statements(
    plan: ImportPlan,
    jobs: int = 1,
    progress: ProgressCallback | None = None,
    on_finding: Callable[[Finding], None] | None = None,
    on_result: Callable[[UnitResult], None] | None = None,
    *,
    strict: bool = False,
    describe_sources: bool = True,
) -> Generator[Statement, None, None]:
    """Every statement the import of ``plan`` writes (links and class counts aside, which are
    computed from the store afterwards), in order, streaming; the report fills in as it goes.

    ``strict``: the first error finding raises ``ImportRefused`` (nothing is written). Without
    ``describe_sources`` the sources' descriptions are left out (appending derives them from the store)."""
    report, minter, settings = plan.report, plan.minter, plan.settings
    yield from ontology_quads()
    with _processor(plan, jobs) as processor:
        report.verification = processor.counts
        for source_report in report.sources:
            yield from source_quads(MappingContext(minter, source_report.name, settings.user_themes))
            units = source_units(
                plan.groups[source_report.name],
                source_report.name,
                settings.lang,
                records_before=plan.records_before.get(source_report.name, 0),
            )
            for result in processor.run(units):
                for finding in result.findings:
                    report.findings.append(finding)
                    source_report.errors += finding.level == "error"
                    if on_finding is not None:
                        on_finding(finding)
                    if strict and finding.level == "error":
                        raise ImportRefused(f"{finding}; nothing was saved")
                source_report.games += result.games
                source_report.matches |= result.matches
                source_report.positions |= result.positions
                source_report.players |= result.players
                report.quads += result.quads
                if on_result is not None:
                    on_result(result)
                if result.batch is not None:
                    yield result.batch
                if progress is not None:
                    progress(report)
            if describe_sources:
                yield from _meta_quads(
                    minter,
                    source_report.name,
                    source_report.checksum,
                    source_report.files,
                    _counts(source_report),
                    plan.started,
                    source_report.imported_with,
                )


def _require_some_records(quads: Generator[Statement, None, None], report: ImportReport) -> Iterator[Statement] | None:
    """The quad stream, or ``None`` when not one game could be read (the store is not touched).

    The stream is consumed until the first game's quads appear; if the input ends before that,
    nothing is written.
    """
    buffered: list[Statement] = []
    for quad in quads:
        buffered.append(quad)
        if report.games > 0:
            break
    if report.games == 0:
        quads.close()  # stop the workers; nothing is written
        return None

    def chained() -> Iterator[Statement]:
        yield from buffered
        yield from quads

    return chained()


def derived_graphs(base_iri: str | None) -> list[Derive]:
    """What every write recomputes from the knowledge base it leaves: links, then class counts."""
    return [derive_links(base_iri), derive_class_counts(base_iri)]


def derived_graph_names(minter: IriMinter) -> list[NamedNode]:
    """The graphs ``derived_graphs`` rewrite whole: dropping them before a write changes nothing it leaves."""
    return [minter.links_graph, minter.counts_graph]


def _counts(source: SourceReport) -> tuple[int, int, int]:
    return len(source.matches), len(source.positions), len(source.players)


def _meta_quads(
    minter: IriMinter,
    name: str,
    checksum: str,
    files: Iterable[str],
    counts: tuple[int, int, int],
    started: dt.datetime,
    imported_with: str = "",
) -> Iterator[Quad]:
    """Import time, checksum and files of a source, in the meta graph (not part of its content,
    so re-importing an unchanged file yields the same quads in the source's own graphs)."""
    subject = minter.source(name)
    graph = minter.meta_graph
    yield Quad(subject, RDF.type, CP.Source, graph)
    yield Quad(subject, CP.sourceName, Literal(name), graph)
    yield Quad(subject, CP.checksum, Literal(checksum), graph)
    if imported_with:
        yield Quad(subject, CP.importedWith, Literal(imported_with), graph)
    imported_at = Literal(started.isoformat().replace("+00:00", "Z"), datatype=XSD.dateTime)
    yield Quad(subject, CP.importedAt, imported_at, graph)
    for file in files:
        yield Quad(subject, DCTERMS.source, Literal(Path(file).name), graph)
    for prop, count in zip(("gameCount", "positionCount", "playerCount"), counts, strict=True):
        yield Quad(subject, CP.term(prop), Literal(str(count), datatype=XSD.integer), graph)


def last_record_number(store: Store, minter: IriMinter, name: str) -> int:
    """The highest record number among a source's records (0 for a new source): appended games
    are numbered after it, so their source records never reuse an existing record's IRI. The
    number is read from each record's IRI by the minter (``cp:gameNumber`` is the game's number in
    its own file, which restarts with every file)."""
    row = next(iter(select(store, "last-source-record", {"source": minter.source(name)})), None)
    found = minter.record_number(row["last"].value) if row is not None and row["last"] is not None else None
    return found[1] if found else 0


def source_counts(store: StoreView, minter: IriMinter, name: str) -> tuple[int, int, int]:
    """Games, positions and players of a source as the store holds them: the individuals the
    pipeline counts for a source (``kb.pipeline._count_individuals``), over its two graphs."""
    graphs = {"g": [minter.source_graph(name), minter.inferred_graph(name)]}
    row = next(iter(select(store, "source-individual-counts", graphs)))
    players = sum(
        1 for found in select(store, "source-players", graphs) if not minter.is_placeholder(found["player"])
    )  # the minter knows a stand-in
    return int(row["matches"].value), int(row["positions"].value), players


def _describe_appended(minter: IriMinter, report: SourceReport, started: dt.datetime) -> Derive:
    """The description of a source that files were appended to, from the store as the write leaves
    it: its earlier files and checksums, the new ones, and counts over the whole source."""

    def describe(view: StoreView) -> Replacement:
        subject, graph = minter.source(report.name), minter.meta_graph
        stated = list(select(view, "source-files", {"graph": graph, "source": subject}))
        files = sorted({row["f"].value for row in stated if row["f"] is not None})
        checksums = [row["c"].value for row in stated if row["c"] is not None]
        checksum = ";".join([*checksums[:1], report.checksum])
        files += [Path(f).name for f in report.files if Path(f).name not in files]
        quads = list(
            _meta_quads(minter, report.name, checksum, files, source_counts(view, minter, report.name), started)
        )
        return Replacement(remove_subjects=[(subject, graph)], quads=quads)

    return describe


def remove_source(store: Store, name: str, *, base_iri: str | None = None) -> bool:
    """Remove one source's graphs and metadata; what other sources also assert stays."""
    minter = IriMinter(base_iri)
    graph = minter.source_graph(name)
    if graph not in store.named_graphs():
        return False
    store.replace_graphs(
        [graph, minter.inferred_graph(name)],
        [],
        remove_subjects=[(minter.source(name), minter.meta_graph)],
        derive=derived_graphs(minter.base),
    )
    return True


class NothingAppended(ImportRefused):
    """The text gave no game to append; nothing was written (the message lists the findings)."""


@dataclass(frozen=True)
class Appended:
    """What ``append_pgn`` wrote: the source's games now, and the IRI of the appended start position."""

    games: int
    position: str | None


def append_pgn(
    store: Store,
    text: str,
    start_key: str,
    *,
    source: str,
    base_iri: str | None = None,
    wait: float = -1,
    file_name: str = "appended.pgn",
) -> Appended:
    """Append the PGN ``text`` to ``source`` (created if new) in one atomic write, as
    ``import_files(append=True, strict=True)`` does for a file: the same reading, analysis and
    mapping, nothing the source holds rewritten. The teachers' authoring page saves this way.

    Held on the store's write lock for up to ``wait`` seconds (``StoreBusy`` beyond); any error
    finding aborts the write (``ImportRefused``); a text without a game raises ``NothingAppended``.
    ``start_key`` is the ``positionKey`` of the appended game's start, to name its position."""
    import tempfile

    minter = IriMinter(base_iri)
    with tempfile.TemporaryDirectory(prefix="chesskb-append-") as tmp:
        path = Path(tmp) / file_name
        path.write_text(text, encoding="utf-8")
        with store.writing(wait=wait):
            report = import_files(store, [path], source=source, base_iri=base_iri, jobs=1, append=True, strict=True)
            if report.games == 0:
                raise NothingAppended("; ".join(str(f) for f in report.findings) or "the text could not be read")
            counted = select(store, "source-game-count", {"graph": minter.meta_graph, "source": minter.source(source)})
            games = max((int(row["n"].value) for row in counted), default=0)
    rows = select(
        store,
        "start-position-by-key",
        {"graph": minter.source_graph(source), "inferred": minter.inferred_graph(source), "key": start_key},
    )
    iris = [row["p"].value for row in rows]
    return Appended(games, iris[0] if iris else None)
