"""The installed package must hold every module: `pip install .` (not only the editable install the
tests run from) ships exactly the packages pyproject.toml lists."""
from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parent.parent
TOP_LEVEL = ("kb", "ontology", "queries", "service")


def test_every_python_package_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in TOP_LEVEL
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert on_disk - listed == set(), "packages missing from pyproject.toml: a plain `pip install .` drops them"
