"""The UCI engine (Debian's stockfish) through python-chess: finding it, one instance per process.

The engine is optional. Without it, mate claims longer than two moves stay ``unverified`` and
``import --mine`` refuses to run; ``chesskb stats`` says which is the case.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import chess.engine

_ENGINE: chess.engine.SimpleEngine | None = None


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
        return ("not found: mate claims longer than 2 moves stay unverified and import --mine is unavailable "
                "(install Debian's 'stockfish', or set CHESSKB_ENGINE)")
    return f"{path}: verifies mate claims of any length; import --mine available"


class EngineMissing(RuntimeError):
    """No UCI engine (the message says how to get one)."""


def shared_engine() -> chess.engine.SimpleEngine:
    """This process's engine, started on first use (import workers each start their own)."""
    global _ENGINE
    if _ENGINE is None:
        path = engine_path()
        if path is None:
            raise EngineMissing("this needs a UCI engine: install Debian's 'stockfish' package "
                                "(scripts/setup.sh does) or set CHESSKB_ENGINE to an engine's path")
        _ENGINE = chess.engine.SimpleEngine.popen_uci(path)
        _ENGINE.configure({"Threads": 1})
    return _ENGINE


def _forget_inherited_engine() -> None:
    """A forked child (an import worker) must not use its parent's engine: the thread that talks to it
    exists only in the parent, so the child would wait forever. It starts its own on first use."""
    global _ENGINE
    _ENGINE = None


os.register_at_fork(after_in_child=_forget_inherited_engine)


def close_shared_engine() -> None:
    """Stop this process's engine. Explicitly, not at exit: python-chess runs the engine from a
    non-daemon thread, and the interpreter waits for such threads *before* running atexit hooks."""
    global _ENGINE
    if _ENGINE is not None:
        _ENGINE.quit()
        _ENGINE = None
