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


def test_a_query_that_ran_to_the_time_limit_is_remembered_for_a_while() -> None:
    """FAILED_QUERY_TTL: asked again meanwhile, the same 503 at once without running (no worker held);
    afterwards it runs again. Other failures (a full queue, a syntax error) are never remembered."""
    import time

    import pytest

    from chesskb.service.query_runner import QueryFailed
    from chesskb.service.result_cache import ResultCache

    cache = ResultCache(failed_ttl=0.5)
    runs: list[str] = []

    def timed_out():
        runs.append("slow")
        raise QueryFailed(503, "query stopped: it ran longer than the 20 s limit", costly=True)

    def busy():
        runs.append("busy")
        raise QueryFailed(503, "all workers stayed busy")

    for _ in range(3):
        with pytest.raises(QueryFailed) as failed:
            cache.get_or_run("slow", timed_out)
        assert failed.value.status == 503
    assert runs == ["slow"] and "FAILED_QUERY_TTL" in failed.value.message
    time.sleep(0.6)
    with pytest.raises(QueryFailed):
        cache.get_or_run("slow", timed_out)
    assert runs == ["slow", "slow"]
    for _ in range(2):
        with pytest.raises(QueryFailed):
            cache.get_or_run("busy", busy)
    assert runs.count("busy") == 2


def test_the_cache_keeps_at_most_its_bytes_least_recently_used_first(tmp_path: Path) -> None:
    """Issue 35 (item 5): entries alone let 512 answers of 1 MB stay; RESULT_CACHE_BYTES bounds the
    bytes kept, and each answer still comes back whole."""
    from chesskb.service.query_runner import Answer
    from chesskb.service.result_cache import ResultCache

    cache = ResultCache(max_bytes=10_000)
    answers = {n: Answer("solutions", "application/json", bytes([n]) * 3_000) for n in range(6)}
    for n, answer in answers.items():
        assert cache.get_or_run(n, lambda a=answer: a) is answer
        assert cache.bytes <= 10_000
    assert cache.bytes == 9_000 and cache.misses == 6
    assert cache.get_or_run(5, lambda: answers[0]) is answers[5] and cache.hits == 1  # kept: the newest
    assert cache.get_or_run(0, lambda: answers[0]) is answers[0] and cache.misses == 7  # dropped: the oldest
    big = Answer("solutions", "application/json", b"x" * 10_001)
    assert cache.get_or_run("big", lambda: big) is big and cache.bytes <= 10_000  # larger than the bound: not kept
    assert cache.get_or_run("big", lambda: big) is big and cache.misses == 9


def test_the_setting_sizes_the_services_cache(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert run_cli("import", str(DATA / "games" / "kasparov-deep-blue-1997.pgn"), store=store).exit_code == 0
    app = create_app({"STORE": str(store), "QUERY_WORKERS": 0, "RESULT_CACHE_BYTES": 1234})
    assert app.extensions["chesskb.results"].max_bytes == 1234


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
    answer("c")  # full: "b" goes
    answer("a"), answer("b")
    assert runs == ["a", "b", "c", "b"]
    answer("big", MAX_BODY_BYTES + 1), answer("big", MAX_BODY_BYTES + 1)
    assert runs[-2:] == ["big", "big"]
    answer(None), answer(None)  # no key (a store without generations): never cached
    assert runs[-2:] == [None, None]
