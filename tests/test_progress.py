"""Long commands show a status line on a terminal and print only their result into a pipe (issue 25)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MATES = ROOT / "data" / "pychess" / "mate_in_2.pgn"


def _import(store: Path, *, terminal: bool) -> tuple[str, str]:
    """Run ``chesskb import`` with stderr on a pseudo-terminal or a pipe; returns (stdout, stderr)."""
    argv = [sys.executable, "-m", "chesskb", "--store", str(store), "import", "--jobs", "1", str(MATES)]
    env = {**os.environ, "CHESSKB_ENGINE": "none"}
    if not terminal:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
        return done.stdout, done.stderr
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=follower, env=env, text=True)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closes when the command exits
                break
            if not chunk:
                break
            chunks.append(chunk)
        out = process.communicate()[0]
        assert process.returncode == 0
        return out, b"".join(chunks).decode("utf-8", "replace")
    finally:
        os.close(leader)


def test_import_shows_a_status_line_on_a_terminal(tmp_path: Path) -> None:
    out, err = _import(tmp_path / "store", terminal=True)
    assert "games/s" in err and "\r" in err  # the line rewrites itself in place
    assert out.startswith("imported ")


def test_import_prints_only_its_result_into_a_pipe(tmp_path: Path) -> None:
    out, err = _import(tmp_path / "store", terminal=False)
    assert "games/s" not in err and "\r" not in err
    assert out.startswith("imported ")
