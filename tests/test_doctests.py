"""The examples in the public entry points' docstrings run, and say what they show.

As python-chess does, the way to call ``import_files``, ``analyse``, the readers, the store
(``open_store`` and the ``Store`` protocol), the canned queries and the engine is shown where it
is defined, and this test keeps those examples true. They are small and fast: an embedded store in
a temporary directory, PGN text of a game or two, and no engine (``CHESSKB_ENGINE=none``).
"""

from __future__ import annotations

import doctest
import importlib
import io

import pytest

#: Modules whose docstrings carry examples (each must have at least one).
MODULES = [
    "chesskb._namespace",
    "chesskb.kb.importer",
    "chesskb.kb.analysis",
    "chesskb.kb.analysis.engine",
    "chesskb.kb.analysis.verify",
    "chesskb.kb.reading",
    "chesskb.kb.reading.units",
    "chesskb.kb.store",
    "chesskb.kb.store.results",
    "chesskb.queries",
    "chesskb.queries.executor",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str, monkeypatch) -> None:
    monkeypatch.setenv("CHESSKB_ENGINE", "none")
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    tests = [test for test in finder.find(module, name) if test.examples]
    assert tests, f"{name} has no examples"
    for test in tests:
        runner.run(test, out=report.write)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, report.getvalue()
