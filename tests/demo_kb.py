"""The knowledge base ``scripts/demo.sh`` builds, built the same way for the tests.

The import commands are read from demo.sh itself (its ``chesskb … import`` lines, globs expanded from the
repository root), so the tests and the demo cannot drift apart; the courses are imported as demo.sh does.
"""

from __future__ import annotations

import glob
import shlex
from pathlib import Path

from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "scripts" / "demo.sh"


def demo_imports() -> list[list[str]]:
    """The argument lists of demo.sh's imports (its ``run_import`` lines: options and globbed files)."""
    text = DEMO.read_text(encoding="utf-8").replace("\\\n", " ")
    commands = []
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        if not words or words[0] != "run_import":
            continue
        args = words[1:]
        commands.append(
            [match for arg in args for match in (sorted(glob.glob(str(ROOT / arg))) if "/" in arg else [arg])]
        )
    return commands


def build_demo_store(store: Path, *, courses: bool = True) -> Path:
    for args in demo_imports():
        result = run_cli("import", *args, store=store)
        assert result.exit_code == 0, result.output
    if courses:
        for course in sorted((ROOT / "data" / "courses").glob("*.yaml")):
            result = run_cli("course", "import", str(course), store=store)
            assert result.exit_code == 0, result.output
    return store
