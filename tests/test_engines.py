"""Engines are explicit: nothing starts stockfish behind the caller's back, and nothing outlives its process.

Real processes throughout: scripts run by a fresh interpreter, ``chesskb import`` killed with SIGKILL,
and the process table read from /proc (what ``ps`` reads).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from chesskb.kb.analysis.engine import engine_path

from .conftest import DATA, ROOT

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
    """The claim is decided without the line's first move, so the search asks the engine (the line's
    move mates before the engine is asked: then it never starts)."""
    result, seconds = _run_script(f"""
        from chesskb.kb.analysis.engine import open_engine
        from chesskb.kb.analysis.verify import MateVerifier
        from chesskb.kb.reading import read_records
        record = next(iter(read_records({str(MATE_IN_THREE)!r})))
        with open_engine() as engine:
            print(MateVerifier(engine=engine).verify(record.start_board(), 3))
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
            # asserts are not rewritten: that changes how an assert reports, never what a module runs when
            # it is imported, and it is half the collection's CPU
            "--assert=plain",
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


def _lichess_rows(*puzzle_ids: str) -> str:
    """The header and the rows of ``puzzle_ids`` from the shipped lichess sample, as CSV text."""
    lines = (DATA / "lichess" / "puzzles.csv").read_text(encoding="utf-8").splitlines()
    return "\n".join([lines[0], *(line for line in lines[1:] if line.split(",", 1)[0] in puzzle_ids)]) + "\n"


def test_an_engine_slow_to_start_costs_no_game_and_no_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine that does not finish its start within ``ENGINE_START_SECONDS`` (a loaded machine:
    python-chess's own 10 s were exceeded at load 10-15) only proposes nothing: the mate-in-three
    puzzle is imported with the verdict python-chess's search alone proves, as without an engine,
    and the engine is not started again for every proposal. Before, the start's ``TimeoutError``
    escaped the proposer and the game was skipped ("analysis failed"): a store built under load
    held 299 of the 300 puzzles of data/lichess/puzzles.csv, 00Gv1 missing."""
    import chess

    from chesskb.kb.analysis import engine as engine_module
    from chesskb.kb.importer import import_files
    from chesskb.kb.store import open_store

    puzzles = tmp_path / "slow.csv"
    # 07LLu, a mate in four, asks the engine below its first move (00Gv1's line mates before it is asked)
    puzzles.write_text(_lichess_rows("00Gv1", "07LLu"), encoding="utf-8")
    starts = tmp_path / "starts.txt"
    silent = tmp_path / "silent-engine"  # starts, then never answers the UCI handshake
    silent.write_text(f"#!/bin/sh\necho started >> {starts}\nexec sleep 60\n", encoding="utf-8")
    silent.chmod(0o755)
    monkeypatch.setattr(engine_module, "ENGINE_START_SECONDS", 0.5)

    def imported(engine: str, name: str) -> tuple[list[str], set[tuple[str, ...]]]:
        """The findings of importing the puzzle with ``engine``, and every statement the store holds
        (in any graph), the import's time aside, and its ``cp:importedWith``, which records whether an
        engine was configured (``engine=yes|no``) and so differs by design."""
        monkeypatch.setenv("CHESSKB_ENGINE", engine)
        store = open_store(str(tmp_path / name))
        try:
            report = import_files(store, [puzzles], jobs=1)
            rows = store.query("SELECT ?g ?s ?p ?o WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }")
            held = {tuple(str(row[v]) for v in ("g", "s", "p", "o")) for row in rows}
            return [str(finding) for finding in report.findings], {
                q for q in held if not q[2].endswith(("importedAt>", "importedWith>"))
            }
        finally:
            store.close()

    findings, with_silent_engine = imported(str(silent), "silent")
    assert findings == []
    assert starts.read_text().splitlines() == ["started"]  # one start per worker, not one per proposal
    _, without_engine = imported("none", "none")
    assert with_silent_engine == without_engine
    row = next(line for line in _lichess_rows("00Gv1").splitlines()[1:])
    fen, moves = row.split(",")[1:3]
    board = chess.Board(fen)
    board.push_uci(moves.split()[0])  # the puzzle's position: after the opponent's setup move
    stored_fens = {o for _, _, p, o in with_silent_engine if p.endswith("#fen>")}
    assert f'"{board.fen()}"' in stored_fens


def test_an_engine_that_cannot_run_proposes_nothing_and_is_not_retried(tmp_path: Path) -> None:
    """An engine path that cannot be run (here: a file that is not executable) makes the proposer
    answer nothing instead of failing the proof, and the start is not tried again for each proposal;
    the proof's verdict is python-chess's, the same as without an engine."""
    import chess

    from chesskb.kb.analysis.engine import Engine
    from chesskb.kb.analysis.verify import EngineProposer, MateVerifier

    broken = tmp_path / "not-an-engine"
    broken.write_text("not a program\n", encoding="utf-8")  # no execute bit: the start raises PermissionError
    engine = Engine(str(broken))
    board = chess.Board("r1b2rk1/pp1p1p1p/2n3pQ/5qB1/8/2P5/P4PPP/4RRK1 w - - 1 1")  # Polgar: mate in 3
    assert not engine.failed_to_start
    assert EngineProposer(engine)(board, 3) == []
    assert engine.failed_to_start
    starts = tmp_path / "starts.txt"
    broken.write_text(f"#!/bin/sh\necho started >> {starts}\nexit 1\n", encoding="utf-8")
    broken.chmod(0o755)  # runnable now: a proposer that started it again would leave a line in ``starts``
    assert EngineProposer(engine)(board, 3) == []
    assert not starts.exists()
    verifier = MateVerifier(engine=engine)
    with_engine = verifier.decide(board, 3)
    assert with_engine.verdict == "proven"
    assert with_engine == MateVerifier().decide(board, 3)
    # searched without the engine's help, so not counted as helped by it
    assert (verifier.counts.searched, verifier.counts.engine) == (1, 0)
