"""The app registers every blueprint and the CLI every command: a missing or broken module stops the app's
start, or fails its command loudly (the CLI imports a command's module when it runs), instead of silently
dropping its pages or its command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

BLUEPRINTS = {
    "sparql",
    "canned",
    "pages",
    "browse",
    "courses",
    "authoring",
    "play",
    "find",
    "site_files",
    "train",
    "judge",
}
COMMANDS = {
    "bench-queries",
    "check",
    "classify",
    "compact",
    "convert",
    "course",
    "export",
    "find",
    "html",
    "import",
    "merge-report",
    "queries",
    "query",
    "remove-source",
    "serve",
    "site",
    "sources",
    "stats",
    "validate",
}


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_the_app_registers_every_blueprint(tmp_path: Path) -> None:
    from chesskb.service.app import create_app

    app = create_app({"STORE": str(tmp_path / "store"), "QUERY_WORKERS": 0, "PAGE_WORKERS": 0})
    assert set(app.blueprints) == BLUEPRINTS
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()}
    for endpoint in (
        "browse.home",
        "pages.page",
        "canned.show_query",
        "courses.course_page",
        "find.find_page",
        "play.play",
        "authoring.author_page",
        "sparql.sparql_endpoint",
    ):
        assert endpoint in endpoints


def test_the_cli_lists_every_command() -> None:
    result = _python(
        "import click; from chesskb.service.cli import cli\nprint('\\n'.join(cli.list_commands(click.Context(cli))))"
    )
    assert result.returncode == 0, result.stderr
    assert set(result.stdout.split()) == COMMANDS
    shown = subprocess.run(
        [sys.executable, "-m", "chesskb", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    section = shown.stdout.split("Commands:\n")[1].split("\n\n")[0]  # up to the epilog (exit codes)
    listed = {line.split()[0] for line in section.splitlines() if line.strip()}
    assert listed == COMMANDS


def test_every_listed_command_loads_and_its_summary_is_its_docstring() -> None:
    """The table ``chesskb --help`` reads says what each command's own docstring says, and names its module."""
    import click

    from chesskb.service.cli import cli
    from chesskb.service.commands import COMMANDS as TABLE

    context = click.Context(cli)
    for name, entry in TABLE.items():
        command = cli.get_command(context, name)
        assert command is not None and command.name == name, name
        assert command.callback.__module__ == f"chesskb.service.commands.{entry.module}"
        written = click.Command(name, help=entry.summary)
        assert command.get_short_help_str(10_000) == written.get_short_help_str(10_000), name


@pytest.mark.parametrize("width", ["80", "200"])
def test_help_from_the_table_is_what_the_commands_themselves_would_list(width: str) -> None:
    """``chesskb --help`` without importing a command prints what click prints with every command imported."""
    script = (
        "import click, sys\n"
        "from chesskb.service import cli as lazy\n"
        "shown = lazy.cli.get_help(click.Context(lazy.cli, info_name='chesskb'))\n"
        "assert not any(m.startswith('chesskb.service.commands.') and m != 'chesskb.service.commands.base'\n"
        "               for m in sys.modules), 'a command was imported for --help'\n"
        "eager = click.Group(lazy.cli.name, params=lazy.cli.params, help=lazy.cli.help,\n"
        "                    epilog=lazy.cli.epilog, context_settings=lazy.cli.context_settings)\n"
        "for name in lazy.cli.list_commands(None):\n"
        "    eager.add_command(lazy.cli.get_command(None, name), name)\n"
        "print(shown == eager.get_help(click.Context(eager, info_name='chesskb')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": width},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "True"


def test_a_missing_blueprint_module_stops_the_app(tmp_path: Path) -> None:
    """``sys.modules[name] = None`` makes importing ``name`` fail, as a deleted or broken module would."""
    result = _python(
        "import sys; sys.modules['chesskb.service.find'] = None\n"
        "from chesskb.service.app import create_app\n"
        f"create_app({{'STORE': {str(tmp_path / 'store')!r}, 'QUERY_WORKERS': 0, 'PAGE_WORKERS': 0}})"
    )
    assert result.returncode != 0
    assert "ModuleNotFoundError" in result.stderr and "chesskb.service.find" in result.stderr, result.stderr


def test_a_missing_command_module_fails_its_command_loudly() -> None:
    """A deleted or broken command module: its command exits 1 naming the module (never "No such command"),
    while ``--help`` still lists it and the other commands still run."""
    result = _python(
        "import sys; sys.modules['chesskb.service.commands.find'] = None\n"
        "from chesskb.service.cli import main\n"
        "sys.argv = ['chesskb', 'find', 'Nf5']\n"
        "main()"
    )
    assert result.returncode == 1
    assert "ModuleNotFoundError" in result.stderr and "chesskb.service.commands.find" in result.stderr, result.stderr
    other = _python(
        "import sys; sys.modules['chesskb.service.commands.find'] = None\n"
        "from chesskb.service.cli import main\n"
        "sys.argv = ['chesskb', 'queries', '--format', 'json']\n"
        "main()"
    )
    assert other.returncode == 0, other.stderr
    assert '"mate-in-one"' in other.stdout


def test_settings_come_from_config_then_the_environment_read_as_their_default_type(tmp_path: Path, monkeypatch) -> None:
    from chesskb.service.app import create_app

    monkeypatch.setenv("CHESSKB_QUERY_TIMEOUT", "3.5")
    monkeypatch.setenv("CHESSKB_ALLOW_SERVICE", "no")  # "no" is false (JSON would read it as a true string)
    monkeypatch.setenv("CHESSKB_PLAY_ELO", "1500")
    monkeypatch.setenv("CHESSKB_UPDATE_TOKEN", "123")  # a token stays text, not the number 123
    monkeypatch.setenv("CHESSKB_ROW_LIMIT", "9")
    app = create_app({"STORE": str(tmp_path / "store"), "QUERY_WORKERS": 0, "PAGE_WORKERS": 0, "ROW_LIMIT": 5})
    assert app.config["QUERY_TIMEOUT"] == 3.5
    assert app.config["ALLOW_SERVICE"] is False
    assert app.config["PLAY_ELO"] == 1500
    assert app.config["UPDATE_TOKEN"] == "123"
    assert app.config["ROW_LIMIT"] == 5  # the config given wins over the environment
    assert app.config["PLAY_RATE"] == 60  # neither: the default
