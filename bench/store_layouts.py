"""Disk bytes per position of several ways to lay the same statements out in Oxigraph (issue 23, item 4).

Input: a ``chesskb convert`` file (N-Quads: each statement in its named graph and again in the
default graph). Each layout is bulk-loaded into a new on-disk store, flushed and compacted
(``optimize``), and measured. The file is read once per layout, streaming (a 100k-puzzle file
holds 18M quads: never all in memory):

* ``today``: every statement in its named graph and its triple in the default graph (the merge);
* ``named only``: the named graphs alone (queries would read the union of the named graphs);
* ``default only``: the merge alone (no provenance at all: the floor);
* ``design``: the layout of ``bench/README.md`` ("Store size"; its rules are
  ``kb/store/layout.py``, checked by ``tests/test_store_layout.py``): the merge once in the
  default graph; the small graphs (ontology, ``_meta``, ``_links``, ``_counts``) as today; a source's
  graphs keep its ``rdf:type`` statements (markers) about every subject, and of the rest only what
  not every source asserting the subject says (nothing, for a subject of one source; all of it for a
  subject a small graph mentions too);
* ``asserted markers``: as ``design`` with only the asserted types as markers (the inferred types
  in the merge only): smaller, but not exact when one source asserts a type another infers;
* ``design w/o inferred types``: as ``design`` without the superclass types the inferred graphs
  hold, anywhere (what the ontology graph already implies; queries would need
  ``rdf:type/rdfs:subClassOf*``): a bound, not a proposal.

    python bench/store_layouts.py /tmp/chesskb-bench/csv-10000.nq.gz 10000
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat, Store, parse

RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
INFERRED = "/inferred"
SHARED = object()  #: the owner of a subject two owners' graphs mention


def directory_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def read_quads(path: Path) -> Iterator[Quad]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as handle:
        yield from parse(handle, format=RdfFormat.N_QUADS)


def owner(graph: str) -> str:
    """Whose statements a named graph holds: a source (its graph and inferred graph together),
    or the graph itself (ontology, ``_meta``, ``_links``, ``_counts``)."""
    return graph[: -len(INFERRED)] if graph.endswith(INFERRED) else graph


def is_source_graph(graph: str) -> bool:
    """``…/graph/<name>`` or ``…/graph/<name>/inferred``, ``<name>`` not starting with ``_``."""
    head, _, name = owner(graph).rpartition("/")
    return head.endswith("/graph") and not name.startswith("_")


class Survey:
    """One pass over the file: which graphs mention each subject, and the inferred type triples."""

    def __init__(self, path: Path) -> None:
        self.owners: dict[str, object] = {}
        self.inferred_types: set[tuple[str, str]] = set()
        for quad in read_quads(path):
            if isinstance(quad.graph_name, DefaultGraph):
                continue
            graph = quad.graph_name.value
            subject = str(quad.subject)
            mine = owner(graph)
            seen = self.owners.get(subject, mine)
            self.owners[subject] = mine if seen == mine else SHARED  # two owners: kept in full
            if graph.endswith(INFERRED) and quad.predicate == RDF_TYPE:
                self.inferred_types.add((subject, str(quad.object)))
        self.common: dict[str, set[tuple[str, str]]] = {}
        shared = {s for s, o in self.owners.items() if o is SHARED}
        if not shared:
            return
        said: dict[str, dict[str, set[tuple[str, str]]]] = {}
        for quad in read_quads(path):
            subject = str(quad.subject)
            if isinstance(quad.graph_name, DefaultGraph) or subject not in shared:
                continue
            said.setdefault(subject, {}).setdefault(owner(quad.graph_name.value), set()).add(
                (str(quad.predicate), str(quad.object))
            )
        for subject, by_owner in said.items():
            if all(is_source_graph(g) for g in by_owner):  # only sources share it: common statements
                self.common[subject] = {
                    (p, o) for (p, o) in set.intersection(*by_owner.values()) if p != str(RDF_TYPE)
                }  # types are never common: markers

    def marker_only(self, subject: str, graph: str) -> bool:
        """A source's individual that no other graph mentions."""
        return is_source_graph(graph) and self.owners.get(subject) == owner(graph)


def layout_today(survey: Survey) -> Callable[[Quad], bool]:
    return lambda quad: True


def layout_named(survey: Survey) -> Callable[[Quad], bool]:
    return lambda quad: not isinstance(quad.graph_name, DefaultGraph)


def layout_default(survey: Survey) -> Callable[[Quad], bool]:
    return lambda quad: isinstance(quad.graph_name, DefaultGraph)


def layout_design(
    survey: Survey, *, asserted_markers: bool = False, drop_inferred_types: bool = False
) -> Callable[[Quad], bool]:
    def keep(quad: Quad) -> bool:
        subject = str(quad.subject)
        inferred_type = quad.predicate == RDF_TYPE and (subject, str(quad.object)) in survey.inferred_types
        if isinstance(quad.graph_name, DefaultGraph):
            return not (drop_inferred_types and inferred_type)
        graph = quad.graph_name.value
        if not is_source_graph(graph):
            return True
        if quad.predicate == RDF_TYPE:
            if graph.endswith(INFERRED) and (drop_inferred_types or asserted_markers):
                return not survey.marker_only(subject, graph) and not drop_inferred_types
            return True
        if survey.marker_only(subject, graph):
            return False
        common = survey.common.get(subject)
        return common is None or (str(quad.predicate), str(quad.object)) not in common

    return keep


LAYOUTS: dict[str, Callable[[Survey], Callable[[Quad], bool]]] = {
    "today": layout_today,
    "named only": layout_named,
    "default only": layout_default,
    "design": layout_design,
    "asserted markers": lambda s: layout_design(s, asserted_markers=True),
    "design w/o inferred types": lambda s: layout_design(s, drop_inferred_types=True),
}


def layout_bytes(path: Path, keep: Callable[[Quad], bool], target: Path) -> tuple[int, int, float]:
    started = time.perf_counter()
    store = Store(str(target))
    store.bulk_extend(quad for quad in read_quads(path) if keep(quad))
    store.flush()
    store.optimize()
    count = len(store)
    seconds = time.perf_counter() - started
    del store
    size = directory_bytes(target)
    shutil.rmtree(target)
    return count, size, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("nquads", type=Path)
    parser.add_argument("positions", type=int)
    parser.add_argument("--layouts", default=",".join(LAYOUTS), help="comma-separated, among: " + ", ".join(LAYOUTS))
    parser.add_argument("--work", type=Path, default=None, help="directory for the trial stores (default: a temp dir)")
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.layouts.split(",")]
    unknown = [name for name in chosen if name not in LAYOUTS]
    if unknown:
        parser.error(f"unknown layout {', '.join(unknown)}")
    survey = Survey(args.nquads)
    with tempfile.TemporaryDirectory(dir=args.work) as work:
        print(f"{'layout':<28} {'quads':>11} {'bytes':>15} {'bytes/position':>15} {'load s':>8}", flush=True)
        for name in chosen:
            count, size, seconds = layout_bytes(args.nquads, LAYOUTS[name](survey), Path(work) / "trial")
            print(f"{name:<28} {count:>11,} {size:>15,} {size / args.positions:>15,.0f} {seconds:>8.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
