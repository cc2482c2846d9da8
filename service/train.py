"""``/train``: "Start training" — an exercise near the learner's rating.

The learner's rating lives in the browser (``rating.js``, localStorage key ``chesskb:rating``), so the
page that links here appends it: ``/train?rating=1620``. Without one (a first visit) the rating is
``DEFAULT_RATING``, where a new Glicko-2 rating starts. The answer is a redirect to one of the
``CANDIDATES`` exercises whose difficulty (``cp:difficulty``, on the lichess rating scale) is nearest
the rating, chosen at random so that coming back does not give the same exercise every time; the
exercise page is opened in the ``train`` context, whose "Next exercise" comes back here.
"""

from __future__ import annotations

import random

from flask import Blueprint, redirect, request
from flask.typing import ResponseReturnValue

from .context import link
from .errors import ServiceError
from .rows import named

bp = Blueprint("train", __name__)

#: Where a learner without a rating starts (Glicko-2's initial rating).
DEFAULT_RATING = 1500
#: How many of the nearest exercises the one shown is drawn from.
CANDIDATES = 12
#: Ratings outside this range are refused (a typo, not a learner).
LOWEST_RATING, HIGHEST_RATING = 0, 4000


def requested_rating(raw: str | None) -> int:
    """The ``rating`` argument as a whole number (a decimal is rounded); 400 when it is not one."""
    if raw is None or not raw.strip():
        return DEFAULT_RATING
    try:
        rating = round(float(raw))
    except ValueError:
        raise ServiceError(400, f"rating must be a number, not {raw[:40]!r}") from None
    if not LOWEST_RATING <= rating <= HIGHEST_RATING:
        raise ServiceError(400, f"rating must be between {LOWEST_RATING} and {HIGHEST_RATING}, not {rating}")
    return rating


@bp.route("/train")
def train() -> ResponseReturnValue:
    rating = requested_rating(request.args.get("rating"))
    rows = named("train-near-rating", rating=str(rating), limit=str(CANDIDATES))
    if not rows:
        raise ServiceError(404, "this knowledge base has no exercise with a difficulty to train on")
    chosen = random.choice(rows)
    return redirect(link(chosen["position"], "train", 0), code=302)
