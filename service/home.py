"""What the home page offers a newcomer: ways in, not a list of sources.

A learner gets "Start training" (``/train``: an exercise near the rating ``home.js`` reads from the
browser), the exercise of the day, the themes as cards (a board, a one-line description, a count) and
the courses; a SPARQL user gets a short tour (three canned questions, the endpoint, the ontology).

The exercise of the day is the member of ``DAILY_CLASS`` at the day's index (UTC day number modulo the
class's count, at most ``DAILY_POOL``): the same for everyone on a day, another the next, no state kept.
Descriptions are the classes' ``rdfs:comment`` in the page's language, from the shipped ontology.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from flask import url_for
from werkzeug.routing import BuildError

from chesskb.kb.vocab import CP

from . import context
from .classes import class_count
from .courses import courses_data
from .i18n import RDFS_COMMENT, current_lang, ontology_texts
from .links import class_label
from .rows import named

#: The themes shown as cards, in this order (those with no position in the store are left out).
HOME_THEMES = (
    "MateInOne",
    "MateInTwo",
    "BackRankMate",
    "DoubleAttack",
    "Pinning",
    "Skewer",
    "DiscoveredAttack",
    "Sacrifice",
)
#: The class the exercise of the day is taken from: the middlegame's tactics, exercises all.
DAILY_CLASS = "MiddlegameTheme"
#: It is one of the class's first DAILY_POOL members (index order): the home page, which anyone may ask for,
#: never pays for skipping a million rows (OFFSET is a scan).
DAILY_POOL = 1000
#: The canned questions the SPARQL tour starts with.
TOUR_QUERIES = ("mate-in-n-by-player", "positions-by-tactic", "positions-of-player-as-black")
CARD_BOARD_PX = 120


def _class_comments(lang: str) -> dict[str, str]:
    """rdfs:comment of every ontology term in ``lang`` (English when it has none)."""
    return {term: texts.get(lang) or texts.get("en", "") for term, texts in ontology_texts(RDFS_COMMENT).items()}


def one_line(text: str) -> str:
    """The first sentence of a description: a card has room for one line."""
    return re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]


def _first_member(name: str, offset: int = 0) -> dict[str, str] | None:
    rows = named("class-members", limit=1, offset=offset, **{"class": name})
    return rows[0] if rows else None


def theme_cards(lang: str) -> list[dict[str, Any]]:
    cards = []
    for name in HOME_THEMES:
        count = class_count(name)
        member = _first_member(name) if count else None
        if member is None:
            continue
        cards.append(
            {
                "name": name,
                "label": class_label(name),
                "count": count,
                "description": one_line(_class_comments(lang).get(CP.term(name).value, "")),
                "url": url_for("browse.class_page", name=name),
                "board": url_for("pages.board_image", fen=member["fen"], size=CARD_BOARD_PX),
            }
        )
    return cards


def exercise_of_the_day(today: dt.date | None = None) -> dict[str, Any] | None:
    count = min(class_count(DAILY_CLASS), DAILY_POOL)
    if not count:
        return None
    index = (today or dt.datetime.now(dt.timezone.utc).date()).toordinal() % count
    member = _first_member(DAILY_CLASS, index)
    if member is None:
        return None
    return {
        "url": context.link(member["p"], f"class/{DAILY_CLASS}", index),
        "fen": member["fen"],
        "board": url_for("pages.board_image", fen=member["fen"], size=240),
        "to_move": "white" if member["fen"].split()[1] == "w" else "black",
    }


def train_url() -> str:
    """``/train`` (the trainer's route); before that route exists, its address all the same."""
    try:
        return url_for("train.train")
    except BuildError:
        return "/train" + ("?lang=es" if current_lang() == "es" else "")


def tour() -> dict[str, Any]:
    from chesskb.queries import load_query

    lang = current_lang()
    return {
        "questions": [
            {"title": load_query(name).in_language(lang).title, "url": url_for("canned.show_query", name=name)}
            for name in TOUR_QUERIES
        ],
        "endpoint": url_for("sparql.sparql_endpoint", _external=True, lang=None),  # the address, no language
        "editor": url_for("sparql.sparql_endpoint"),
        "owl": url_for("site_files.ontology"),
    }


def home_extras() -> dict[str, Any]:
    lang = current_lang()
    return {
        "train": train_url(),
        "daily": exercise_of_the_day(),
        "themes": theme_cards(lang),
        "courses": courses_data()["courses"],
        "tour": tour(),
    }
