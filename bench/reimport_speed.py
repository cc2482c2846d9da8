"""Issue 36, item 6: what importing a source again costs against its first import.

One store, one source (``mates``), the ``bench/corpus.py mate-copies`` collection (pychess's 375 mate-in-3
problems copied ten times, 3,750 games), each step a separate ``chesskb import --jobs N`` process, in order:

* the first import into an empty store;
* the same file again, plain (since issue 36: left alone, nothing written) and, when the code knows it, with
  ``--force`` (analysed and written again);
* a changed file (the last copy dropped, one game added) into the same source;
* the first file again (changed back);
* the same file as a second source (``again``: every subject already stored by another source, the row
  ``bench/verify_speed.py`` calls "re-import").

CPU seconds (user + system of the process and its workers, ``wait4``) and wall seconds. Mate claims the
first import proved are in the store's verification cache for every later step, so the later steps
analyse less; the write is what differs. ``--code DIR`` measures another checkout (``git archive REV``).

    CHESSKB_SHARED_DATA=/work/shared/data python bench/reimport_speed.py
    python bench/reimport_speed.py --code /tmp/base   # e.g. the code before issue 36 item 6
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus

ROOT = Path(__file__).resolve().parent.parent
ADDED = (
    '\n\n[Event "added"]\n[Site "?"]\n[Date "????.??.??"]\n[Round "?"]\n[White "A"]\n[Black "B"]\n'
    '[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n'
)


def changed_copy(path: Path, out: Path, drop: int = 375) -> Path:
    """``path`` without its last ``drop`` games and with one new game."""
    games = path.read_text(encoding="utf-8").split("\n\n[Event")
    out.write_text("\n\n[Event".join(games[: len(games) - drop]) + ADDED, encoding="utf-8")
    return out


def timed(code: Path, store: Path, jobs: int, *args: str) -> tuple[float, float, str]:
    """Wall and CPU seconds of one ``chesskb import`` process, and its last line of output."""
    env = dict(os.environ, PYTHONPATH=str(code))
    env.pop("CHESSKB_VERIFY_CACHE", None)
    argv = [sys.executable, "-m", "chesskb", "--store", str(store), "import", "--jobs", str(jobs), *args]
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=code, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    assert process.stdout is not None and process.stderr is not None
    lines = process.stdout.read().decode().strip().splitlines()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(process.stderr.read().decode()[-2000:])
    return wall, usage.ru_utime + usage.ru_stime, lines[-1] if lines else ""


def knows_force(code: Path) -> bool:
    env = dict(os.environ, PYTHONPATH=str(code))
    help_text = subprocess.run(
        [sys.executable, "-m", "chesskb", "import", "--help"], cwd=code, env=env, capture_output=True, text=True
    ).stdout
    return "--force" in help_text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=3750)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--code", type=Path, default=ROOT, help="the project's code to measure")
    parser.add_argument("--corpus-dir", type=Path, default=Path(tempfile.gettempdir()) / "chesskb-bench")
    args = parser.parse_args()
    path = corpus.build("mate-copies", args.games, args.corpus_dir / f"mate-copies-{args.games}.pgn")
    changed = changed_copy(path, args.corpus_dir / f"mate-copies-{args.games}-changed.pgn")
    steps: list[tuple[str, tuple[str, ...]]] = [
        ("first import", ("--source", "mates", str(path))),
        ("same file again", ("--source", "mates", str(path))),
    ]
    if knows_force(args.code):
        steps.append(("same file again, --force", ("--force", "--source", "mates", str(path))))
    steps += [
        ("changed file", ("--source", "mates", str(changed))),
        ("first file again", ("--source", "mates", str(path))),
        ("same file, a 2nd source", ("--source", "again", str(path))),
    ]
    print(f"{path.name}: jobs {args.jobs}, code {args.code}")
    print(f"{'step':<26} {'wall s':>7} {'CPU s':>7}  output")
    with tempfile.TemporaryDirectory(dir=args.corpus_dir) as work:
        store = Path(work) / "store"
        for label, argv in steps:
            wall, cpu, line = timed(args.code, store, args.jobs, *argv)
            print(f"{label:<26} {wall:>7.2f} {cpu:>7.2f}  {line[:60]}", flush=True)
        shutil.rmtree(store, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
