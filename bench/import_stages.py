"""Where an import's time goes: each stage of the pipeline timed alone, in one process, on one file.

    python bench/import_stages.py /tmp/chesskb-bench/puzzle-pgn-10000.pgn [--engine]

Stages, each including the ones before it (so the differences are the stage's own cost):

1. ``python-chess``  python-chess alone reading the file (``read_game``; for CSV: the FEN and UCI moves)
2. ``read``          our reading: work units, game segments parsed into records
3. ``+ analyse``     board facts, the solution replayed and checked, mate proof, theme detectors
4. ``+ map``         records to quads (``kb.mapping``)
5. ``+ serialise``   the quads as N-Quads and N-Triples bytes (what a worker hands the writer)
6. ``import``        ``chesskb import --jobs 1`` into a fresh store (adds the store's bulk load), run
                     as its own process

Without ``--engine`` the engine is off (``CHESSKB_ENGINE=none``), as in ``bench/import_speed.py``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def _stage_runner(path: Path, upto: str) -> Callable[[], int]:
    from chesskb.kb.analysis import analyse
    from chesskb.kb.analysis.engine import open_engine
    from chesskb.kb.analysis.exercises import assess_themes, is_exercise
    from chesskb.kb.analysis.verify import MateVerifier
    from chesskb.kb.findings import Finding
    from chesskb.kb.mapping.game import MappingContext, record_quads
    from chesskb.kb.mapping.iris import IriMinter
    from chesskb.kb.pipeline import PipelineSettings, process_unit
    from chesskb.kb.reading.units import unit_records, work_units

    def run() -> int:
        with open_engine() as engine:  # as the importer: long mate claims decided by the engine
            return _run(engine)

    def _run(engine) -> int:
        count = 0
        settings = PipelineSettings(IriMinter(None).base)
        ctx = MappingContext(IriMinter(None), "bench", ())
        for unit in work_units(path, "bench", path.name, None):
            if upto == "serialise":
                count += process_unit(unit, settings, MateVerifier(engine=engine)).games
                continue
            for record in unit_records(unit, None):
                if isinstance(record, Finding):
                    continue
                count += 1
                if upto == "read":
                    continue
                exercise = is_exercise(record)
                analysis = analyse(record.start_board(), record.solution, engine=engine, exercise=exercise)
                if upto == "map":
                    record_quads(
                        record, analysis, ctx, (), assess_themes(record, analysis, engine=engine, exercise=exercise)
                    )
        return count

    return run


def _timed(run: Callable[[], int]) -> tuple[float, int]:
    start = time.perf_counter()
    count = run()
    return time.perf_counter() - start, count


def _import_seconds(path: Path) -> float:
    with tempfile.TemporaryDirectory(prefix="chesskb-stages-") as tmp:
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "chesskb", "--store", str(Path(tmp) / "store"), "import", "--jobs", "1", str(path)],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", type=Path)
    parser.add_argument("--engine", action="store_true", help="keep the engine's mate checks on")
    args = parser.parse_args()
    if not args.engine:
        os.environ["CHESSKB_ENGINE"] = "none"
    import import_speed

    reference = import_speed.python_chess_seconds(args.file)
    rows = [("python-chess", reference, None)]
    for name, upto in (("read", "read"), ("+ analyse", "analyse"), ("+ map", "map"), ("+ serialise", "serialise")):
        seconds, count = _timed(_stage_runner(args.file, upto))
        rows.append((name, seconds, count))
    rows.append(("import (store)", _import_seconds(args.file), None))
    print(f"{args.file.name}: {rows[1][2]} records, engine {'on' if args.engine else 'off'}")
    print(f"{'stage':<16}{'seconds':>9}{'ms/record':>11}{'x p-chess':>11}{'stage ms':>10}")
    previous = 0.0
    records = rows[1][2] or 1
    for name, seconds, _count in rows:
        own = seconds - previous if name != "python-chess" else seconds
        print(
            f"{name:<16}{seconds:>9.2f}{1000 * seconds / records:>11.3f}{seconds / reference:>11.2f}"
            f"{1000 * own / records:>10.3f}"
        )
        if name != "python-chess":
            previous = seconds


if __name__ == "__main__":
    main()
