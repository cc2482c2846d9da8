"""The one scoring rule of an event's standings and crosstable (issue 17).

* A finished game scores 1 / ½ / 0: ``1-0``, ``0-1``, ``1/2-1/2`` (``SCORES``).
* An unfinished game (``*``) or one without a result scores nothing and is **not counted as
  played**; it still appears in the crosstable, as ``*``, so every game of the event is shown.

* A player is a person: the ``owl:sameAs`` cluster of the player individuals (one person written
  "Nakamura, Hikaru" by one source and "Nakamura,Hi" by another, ``kb.merge.linking``), named by
  the cluster's least IRI and shown with its longest label, so each person is one row and a game
  imported from several sources counts once.

The event page (``service.listings``) computes with ``standings`` below from game rows whose players
are already persons (``queries/internal/event-page-games.rq`` applies the cluster rule); the canned queries
``event-standings`` and ``event-crosstable`` state the same rule in SPARQL (their ``BIND``s use
exactly these results) and a test checks that page and queries agree game for game.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

#: Points for White and Black of each finished result; any other result is unfinished.
SCORES: dict[str, tuple[float, float]] = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}
UNFINISHED_MARK = "*"
_MARKS = {1.0: "1", 0.0: "0", 0.5: "½"}


def score(result: str | None) -> tuple[float, float] | None:
    """White's and Black's points, or ``None`` for an unfinished game."""
    return SCORES.get((result or "").strip())


def game_result(results: Iterable[str | None]) -> str | None:
    """The result of a game whose records state ``results``: the one finished result they give
    ("*" in one copy and "1-0" in another is "1-0"); ``None`` when none or two different ones."""
    finished = {r.strip() for r in results if r and r.strip() in SCORES}
    return finished.pop() if len(finished) == 1 else None


def standings(games: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Points, finished games played, unfinished games and crosstable cells from game rows with
    ``white``, ``black`` (IRIs), ``whiteLabel``, ``blackLabel`` and ``result``. Players are ordered
    by points, then name; ``cells`` follow that order (``—`` on the diagonal)."""
    points: dict[str, float] = defaultdict(float)
    played: dict[str, int] = defaultdict(int)
    unfinished: dict[str, int] = defaultdict(int)
    names: dict[str, str] = {}
    cross: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for g in games:
        white, black = g.get("white"), g.get("black")
        if not white or not black:
            continue
        names[white] = g.get("whiteLabel") or white
        names[black] = g.get("blackLabel") or black
        result = score(g.get("result"))  # rows are one per game: see ``game_result``
        if result is None:
            unfinished[white] += 1
            unfinished[black] += 1
            cross[white][black].append(UNFINISHED_MARK)
            cross[black][white].append(UNFINISHED_MARK)
            continue
        played[white] += 1
        played[black] += 1
        points[white] += result[0]
        points[black] += result[1]
        cross[white][black].append(_MARKS[result[0]])
        cross[black][white].append(_MARKS[result[1]])
    order = sorted(names, key=lambda p: (-points[p], names[p]))
    return {
        "order": order,
        "names": names,
        "points": dict(points),
        "played": dict(played),
        "unfinished": dict(unfinished),
        "cells": {p: [" ".join(cross[p][q]) if p != q else "—" for q in order] for p in order},
    }
