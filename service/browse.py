"""Browsing: the home page, the theme tree, class pages and search (the ``browse`` blueprint).

Each view builds plain data once (``service.classes``, ``service.search``); HTML renders it and
the ``.json`` twin (or ``?format=json``) returns it as is.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, render_template, request, url_for

from .classes import class_data, class_tree, member_counts
from .links import page_link
from .render import answer, wants_json
from .resources import describe_graph, script_json, serialise
from .rows import named
from .search import search_data

bp = Blueprint("browse", __name__)
blueprint = bp


# --- home --------------------------------------------------------------------------------------

def home_data() -> dict[str, Any]:
    members = member_counts()  # the counts kept by every write (kb.store.class_counts)
    counts = {name: members.get(name, 0) for name in ("Position", "Match", "Player", "Event", "Source")}
    sources = named("source-list")
    return {"counts": counts,
            "sources": [{"iri": r["s"], "name": r["name"], "url": page_link(r["s"])} for r in sources],
            "links": {"classes": url_for("browse.classes"), "search": url_for("browse.search"),
                      "queries": "/queries", "sparql": "/sparql"}}


@bp.route("/")
def home() -> Response:
    return answer("home.html", home_data(), wants_json())


@bp.route("/index.json")
def home_json() -> Response:
    return jsonify(home_data())


# --- the theme tree ----------------------------------------------------------------------------

@bp.route("/classes")
def classes() -> Response:
    return answer("classes.html", {"tree": class_tree()}, wants_json())


@bp.route("/classes.json")
def classes_json() -> Response:
    return jsonify({"tree": class_tree()})


@bp.route("/class/<name>")
def class_page(name: str) -> Response:
    as_json = wants_json(name.endswith(".json"))
    data = class_data(name[:-5] if name.endswith(".json") else name, as_json)
    if as_json:
        return answer("class.html", data, True)
    # the class itself (labels, comments, superclass, lichess themes) as JSON-LD inside the page
    jsonld = script_json(serialise(describe_graph(data["iri"]), "application/ld+json"))
    response = Response(render_template("class.html", d=data, jsonld=jsonld), mimetype="text/html")
    response.headers["Vary"] = "Accept"
    return response


# --- search ------------------------------------------------------------------------------------

@bp.route("/search")
def search() -> Response:
    return answer("search.html", search_data(request.args.get("q", "")), wants_json())


@bp.route("/search.json")
def search_json() -> Response:
    return jsonify(search_data(request.args.get("q", "")))
