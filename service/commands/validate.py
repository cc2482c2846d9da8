"""``chesskb validate``: strict checks of a FEN or of PGN files, nothing stored.

``--fen FEN`` checks one FEN against seed 004's grammar and semantic rules; ``FILE.pgn…`` lists every
finding of every game (``kb.checks.pgn_lint``). Exit status 0 when valid (PGN: no errors; warnings
and information do not fail a file), 1 when not, so scripts and CI can gate on it.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from chesskb.kb.checks.fen import fen_warnings, validate_fen
from chesskb.kb.checks.pgn_lint import lint_file
from chesskb.kb.findings import fen_json, fen_text, lint_line
from chesskb.kb.reading.notation import PIECE_LETTERS
from chesskb.service.commands.base import UsageProblem, verdict


@click.command("validate")
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--fen", default=None, metavar="FEN", help="Check one FEN instead of PGN files.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--lang",
    default=None,
    metavar="CODE",
    type=click.Choice(sorted(PIECE_LETTERS)),
    help="Read piece letters as this language's (es: C A T D R), as import --lang does.",
)
def command(files: tuple[Path, ...], fen: str | None, fmt: str, lang: str | None) -> None:
    """Validate a FEN (--fen) or PGN files strictly; print every finding."""
    if fen is None and not files:
        raise UsageProblem("give --fen FEN or one or more PGN files")
    if fen is not None and files:
        raise UsageProblem("give either --fen or PGN files, not both")
    verdict(_validate_fen(fen, fmt) if fen is not None else _validate_files(files, fmt, lang))


def _validate_fen(fen: str, fmt: str) -> bool:
    """Print what is wrong with ``fen``; is it valid?"""
    errors = validate_fen(fen)
    warnings = fen_warnings(fen) if not errors else []
    if fmt == "json":
        click.echo(
            json.dumps(
                {
                    "valid": not errors,
                    "errors": [fen_json(error) for error in errors],
                    "warnings": [fen_json(warning) for warning in warnings],
                },
                ensure_ascii=False,
            )
        )
    else:
        click.echo("valid" if not errors else f"invalid: {len(errors)} error(s)")
        for problem in errors + warnings:
            click.echo(f"  {fen_text(problem)}")
    return not errors


def _validate_files(files: tuple[Path, ...], fmt: str, lang: str | None) -> bool:
    """Print every finding of ``files``; are they free of errors?"""
    counts = {"error": 0, "warning": 0, "info": 0}
    findings = []
    for path in files:
        for finding in lint_file(path, str(path), lang=lang):
            counts[finding.level] += 1
            if fmt == "json":
                findings.append(finding.to_dict())
            else:
                click.echo(lint_line(finding))
    if fmt == "json":
        click.echo(json.dumps({"findings": findings}, ensure_ascii=False))
    else:
        click.echo(
            f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} note(s) "
            f"in {len(files)} file(s)",
            err=True,
        )
    return not counts["error"]
