"""A generation's manifest: every file's size, modification time and CRC-32, checked at open.

Oxigraph reads its RocksDB files without verifying their block checksums, so a damaged file is not
refused: it is decoded, and a few flipped bytes in a table file made ``chesskb stats`` build a
result of 23 GB before the kernel stopped it. RocksDB's options are not reachable through
pyoxigraph, so the store checks its own files instead. When a generation is published its files
are listed in ``CHESSKB-MANIFEST`` (name, size, mtime in ns, CRC-32); opening a generation then
costs one ``stat`` per file: a missing file or a different size is refused at once, and every file
not *proven* unchanged is read and compared by checksum. Size and modification time are no proof (a
file damaged with its mtime put back drove ``stats`` to ``std::bad_alloc``, issue 35): the proof is
a record (``CHESSKB-VERIFIED``, beside the generations) of the inode, size, mtime and ctime each file
had when it was last read and found right; the ctime cannot be set back. A write proves the files
it reads to list them; files hard-linked from the previous generation (the RocksDB checkpoint) are
not read at publish time (their entries are copied) and the next opening reads them once (linking
moved their ctime). A command that opens an unchanged store reads nothing.

A generation without a manifest (written before manifests existed, or its manifest removed) is
refused unless ``CHESSKB_TRUST_UNLISTED_GENERATION`` is set, which lists its files as they are.
"""

from __future__ import annotations

import fcntl
import json
import os
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from chesskb.kb.store.base import StoreDamaged

MANIFEST = "CHESSKB-MANIFEST"
#: Files RocksDB writes for itself that are not data (logs, the lock): not listed, not checked.
_UNLISTED = ("LOG", "LOCK", MANIFEST)
_CHUNK = 1 << 20


def _listed(name: str) -> bool:
    return not name.startswith(_UNLISTED) and not name.endswith(".tmp")


def file_crc(path: Path) -> int:
    return _crc_and_stat(path)[0]


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
        return {
            str(name): {key: int(entry[key]) for key in ("size", "mtime_ns", "crc32")} for name, entry in files.items()
        }
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreDamaged(f"the store generation {generation} has a damaged manifest ({MANIFEST}: {exc})") from exc


def write_manifest(generation: Path, previous: Path | None = None) -> dict[str, list[int]]:
    """List every data file of a finished ``generation``; entries of files hard-linked from the
    ``previous`` generation (same inode, size and mtime) are copied instead of read again. Returns
    the proofs of the files it read (``record_proofs``, once the generation is published)."""
    known: dict[int, dict[str, int]] = {}
    if previous is not None:
        for name, listed in (read_manifest(previous) or {}).items():
            try:
                stat = (previous / name).stat()
            except OSError:
                continue
            if stat.st_size == listed["size"] and stat.st_mtime_ns == listed["mtime_ns"]:
                known[stat.st_ino] = listed
    files: dict[str, dict[str, int]] = {}
    read: dict[str, list[int]] = {}
    for path in sorted(generation.iterdir()):
        if not path.is_file() or not _listed(path.name):
            continue
        stat = path.stat()
        entry = known.get(stat.st_ino)
        if entry is None or entry["size"] != stat.st_size:
            crc, stat = _crc_and_stat(path)
            entry = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "crc32": crc}
            read[path.name] = _proof(stat)
        files[path.name] = {**entry, "mtime_ns": stat.st_mtime_ns}
    partial = generation / (MANIFEST + ".tmp")
    with open(partial, "w", encoding="utf-8") as handle:
        json.dump({"version": 1, "files": files}, handle, indent=0, sort_keys=True)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, generation / MANIFEST)
    return read


def record_proofs(generation: Path, proofs: dict[str, list[int]]) -> None:
    """Record, for a generation just published, the files its writer read whole while listing them
    (``write_manifest``): the first opening then reads only the files linked from the generation
    before (their ctime moved when they were linked)."""
    if proofs:
        with _checking(generation):
            _write_proofs(generation, proofs)


#: The named setting (an environment variable) that lets a generation without a manifest be opened:
#: its files are then listed as they are (trusted, since nothing can check them) and checked from then on.
TRUST_UNLISTED = "CHESSKB_TRUST_UNLISTED_GENERATION"
#: Beside the generations: which files were last read whole and found as their manifest says, by
#: inode, size, modification and *change* time. The change time (ctime) cannot be put back by a
#: user (``touch`` and ``utime`` set it to now), so a file whose four values are the recorded ones
#: is proven unchanged since that read; any other file is read again and compared by CRC.
VERIFIED = "CHESSKB-VERIFIED"


def verify_generation(generation: Path) -> None:
    """Refuse a generation whose files are not the ones its manifest lists (``StoreDamaged``, naming
    the file), or that has no manifest (unless ``TRUST_UNLISTED`` is set). A file is read and compared
    by CRC unless ``VERIFIED`` proves it unchanged since it last was: one ``stat`` per file when
    nothing changed, one read of each file a write linked or added since (its change time moved)."""
    entries = read_manifest(generation)
    if entries is None:
        entries = _trust_unlisted(generation)
    with _checking(generation):
        _verify_files(generation, entries)


@contextmanager
def _checking(generation: Path) -> Iterator[None]:
    """One process at a time reads a generation's files (``flock`` on ``CHESSKB-VERIFIED.lock``): the
    server's query workers all open a new generation at once, and the others then find the first
    one's proofs instead of each reading every file. Without write access, no lock: each reads."""
    try:
        handle = open(generation.parent / (VERIFIED + ".lock"), "a+b")  # noqa: SIM115 (closed below, after the lock)
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield  # closing the file releases the lock


def _verify_files(generation: Path, entries: dict[str, dict[str, int]]) -> None:
    proofs = _read_proofs(generation)
    proven: dict[str, list[int]] = {}
    for name, entry in entries.items():
        path = generation / name
        try:
            stat = path.stat()
        except FileNotFoundError:
            raise StoreDamaged(
                f"the store is damaged: {path} is missing; restore the store from a backup "
                "or import the sources again into a new store"
            ) from None
        if stat.st_size != entry["size"]:
            raise StoreDamaged(
                f"the store is damaged: {path} has {stat.st_size:,} bytes, "
                f"{entry['size']:,} when it was written; restore the store from a backup "
                "or import the sources again into a new store"
            )
        if proofs.get(name) == _proof(stat):
            proven[name] = proofs[name]
            continue
        crc, read = _crc_and_stat(path)
        if crc != entry["crc32"] or read.st_size != entry["size"]:
            raise StoreDamaged(
                f"the store is damaged: {path} was changed after it was written (checksum "
                "mismatch); restore the store from a backup or import the sources again "
                "into a new store"
            )
        proven[name] = _proof(read)
    if proven != proofs:
        _write_proofs(generation, proven)


def _trust_unlisted(generation: Path) -> dict[str, dict[str, int]]:
    if os.environ.get(TRUST_UNLISTED, "") in ("", "0"):
        raise StoreDamaged(
            f"the store generation {generation} has no manifest ({MANIFEST}): it was written before "
            "manifests existed, or its manifest was removed, so its files cannot be checked; import the "
            f"sources again into a new store, or, if you trust these files, run one command with "
            f"{TRUST_UNLISTED}=1 to list them as they are"
        )
    write_manifest(generation)
    return read_manifest(generation) or {}


def _proof(stat: os.stat_result) -> list[int]:
    return [stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]


def _crc_and_stat(path: Path) -> tuple[int, os.stat_result]:
    """The file's CRC-32 and its ``stat`` as read (through the open file: the same inode)."""
    crc = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            crc = zlib.crc32(chunk, crc)
        return crc, os.fstat(handle.fileno())


def _read_proofs(generation: Path) -> dict[str, list[int]]:
    try:
        data = json.loads((generation.parent / VERIFIED).read_text(encoding="utf-8"))
        if data.get("generation") != generation.name or not isinstance(data.get("files"), dict):
            return {}
        return {
            str(name): [int(value) for value in proof]
            for name, proof in data["files"].items()
            if isinstance(proof, list) and len(proof) == 4
        }
    except (OSError, ValueError, TypeError, AttributeError):
        return {}  # none yet, or unreadable: every file is read


def _write_proofs(generation: Path, proven: dict[str, list[int]]) -> None:
    """Record the files just read (best effort: a reader without write access reads them again
    next time)."""
    partial = generation.parent / f"{VERIFIED}.{os.getpid()}.tmp"
    try:
        partial.write_text(json.dumps({"generation": generation.name, "files": proven}), encoding="utf-8")
        os.replace(partial, generation.parent / VERIFIED)
    except OSError:
        partial.unlink(missing_ok=True)
