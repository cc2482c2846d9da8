"""The app registers every blueprint and the CLI every command, by explicit import: a missing or broken
module stops the start with an error instead of silently dropping its pages or its command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BLUEPRINTS = {"i18n", "sparql", "canned", "pages", "browse", "courses", "authoring", "play", "find"}
COMMANDS = {"bench-queries", "check", "classify", "compact", "convert", "course", "export", "find", "html", "import",
            "merge-report", "queries", "query", "remove-source", "serve", "site", "sources", "stats", "validate"}


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_the_app_registers_every_blueprint(tmp_path: Path) -> None:
    from chesskb.service.app import create_app

    app = create_app({"STORE": str(tmp_path / "store"), "QUERY_WORKERS": 0, "PAGE_WORKERS": 0})
    assert set(app.blueprints) == BLUEPRINTS
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()}
    for endpoint in ("browse.home", "pages.page", "canned.show_query", "courses.course_page", "find.find_page",
                     "play.play", "authoring.author_page", "sparql.sparql_endpoint"):
        assert endpoint in endpoints


def test_the_cli_lists_every_command() -> None:
    result = _python("from chesskb.service.cli import cli; print('\\n'.join(sorted(cli.commands)))")
    assert result.returncode == 0, result.stderr
    assert set(result.stdout.split()) == COMMANDS
    shown = subprocess.run([sys.executable, "-m", "chesskb", "--help"], cwd=ROOT, capture_output=True, text=True,
                           timeout=120)
    section = shown.stdout.split("Commands:\n")[1].split("\n\n")[0]  # up to the epilog (exit codes)
    listed = {line.split()[0] for line in section.splitlines() if line.strip()}
    assert listed == COMMANDS


def test_a_missing_blueprint_module_stops_the_app(tmp_path: Path) -> None:
    """``sys.modules[name] = None`` makes importing ``name`` fail, as a deleted or broken module would."""
    result = _python("import sys; sys.modules['chesskb.service.find'] = None\n"
                     "from chesskb.service.app import create_app\n"
                     f"create_app({{'STORE': {str(tmp_path / 'store')!r}, 'QUERY_WORKERS': 0, 'PAGE_WORKERS': 0}})")
    assert result.returncode != 0
    assert "ModuleNotFoundError" in result.stderr and "chesskb.service.find" in result.stderr, result.stderr


def test_a_missing_command_module_stops_the_cli() -> None:
    result = _python("import sys; sys.modules['chesskb.service.commands.find'] = None\n"
                     "import chesskb.service.cli")
    assert result.returncode != 0
    assert "ModuleNotFoundError" in result.stderr and "chesskb.service.commands.find" in result.stderr, result.stderr
