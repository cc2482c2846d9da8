"""The store layout's rules (``kb/store/layout.py``) keep the merge's guarantees.

Checked on what real imports write (``chesskb convert`` of the merge fixtures, one source per file:
the club bulletin shares positions, games, players and events with the Polgar puzzles), with the
expected answers computed from the sources' own statements, not from the layout:

* the merged view is the set union of every source's statements;
* removing a source leaves exactly what adding the others alone gives (every source, every order),
  quad for quad in the merged view, and the same answer to "which sources assert it";
* an individual two sources share keeps what each source says, and what they disagree on stays in
  their graphs;
* an individual one source asserts costs its type statements only;
* a store in the earlier layout (every statement in its source's graph too) decodes to the same.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from pathlib import Path

import pytest
from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat, parse

from chesskb.kb.store import layout as rules
from tests.conftest import DATA
from tests.pgn_slices import sliced_source

MERGE = Path(__file__).parent / "fixtures" / "merge"
FILES = {
    "polgar-puzzles": MERGE / "polgar-puzzles.pgn",
    "mate_in_2": DATA / "pychess" / "mate_in_2.pgn",
    "club-bulletin": MERGE / "club-bulletin.pgn",
}
#: Of the mate-in-2 collection: Tal v Benko (game 49), whose position the club bulletin shares, the games of
#: Benko and Judit Polgár (43, 95), players the merge fixtures name differently, and the first eight. The
#: rules are checked subject by subject; the other 85 games add subjects of the same kinds.
MATE_IN_2_GAMES = [*range(8), 43, 49, 95]
mate_in_2_slice = sliced_source(FILES, "mate_in_2", MATE_IN_2_GAMES)
META = "/graph/_meta"


class Stored:
    """Quads by subject, written through the rules as a store writes them (one subject at a time)."""

    def __init__(self) -> None:
        self.by_subject: dict[object, set[Quad]] = defaultdict(set)

    def add(self, quads: list[Quad]) -> None:
        for subject, new in rules.by_subject(quads).items():
            self.by_subject[subject] = rules.added(self.by_subject[subject], new)

    def remove(self, graphs: set[NamedNode], described: set[tuple[object, NamedNode]]) -> None:
        for subject in list(self.by_subject):
            stored = self.by_subject[subject]
            leaving = set(graphs) | {g for s, g in described if s == subject}
            if any(not isinstance(q.graph_name, DefaultGraph) and q.graph_name in leaving for q in stored) or any(
                rules.is_source(rules.owner_of(g)) and g in leaving for g in graphs
            ):
                self.by_subject[subject] = rules.removed(stored, leaving)
            if not self.by_subject[subject]:
                del self.by_subject[subject]

    def quads(self) -> set[Quad]:
        return {q for quads in self.by_subject.values() for q in quads}

    def merged(self) -> set:
        return {q.triple for q in self.quads() if isinstance(q.graph_name, DefaultGraph)}

    def asserted_by(self, subject) -> set[NamedNode]:
        return {
            q.graph_name
            for q in self.by_subject.get(subject, ())
            if rules.is_marker(q) and not isinstance(q.graph_name, DefaultGraph) and rules.is_source(q.graph_name)
        }


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> dict[str, list[Quad]]:
    """Per source, what its import writes: its graph, its inferred graph, its description in ``_meta``
    (links, class counts and the ontology are recomputed by every write and left out)."""
    from chesskb.kb.export.convert import convert_files

    out: dict[str, list[Quad]] = {}
    for name, path in FILES.items():
        target = tmp_path_factory.mktemp("convert") / f"{name}.nq"
        convert_files([path], target, source=name)
        graphs = (f"/graph/{name}", f"/graph/{name}/inferred", META)
        out[name] = [
            q
            for q in parse(target.read_bytes(), format=RdfFormat.N_QUADS)
            if not isinstance(q.graph_name, DefaultGraph) and q.graph_name.value.endswith(graphs)
        ]
        assert any(q.graph_name.value.endswith(f"/graph/{name}") for q in out[name])
    return out


def _stored(sources, names) -> Stored:
    stored = Stored()
    for name in names:
        stored.add(sources[name])
    return stored


def _remove(stored: Stored, sources, name: str) -> None:
    graphs = {q.graph_name for q in sources[name] if not q.graph_name.value.endswith(META)}
    described = {(q.subject, q.graph_name) for q in sources[name] if q.graph_name.value.endswith(META)}
    stored.remove(graphs, described)


def _union(sources, names) -> set:
    return {q.triple for name in names for q in sources[name]}


def _asserting(sources, names) -> dict[object, set[NamedNode]]:
    """Subject -> the source graphs that type it, from the sources' own statements."""
    out: dict[object, set[NamedNode]] = defaultdict(set)
    for name in names:
        for q in sources[name]:
            if rules.is_marker(q) and q.graph_name.value.endswith(f"/graph/{name}"):
                out[q.subject].add(q.graph_name)
    return out


def test_every_source_types_every_subject_it_speaks_of(sources) -> None:
    for name, quads in sources.items():
        own = [q for q in quads if rules.is_source(rules.owner_of(q.graph_name))]
        assert {q.subject for q in own} == {q.subject for q in own if rules.is_marker(q)}, name


def test_the_merged_view_is_the_union_of_the_sources(sources) -> None:
    for order in itertools.permutations(FILES):
        assert _stored(sources, order).merged() == _union(sources, FILES)


@pytest.mark.parametrize("removed", list(FILES))
def test_removing_a_source_leaves_what_the_others_alone_give(sources, removed: str) -> None:
    rest = [name for name in FILES if name != removed]
    expected = _asserting(sources, rest)
    for order in itertools.permutations(FILES):
        stored = _stored(sources, order)
        _remove(stored, sources, removed)
        alone = _stored(sources, rest)
        assert stored.merged() == alone.merged() == _union(sources, rest)
        for subject in {t.subject for t in stored.merged()}:
            assert stored.asserted_by(subject) == alone.asserted_by(subject) == expected.get(subject, set())
        for subject, quads in stored.by_subject.items():  # what each source says decodes the same
            assert _owned(quads) == _owned(alone.by_subject[subject])


def _owned(quads) -> dict:
    return {owner: {q.triple for q in said} for owner, said in rules.decode(quads).items() if said}


def test_shared_individuals_keep_what_each_source_says_and_its_conflicts(sources) -> None:
    stored = _stored(sources, FILES)
    shared = {s for s, graphs in _asserting(sources, FILES).items() if len(graphs) > 1}
    assert shared, "the club bulletin shares games and positions with the Polgar puzzles"
    conflicts = 0
    for subject in shared:
        own = {
            name: {q.triple for q in sources[name] if q.subject == subject and not q.graph_name.value.endswith(META)}
            for name in FILES
        }
        decoded = rules.decode(stored.by_subject[subject])
        kept = {q for q in stored.by_subject[subject] if not isinstance(q.graph_name, DefaultGraph)}
        for name, said in own.items():
            graph = next(iter({q.graph_name for q in sources[name] if q.graph_name.value.endswith(f"/graph/{name}")}))
            assert {q.triple for q in decoded.get(graph, ())} == said
            others = [other for other in own if other != name and own[other]]
            for triple in said:
                if others and any(triple not in own[other] for other in others):
                    conflicts += 1  # a value another source does not give: GRAPH ?g shows whose it is
                    assert any(rules.owner_of(q.graph_name) == graph and q.triple == triple for q in kept)
    assert conflicts  # the bulletin writes names and dates differently


def test_an_individual_of_one_source_costs_its_types_only(sources) -> None:
    stored = _stored(sources, FILES)
    asserting = _asserting(sources, FILES)
    meta_subjects = {q.subject for name in FILES for q in sources[name] if q.graph_name.value.endswith(META)}
    alone = {s for s, graphs in asserting.items() if len(graphs) == 1 and s not in meta_subjects}
    assert alone
    for subject in alone:
        named = {q for q in stored.by_subject[subject] if not isinstance(q.graph_name, DefaultGraph)}
        assert named and all(rules.is_marker(q) and rules.owner_of(q.graph_name) in asserting[subject] for q in named)
    kept = sum(1 for q in stored.quads() if not isinstance(q.graph_name, DefaultGraph))
    assert kept < len({q for name in FILES for q in sources[name]}) / 3


def test_a_bookkeeping_statement_a_source_also_makes_stays_in_the_source(sources) -> None:
    """A source's own node: its name and type are in ``_meta`` and in the source's graph; removing
    ``_meta``'s description must leave the source's."""
    stored = _stored(sources, FILES)
    for name in FILES:
        node = next(q.subject for q in sources[name] if q.graph_name.value.endswith(META))
        own = {q.triple for q in sources[name] if q.subject == node and not q.graph_name.value.endswith(META)}
        meta = next(q.graph_name for q in sources[name] if q.graph_name.value.endswith(META))
        after = rules.removed(stored.by_subject[node], {meta})
        graph = next(q.graph_name for q in sources[name] if q.graph_name.value.endswith(f"/graph/{name}"))
        assert {q.triple for q in stored.by_subject[node] if q.graph_name == graph} >= own & {
            q.triple for q in sources[name] if q.graph_name == meta
        }  # while _meta says them too
        assert _owned(after) == {graph: own}
        assert {q.triple for q in after if isinstance(q.graph_name, DefaultGraph)} == own


def test_the_earlier_layout_decodes_to_the_same(sources) -> None:
    """Every statement in its graph and in the default graph (stores written before this layout)."""
    full: dict[object, set[Quad]] = defaultdict(set)
    for name in FILES:
        for q in sources[name]:
            full[q.subject] |= {q, Quad(q.subject, q.predicate, q.object, DefaultGraph())}
    compact = _stored(sources, FILES)
    for subject, quads in full.items():
        assert _owned(quads) == _owned(compact.by_subject[subject])
        # re-encoded, it is as compact as a store written in this layout (up to which graph of a
        # source holds a delta: its graph or its inferred graph, rule 7 of the module doc)
        assert _by_owner(rules.encode(rules.decode(quads))) == _by_owner(compact.by_subject[subject])


def _by_owner(quads) -> set:
    return {(None if isinstance(q.graph_name, DefaultGraph) else rules.owner_of(q.graph_name), q.triple) for q in quads}
