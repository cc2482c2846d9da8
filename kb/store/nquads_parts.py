"""Statements as N-Quads in the layout a server's bulk loader takes, as one file or as a folder of parts.

The layout is ``RemoteStore``'s (``kb/store/layout.py``, the earlier layout): every statement in its
named graph, and again as a triple of the default graph, which holds the merge. ``convert`` writes it
to one file (``write_quads``, ``write_batch``) or, with ``--parts``, to a folder: each work unit's
statements in a part file written by the process that analysed the unit (a local worker or a Dask
worker), the driver's own statements (ontology, sources' descriptions, links, counts) in one more
part, and a manifest listing the parts with their SHA-256 (``sha256sum -c manifest.sha256`` checks
them) so a loader takes exactly those files and nothing an earlier run left in the folder. Beside it,
``graphs.txt`` names the graphs the listed parts write to, so a loader that must register them
(Virtuoso's, ``kb.store.virtuoso``) need not read every part again to find out.

A part is a function of its unit: its name is the unit's content identity (``kb.pipeline.part_name``)
and its bytes are the unit's distinct statements sorted, gzip-compressed without a time stamp, so a
task Dask runs twice (a worker lost after finishing, a speculative copy) writes the same name with
the same bytes. Each part is written under a temporary name in the folder and renamed into place:
a reader never sees half a part, and two copies racing leave one whole part.
"""

from __future__ import annotations

import gzip
import hashlib
import socket
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from pyoxigraph import NamedNode, Quad, RdfFormat

from chesskb.kb.safe_output import atomic_output
from chesskb.kb.store.base import SerializedBatch, rdf_bytes

#: The manifest of a folder of parts: ``sha256sum`` lines (digest, two spaces, file name), in load order.
MANIFEST = "manifest.sha256"
#: Beside the manifest: the named graphs of the parts it lists, one a line, after a first line naming
#: that manifest by its SHA-256 (``# manifest sha256 HEX``). Finding them by reading the parts again
#: took about 3.5 minutes at a million puzzles (134M quads); a file naming another manifest (a run that
#: stopped between writing the two) is not used.
GRAPHS = "graphs.txt"
_GRAPHS_HEADER = "# manifest sha256 "
#: The part holding what the driver writes (ontology, sources' descriptions, links, class counts).
DRIVER_PART = "driver.nq.gz"
#: gzip level of every output: the statements are very repetitive, and a faster level keeps the writer
#: off the critical path.
GZIP_LEVEL = 1


class PartNotWritten(OSError):
    """A worker could not write its part (the folder is not on a file system it shares with the driver)."""


@dataclass(frozen=True)
class WrittenPart:
    """What a worker tells the driver about the part it wrote: enough for the manifest, not the statements."""

    name: str
    sha256: str
    graphs: tuple[str, ...]  # the named graphs its statements are in (``GRAPHS``)


def write_quads(handle: BinaryIO, quads: list[Quad]) -> None:
    """``quads`` in their graphs and their triples in the default graph (the merge)."""
    if quads:
        handle.write(rdf_bytes(quads, RdfFormat.N_QUADS))
        handle.write(rdf_bytes([q.triple for q in quads], RdfFormat.N_TRIPLES))


def write_batch(handle: BinaryIO, batch: SerializedBatch) -> None:
    """A worker's serialised batch in the same layout as ``write_quads``."""
    for graph, data in batch.graphs.items():
        # N-Triples escapes line breaks inside literals, so " .\n" only ever ends a statement
        handle.write(data.replace(b" .\n", b" <" + graph.encode() + b"> .\n"))
        handle.write(data)  # the same triples in the default graph


@contextmanager
def compressed(handle: BinaryIO, gzipped: bool) -> Iterator[BinaryIO]:
    """``handle`` itself, or a gzip stream onto it (closed, so its trailer is written, before the file)."""
    if not gzipped:
        yield handle
        return
    with gzip.GzipFile(filename="", fileobj=handle, mode="wb", compresslevel=GZIP_LEVEL, mtime=0) as packed:
        yield packed  # type: ignore[misc]  # typeshed: GzipFile is an io.BufferedIOBase, not a typing.BinaryIO


def part_bytes(quads: Iterable[Quad]) -> bytes:
    """The part's content: its distinct statements in the layout, sorted (so the same statements give
    the same bytes whatever order a process produced them in), gzip-compressed without a time stamp."""
    quads = list(quads)
    in_graphs = set(rdf_bytes(quads, RdfFormat.N_QUADS).splitlines(keepends=True))
    in_merge = set(rdf_bytes([quad.triple for quad in quads], RdfFormat.N_TRIPLES).splitlines(keepends=True))
    return gzip.compress(b"".join(sorted(in_graphs) + sorted(in_merge)), compresslevel=GZIP_LEVEL, mtime=0)


def graph_names(quads: Iterable[Quad]) -> tuple[str, ...]:
    """The named graphs ``quads`` are in, sorted (what ``write_part`` is told a part writes to)."""
    return tuple(sorted({quad.graph_name.value for quad in quads if isinstance(quad.graph_name, NamedNode)}))


def write_part(folder: Path, name: str, data: bytes, graphs: tuple[str, ...]) -> WrittenPart:
    """``data`` as ``folder/name``, under a temporary name first and renamed (so the same name written
    twice, even at once, leaves one whole file); ``graphs``: the named graphs its statements are in
    (``graph_names``). ``PartNotWritten`` says which host failed and why."""
    try:
        with atomic_output(folder / name) as handle:
            handle.write(data)
    except OSError as exc:
        raise PartNotWritten(
            f"{socket.gethostname()} could not write the part {name} into {folder}: {exc} (the --parts folder "
            "must be on a file system every worker shares with the driver, at the same path)"
        ) from None
    return WrittenPart(name, hashlib.sha256(data).hexdigest(), graphs)


def write_manifest(folder: Path, parts: Iterable[WrittenPart]) -> None:
    """The manifest, written last and atomically: a folder with a manifest holds every part it lists.
    Just before it, ``GRAPHS``: the parts' named graphs, under the digest of the manifest to come."""
    parts = list(parts)
    manifest = "".join(f"{part.sha256}  {part.name}\n" for part in parts)
    graphs = sorted({graph for part in parts for graph in part.graphs})
    with atomic_output(folder / GRAPHS, "w", encoding="utf-8") as handle:
        handle.write(_GRAPHS_HEADER + hashlib.sha256(manifest.encode("utf-8")).hexdigest() + "\n")
        handle.writelines(f"{graph}\n" for graph in graphs)
    with atomic_output(folder / MANIFEST, "w", encoding="utf-8") as handle:
        handle.write(manifest)


def manifest_graphs(folder: Path) -> set[str] | None:
    """The named graphs of the parts ``folder``'s manifest lists (``GRAPHS``), or ``None`` when the folder
    has no such list for that manifest (none at all, or one written for another manifest). A line that is
    not an IRI raises ``ValueError`` naming the file and line (the list was edited by hand)."""
    try:
        manifest = (folder / MANIFEST).read_bytes()
        lines = (folder / GRAPHS).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return None
    if not lines or lines[0] != _GRAPHS_HEADER + hashlib.sha256(manifest).hexdigest():
        return None
    graphs = set()
    for number, line in enumerate(lines[1:], start=2):
        if not line:
            continue
        try:
            graphs.add(NamedNode(line).value)
        except ValueError as exc:
            raise ValueError(f"{folder / GRAPHS}, line {number}: not a graph IRI ({exc}): {line[:200]!r}") from None
    return graphs


def manifest_files(folder: Path) -> list[Path] | None:
    """The parts ``folder``'s manifest lists, in order (``None`` when it has no manifest)."""
    path = folder / MANIFEST
    if not path.is_file():
        return None
    names = [line.split("  ", 1)[-1] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    outside = [name for name in names if Path(name).name != name or name in (".", "..")]
    if outside:
        raise ValueError(f"{path} lists files outside its folder: {', '.join(map(repr, outside[:3]))}")
    return [folder / name for name in names]
