"""Engines are explicit: nothing starts stockfish behind the caller's back, and nothing outlives its process.

Real processes throughout: scripts run by a fresh interpreter, ``chesskb import`` killed with SIGKILL,
and the process table read from /proc (what ``ps`` reads).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from chesskb.kb.analysis.engine import engine_path

from .conftest import DATA, ROOT, run_cli

needs_engine = pytest.mark.skipif(engine_path() is None, reason="no stockfish (scripts/setup.sh installs it)")
linux_only = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")

#: The first of pychess's mates in three: a claim only the engine can decide (the search proves two).
MATE_IN_THREE = DATA / "pychess" / "mate_in_3.pgn"


def _run_script(code: str, timeout: float = 60) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return result, time.monotonic() - started


def test_a_script_that_calls_analyse_exits_by_itself() -> None:
    """Five lines that analyse a mate in three: before, analyse() started a stockfish on a non-daemon
    thread and the interpreter waited for it forever; now no engine is started unless opened."""
    result, seconds = _run_script(f"""
        from chesskb.kb.analysis import analyse
        from chesskb.kb.reading import read_records
        record = next(iter(read_records({str(MATE_IN_THREE)!r})))
        print(analyse(record.start_board(), record.solution).facts["mateVerification"])
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["proven"]  # no engine was asked for: python-chess's proof decided
    assert seconds < 30  # an interpreter start and one analysis (the machine is shared)


@needs_engine
def test_a_script_that_opens_an_engine_gets_its_answer_and_exits() -> None:
    result, seconds = _run_script(f"""
        from chesskb.kb.analysis import analyse
        from chesskb.kb.analysis.engine import open_engine
        from chesskb.kb.reading import read_records
        record = next(iter(read_records({str(MATE_IN_THREE)!r})))
        with open_engine() as engine:
            print(analyse(record.start_board(), record.solution, engine=engine).facts["mateVerification"])
            print(engine.running)
        print(engine.running)
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["proven", "True", "False"]
    assert seconds < 30


def test_collecting_the_suite_analyses_nothing_and_starts_no_engine(tmp_path: Path) -> None:
    """``pytest --collect-only`` imports every test module: none may analyse a position or start an
    engine while being imported (the expected answers are computed in fixtures, when a test runs).
    A plugin records every call of ``analyse``, and ``CHESSKB_ENGINE`` points at a fake engine that
    notes its start; the collection must also end by itself, well within the timeout."""
    calls = tmp_path / "calls.txt"
    plugin = tmp_path / "record_analysis.py"
    plugin.write_text(
        textwrap.dedent(f"""
        import chesskb.kb.analysis as analysis

        _real = analysis.analyse

        def analyse(*args, **kwargs):
            with open({str(calls)!r}, "a") as out:
                out.write("analyse\\n")
            return _real(*args, **kwargs)

        analysis.analyse = analyse
        """),
        encoding="utf-8",
    )
    fake_engine = tmp_path / "fake-engine"
    fake_engine.write_text(f"#!/bin/sh\necho engine >> {calls}\nexit 1\n", encoding="utf-8")
    fake_engine.chmod(0o755)
    env = dict(
        os.environ,
        CHESSKB_ENGINE=str(fake_engine),
        PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])),
    )
    started = time.monotonic()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "record_analysis",
            "-p",
            "no:cacheprovider",
            "tests/",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    seconds = time.monotonic() - started
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert " collected" in result.stdout or "tests collected" in result.stdout
    assert not calls.exists(), calls.read_text()
    assert seconds < 120, seconds  # about 10 s on a machine shared by eight test runs


def _processes() -> dict[int, tuple[int, str, str]]:
    """pid -> (parent pid, state, command line) of every process, from /proc."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        table[int(entry)] = (int(fields[1]), fields[0], command)
    return table


def _descendants(pid: int) -> dict[int, str]:
    table = _processes()
    found: dict[int, str] = {}
    todo = [pid]
    while todo:
        parent = todo.pop()
        for child, (ppid, _state, command) in table.items():
            if ppid == parent and child not in found:
                found[child] = command
                todo.append(child)
    return found


def _alive(pids) -> list[int]:
    """The pids still running (a zombie has ended: it only waits for its new parent to reap it)."""
    table = _processes()
    return [pid for pid in pids if pid in table and table[pid][1] not in ("Z", "X")]


@needs_engine
@linux_only
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_killed_import_leaves_no_worker_or_engine_behind(tmp_path: Path, jobs: int) -> None:
    """SIGKILL gives the importer no chance to clean up: its workers and their engines (or, with one
    job, its own engine) must end anyway, at once, instead of analysing on for nobody."""
    command = [
        sys.executable,
        "-m",
        "chesskb",
        "--store",
        str(tmp_path / "store"),
        "import",
        "--mine",
        "--jobs",
        str(jobs),
        str(DATA / "games" / "kasparov-deep-blue-1997.pgn"),
        str(MATE_IN_THREE),
    ]
    importer = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        children: dict[int, str] = {}
        while time.monotonic() < deadline and importer.poll() is None:
            children = _descendants(importer.pid)
            engines = [pid for pid, line in children.items() if "stockfish" in line]
            workers = [pid for pid in children if pid not in engines]
            if engines and len(workers) >= (jobs if jobs > 1 else 0):
                break
            time.sleep(0.1)
        assert importer.poll() is None, "the import ended before an engine was seen"
        assert any("stockfish" in line for line in children.values()), children
        children = {**children, **_descendants(importer.pid)}
        importer.send_signal(signal.SIGKILL)
        importer.wait(timeout=10)
        deadline = time.monotonic() + 10
        while _alive(children) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _alive(children) == [], {pid: children[pid] for pid in _alive(children)}
    finally:
        if importer.poll() is None:
            importer.kill()
            importer.wait()


def test_an_engine_that_does_not_answer_in_time_costs_no_game(tmp_path: Path, monkeypatch) -> None:
    """An engine that does not finish python-chess's handshake within its wall-clock time (a loaded machine:
    the fast lane once lost a lichess puzzle so) only loses its proposals: every game is imported, with the
    classes an import without any engine gives (proposals order the proof's moves, never its verdict)."""
    games = MATE_IN_THREE.read_text(encoding="utf-8").split("\n\n[")[:3]  # three games, each claiming a mate in 3
    pgn = tmp_path / "three.pgn"
    pgn.write_text("\n\n[".join(games) + "\n", encoding="utf-8")
    silent = tmp_path / "silent-engine"
    silent.write_text("#!/bin/sh\nexec sleep 60\n", encoding="utf-8")  # never says uciok
    silent.chmod(0o755)
    classes = {}
    for name, engine in (("none", "none"), ("silent", str(silent))):
        monkeypatch.setenv("CHESSKB_ENGINE", engine)
        store = tmp_path / name
        result = run_cli("import", "--jobs", "1", str(pgn), store=store)
        assert result.exit_code == 0, result.output
        assert "imported 3 games" in result.output and "0 skipped with errors" in result.output, result.output
        classes[name] = json.loads(run_cli("stats", "--format", "json", store=store).stdout)["classes"]
    assert classes["silent"] == classes["none"] and classes["none"].get("MateInThree") == 3
