"""The code stays ruff-clean and ruff-formatted (pyproject.toml): CI fails on a lint error or an unformatted
file, not a reviewer."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff(*arguments: str) -> subprocess.CompletedProcess[str]:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is in the test extra (scripts/setup.sh installs it)")
    return subprocess.run([ruff, *arguments], cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_finds_nothing() -> None:
    done = _ruff("check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_file_is_formatted() -> None:
    done = _ruff("format", "--check", "--no-cache", ".")
    assert done.returncode == 0, "run `.venv/bin/ruff format .`:\n" + done.stdout + done.stderr
