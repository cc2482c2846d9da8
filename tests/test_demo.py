"""The README's first command, `./scripts/demo.sh`: a newcomer's short log and a quick second start.

Run for real (setup, import of data/, courses, stats, serve), twice on one store: the second start
reinstalls nothing and re-imports no source whose files did not change, which the import's own report
says; a changed file is imported again, and only that one.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.live_server import free_port

ROOT = Path(__file__).resolve().parent.parent
DEMO_SOURCES = ("puzzles", "mate_in_2", "mate_in_3", "seed-000-sample", "kasparov-deep-blue-1997",
                "odds", "seed-001-openings")


def _start_demo(root: Path, store: Path, timeout: float = 600) -> str:
    """Run demo.sh until it serves; returns everything it printed before serving, then stops it."""
    port = free_port()
    env = {**os.environ, "CHESSKB_STORE": str(store), "PORT": str(port), "HOST": "127.0.0.1"}
    process = subprocess.Popen(["bash", str(root / "scripts" / "demo.sh")], cwd=root, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    try:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if line.startswith("serving "):
                with socket.create_connection(("127.0.0.1", port), timeout=10):
                    pass  # it really listens
                return "".join(lines)
            assert time.monotonic() < deadline, "".join(lines)
        raise AssertionError("demo.sh stopped before serving:\n" + "".join(lines))
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


@pytest.mark.slow
def test_second_demo_start_reimports_only_changed_sources(tmp_path: Path) -> None:
    store = tmp_path / "store"
    first = _start_demo(ROOT, store)
    assert re.search(r"^imported \d+ games", first, re.MULTILINE) and "unchanged" not in first, first
    assert "warning" not in first.lower(), first  # a newcomer's log: no packaging or setuptools warnings
    assert "expected" in first  # the seed's deliberately broken game is announced as such

    second = _start_demo(ROOT, store)
    unchanged = next(line for line in second.splitlines() if line.startswith("unchanged, not imported again"))
    assert all(name in unchanged for name in DEMO_SOURCES), unchanged
    assert not re.search(r"^imported \d+ games", second, re.MULTILINE), second  # nothing analysed again


@pytest.mark.slow
def test_a_changed_file_is_imported_again_and_only_it(tmp_path: Path) -> None:
    from tests.conftest import run_cli

    data = tmp_path / "data"
    shutil.copytree(ROOT / "data" / "pychess", data)
    store = tmp_path / "store"
    files = [str(data / "mate_in_2.pgn"), str(data / "mate_in_3.pgn")]
    assert run_cli("import", "--skip-unchanged", *files, store=store).exit_code == 0
    again = run_cli("import", "--skip-unchanged", *files, store=store)
    assert again.exit_code == 0 and "unchanged, not imported again: 2 source(s)" in again.output

    with open(files[1], "a", encoding="utf-8") as handle:
        handle.write('\n[Event "added"]\n[Site "?"]\n[Date "????.??.??"]\n[Round "?"]\n[White "A"]\n'
                     '[Black "B"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n')
    changed = run_cli("import", "--skip-unchanged", *files, store=store)
    assert changed.exit_code == 0, changed.output
    assert "unchanged, not imported again: 1 source(s): mate_in_2" in changed.output
    assert "into source mate_in_3" in changed.output
    # A different import option is a different import: the same files are analysed again.
    themed = run_cli("import", "--skip-unchanged", "--theme", "MateInTwo", files[0], store=store)
    assert "unchanged" not in themed.output and "into source mate_in_2" in themed.output
