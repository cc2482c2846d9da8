"""``chesskb course import FILE | list | export IRI``: courses for learners (kb/courses/course_file.py)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from chesskb.kb.courses.course_file import CourseError, courses_in, dump_course, export_course, import_course
from chesskb.kb.terminal import printable
from chesskb.service.commands.base import CliContext, DataProblem, UsageProblem, counted


@click.group("course")
def command() -> None:
    """Courses: chapters of exercises by level, loaded from a YAML course file."""


@command.command("import")
@click.argument(
    "files", metavar="FILE...", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--skip-unchanged",
    is_flag=True,
    help="Leave a course whose file and sources are unchanged since it was imported as it is.",
)
@click.pass_obj
def import_command(obj: CliContext, files: tuple[Path, ...], skip_unchanged: bool) -> None:
    """Choose each course's exercises from the knowledge base and store the course (replacing it)."""
    store = obj.open_store()
    for file in files:
        try:
            course = import_course(store, file, base_iri=obj.base_iri, skip_unchanged=skip_unchanged)
        except CourseError as exc:
            raise UsageProblem(f"{file}: {exc}", show_usage=False) from None
        if course is None:
            click.echo(f"course unchanged, not imported again: {file}")
            continue
        exercises = sum(len(chapter.exercises) for chapter in course.chapters)
        click.echo(
            f"imported course {course.id}: {counted(len(course.chapters), 'chapter')}, {counted(exercises, 'exercise')}"
        )


@command.command("list")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.pass_obj
def list_command(obj: CliContext, fmt: str) -> None:
    """The courses in the knowledge base."""
    courses = courses_in(obj.open_store())
    if fmt == "json":
        click.echo(json.dumps(courses, ensure_ascii=False))
        return
    for course in courses:
        click.echo(
            printable(
                f"{course['iri']}  {course['title'] or ''}  ({counted(course['chapters'], 'chapter')}, "
                f"{counted(course['exercises'], 'exercise')})"
            )
        )


@command.command("export")
@click.argument("iri")
@click.pass_obj
def export_command(obj: CliContext, iri: str) -> None:
    """The course as a course file, its exercises listed by hand (re-importable)."""
    data = export_course(obj.open_store(), iri, obj.base_iri)
    if not data["chapters"]:
        raise DataProblem(f"no course {iri}")
    click.echo(dump_course(data), nl=False)
