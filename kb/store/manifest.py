"""A generation's manifest: every file's size, modification time and CRC-32, checked at open.

Oxigraph reads its RocksDB files without verifying their block checksums, so a damaged file is not
refused: it is decoded, and a few flipped bytes in a table file made ``chesskb stats`` build a
result of 23 GB before the kernel stopped it. RocksDB's options are not reachable through
pyoxigraph, so the store checks its own files instead. When a generation is published its files
are listed in ``CHESSKB-MANIFEST`` (name, size, mtime in ns, CRC-32); opening a generation then
costs one ``stat`` per file: a missing file or a different size is refused at once, and a file
whose modification time changed (it was written since) is read once and compared by checksum.
A file that changed on disk without its modification time changing (bit rot under the file
system) is not caught here. Files hard-linked from the previous generation (the RocksDB
checkpoint) are not read again at publish time: their entries are copied.

Generations written before manifests existed have none and open unchecked; the next write gives
the new generation one.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

from chesskb.kb.store.base import StoreDamaged

MANIFEST = "CHESSKB-MANIFEST"
#: Files RocksDB writes for itself that are not data (logs, the lock): not listed, not checked.
_UNLISTED = ("LOG", "LOCK", MANIFEST)
_CHUNK = 1 << 20


def _listed(name: str) -> bool:
    return not name.startswith(_UNLISTED) and not name.endswith(".tmp")


def file_crc(path: Path) -> int:
    crc = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            crc = zlib.crc32(chunk, crc)
    return crc


def read_manifest(generation: Path) -> dict[str, dict[str, int]] | None:
    """The manifest's entries by file name, or ``None`` for a generation without one."""
    try:
        text = (generation / MANIFEST).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreDamaged(f"the store generation {generation} has an unreadable manifest: {exc}") from exc
    try:
        data = json.loads(text)
        files = data["files"]
        if not isinstance(files, dict):
            raise ValueError("files is not a mapping")
        return {str(name): {key: int(entry[key]) for key in ("size", "mtime_ns", "crc32")}
                for name, entry in files.items()}
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreDamaged(f"the store generation {generation} has a damaged manifest ({MANIFEST}: {exc})") from exc


def write_manifest(generation: Path, previous: Path | None = None) -> None:
    """List every data file of a finished ``generation``; entries of files hard-linked from the
    ``previous`` generation (same inode, size and mtime) are copied instead of read again."""
    known: dict[int, dict[str, int]] = {}
    if previous is not None:
        for name, entry in (read_manifest(previous) or {}).items():
            try:
                stat = (previous / name).stat()
            except OSError:
                continue
            if stat.st_size == entry["size"] and stat.st_mtime_ns == entry["mtime_ns"]:
                known[stat.st_ino] = entry
    files: dict[str, dict[str, int]] = {}
    for path in sorted(generation.iterdir()):
        if not path.is_file() or not _listed(path.name):
            continue
        stat = path.stat()
        entry = known.get(stat.st_ino)
        if entry is None or entry["size"] != stat.st_size:
            entry = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "crc32": file_crc(path)}
        files[path.name] = {**entry, "mtime_ns": stat.st_mtime_ns}
    partial = generation / (MANIFEST + ".tmp")
    with open(partial, "w", encoding="utf-8") as handle:
        json.dump({"version": 1, "files": files}, handle, indent=0, sort_keys=True)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, generation / MANIFEST)


def verify_generation(generation: Path) -> None:
    """Refuse a generation whose files are not the ones its manifest lists (``StoreDamaged``, naming
    the file). Cheap when nothing changed: one ``stat`` per file."""
    entries = read_manifest(generation)
    if entries is None:
        return
    for name, entry in entries.items():
        path = generation / name
        try:
            stat = path.stat()
        except FileNotFoundError:
            raise StoreDamaged(f"the store is damaged: {path} is missing; restore the store from a backup "
                               "or import the sources again into a new store") from None
        if stat.st_size != entry["size"]:
            raise StoreDamaged(f"the store is damaged: {path} has {stat.st_size:,} bytes, "
                               f"{entry['size']:,} when it was written; restore the store from a backup "
                               "or import the sources again into a new store")
        if stat.st_mtime_ns != entry["mtime_ns"] and file_crc(path) != entry["crc32"]:
            raise StoreDamaged(f"the store is damaged: {path} was changed after it was written (checksum "
                               "mismatch); restore the store from a backup or import the sources again "
                               "into a new store")
