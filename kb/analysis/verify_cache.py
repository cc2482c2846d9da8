"""Mate claims decided once: a cache of proof verdicts, in memory and in a small SQLite file.

A claim is "in this position the side to move mates within N". Its verdict (``kb.analysis.verify``:
proven, refuted, with the exact length, first moves and solution tree the proof found) depends on the
position, N and the rule that decided it, nothing else: not the source, the game's tags, the moves shown
after the first (which only order the search) or the engine (which only proposes moves). So the key is

* the normalised position (``board_facts.position_key``: placement, side, castling, legal en
  passant), plus the half-move clock only when the fifty-move rule could end the game within the
  claimed mate (a clock of 99 lets the defender claim a draw before a mate in three);
* N;
* the rule (``kb.analysis.verify.PROOF_RULE``: the proof's version, node budget and tree limit), so a
  new rule decides again instead of inheriting another's answers — the former engine rule's
  "refuted-engine" entries are never read back.

The value is the verdict as JSON. A decided verdict is kept under the rule; an undecided one only under
the name of the very search that ran out of budget (``kb.analysis.verify.undecided_rule``: the search's
code, the budget, the move tried first and the engine that proposed moves), because undecided may be
decided later, with a larger budget, another engine or a better search, and none of those reads it. It
saves searching again what the same search already failed to decide (a trap's "mate in seven" from the
initial position costs the whole 400,000-node budget, seconds of CPU, at every import).

The file (``verification-cache.sqlite`` in the embedded store's directory by default, see
:func:`cache_location`) is written by the importer's process only; import workers read it and send what
they decided back with their results, so copies of a position across units, sources and imports are
proved once. It holds facts about chess positions, not about the knowledge base: deleting
it costs time, never an answer.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import chess

from chesskb.kb.analysis.board_facts import position_key

#: ``$CHESSKB_VERIFY_CACHE``: the cache file's path, or ``none`` for a cache that lives only as long
#: as the process (nothing written to disk).
CACHE_ENV = "CHESSKB_VERIFY_CACHE"
CACHE_FILE = "verification-cache.sqlite"
#: Entries kept in memory per process (a few hundred bytes each) before the oldest are dropped.
MEMORY_ENTRIES = 200_000
_SCHEMA = "CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, status TEXT NOT NULL)"


def claim_key(board: chess.Board, mate_in: int, decider: str) -> str:
    """The cache key of the claim "the side to move on ``board`` mates in ``mate_in``" for ``decider``."""
    clock = board.halfmove_clock if board.halfmove_clock + 2 * mate_in >= 100 else 0
    return f"{position_key(board)}|{clock}|{mate_in}|{decider}"


def cache_location(store_location: str | os.PathLike[str] | None) -> Path | None:
    """Where an import into ``store_location`` keeps its cache: ``$CHESSKB_VERIFY_CACHE`` when set
    (``none``: nowhere), else beside an embedded store (in its directory), else (a SPARQL server, or
    ``convert`` with no store) in the user's cache directory."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return None if configured.lower() == "none" else Path(configured)
    if store_location is not None and not str(store_location).startswith(("http://", "https://")):
        return Path(store_location) / CACHE_FILE
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(home) / "chesskb" / CACHE_FILE


class VerificationCache:
    """Decided claims by key: an in-process dictionary in front of an optional SQLite file.

    What this process decides waits in :attr:`new` until the importer's process saves it
    (a unit's worth at a time: one transaction per unit, not per claim). ``writer``: this process
    creates and writes the file; import workers only read it.
    """

    def __init__(self, path: Path | None = None, *, writer: bool = True) -> None:
        self.path = path
        self.writer = writer
        self._memory: dict[str, str] = {}
        self.new: list[tuple[str, str]] = []
        self._connection: sqlite3.Connection | None = None
        self._pid = os.getpid()

    def get(self, key: str) -> str | None:
        status = self._memory.get(key)
        if status is None:
            connection = self._connect()
            if connection is not None:
                try:
                    row = connection.execute("SELECT status FROM claims WHERE key = ?", (key,)).fetchone()
                except sqlite3.OperationalError:  # the writer has not created the table yet
                    row = None
                if row is not None:
                    status = row[0]
                    self._remember(key, status)
        return status

    def put(self, key: str, status: str) -> None:
        self._remember(key, status)
        self.new.append((key, status))

    def take_new(self) -> list[tuple[str, str]]:
        """The entries decided here since the last call (workers hand them to the writer)."""
        new, self.new = self.new, []
        return new

    def save(self, entries: Iterable[tuple[str, str]]) -> None:
        """Keep ``entries`` (decided by this process or a worker) in memory and in the file."""
        entries = list(entries)
        for key, status in entries:
            self._remember(key, status)
        if not entries or self.path is None or not self.writer:
            return
        connection = self._connect(create=True)
        assert connection is not None
        with connection:
            connection.executemany("INSERT OR REPLACE INTO claims (key, status) VALUES (?, ?)", entries)

    def close(self) -> None:
        if self._connection is not None and self._pid == os.getpid():
            self._connection.close()
        self._connection = None

    def _remember(self, key: str, status: str) -> None:
        if len(self._memory) >= MEMORY_ENTRIES:
            self._memory.pop(next(iter(self._memory)))
        self._memory[key] = status

    def _connect(self, create: bool = False) -> sqlite3.Connection | None:
        """The file's connection, opened in this process (a forked worker never uses its parent's)."""
        if self._pid != os.getpid():
            self._connection, self._pid = None, os.getpid()
        if self._connection is not None or self.path is None:
            return self._connection
        if not self.path.exists():
            if not (create and self.writer):
                return None
            self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=30)
        if self.writer:
            connection.execute("PRAGMA journal_mode=WAL")  # workers read while the importer writes
            connection.execute("PRAGMA synchronous=NORMAL")  # a lost entry is only decided again
            connection.execute(_SCHEMA)
            connection.commit()
        self._connection = connection
        return connection
