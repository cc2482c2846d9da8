"""Rewriting a store in the compact layout (``kb/store/layout.py``), in place.

A store written before the compact layout holds every statement twice: in its source's graph and in
the default graph. Each subject decodes the same in both layouts, so re-encoding it by the layout's
rules (``layout.encode(layout.decode(…))``) shrinks such a store without changing what any source
says: the common statements leave the sources' graphs and stay in the default graph. A compact
subject re-encodes to itself, so running it twice changes nothing the second time.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path

from pyoxigraph import DefaultGraph
from pyoxigraph import Store as OxStore

from chesskb.kb.store import layout
from chesskb.kb.store.manifest import write_manifest


@dataclass
class Compaction:
    """What a compaction did: subjects read, quads removed from and added to the store."""

    subjects: int = 0
    removed: int = 0
    added: int = 0


def compact_store(store: OxStore) -> Compaction:
    """Re-encode every subject of ``store`` (a writable pyoxigraph store) by the layout's rules.

    Subjects are read from the default graph (it holds every statement in both layouts), whose
    index yields each subject's statements together; the iteration reads a snapshot, so the
    writes made meanwhile do not move it. One subject is decoded at a time: memory stays that of
    the largest subject, whatever the store's size."""
    done = Compaction()
    previous = None
    for quad in store.quads_for_pattern(None, None, None, DefaultGraph()):
        subject = quad.subject
        if subject == previous:
            continue
        previous = subject
        stored = set(store.quads_for_pattern(subject, None, None, None))
        wanted = layout.encode(layout.decode(stored))
        for gone in stored - wanted:
            store.remove(gone)
        new = wanted - stored
        if new:
            store.extend(new)
        done.subjects += 1
        done.removed += len(stored - wanted)
        done.added += len(new)
    return done


def compact_generation(generation: Path) -> Compaction:
    """Compact one generation directory of an embedded store that no process has open (a copy, or
    a store at rest), then list its files again in its manifest: the files changed, and a
    generation whose files differ from its manifest is refused as damaged."""
    store = OxStore(str(generation))
    try:
        done = compact_store(store)
        store.flush()
    finally:
        del store
        gc.collect()  # pyoxigraph closes the RocksDB files when the store object goes
    write_manifest(generation)
    return done
