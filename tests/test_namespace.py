"""One import namespace: the bare folder names refuse to load, and modules load from the real folders.

From the repository root ``kb``, ``service``, ``queries`` and ``ontology`` are importable by their bare names
(the current directory is on ``sys.path``); a second copy of a module would hold a second ``CP`` namespace and
second exception classes. Each runs in a fresh interpreter at the root, where the trap was.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.mark.parametrize("bare", ["kb", "kb.vocab", "service", "service.cli", "queries", "ontology"])
def test_a_bare_import_from_the_repository_root_fails_naming_the_chesskb_module(bare: str) -> None:
    done = _python(f"import {bare}")
    assert done.returncode != 0
    package = bare.split(".")[0]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"ImportError: import chesskb.{package}, not {package}:"), done.stderr[-2000:]


def test_the_chesskb_names_still_import_from_the_repository_root() -> None:
    done = _python("import chesskb.kb.vocab, chesskb.service.cli, chesskb.queries, chesskb.ontology; print('ok')")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"


def test_modules_and_tracebacks_name_the_real_files_not_the_chesskb_links() -> None:
    """``chesskb/kb`` is a link to ``kb/``; a traceback should name ``kb/...``, the file one opens and edits.
    Coverage and profilers record a function's ``co_filename``, so that must name the real file too."""
    code = (
        "import traceback, chesskb.kb.vocab, chesskb.kb.store.base, chesskb.service.commands.base as b\n"
        "print(chesskb.kb.vocab.__file__); print(chesskb.kb.store.base.__file__); print(b.__file__)\n"
        "print(b.verdict.__code__.co_filename)\n"
        "try:\n    b.verdict(False)\nexcept BaseException:\n    print(traceback.format_exc().splitlines()[-3])\n"
    )
    done = _python(code)
    assert done.returncode == 0, done.stderr[-2000:]
    vocab, store_base, command_base, code_file, frame = done.stdout.strip().splitlines()
    assert Path(vocab) == ROOT / "kb" / "vocab.py"
    assert Path(store_base) == ROOT / "kb" / "store" / "base.py"
    assert Path(command_base) == ROOT / "service" / "commands" / "base.py"
    assert Path(code_file) == ROOT / "service" / "commands" / "base.py"
    assert str(ROOT / "service" / "commands" / "base.py") in frame
