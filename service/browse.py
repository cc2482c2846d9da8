"""Browsing: the home page, the theme tree, class pages and search (the ``browse`` blueprint).

Each view builds plain data once (``service.classes``, ``service.search``) and ``service.render``
answers it as the HTML page or its ``.json`` twin (also ``?format=json`` or ``Accept``).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request, url_for

from .classes import class_data, class_tree, member_counts
from .home import home_extras
from .links import link_for
from .negotiation import JSON
from .render import media_type, page_route, render
from .resources import describe
from .rows import named
from .search import search_data

bp = Blueprint("browse", __name__)
blueprint = bp


# --- home --------------------------------------------------------------------------------------


def home_data() -> dict[str, Any]:
    members = member_counts()  # the counts kept by every write (queries.class_counts)
    counts = {name: members.get(name, 0) for name in ("Position", "Match", "Player", "Event", "Source")}
    sources = named("source-list")
    return {
        "counts": counts,
        "sources": [{"iri": r["s"], "name": r["name"], "url": link_for(r["s"])} for r in sources],
        "links": {
            "classes": url_for("browse.classes"),
            "search": url_for("browse.search"),
            "queries": url_for("canned.list_queries_page"),
            "sparql": url_for("sparql.sparql_endpoint"),
        },
        **home_extras(),
    }


@page_route(bp, "/", json_rule="/index.json", json_endpoint="home_json")
def home() -> Response:
    return render("home.html", home_data)


# --- the theme tree ----------------------------------------------------------------------------


@page_route(bp, "/classes")
def classes() -> Response:
    return render("classes.html", lambda: {"tree": class_tree()})


@page_route(bp, "/class/<name>")
def class_page(name: str) -> Response:
    """A class's members; the HTML page embeds the class itself (labels, comments, superclass, lichess
    themes) as JSON-LD. The pager's links stay in the format asked for."""
    media = media_type()
    data = class_data(name, media == JSON)
    return render("class.html", data, media=media, graph=lambda: describe(data["iri"]))


# --- search ------------------------------------------------------------------------------------


@page_route(bp, "/search")
def search() -> Response:
    return render("search.html", lambda: search_data(request.args.get("q", "")))
