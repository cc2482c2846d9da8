"""Answers are cached per store generation: repeated pages are free, an import is seen at once."""

from __future__ import annotations

from pathlib import Path

from chesskb.service.app import create_app
from tests.conftest import DATA, run_cli


def test_answers_are_reused_until_an_import_changes_the_store(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert run_cli("import", str(DATA / "games" / "kasparov-deep-blue-1997.pgn"), store=store).exit_code == 0
    app = create_app({"STORE": str(store), "TESTING": True, "QUERY_WORKERS": 0})
    client = app.test_client()
    cache = app.extensions["chesskb.results"]

    def sources() -> list[str]:
        response = client.get("/queries/sources.json")
        assert response.status_code == 200
        return sorted(row["name"]["value"] for row in response.get_json()["rows"])

    assert sources() == ["kasparov-deep-blue-1997"]
    misses = cache.misses
    assert sources() == ["kasparov-deep-blue-1997"]
    assert cache.misses == misses and cache.hits >= 1
    assert run_cli("import", str(DATA / "pychess" / "mate_in_2.pgn"), store=store).exit_code == 0
    assert sources() == ["kasparov-deep-blue-1997", "mate_in_2"]
    assert cache.misses == misses + 1


def test_the_least_recently_used_answer_goes_first_and_large_answers_are_not_kept() -> None:
    from chesskb.service.query_runner import Answer
    from chesskb.service.result_cache import MAX_BODY_BYTES, ResultCache

    cache = ResultCache(max_entries=2)
    runs: list[str | None] = []

    def answer(key: str | None, size: int = 10):
        def run() -> Answer:
            runs.append(key)
            return Answer("solutions", "application/json", b"x" * size)
        return cache.get_or_run(key, run)


    answer("a"), answer("b"), answer("a")  # "a" used again: "b" is now the least recently used
    answer("c")                             # full: "b" goes
    answer("a"), answer("b")
    assert runs == ["a", "b", "c", "b"]
    answer("big", MAX_BODY_BYTES + 1), answer("big", MAX_BODY_BYTES + 1)
    assert runs[-2:] == ["big", "big"]
    answer(None), answer(None)  # no key (a store without generations): never cached
    assert runs[-2:] == [None, None]
