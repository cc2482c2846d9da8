"""What merged records say differently: compatible refinements versus true conflicts.

One Match gathers the statements of every record of the game (``kb.mapping.identity``), one Event those
of all its games. Where they give a property different values, ``kb.mapping.identity.compatible`` decides:
"1788" and "1788.03.30", or a result "*" and "1-0", are compatible (both can be true: one record
knows more); "1-0" and "0-1" conflict. Both kinds are listed by ``chesskb merge-report``; true
conflicts are also written as ``cp:sourcesDisagreeOn <property>`` annotations in the links graph,
so a query can find them. Neither is a logical inconsistency: the properties that several records
may state about one individual are not functional in the ontology (see its comments), so
``chesskb check`` never fails because two sources disagree.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from pyoxigraph import NamedNode, Quad

from chesskb.kb.mapping.identity import compatible
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.store.base import StoreView
from chesskb.kb.vocab import CP
from chesskb.queries.executor import select

#: Statements that differ between records for bookkeeping reasons, never a disagreement.
NOT_COMPARED = frozenset(
    {
        "http://purl.org/dc/terms/source",
        "http://www.w3.org/2000/01/rdf-schema#label",
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
        CP.pgnTag.value,
        CP.gameKey.value,
        CP.eventTagAsWritten.value,
    }
)


@dataclass
class Disagreement:
    """Values one property takes on one individual, with the sources stating each."""

    subject: str
    prop: str
    values: dict[str, set[str]] = field(default_factory=dict)

    @property
    def short(self) -> str:
        return self.prop.rsplit("#", 1)[-1].rsplit("/", 1)[-1]

    @property
    def is_conflict(self) -> bool:
        values = list(self.values)
        return any(not compatible(self.short, a, b) for i, a in enumerate(values) for b in values[i + 1 :])


def disagreements(store: StoreView, subjects: Iterable[str], minter: IriMinter | None = None) -> list[Disagreement]:
    """Every literal-valued property of ``subjects`` that has more than one value across the
    source graphs (inferred graphs and bookkeeping statements left out), by subject in the order
    given and by property IRI: one query for all the subjects, however many. ``minter`` names the
    store's base IRI (default: the configured one)."""
    minter = minter or IriMinter()
    order = list(dict.fromkeys(subjects))
    values: dict[str, dict[str, dict[str, set[str]]]] = {
        subject: defaultdict(lambda: defaultdict(set)) for subject in order
    }
    # a store has a few graphs and the rows name them thousands of times: each graph is read once
    sources: dict[str, str | None] = {}
    if order:
        for row in select(store, "literal-values-by-graph", {"subject": [NamedNode(s) for s in order]}):
            graph = row["g"].value
            if graph not in sources:
                sources[graph] = minter.source_of(graph) if minter.is_source_graph(graph) else None
            source = sources[graph]
            if row["p"].value in NOT_COMPARED or source is None:
                continue
            values[row["subject"].value][row["p"].value][row["o"].value].add(source)
    return [
        Disagreement(subject, prop, dict(by_value))
        for subject in order
        for prop, by_value in sorted(values[subject].items())
        if len(by_value) > 1
    ]


def merged_matches(store: StoreView) -> list[str]:
    """Matches stated by more than one record (in one source or several)."""
    rows = select(store, "merged-matches")
    return sorted(row["m"].value for row in rows)


def conflict_quads(found: Iterable[Disagreement], graph: NamedNode) -> list[Quad]:
    """``<individual> cp:sourcesDisagreeOn <property>`` for each true conflict."""
    return sorted(
        {Quad(NamedNode(d.subject), CP.sourcesDisagreeOn, NamedNode(d.prop), graph) for d in found if d.is_conflict},
        key=str,
    )
