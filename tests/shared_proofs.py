"""One verification cache for the stores the tests build: the run's session stores, fixtures and modules.

An import decides its mate claims once per store: the verdicts go to a cache beside the store
(``kb.analysis.verify_cache``), and a new store starts with an empty one. The tests build many stores from
the same collections (the demo KB, the data store, the competency store, a module's own store, the stores
a module imports to compare layouts or write paths), and each proved the same mates again, and searched
Légal's trap's undecided "mate in seven" to the end of its budget again. The cache holds facts about
positions, never about a store ("deleting it costs time, never an answer"; an undecided answer is read
only by the very search that gave it), so these stores share one file for the whole run, as the xdist
workers share the session stores (``tests.conftest.built_once``): what the tests check of such a store —
the quads a path writes, the layout, the answers of the queries, computed from the files by python-chess —
is the same either way, and the first import of a claim in the run still proves it.

A test of the cache itself (``tests/test_verify_cache.py``, ``tests/test_undecided_cache.py``) does not use
it, and a test that needs each store to prove its own claims deletes ``$CHESSKB_VERIFY_CACHE``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def run_proofs_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's verification cache file: beside the xdist workers' base directories (which one run's
    workers share), or in this process's own with no workers."""
    from chesskb.kb.analysis.verify_cache import CACHE_FILE

    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared-proofs"
    folder.mkdir(exist_ok=True)
    return folder / CACHE_FILE


@contextmanager
def proofs_of_the_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``$CHESSKB_VERIFY_CACHE`` set to the run's file while the block runs (a fixture's imports, or a
    command a test starts in a process of its own)."""
    from chesskb.kb.analysis.verify_cache import CACHE_ENV

    path = run_proofs_file(tmp_path_factory)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, str(path))
        yield path


@pytest.fixture(scope="module", autouse=True)
def shared_proofs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``$CHESSKB_VERIFY_CACHE`` set to the run's file for the whole module, its tests' own imports
    included (import it into a test module to use it)."""
    with proofs_of_the_run(tmp_path_factory) as path:
        yield path
