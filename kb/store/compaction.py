"""Rewriting a store in the compact layout (``kb/store/layout.py``).

A store written before the compact layout holds every statement twice: in its source's graph and in
the default graph. Each subject decodes the same in both layouts, so re-encoding it by the layout's
rules (``layout.encode(layout.decode(…))``) shrinks such a store without changing what any source
says: the common statements leave the sources' graphs and stay in the default graph. A compact
subject re-encodes to itself, so compacting twice changes nothing the second time.

The compacted store is written as a new one with pyoxigraph's bulk loader (no transaction per
quad, no query text), from a read of the old one: the old store is never modified, so a failure
half way leaves it as it was.
"""

from __future__ import annotations

import gc
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pyoxigraph import DefaultGraph, NamedNode, Quad
from pyoxigraph import Store as OxStore

from chesskb.kb.store import layout
from chesskb.kb.store.board_file import write_board_index
from chesskb.kb.store.manifest import write_manifest

_DEFAULT = DefaultGraph()


@dataclass
class Compaction:
    """What a compaction did: subjects read, quads read and quads written."""

    subjects: int = 0
    read: int = 0
    written: int = 0

    @property
    def dropped(self) -> int:
        return self.read - self.written


def compacted_quads(store: OxStore, done: Compaction | None = None) -> Iterator[Quad]:
    """Every quad of ``store`` in the compact layout, one subject at a time (memory: the largest
    subject's statements, whatever the store's size); ``done`` counts what was read and written.

    Subjects are read from the default graph (it holds every statement in both layouts), whose
    index yields each subject's statements together. A subject that only named graphs mention
    (no store writes one; it would need the merge it lacks) is copied as it is, never re-encoded:
    encoding would add it to the merge."""
    done = done if done is not None else Compaction()
    previous = None
    for quad in store.quads_for_pattern(None, None, None, _DEFAULT):
        if quad.subject == previous:
            continue
        previous = quad.subject
        stored = list(store.quads_for_pattern(quad.subject, None, None, None))
        wanted = layout.encode(layout.decode(stored))
        done.subjects += 1
        done.read += len(stored)
        done.written += len(wanted)
        yield from wanted
    for graph in store.named_graphs():
        if not isinstance(graph, NamedNode):
            continue
        subject, merged = None, True
        for quad in store.quads_for_pattern(None, None, None, graph):  # a graph's quads come by subject
            if quad.subject != subject:
                subject = quad.subject
                merged = next(store.quads_for_pattern(subject, None, None, _DEFAULT), None) is not None
            if merged:
                continue  # written above
            done.read += 1
            done.written += 1
            yield quad


def compact_generation(generation: Path) -> Compaction:
    """Rewrite one generation directory of an embedded store that no process has open (a copy, or
    a store at rest) in the compact layout, and list its new files in its manifest (a generation
    whose files differ from its manifest is refused as damaged). The compacted store is built
    beside it and takes its place only once complete."""
    generation = Path(generation)
    building = generation.with_name(generation.name + ".compacting")
    shutil.rmtree(building, ignore_errors=True)
    done = Compaction()
    bulk_copy_compacted(generation, building, done)
    retired = generation.with_name(generation.name + ".retired")
    generation.rename(retired)
    building.rename(generation)
    shutil.rmtree(retired)
    write_board_index(generation)
    write_manifest(generation)
    return done


def bulk_copy_compacted(source: Path, target: Path, done: Compaction) -> None:
    """Write the compact rewrite of the store at ``source`` into a new store at ``target``. The
    stores live only here: returning closes their RocksDB files (pyoxigraph closes them when the
    last reference goes)."""
    reading = OxStore.read_only(str(source))
    writing = OxStore(str(target))
    writing.bulk_extend(compacted_quads(reading, done))
    writing.flush()
    del reading, writing
    gc.collect()
