"""Where an exercise was opened from, carried in its URL, so the page can offer the next one.

A listing links each exercise as ``/page?iri=…&from=<context>&i=<index>``; the context names the
list and ``i`` the exercise's place in it (0-based):

* ``class/<Name>`` — a theme class page (members in the order the class page shows them);
* ``course/<id>/<chapter order>`` — a course chapter;
* ``query/<name>?<parameters>`` — a canned query's result (the column the exercise is in);
* ``source/<source IRI>`` — a source's games in file order (the exercises of the next game).
* ``train`` — "Start training" (``service.train``): the next exercise is another one near the learner's
  rating, which the page's script appends to the link.

The exercise page resolves the context to the next exercise's link and a link back to the list
(``service.next_exercise``).
The static site has no query strings to resolve, so its listings link exercises without context.
"""

from __future__ import annotations

from typing import Any

from flask import current_app, url_for

from .links import link_for


def link(iri: str, context: str | None, index: int) -> str:
    """The link to exercise ``iri`` opened from ``context`` at ``index`` (no context in the static site)."""
    if context is None or current_app.config.get("STATIC_SITE"):
        return link_for(iri) or ""
    where: dict[str, Any] = {"from": context, "i": index}  # a dict: "from" is a Python keyword
    return url_for("pages.page", iri=iri, **where)
