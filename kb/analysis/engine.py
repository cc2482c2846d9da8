"""The UCI engine (Debian's stockfish) through python-chess: found, opened and closed explicitly.

The engine is optional. It proposes moves to the mate proofs (``kb.analysis.verify``), which decide
the same verdicts without it; ``import --mine`` refuses to run without one; ``chesskb stats`` says
which is the case.

Nothing here starts an engine behind the caller's back. Whoever wants one opens it, and its end
is the end of a ``with`` block::

    with open_engine() as engine:          # None when no engine is installed (or CHESSKB_ENGINE=none)
        analysis = analyse(board, solution, engine=engine)

because python-chess talks to the engine from a non-daemon thread: an engine nobody stops keeps
its process alive after the script's last line. The process itself starts on first use (an import
whose claims are all short never starts one) and dies with the process that opened it, however
that ends (SIGKILL included: on Linux the kernel is asked to stop it, elsewhere it ends when its
input pipe closes).
"""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import chess.engine

#: ``prctl(2)``'s option that sends a signal to this process when its parent ends.
_PR_SET_PDEATHSIG = 1

MISSING_MESSAGE = (
    "this needs a UCI engine: install Debian's 'stockfish' package (scripts/setup.sh does) "
    "or set CHESSKB_ENGINE to an engine's path"
)


#: Seconds an engine may take to start and answer its UCI handshake (and each setting sent to it).
#: python-chess's own default, 10 s, was exceeded on this machine at load 10-15 (an import's workers
#: niced beside benchmarks), and the game whose claim asked for the engine was lost. Only a wait:
#: an engine that does not answer in time proposes nothing, and the proofs decide without it.
ENGINE_START_SECONDS = 60.0
#: What an engine that could not run, died, or did not answer in time raises through python-chess.
ENGINE_FAILURES = (chess.engine.EngineError, TimeoutError, OSError)


def engine_path() -> str | None:
    """``$CHESSKB_ENGINE`` (a path or a command; ``none`` turns the engine off), else ``stockfish`` on the
    PATH or in Debian's /usr/games."""
    configured = os.environ.get("CHESSKB_ENGINE")
    if configured:
        if configured.lower() == "none":
            return None
        return configured if Path(configured).is_file() else shutil.which(configured)
    return shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")


def engine_status() -> str:
    """One line for ``chesskb stats``."""
    path = engine_path()
    if path is None:
        return (
            "not found: mate claims are proven by python-chess alone (same verdicts) and import --mine is "
            "unavailable (install Debian's 'stockfish', or set CHESSKB_ENGINE)"
        )
    return f"{path}: proposes moves to the mate proofs; import --mine available"


class EngineMissing(RuntimeError):
    """No UCI engine (the message says how to get one)."""


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """The C library, for ``prctl``; loaded before any fork (a child between fork and exec must not import)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


#: Seconds between two looks at the parent, where the kernel cannot be asked (not Linux).
PARENT_WATCH_SECONDS = 1.0


def _signal_at_parent_death(parent: int) -> bool:
    """``prctl(PR_SET_PDEATHSIG, SIGTERM)``, then leave at once if ``parent`` is already gone (it died
    between the fork and this call, so the kernel will never signal). False where there is no prctl.
    Safe between fork and exec (an engine's ``preexec_fn``): no import, no thread, no lock."""
    libc = _libc()
    if libc is None:
        return False
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        os._exit(1)
    return True


def die_with_parent(parent: int) -> None:
    """Make this process (an import worker) end when ``parent`` ends, however it ends (SIGKILL
    included): an orphan would go on analysing for nobody, and its engine with it.

    On Linux the kernel sends SIGTERM; elsewhere a daemon thread looks every
    ``PARENT_WATCH_SECONDS`` and ends the process when it has a new parent.
    """
    if _signal_at_parent_death(parent):
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="chesskb-parent-watch", daemon=True).start()


class Engine:
    """One UCI engine for this process's analyses: its path now, its process on first use.

    ``uci()`` gives the python-chess engine (started the first time, one thread, dying with this
    process); ``close()`` (or leaving the ``with`` block) stops it. A forked child (an import
    worker) never uses its parent's engine: the thread that talks to it exists only in the parent,
    so the child would wait forever; it starts its own.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._uci: chess.engine.SimpleEngine | None = None
        self._owner = os.getpid()
        self._failed_in: int | None = None  # the process whose start of this engine failed

    @property
    def failed_to_start(self) -> bool:
        """Whether this process tried to start the engine and it failed (did not answer within
        ``ENGINE_START_SECONDS``, or could not run): the mate proofs stop asking it for proposals."""
        return self._failed_in == os.getpid()

    @property
    def running(self) -> bool:
        """Whether this process has started the engine (and not closed it)."""
        return self._uci is not None and self._owner == os.getpid()

    def uci(self) -> chess.engine.SimpleEngine:
        if self._owner != os.getpid():
            self._uci, self._owner = None, os.getpid()
        if self._uci is None:
            parent = os.getpid()
            _libc()  # loaded here, not in the child
            uci = None
            try:
                uci = chess.engine.SimpleEngine.popen_uci(
                    self.path, timeout=ENGINE_START_SECONDS, preexec_fn=lambda: _signal_at_parent_death(parent)
                )
                uci.configure({"Threads": 1})
            except ENGINE_FAILURES:
                self._failed_in = parent
                if uci is not None:  # a failed popen_uci has stopped the process it started
                    uci.close()
                raise
            self._uci, self._failed_in = uci, None
        return self._uci

    def close(self) -> None:
        """Stop the engine if this process started it (and wait for it, so no process is left behind)."""
        uci, self._uci = self._uci, None
        if uci is None or self._owner != os.getpid():
            return
        try:
            uci.quit()
        except ENGINE_FAILURES:
            uci.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Engine({self.path!r}{', running' if self.running else ''})"


@contextmanager
def open_engine(path: str | None = None, *, required: bool = False) -> Iterator[Engine | None]:
    """The engine at ``path`` (default ``engine_path()``, which honours ``$CHESSKB_ENGINE``) for the
    ``with`` block, stopped at its end; ``None`` when there is none, or ``EngineMissing`` if ``required``.

    >>> with open_engine("/no/such/engine") as engine:   # nothing starts until it is used
    ...     engine.path
    '/no/such/engine'
    """
    path = path or engine_path()
    if path is None:
        if required:
            raise EngineMissing(MISSING_MESSAGE)
        yield None
        return
    with Engine(path) as engine:
        yield engine
