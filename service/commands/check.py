"""``chesskb check``: is the knowledge base consistent, and does its data follow the rules?

Runs HermiT (or Pellet) over the ontology and each source, narrows any inconsistency down to the
individuals and axioms involved, lists unsatisfiable classes and every SHACL violation. Exit 0 when
all is well, 1 for an inconsistency or a violation, 2 when Java (the reasoners' runtime) is missing.
"""

from __future__ import annotations

import json

import click

from chesskb.kb.checks.owl import REASONERS, JavaMissing, ReasonerFailed
from chesskb.kb.checks.runner import CLASSIFY_LIMIT, WHOLE_LIMIT, CheckReport, check_store
from chesskb.kb.findings import inconsistency_text, shacl_text, unsatisfiable_text
from chesskb.kb.store import StoreError
from chesskb.kb.terminal import printable
from chesskb.service.commands.base import CliContext, UsageProblem, verdict
from chesskb.service.progress import TerminalProgress


@click.command("check")
@click.option("--source", default=None, help="Check only this source (with the ontology).")
@click.option(
    "--reasoner",
    type=click.Choice(REASONERS),
    default="hermit",
    show_default=True,
    help="OWL reasoner (Pellet in owlready2 >= 0.50 needs Java 25).",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--no-cache", is_flag=True, help="Check every source again, even if unchanged since the last check.")
@click.option("--no-shacl", is_flag=True, help="Only reason; skip the SHACL data rules.")
@click.option(
    "--whole-limit",
    type=click.IntRange(min=0),
    default=WHOLE_LIMIT,
    show_default=True,
    help="Reason over all sources together only up to this many statements.",
)
@click.option(
    "--classify-limit",
    type=click.IntRange(min=0),
    default=CLASSIFY_LIMIT,
    show_default=True,
    help="Above this many statements a source is checked for consistency only (no realisation).",
)
@click.option(
    "--java-memory",
    type=click.IntRange(min=256),
    default=None,
    metavar="MB",
    help="The reasoner's Java heap (default owlready2's 2000 MB; 100k positions need about 8000).",
)
@click.pass_obj
def command(
    obj: CliContext,
    source: str | None,
    reasoner: str,
    fmt: str,
    no_cache: bool,
    no_shacl: bool,
    whole_limit: int,
    classify_limit: int,
    java_memory: int | None,
) -> None:
    """Reason over the knowledge base (OWL) and validate its data (SHACL); name what is wrong."""
    if java_memory is not None:
        from owlready2 import reasoning

        reasoning.JAVA_MEMORY = java_memory
    status = TerminalProgress()

    def progress(message: str) -> None:
        status.update(f"{message} … ({status.elapsed:.0f} s)", force=True)

    try:
        report = check_store(
            obj.open_store(),
            source=source,
            reasoner=reasoner,
            base_iri=obj.base_iri,
            use_cache=not no_cache,
            shacl=not no_shacl,
            whole_limit=whole_limit,
            classify_limit=classify_limit,
            progress=progress,
        )
    except JavaMissing as exc:
        raise UsageProblem(str(exc), show_usage=False) from None
    except StoreError as exc:
        raise UsageProblem(str(exc)) from None
    except ReasonerFailed as exc:  # nothing was decided: 1 means inconsistent, and a script must not read this as that
        raise UsageProblem(f"the reasoner failed: {exc}{_failure_hint(str(exc), reasoner)}", show_usage=False) from None
    finally:
        status.done()
    if fmt == "json":
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(report))
    verdict(report.ok)


def _failure_hint(message: str, reasoner: str) -> str:
    """What a user can do about the usual reasoner failures."""
    if "OutOfMemory" in message:
        return " (raise the heap with --java-memory MB)"
    if "UnsupportedClassVersionError" in message and reasoner == "pellet":
        return (
            " (owlready2's Pellet needs a newer Java than this machine's, Java 25 or later; "
            "--reasoner hermit runs on Java 17)"
        )
    return ""


def render_text(report: CheckReport) -> str:
    """The report for a person: verdict first, then what is wrong, then what was checked."""
    lines = [f"{'consistent' if report.consistent else 'INCONSISTENT'} ({report.reasoner})"]
    for number, item in enumerate(report.inconsistencies, start=1):
        lines.extend(inconsistency_text(item, number))
    lines.extend(unsatisfiable_text(item) for item in report.unsatisfiable_classes)
    if report.shacl_violations:
        lines.append(f"{len(report.shacl_violations)} SHACL violation(s):")
        lines.extend(f"  {shacl_text(violation)}" for violation in report.shacl_violations)
    else:
        lines.append("no SHACL violations")
    if report.checked:
        lines.append("checked: " + ", ".join(report.checked))
    if report.cached:
        lines.append("from cache (unchanged since last check): " + ", ".join(report.cached))
    lines.extend(f"note: {note}" for note in report.notes)
    return "\n".join(printable(line) for line in lines)  # data is hostile text (kb.terminal)
