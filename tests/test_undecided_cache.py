"""An undecided mate claim is searched once per search: the same search never decides it, any other may.

A claim the node budget cannot settle (a trap's "mate in seven" from the initial position) costs the whole
budget each time it is searched. ``MateVerifier`` keeps the undecided answer under the name of the search
that gave it (``undecided_rule``: the search's code, the budget, the move tried first, the engine that
proposed moves), so the same search in a later import reads it, and a larger budget, another first move or
another engine searches again and may decide it. Each case uses a real search: the budget of one node
leaves a mate in one undecided, the default budget proves it.
"""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from chesskb.kb.analysis.engine import Engine
from chesskb.kb.analysis.proof import prove_mate
from chesskb.kb.analysis.verify import MateVerifier
from chesskb.kb.analysis.verify_cache import VerificationCache

#: Ra8 mates: "mate within three" is true, and a search of one node cannot find it out.
BOARD = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
TINY = 1


def fresh(path: Path, **options) -> MateVerifier:
    """A verifier as a new import builds it: nothing in memory, the cache file at ``path``."""
    return MateVerifier(VerificationCache(path), **options)


def save(verifier: MateVerifier) -> None:
    """What the importer does with what a unit decided: write it to the file."""
    verifier.cache.save(verifier.cache.take_new())


def test_the_same_search_reads_its_undecided_answer_and_a_larger_budget_decides(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    assert prove_mate(BOARD, 3, budget=TINY).verdict == "undecided"  # what the cache must not change

    first = fresh(path, budget=TINY)
    assert first.verify(BOARD, 3) == "undecided"
    assert (first.counts.searched, first.counts.cached) == (1, 0)
    save(first)

    again = fresh(path, budget=TINY)
    assert again.verify(BOARD, 3) == "undecided"
    assert (again.counts.searched, again.counts.cached) == (0, 1)

    larger = fresh(path)  # the default budget: the undecided entry is not its answer
    proof = larger.decide(BOARD, 3)
    assert (proof.verdict, proof.shortest, proof.minimal) == ("proven", 1, True)
    assert (larger.counts.searched, larger.counts.cached) == (1, 0)


def test_another_first_move_searches_again_and_may_decide(tmp_path: Path) -> None:
    """The move tried first orders the search: with Ra8 first, the budget that left the claim undecided
    proves it, so the undecided answer of another order must not be read."""
    path = tmp_path / "cache.sqlite"
    first = fresh(path, budget=TINY)
    assert first.verify(BOARD, 3, chess.Move.from_uci("g1f2")) == "undecided"
    save(first)
    other = fresh(path, budget=TINY)
    assert other.verify(BOARD, 3, chess.Move.from_uci("a1a8")) == "proven"
    assert (other.counts.searched, other.counts.cached) == (1, 0)
    same = fresh(path, budget=TINY)
    assert same.verify(BOARD, 3, chess.Move.from_uci("g1f2")) == "undecided"
    assert (same.counts.searched, same.counts.cached) == (0, 1)


def test_an_engine_does_not_read_what_the_search_alone_left_undecided(tmp_path: Path, engine) -> None:
    """The engine proposes Ra8 at the root: the budget that left the claim undecided without it proves it."""
    if engine is None:
        pytest.skip("no stockfish (scripts/setup.sh installs it)")
    path = tmp_path / "cache.sqlite"
    alone = fresh(path, budget=TINY)
    assert alone.verify(BOARD, 3) == "undecided"
    save(alone)

    with_engine = fresh(path, budget=TINY, engine=engine)
    assert with_engine.verify(BOARD, 3) == "proven"
    assert (with_engine.counts.searched, with_engine.counts.engine, with_engine.counts.cached) == (1, 1, 0)
    save(with_engine)
    again = fresh(path, budget=TINY)
    assert again.verify(BOARD, 3) == "proven"  # decided now: the search alone reads the proof, not its undecided
    assert (again.counts.searched, again.counts.cached) == (0, 1)


def test_a_search_whose_engine_failed_is_not_kept(tmp_path: Path) -> None:
    """An engine that could not propose left the search ordered partly without it: that undecided answer
    is neither the engine's search nor the search alone, so it is not cached."""
    broken = tmp_path / "broken-engine"
    broken.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    broken.chmod(0o755)
    path = tmp_path / "cache.sqlite"
    for _ in range(2):
        verifier = fresh(path, budget=TINY, engine=Engine(str(broken)))
        assert verifier.verify(BOARD, 3) == "undecided"
        assert (verifier.counts.searched, verifier.counts.cached) == (1, 0)
        save(verifier)


@pytest.fixture
def fingerprint_each_time():
    """The search's fingerprint is computed once per process; these tests edit the code it digests."""
    from chesskb.kb.analysis.verify import _search_fingerprint

    _search_fingerprint.cache_clear()
    yield _search_fingerprint.cache_clear
    _search_fingerprint.cache_clear()


@pytest.mark.parametrize("module", ["proof", "verify"])
def test_changed_search_code_searches_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fingerprint_each_time, module: str
) -> None:
    """The search's code is part of its name: the proof search (``kb.analysis.proof``) and the module that
    asks the engine for proposals (``kb.analysis.verify``). An undecided answer kept by the code before an
    edit of either is not read by the code after it; before the edit it is."""
    import shutil

    from chesskb.kb.analysis import proof, verify

    source = proof if module == "proof" else verify
    copy = tmp_path / f"{module}.py"
    shutil.copyfile(str(source.__file__), copy)
    monkeypatch.setattr(source, "__file__", str(copy))
    path = tmp_path / "cache.sqlite"

    first = fresh(path, budget=TINY)
    assert first.verify(BOARD, 3) == "undecided"
    save(first)
    unchanged = fresh(path, budget=TINY)
    assert unchanged.verify(BOARD, 3) == "undecided"
    assert (unchanged.counts.searched, unchanged.counts.cached) == (0, 1)

    copy.write_text(copy.read_text(encoding="utf-8") + "\n# an edit\n", encoding="utf-8")
    fingerprint_each_time()
    edited = fresh(path, budget=TINY)
    assert edited.verify(BOARD, 3) == "undecided"
    assert (edited.counts.searched, edited.counts.cached) == (1, 0)
