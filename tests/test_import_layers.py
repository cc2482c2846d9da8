"""The stage order between packages (``.importlinter``), checked by import-linter over the real import graph.

``tests/test_import_graph.py`` checks modules (no import cycle); this checks packages: reading -> analysis ->
mapping -> store -> queries -> merge -> the import -> service (``.importlinter`` says why merge/ runs on a
store), each importing only from the layers below it. No exception is listed today; one that is no longer
needed fails the check, so a list could only shrink.
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
    return subprocess.run(
        [program, "--config", str(config), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_the_packages_keep_the_stage_order() -> None:
    done = _lint_imports(CONTRACT)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "1 kept, 0 broken" in done.stdout


def test_an_import_against_the_order_is_found(tmp_path: Path) -> None:
    """With queries/ put below the store, the executor's imports of the store (a lower layer importing a
    higher one) break the contract: the check sees real imports, so its passing means something."""
    text = CONTRACT.read_text(encoding="utf-8")
    order = "    chesskb.queries\n    chesskb.kb.search\n    chesskb.kb.store\n"
    assert order in text
    stricter = tmp_path / "importlinter.ini"
    stricter.write_text(
        text.replace(order, "    chesskb.kb.store\n    chesskb.queries\n    chesskb.kb.search\n"), encoding="utf-8"
    )
    done = _lint_imports(stricter)
    assert done.returncode != 0
    assert "chesskb.queries is not allowed to import chesskb.kb.store" in done.stdout


def test_an_exception_that_no_longer_happens_fails_so_the_list_shrinks(tmp_path: Path) -> None:
    stale = tmp_path / "importlinter.ini"
    text = CONTRACT.read_text(encoding="utf-8")
    if "\nignore_imports =" not in text:  # no exception left: the contract's last key starts the list
        text = text.rstrip("\n") + "\nignore_imports =\n"
    stale.write_text(text + "    chesskb.kb.reading.pgn -> chesskb.kb.store\n", encoding="utf-8")
    done = _lint_imports(stale)
    assert done.returncode != 0
    assert "No matches for ignored import chesskb.kb.reading.pgn -> chesskb.kb.store" in done.stdout + done.stderr
