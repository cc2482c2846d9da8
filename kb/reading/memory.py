"""An address-space cap for the import's reader processes (issue 35, item 5).

The import's worker processes parse and analyse games from files anyone may hand us; the per-line
and per-game bounds (``kb.reading.text``, ``kb.reading.pgn``) keep what one game can be, and this
cap is the floor under them: a game that still needs more memory fails alone (its analysis ends in
``MemoryError``, reported as that game's error) instead of taking the machine's memory.

The cap is the address space a worker already has when it starts (inherited from the importer:
libraries, the interpreter) plus ``READER_MEMORY_BYTES``, set with ``RLIMIT_AS``; the engine a
worker starts inherits it too (Stockfish's default hash is 16 MB).
"""

from __future__ import annotations

import resource

#: The address space an import worker may add after it starts, in bytes (a named setting; ``0``
#: for no cap). A worker mapping a unit of 64 ordinary games stays under 200 MB.
READER_MEMORY_BYTES = 2 << 30


def current_address_space() -> int:
    """This process's address space now, in bytes (``VmSize``)."""
    with open("/proc/self/statm", encoding="ascii") as handle:
        pages = int(handle.read().split()[0])
    return pages * resource.getpagesize()


def cap_address_space(extra: int = READER_MEMORY_BYTES) -> int | None:
    """Limit this process to its present address space plus ``extra`` bytes; the limit set, or
    ``None`` when there is none to set (``extra`` 0, no ``/proc``, or a lower hard limit already)."""
    if extra <= 0:
        return None
    try:
        limit = current_address_space() + extra
    except OSError:
        return None
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY and hard < limit:
        limit = hard
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return limit
