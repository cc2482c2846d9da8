"""Disk bytes per position of several ways to lay the same statements out in Oxigraph (issue 23, item 4).

Input: a ``chesskb convert`` file (N-Quads: each statement in its named graph and again in the
default graph). Each layout is bulk-loaded into a new on-disk store, flushed and compacted
(``optimize``), and measured. The file is read once per layout, streaming (a 100k-puzzle file
holds 18M quads: never all in memory):

* ``today``: every statement in its named graph and its triple in the default graph (the merge);
* ``named only``: the named graphs alone (queries would read the union of the named graphs);
* ``default only``: the merge alone (no provenance at all: the floor);
* ``typed markers``: the design of ``bench/README.md`` ("Store size"): the merge once in the
  default graph; the small graphs (ontology, ``_meta``, ``_links``, ``_counts``) as today; a source
  graph keeps, for an individual no other graph mentions, only the source's ``rdf:type``
  statements about it (its markers: ``GRAPH ?g { ?x a cp:Position }`` still answers which source
  asserts ``?x``), and for an individual another graph mentions too, everything the source says
  about it (so conflicts stay visible and remove-source stays exact); the inferred graph keeps
  only the latter;
* ``one marker``: as ``typed markers`` with a single type statement per individual (the cost of the
  markers themselves);
* ``markers w/o inferred types``: as ``typed markers``, and the merge without the superclass
  types the inferred graphs hold (what the ontology graph already implies; queries would then
  need ``rdf:type/rdfs:subClassOf*``): a bound, not a proposal.

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
            seen = self.owners.get(subject)
            if seen is None:
                self.owners[subject] = mine
            elif seen != mine:
                self.owners[subject] = None  # mentioned by two owners: kept in full
            if graph.endswith(INFERRED) and quad.predicate == RDF_TYPE:
                self.inferred_types.add((subject, str(quad.object)))

    def marker_only(self, subject: str, graph: str) -> bool:
        """A source's individual that no other graph mentions."""
        return is_source_graph(graph) and self.owners.get(subject) == owner(graph)


def layout_today(survey: Survey) -> Callable[[Quad], bool]:
    return lambda quad: True


def layout_named(survey: Survey) -> Callable[[Quad], bool]:
    return lambda quad: not isinstance(quad.graph_name, DefaultGraph)


def layout_default(survey: Survey) -> Callable[[Quad], bool]:
    return lambda quad: isinstance(quad.graph_name, DefaultGraph)


def layout_markers(survey: Survey, *, one: bool = False, drop_inferred_types: bool = False) -> Callable[[Quad], bool]:
    marked: set[str] = set()

    def keep(quad: Quad) -> bool:
        subject = str(quad.subject)
        if isinstance(quad.graph_name, DefaultGraph):
            return not (drop_inferred_types and quad.predicate == RDF_TYPE
                        and (subject, str(quad.object)) in survey.inferred_types)
        graph = quad.graph_name.value
        if not survey.marker_only(subject, graph):
            return True
        if graph.endswith(INFERRED) or quad.predicate != RDF_TYPE:
            return False
        if one:
            if subject in marked:
                return False
            marked.add(subject)
        return True

    return keep


LAYOUTS: dict[str, Callable[[Survey], Callable[[Quad], bool]]] = {
    "today": layout_today,
    "named only": layout_named,
    "default only": layout_default,
    "typed markers": layout_markers,
    "one marker": lambda s: layout_markers(s, one=True),
    "markers w/o inferred types": lambda s: layout_markers(s, drop_inferred_types=True),
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
    parser.add_argument("--layouts", default=",".join(LAYOUTS),
                        help="comma-separated, among: " + ", ".join(LAYOUTS))
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
