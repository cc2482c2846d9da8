"""Difficulty estimates (kb/analysis/difficulty.py) against the lichess ratings of real puzzles."""

from __future__ import annotations

import math

from chesskb.kb.analysis import analyse
from chesskb.kb.analysis.difficulty import MAXIMUM, MINIMUM, THEME_WEIGHT, estimate_difficulty
from chesskb.kb.findings import Finding
from chesskb.kb.reading import read_records
from chesskb.kb.store import open_store
from chesskb.kb.vocab import ALL_CLASSES
from tests.conftest import DATA


def _ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for index in order[start : end + 1]:
            ranks[index] = (start + end) / 2
        start = end + 1
    return ranks


def _spearman(xs: list[float], ys: list[float]) -> float:
    a, b = _ranks(xs), _ranks(ys)
    mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
    covariance = sum((x - mean_a) * (y - mean_b) for x, y in zip(a, b, strict=True))
    return covariance / math.sqrt(sum((x - mean_a) ** 2 for x in a) * sum((y - mean_b) ** 2 for y in b))


def test_the_estimate_orders_real_puzzles_like_their_lichess_ratings() -> None:
    estimates, ratings = [], []
    for record in read_records(DATA / "lichess" / "puzzles.csv"):
        if isinstance(record, Finding):
            continue
        analysis = analyse(record.start_board(), record.solution)
        estimates.append(estimate_difficulty(analysis.facts, analysis.classes))
        ratings.append(record.puzzle.rating)
    assert len(estimates) == 300
    assert _spearman(estimates, ratings) > 0.35


def test_a_source_rating_is_the_difficulty_and_estimates_stay_in_range() -> None:
    assert estimate_difficulty({"solverMoves": 9}, ["QuietMove"], rating=1234) == 1234
    easiest = ["MateInOne", "HangingPiece", "BackRankMate", "DoubleAttack"]
    assert estimate_difficulty({"solverMoves": 1, "pieceCount": 3}, easiest) == MINIMUM
    assert estimate_difficulty({"solverMoves": 12, "pieceCount": 32}, list(THEME_WEIGHT)) == MAXIMUM
    harder = estimate_difficulty({"solverMoves": 3, "pieceCount": 20}, ["QuietMove"])
    easier = estimate_difficulty({"solverMoves": 1, "pieceCount": 20}, ["DoubleAttack"])
    assert harder > easier
    assert set(THEME_WEIGHT) <= set(ALL_CLASSES)


def test_every_exercise_in_the_store_has_a_difficulty(data_store) -> None:
    store = open_store(str(data_store))
    missing = list(store.query("SELECT ?p WHERE { ?p cp:solverMoves ?n FILTER NOT EXISTS { ?p cp:difficulty ?d } }"))
    assert missing == []
    rated = list(store.query("SELECT ?p WHERE { ?p cp:puzzleRating ?r ; cp:difficulty ?d FILTER(?r != ?d) }"))
    assert rated == []
