"""``chesskb check``: OWL reasoning and SHACL validation of the knowledge base, source by source.

Each source (what its asserted named graph says, read with ``queries.source_statements`` in either
store layout; the ``/inferred`` graph only repeats what a reasoner derives) is checked with the
ontology: HermiT for consistency and unsatisfiable classes, pyshacl for the data
rules open-world OWL cannot state. Checking source by source keeps a large knowledge base within
the reasoner's reach and lets unchanged sources come from the cache; when every source is
consistent and the whole is small enough (``whole_limit`` statements), all sources are then
reasoned over together, since two sources can contradict each other (a game with two results).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from pyoxigraph import Triple

from chesskb.kb.checks import owl
from chesskb.kb.checks.cache import CheckCache, cache_key, graph_hash
from chesskb.kb.findings import (
    Finding,
    inconsistency_from_json,
    inconsistency_json,
    shacl_from_json,
    shacl_json,
    unsatisfiable_finding,
)
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.store import Store, StoreError
from chesskb.kb.vocab import XSD_IRI
from chesskb.queries.executor import select
from chesskb.queries.source_statements import source_statements

#: Default for ``--whole-limit``: above this many asserted statements in all, sources are only
#: checked one by one (HermiT's time grows faster than linearly with the individuals).
WHOLE_LIMIT = 300_000

ALL_SOURCES = "(all sources)"

#: Default for ``--classify-limit``: up to this many statements a source is given to owlready2's
#: ``sync_reasoner`` (consistency, classification and realisation); above it, HermiT is asked for
#: consistency only (2.5x faster at 10k positions). Unsatisfiable classes then come from the
#: ontology alone: it has no nominals, so a consistent ABox cannot make a class unsatisfiable.
CLASSIFY_LIMIT = 200_000


@dataclass
class CheckReport:
    """What ``check`` found; :meth:`to_dict` is the public JSON shape."""

    reasoner: str
    checked: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    inconsistencies: list[Finding] = field(default_factory=list)
    unsatisfiable_classes: list[Finding] = field(default_factory=list)
    shacl_violations: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def consistent(self) -> bool:
        return not self.inconsistencies and not self.unsatisfiable_classes

    @property
    def ok(self) -> bool:
        return self.consistent and not self.shacl_violations

    def to_dict(self) -> dict[str, Any]:
        return {
            "consistent": self.consistent,
            "checked": self.checked,
            "inconsistencies": [inconsistency_json(item) for item in self.inconsistencies],
            "unsatisfiable_classes": [item.iri for item in self.unsatisfiable_classes],
            "shacl_violations": [shacl_json(violation) for violation in self.shacl_violations],
            "cached": self.cached,
            "reasoner": self.reasoner,
            "notes": self.notes,
            "seconds": self.seconds,
        }


def source_names(store: Store, base_iri: str | None = None) -> list[str]:
    """Every source with an asserted graph in the store, by name: the sources the meta graph lists
    (the store also holds graphs that are not sources: the links between sources, courses)."""
    minter = IriMinter(base_iri)
    graphs = set(store.named_graphs())
    rows = select(store, "stored-sources", {"meta": minter.meta_graph})
    return sorted(row["name"].value for row in rows if minter.source_graph(row["name"].value) in graphs)


def link_triples(store: Store, base_iri: str | None = None) -> list[Triple]:
    """The links between individuals of different sources (``owl:sameAs`` …), which only the
    all-sources pass can weigh: a sameAs can join two individuals that contradict each other."""
    graph = IriMinter(base_iri).links_graph
    if graph not in store.named_graphs():
        return []
    return [quad.triple for quad in store.quads([graph])]


def check_store(
    store: Store,
    *,
    source: str | None = None,
    reasoner: str = "hermit",
    base_iri: str | None = None,
    use_cache: bool = True,
    shacl: bool = True,
    whole_limit: int = WHOLE_LIMIT,
    classify_limit: int = CLASSIFY_LIMIT,
    progress: Callable[[str], None] | None = None,
) -> CheckReport:
    """Check one source or every source of ``store`` (see the module docstring)."""
    owl.java_executable()  # fail early and clearly: nothing can be checked without Java
    minter = IriMinter(base_iri)
    names = source_names(store, base_iri)
    if source is not None:
        if source not in names:
            raise StoreError(f"no source named {source!r} in {store.location}")
        names = [source]
    cache = CheckCache.beside(store.location) if use_cache else CheckCache(None)
    report = CheckReport(reasoner=reasoner)
    retyped: Counter[str] = Counter()
    everything: list[Triple] = []  # kept only while it fits the whole-KB limit (memory)
    total = 0
    hashes: list[str] = []
    for name in names:
        triples = [quad.triple for quad in source_statements(store, minter.source_graph(name), inferred=False)]
        content = graph_hash(triples)
        hashes.append(content)
        mode = ":consistency" if len(triples) > classify_limit else ":classification"
        key = cache_key(content + mode + (":shacl" if shacl else ""), reasoner)
        result = cache.get(name, key)
        if result is not None:
            report.cached.append(name)
        else:
            if progress:
                progress(f"checking {name} ({len(triples)} statements)")
            result = check_source(name, triples, reasoner=reasoner, shacl=shacl, classify_limit=classify_limit)
            cache.put(name, key, result)
            report.checked.append(name)
        _merge(report, result)
        retyped.update(result.get("retyped", {}))
        if result.get("mode") == "consistency":
            report.notes.append(
                f"{name}: {result['statements']} statements exceed the classification limit "
                f"({classify_limit}, --classify-limit): HermiT checked consistency only"
            )
        total += len(triples)
        if source is None and total <= whole_limit:
            everything.extend(triples)
    links = link_triples(store, base_iri) if source is None else []
    if links:
        report.notes.append(
            f"the links graph ({len(links)} statements: owl:sameAs between individuals of "
            f"different sources) belongs to the {ALL_SOURCES} pass"
        )
        hashes.append("links:" + graph_hash(links))
        total += len(links)
        if total <= whole_limit:
            everything.extend(links)
    if len(names) > 1 or (links and names):
        _check_whole(
            report,
            cache,
            everything if total <= whole_limit else None,
            total,
            hashes,
            reasoner,
            whole_limit,
            classify_limit,
            progress,
        )
    cache.save()
    for datatype, count in sorted(retyped.items()):
        short = datatype.replace(XSD_IRI, "xsd:")
        report.notes.append(
            f"{count} literal(s) of datatype {short} were given to {reasoner} as "
            "xsd:string (outside the OWL 2 datatype map); their typed values were not reasoned on"
        )
    unique = {item.iri: item for item in report.unsatisfiable_classes if item.iri is not None}  # each has one
    report.unsatisfiable_classes = [unique[iri] for iri in sorted(unique)]
    return report


def check_source(
    name: str,
    triples: list[Triple],
    *,
    reasoner: str = "hermit",
    shacl: bool = True,
    classify_limit: int = CLASSIFY_LIMIT,
) -> dict[str, Any]:
    """The cacheable result of checking one source: plain JSON data."""
    started = time.monotonic()
    data, retyped = owl.reasoner_copy(triples)
    consistency_only = reasoner == "hermit" and len(data) > classify_limit
    if consistency_only:
        verdict = owl.consistency_only(data)
        if verdict.consistent:
            verdict.unsatisfiable_classes = owl.run_reasoner([]).unsatisfiable_classes
    else:
        verdict = owl.run_reasoner(data, reasoner=reasoner)
    inconsistencies: list[dict[str, Any]] = []
    if not verdict.consistent:
        probe = (
            owl.consistency_only
            if reasoner == "hermit"
            else (lambda subset: owl.run_reasoner(subset, reasoner=reasoner))
        )
        conflicts = owl.explain(data, probe)
        inconsistencies = [{"source": name, **c.to_dict()} for c in conflicts]
        if not inconsistencies:  # the reasoner disagreed with itself on the parts: report the whole
            inconsistencies = [
                {
                    "source": name,
                    "individuals": [],
                    "statements": [],
                    "axioms": [],
                    "minimal": False,
                    "reasoner_message": verdict.rejected or "",
                }
            ]
    violations: list[dict[str, Any]] = []
    if shacl:
        from chesskb.kb.checks.shacl import validate

        violations = [shacl_json(replace(v, source=name)) for v in validate(triples)]  # cached as JSON
    return {
        "statements": len(triples),
        "consistent": verdict.consistent,
        "inconsistencies": inconsistencies,
        "unsatisfiable_classes": verdict.unsatisfiable_classes,
        "shacl_violations": violations,
        "retyped": dict(retyped),
        "mode": "consistency" if consistency_only else "classification",
        "seconds": round(time.monotonic() - started, 3),
    }


def _merge(report: CheckReport, result: dict[str, Any]) -> None:
    report.inconsistencies.extend(inconsistency_from_json(item) for item in result["inconsistencies"])
    report.unsatisfiable_classes.extend(unsatisfiable_finding(iri) for iri in result["unsatisfiable_classes"])
    report.shacl_violations.extend(shacl_from_json(v) for v in result["shacl_violations"])


def _check_whole(
    report: CheckReport,
    cache: CheckCache,
    everything: list[Triple] | None,
    total: int,
    hashes: list[str],
    reasoner: str,
    whole_limit: int,
    classify_limit: int,
    progress: Callable[[str], None] | None,
) -> None:
    """All sources together: what no single source shows (two sources that contradict each other)."""
    if report.inconsistencies:
        report.notes.append(f"{ALL_SOURCES}: not reasoned over together while a source is inconsistent")
        return
    if everything is None:
        report.notes.append(
            f"{ALL_SOURCES}: not reasoned over together: {total} statements exceed "
            f"the whole-KB limit of {whole_limit} (--whole-limit); each source was checked "
            "with the ontology on its own"
        )
        return
    unique = list(dict.fromkeys(everything))
    mode = ":consistency" if len(unique) > classify_limit else ":classification"
    key = cache_key("+".join(sorted(hashes)) + mode, reasoner)
    result = cache.get(ALL_SOURCES, key)
    if result is not None:
        report.cached.append(ALL_SOURCES)
    else:
        if progress:
            progress(f"checking {ALL_SOURCES} together ({len(unique)} statements)")
        result = check_source(ALL_SOURCES, unique, reasoner=reasoner, shacl=False, classify_limit=classify_limit)
        cache.put(ALL_SOURCES, key, result)
        report.checked.append(ALL_SOURCES)
    _merge(report, result)


__all__ = ["ALL_SOURCES", "CheckReport", "check_source", "check_store", "source_names"]
