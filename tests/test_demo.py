"""The README's first command, `./scripts/demo.sh`: a newcomer's short log and a quick second start.

Run for real (setup, import of data/, courses, serve), twice on one store: every line it prints is one
the README announces; the second start reinstalls nothing, re-imports no source whose files did not
change and chooses no course again, which their own reports say; a changed file is imported again, and
only that one.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.live_server import free_port
from tests.pgn_slices import write_games
from tests.shared_proofs import proofs_of_the_run

ROOT = Path(__file__).resolve().parent.parent
DEMO_SOURCES = (
    "puzzles",
    "mate_in_2",
    "mate_in_3",
    "seed-000-sample",
    "kasparov-deep-blue-1997",
    "odds",
    "seed-001-openings",
)
#: Every line demo.sh may print, as the README's "The two commands" announces them.
ANNOUNCED = tuple(
    re.compile(pattern)
    for pattern in (
        r"ready: \.venv/bin/chesskb",
        r"imported (1 game|(?!1 )\d+ games) into (\d+ sources: .*|source \S+) .* -> .+",
        r"unchanged, not imported again: \d+ source\(s\): .+",
        r"notes on the bundled files \(expected, see README\): \d+ in .+\.import-notes\.txt",
        r"imported course [a-z0-9-]+: (1 chapter|(?!1 )\d+ chapters), (1 exercise|(?!1 )\d+ exercises)",
        r"course unchanged, not imported again: data/courses/.+\.yaml",
        r"query workers: network isolation .+",
        r"serving .+ on http://127\.0\.0\.1:\d+/ \(SPARQL at /sparql; Ctrl-C stops\)",
    )
)


def _unannounced(log: str) -> list[str]:
    return [line for line in log.splitlines() if not any(p.fullmatch(line) for p in ANNOUNCED)]


def _start_demo(root: Path, store: Path, timeout: float = 600) -> str:
    """Run demo.sh until it serves; returns everything it printed before serving, then stops it."""
    port = free_port()
    env = {**os.environ, "CHESSKB_STORE": str(store), "PORT": str(port), "HOST": "127.0.0.1"}
    process = subprocess.Popen(
        ["bash", str(root / "scripts" / "demo.sh")],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
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
def test_second_demo_start_reimports_only_changed_sources(tmp_path: Path, tmp_path_factory) -> None:
    """The whole demo, for real. Its imports share the run's mate proofs (``tests.shared_proofs``): the demo
    KB of ``demo_store`` and the data store import the same collections, and what is checked here (the log,
    the notes, what the second start imports again) does not depend on who proved a mate first."""
    store = tmp_path / "store"
    with proofs_of_the_run(tmp_path_factory):
        first = _start_demo(ROOT, store)
    assert re.search(r"^imported \d+ games?", first, re.MULTILINE) and "unchanged" not in first, first
    assert "warning" not in first.lower(), first  # a newcomer's log: no packaging or setuptools warnings
    assert "expected" in first  # the seed's deliberately broken game is announced as such
    assert not _unannounced(first), first  # every line is one the README describes
    notes = Path(str(store) + ".import-notes.txt").read_text(encoding="utf-8")
    assert "seed-000-sample.pgn: game 2 (line 15): invalid FEN" in notes
    assert re.search(rf"^notes on the bundled files .*: {len(notes.splitlines())} in ", first, re.MULTILINE)

    with proofs_of_the_run(tmp_path_factory):
        second = _start_demo(ROOT, store)
    unchanged = next(line for line in second.splitlines() if line.startswith("unchanged, not imported again"))
    assert all(name in unchanged for name in DEMO_SOURCES), unchanged
    assert not re.search(r"^imported \d+ games?", second, re.MULTILINE), second  # nothing analysed again
    assert not re.search(r"^imported course", second, re.MULTILINE), second  # no course chosen again
    assert len(re.findall(r"^course unchanged, not imported again", second, re.MULTILINE)) == len(
        list((ROOT / "data" / "courses").glob("*.yaml"))
    )
    assert not _unannounced(second), second


#: Games of each pychess collection the re-import test copies: which sources are imported again does not
#: depend on how many games they hold (the demo test above imports the whole collections).
CHANGED_FILE_GAMES = range(3)


@pytest.mark.slow
def test_a_changed_file_is_imported_again_and_only_it(tmp_path: Path) -> None:
    from tests.conftest import run_cli

    data = tmp_path / "data"
    data.mkdir()
    store = tmp_path / "store"
    files = [
        str(write_games(ROOT / "data" / "pychess" / name, CHANGED_FILE_GAMES, data / name))
        for name in ("mate_in_2.pgn", "mate_in_3.pgn")
    ]
    assert run_cli("import", "--skip-unchanged", *files, store=store).exit_code == 0
    again = run_cli("import", "--skip-unchanged", *files, store=store)
    assert again.exit_code == 0 and "unchanged, not imported again: 2 source(s)" in again.output

    with open(files[1], "a", encoding="utf-8") as handle:
        handle.write(
            '\n[Event "added"]\n[Site "?"]\n[Date "????.??.??"]\n[Round "?"]\n[White "A"]\n'
            '[Black "B"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n'
        )
    changed = run_cli("import", "--skip-unchanged", *files, store=store)
    assert changed.exit_code == 0, changed.output
    assert "unchanged, not imported again: 1 source(s): mate_in_2" in changed.output
    assert "into source mate_in_3" in changed.output
    # A different import option is a different import: the same files are analysed again.
    themed = run_cli("import", "--skip-unchanged", "--theme", "MateInTwo", files[0], store=store)
    assert "unchanged" not in themed.output and "into source mate_in_2" in themed.output
