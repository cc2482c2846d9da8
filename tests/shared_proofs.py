"""One verification cache for all the imports of a test module.

An import decides its mate claims once per store: the verdicts go to a cache beside the store
(``kb.analysis.verify_cache``), and a new store starts with an empty one. A module that imports the
same collections into several stores (to compare layouts or write paths) proved the same mates again
for each. The cache holds facts about positions, never about a store ("deleting it costs time, never
an answer"), so the module's stores can share one: what such a module checks — the quads a path
writes, the layout — is the same either way, and the first import still proves every claim.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chesskb.kb.analysis.verify_cache import CACHE_ENV, CACHE_FILE


@pytest.fixture(scope="module", autouse=True)
def shared_proofs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``$CHESSKB_VERIFY_CACHE`` set to one file for the module (import it into a test module to use it)."""
    path = tmp_path_factory.mktemp("proofs") / CACHE_FILE
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, str(path))
        yield path
