"""The proposed store layout (issue 23, item 4; ``bench/layout_model.py``) keeps the merge's guarantees.

Checked on what real imports write (``chesskb convert`` of the merge fixtures, one source per file:
the club bulletin shares positions, games, players and events with the Polgar puzzles), with the
expected answers computed from the sources' own statements, not from the layout:

* the merged view is the set union of every source's statements;
* removing a source leaves exactly what adding the others alone gives (property: every source, every
  order), quad for quad in the merged view, and the same answer to "which source asserts it";
* an individual two sources share keeps what each source says, and what they disagree on in their graphs;
* an individual one source asserts costs its type statements only.
"""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import pytest
from pyoxigraph import RdfFormat, parse

from tests.conftest import DATA, ROOT

MERGE = Path(__file__).parent / "fixtures" / "merge"
FILES = {"polgar-puzzles": MERGE / "polgar-puzzles.pgn", "mate_in_2": DATA / "pychess" / "mate_in_2.pgn",
         "club-bulletin": MERGE / "club-bulletin.pgn"}


def _model():
    spec = importlib.util.spec_from_file_location("layout_model", ROOT / "bench" / "layout_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


model = _model()


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> dict[str, list[tuple[str, str, str, str]]]:
    """Per source, what its import writes: its graph, its inferred graph, its description in ``_meta``
    (links, class counts and the ontology are recomputed by every write and left out)."""
    from chesskb.kb.export.convert import convert_files

    out: dict[str, list[tuple[str, str, str, str]]] = {}
    for name, path in FILES.items():
        target = tmp_path_factory.mktemp("convert") / f"{name}.nq"
        convert_files([path], target, source=name)
        quads = model.quads_of(parse(target.read_bytes(), format=RdfFormat.N_QUADS))
        graphs = (f"/graph/{name}>", f"/graph/{name}/inferred>", "/graph/_meta>")
        out[name] = [q for q in quads if q[0].endswith(graphs)]
        assert any(q[0].endswith(f"/graph/{name}>") for q in out[name])
    return out


def _layout(sources, names) -> object:
    layout = model.Layout()
    for name in names:
        layout.add(sources[name])
    return layout


def _remove(layout, sources, name: str) -> None:
    graphs = {q[0] for q in sources[name] if not q[0].endswith("/graph/_meta>")}
    described = {(q[1], q[0]) for q in sources[name] if q[0].endswith("/graph/_meta>")}
    layout.remove(graphs, described)


def _union(sources, names) -> set[tuple[str, str, str]]:
    return {q[1:] for name in names for q in sources[name]}


def _asserting(sources, names) -> dict[str, set[str]]:
    """Subject -> the source graphs that type it, from the sources' own statements."""
    out: dict[str, set[str]] = {}
    for name in names:
        for g, s, p, _ in sources[name]:
            if p == model.RDF_TYPE and g.endswith(f"/graph/{name}>"):
                out.setdefault(s, set()).add(g)
    return out


def test_the_merged_view_is_the_union_of_the_sources(sources) -> None:
    names = list(FILES)
    for order in itertools.permutations(names):
        assert _layout(sources, order).merged() == _union(sources, names)


@pytest.mark.parametrize("removed", list(FILES))
def test_removing_a_source_leaves_what_the_others_alone_give(sources, removed: str) -> None:
    rest = [name for name in FILES if name != removed]
    for order in itertools.permutations(FILES):
        layout = _layout(sources, order)
        _remove(layout, sources, removed)
        alone = _layout(sources, rest)
        assert layout.merged() == alone.merged() == _union(sources, rest)
        expected = _asserting(sources, rest)
        for subject in {s for (s, _, _) in layout.merged()}:
            assert layout.asserted_by(subject) == alone.asserted_by(subject) == expected.get(subject, set())


def test_replacing_a_source_by_itself_changes_no_answer(sources) -> None:
    layout = _layout(sources, FILES)
    before = layout.quads()
    _remove(layout, sources, "polgar-puzzles")
    layout.add(sources["polgar-puzzles"])
    assert layout.merged() == _union(sources, FILES)
    subjects = {q[1] for q in before}
    assert {s: layout.asserted_by(s) for s in subjects} == {s: _asserting(sources, FILES).get(s, set())
                                                            for s in subjects}
    # Where an expanded source keeps its inferred statements may differ (its source graph instead of
    # its inferred graph: the merge cannot tell them apart); which graphs hold them does not.
    assert {(model.owner(g), s, p, o) for (g, s, p, o) in layout.quads()} == \
        {(model.owner(g), s, p, o) for (g, s, p, o) in before}


def test_shared_individuals_keep_what_each_source_says_and_its_conflicts(sources) -> None:
    layout = _layout(sources, FILES)
    shared = {s for s, graphs in _asserting(sources, FILES).items() if len(graphs) > 1}
    assert shared, "the club bulletin shares games and positions with the Polgar puzzles"
    conflicts = 0
    for subject in shared:
        own = {name: {(p, o) for (g, s, p, o) in sources[name] if s == subject and not g.endswith("/graph/_meta>")}
               for name in FILES}
        decoded = layout.decode(subject)
        stored = {q for q in layout.by_subject[subject] if q[0] != model.DEFAULT}
        for name, said in own.items():
            graph = f"<https://w3id.org/chesskb/id/graph/{name}>"
            assert {(p, o) for (_, _, p, o) in decoded.get(graph, ())} == said
            others = [other for other in own if other != name and own[other]]
            for p, o in said:
                if others and any((p, o) not in own[other] for other in others):
                    conflicts += 1  # a value another source does not give: GRAPH ?g shows whose it is
                    assert any(model.owner(g) == graph and (q_p, q_o) == (p, o) for (g, _, q_p, q_o) in stored)
    assert conflicts  # the bulletin writes names and dates differently


def test_an_individual_of_one_source_costs_its_types_only(sources) -> None:
    layout = _layout(sources, FILES)
    asserting = _asserting(sources, FILES)
    alone = {s for s, graphs in asserting.items() if len(graphs) == 1 and not s.endswith(tuple(
        f"/source/{name}>" for name in FILES))}  # a source's own node is also described in _meta
    assert alone
    for subject in alone:
        named = {q for q in layout.by_subject[subject] if q[0] != model.DEFAULT}
        assert named and all(q[2] == model.RDF_TYPE and model.owner(q[0]) in asserting[subject] for q in named)
    stored = sum(1 for q in layout.quads() if q[0] != model.DEFAULT)
    today = len({q for name in FILES for q in sources[name]})
    assert stored < today / 3
