"""``chesskb course import --skip-unchanged``: a course whose file and sources are as they were when it
was imported is not chosen again (demo.sh's second start); a changed file, or a source imported again,
chooses again. The chosen exercises are checked against the puzzle CSV's own themes (its mates in one)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from tests.conftest import BASE, ROOT, run_cli

PUZZLES = ROOT / "tests" / "fixtures" / "puzzles-30.csv"
COURSE = """id: skip-test
title: Mates in one
chapters:
  - title: Mates in one
    level: beginner
    select: {theme: MateInOne, limit: %d}
"""


def _mates_in_one() -> set[str]:
    with open(PUZZLES, encoding="utf-8", newline="") as handle:
        return {
            f"{BASE}position/lichess-{row['PuzzleId']}"
            for row in csv.DictReader(handle)
            if "mateIn1" in row["Themes"].split()
        }


def _exercises(store: Path) -> list[str]:
    exported = run_cli("course", "export", f"{BASE}course/skip-test", store=store)
    assert exported.exit_code == 0, exported.output
    return [
        line.split("- ", 1)[1].strip() for line in exported.output.splitlines() if line.strip().startswith("- http")
    ]


def test_an_unchanged_course_is_not_imported_again(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert run_cli("import", "--jobs", "1", str(PUZZLES), store=store).exit_code == 0
    course = tmp_path / "course.yaml"
    course.write_text(COURSE % 3, encoding="utf-8")
    first = run_cli("course", "import", "--skip-unchanged", str(course), store=store)
    assert first.exit_code == 0 and first.output.startswith("imported course skip-test: 1 chapter, 3 exercises")
    chosen = _exercises(store)
    assert len(chosen) == 3 and set(chosen) <= _mates_in_one()

    again = run_cli("course", "import", "--skip-unchanged", str(course), store=store)
    assert again.exit_code == 0 and again.output == f"course unchanged, not imported again: {course}\n"
    assert _exercises(store) == chosen

    course.write_text(COURSE % 2, encoding="utf-8")  # the file changed: chosen again
    changed = run_cli("course", "import", "--skip-unchanged", str(course), store=store)
    assert changed.output.startswith("imported course skip-test: 1 chapter, 2 exercises")
    assert _exercises(store) == chosen[:2]

    # the source imported again (a new import time): the course is chosen again
    assert run_cli("import", "--force", "--jobs", "1", str(PUZZLES), store=store).exit_code == 0
    resourced = run_cli("course", "import", "--skip-unchanged", str(course), store=store)
    assert resourced.output.startswith("imported course skip-test")
    # without the flag a course is always imported
    assert run_cli("course", "import", str(course), store=store).output.startswith("imported course skip-test")
    listed = json.loads(run_cli("course", "list", "--format", "json", store=store).output)
    assert [c["exercises"] for c in listed] == [2]
