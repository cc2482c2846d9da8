"""``chesskb classify FILE``: what the detectors see in each position of a file, ignoring its own themes.

Nothing is stored: the file is read with the importer's readers and every position analysed as the
importer would, so ``classify`` is how a teacher previews (or a benchmark scores) the automatic
classification. One JSON object per line: ``{"id", "classes", "phase", "mateIn", "verified"}``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import TypedDict

import click

from chesskb.kb.analysis import FactValue, analyse
from chesskb.kb.analysis.engine import Engine, open_engine
from chesskb.kb.findings import Finding
from chesskb.kb.reading import read_records
from chesskb.kb.reading.records import GameRecord
from chesskb.service.commands.base import DataProblem


class Classified(TypedDict):
    """One line of ``classify``'s JSON Lines: the record (puzzle id or game number) and what was found."""

    id: str | int
    classes: list[str]
    phase: FactValue | None
    mateIn: int | None
    verified: bool | None  # True: the line's mate is proven; False: refuted by proof; None: none claimed, undecided


def classify_records(path: Path, *, engine: Engine | None = None) -> Iterator[Classified | Finding]:
    """One result per readable record (a finding per unreadable one), in file order; ``engine``
    proposes moves to the proof search that decides mate claims (never the verdict: kb.analysis.verify)."""
    for item in read_records(path):
        if isinstance(item, Finding):
            yield item
            continue
        yield classify_record(item, engine=engine)


def classify_record(record: GameRecord, *, engine: Engine | None = None) -> Classified:
    analysis = analyse(record.start_board(), record.solution, engine=engine)
    facts = analysis.facts
    verification = str(facts.get("mateVerification", ""))
    mate_in = facts.get("mateIn")
    return {
        "id": record.puzzle.puzzle_id if record.puzzle is not None else record.location.game_number,
        "classes": analysis.classes,
        "phase": facts.get("gamePhase"),
        "mateIn": mate_in if isinstance(mate_in, int) else None,
        # True: the line's mate is proven; False: refuted by proof; None: no mate claimed, or undecided
        "verified": {"proven": True, "refuted": False}.get(verification),
    }


@click.command("classify")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["jsonl", "table"]), default="jsonl", show_default=True)
@click.option("--no-engine", is_flag=True, help="Do not ask stockfish for moves to try first in mate proofs.")
def command(file: Path, fmt: str, no_engine: bool) -> None:
    """Print the classes the detectors assign to each position of a PGN or lichess CSV file."""
    with nullcontext() if no_engine else open_engine() as engine:
        errors, classified = _print(file, fmt, engine)
    if errors and not classified:  # as import: what was readable was classified, the rest reported
        raise DataProblem(f"nothing classified: no readable record in {file}")


def _print(file: Path, fmt: str, engine: Engine | None) -> tuple[int, int]:
    errors = classified = 0
    if fmt == "table":
        click.echo(f"{'id':<10} {'phase':<10} {'mateIn':>6} {'verified':<8} classes")
    for item in classify_records(file, engine=engine):
        if isinstance(item, Finding):
            errors += 1
            click.echo(str(item), err=True)
            continue
        classified += 1
        if fmt == "jsonl":
            sys.stdout.write(json.dumps(item, ensure_ascii=False) + "\n")
        else:
            verified = "" if item["verified"] is None else ("yes" if item["verified"] else "no")
            click.echo(
                f"{item['id']!s:<10} {item['phase'] or '':<10} {item['mateIn'] or '':>6} {verified:<8} "
                f"{', '.join(item['classes'])}"
            )
    return errors, classified
