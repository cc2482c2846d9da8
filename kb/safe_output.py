"""Writing output files without following anything a stranger planted in the folder.

``chesskb export -o OUT`` used to write ``OUT.partial`` and rename it: a symlink planted at
``OUT.partial`` (in a shared or world-writable folder) made the export write through it, into any
file the user could write. Here the temporary file is made by ``tempfile.mkstemp`` in the target's
folder (``O_CREAT | O_EXCL`` under a random name: it never opens an existing path, link or not),
and renamed over the target at the end, which replaces a link at the target itself rather than
writing through it. A failed write leaves no temporary file behind and the target as it was.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path
from typing import Any, BinaryIO, Literal, TextIO, overload


class UnsafeOutput(OSError):
    """The output path leads out of the folder it was meant for (a planted symlink)."""


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@overload
def atomic_output(
    path: str | os.PathLike[str], mode: Literal["wb"] = "wb", *, durable: bool = True, **open_args: Any
) -> AbstractContextManager[BinaryIO]: ...


@overload
def atomic_output(
    path: str | os.PathLike[str], mode: Literal["w"], *, durable: bool = True, **open_args: Any
) -> AbstractContextManager[TextIO]: ...


@contextmanager
def atomic_output(
    path: str | os.PathLike[str], mode: str = "wb", *, durable: bool = True, **open_args: Any
) -> Iterator[Any]:  # the overloads above say which file: os.fdopen's by mode
    """An open file whose content becomes ``path`` when the block ends without an exception
    (``durable``: on disk before the rename; a site's thousands of pages skip that). ``mode`` is
    ``"wb"`` (bytes) or ``"w"`` (text, with ``open_args`` such as ``encoding``): the type checker
    then knows which kind of file the block writes."""
    target = Path(path)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent or ".")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # the permissions an ordinary open() would have given
        with os.fdopen(fd, mode, **open_args) as handle:
            yield handle
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def write_inside(root: Path, relative: str | os.PathLike[str], data: bytes) -> None:
    """Write ``root/relative`` atomically, refusing a path whose folder leads out of ``root``
    (a symlinked subfolder planted in an output folder)."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.parent.resolve().is_relative_to(root.resolve()):
        raise UnsafeOutput(f"refusing to write {path}: its folder is a link out of {root}")
    with atomic_output(path, durable=False) as handle:
        handle.write(data)
