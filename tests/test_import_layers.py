"""The stage order between packages (``.importlinter``), checked by import-linter over the real import graph.

``tests/test_import_graph.py`` checks modules (no import cycle); this checks packages: reading -> analysis ->
mapping -> merge -> store -> queries -> service, each importing only from the layers below it, with the
imports that break it today listed in ``.importlinter`` as exceptions that may only shrink.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT / ".importlinter"


def _lint_imports(config: Path) -> subprocess.CompletedProcess[str]:
    program = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if program is None:
        pytest.skip("import-linter is in the test extra (scripts/setup.sh installs it)")
    return subprocess.run([program, "--config", str(config), "--no-cache"], cwd=ROOT, capture_output=True,
                          text=True, check=False, timeout=300)


def test_the_packages_keep_the_stage_order() -> None:
    done = _lint_imports(CONTRACT)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "1 kept, 0 broken" in done.stdout


def test_an_import_against_the_order_is_found(tmp_path: Path) -> None:
    """Without its listed exception, the executor's import of queries/ (a lower layer importing a higher one)
    breaks the contract: the check sees real imports, so its passing means something."""
    exception = "    chesskb.kb.store.executor -> chesskb.queries\n"
    text = CONTRACT.read_text(encoding="utf-8")
    assert exception in text
    stricter = tmp_path / "importlinter.ini"
    stricter.write_text(text.replace(exception, ""), encoding="utf-8")
    done = _lint_imports(stricter)
    assert done.returncode != 0
    assert "chesskb.kb.store is not allowed to import chesskb.queries" in done.stdout


def test_an_exception_that_no_longer_happens_fails_so_the_list_shrinks(tmp_path: Path) -> None:
    stale = tmp_path / "importlinter.ini"
    stale.write_text(CONTRACT.read_text(encoding="utf-8") + "    chesskb.kb.reading.pgn -> chesskb.kb.store\n",
                     encoding="utf-8")
    done = _lint_imports(stale)
    assert done.returncode != 0
    assert "No matches for ignored import chesskb.kb.reading.pgn -> chesskb.kb.store" in done.stdout + done.stderr
