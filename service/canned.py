"""``/queries``: the canned competency questions as pages, JSON and CSV.

One function builds each page's data (``query_listing``, ``query_run``); ``service.render`` answers
it as HTML or the ``.json`` twin, and ``.csv`` is the same query's answer in CSV. Parameters come
from the query string, are bound as typed RDF terms (``queries.executor.prepare``) and never pasted into
the query text.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, request, url_for

from chesskb.queries import PAGE_PARAMS, CannedQuery, QueryError, list_queries, load_query

from . import context
from .errors import ServiceError
from .executor import run_named
from .i18n import current_lang
from .negotiation import JSON
from .render import media_type, page_route, render
from .sparql import answer_response
from .titles import facts_of, title_from_facts

bp = Blueprint("canned", __name__)
blueprint = bp


def describe(query: CannedQuery) -> dict[str, Any]:
    """The public JSON shape of one canned query (``/queries.json``)."""
    return {
        "name": query.name,
        "title": query.title,
        "description": query.description,
        "params": [{"name": p.name, "type": p.type, "default": p.default, "help": p.help} for p in query.params],
        "url": url_for("canned.show_query", name=query.name),
    }


def query_listing() -> list[dict[str, Any]]:
    return [describe(q) for q in list_queries()]


def _load(name: str) -> CannedQuery:
    try:
        return load_query(name)
    except QueryError as exc:
        raise ServiceError(404, str(exc)) from None


def _given_params(query: CannedQuery) -> dict[str, str]:
    known = {p.name for p in query.params} | set(PAGE_PARAMS)
    return {key: value for key, value in request.args.items() if key in known and value != ""}


def query_run(query: CannedQuery) -> dict[str, Any]:
    """Run a canned query with the request's parameters; the rows as plain cells for the page."""
    given = _given_params(query)
    answer = run_named(query.name, given, public=True)  # a bad parameter: 400 with the reason
    data = json.loads(answer.body)
    variables = data["head"]["vars"]
    rows = [{name: row.get(name) for name in variables} for row in data["results"]["bindings"]]
    return {
        **describe(query),
        "values": {p.name: given.get(p.name, p.default) for p in query.params},
        "vars": variables,
        "rows": rows,
        "truncated_at": None,  # kept in the shape: an answer is whole or an error, never cut
    }


def label_cells(rows: list[dict[str, Any]], lang: str) -> list[dict[str, str]]:
    """For each row, the cells that hold the stored ``rdfs:label`` of a position, game, board or record the
    same row names, with that resource's title in ``lang`` (``service.titles``): the page shows the title,
    the JSON and CSV answers the stored value. A cell is recognised by being equal to a label, never by
    reading its words."""
    iris = [cell["value"] for row in rows for cell in row.values() if cell and cell.get("type") == "uri"]
    facts = facts_of(iris, lang)
    shown: list[dict[str, str]] = []
    for row in rows:
        by_label: dict[str, str] = {}
        for cell in row.values():
            found = facts.get(cell["value"]) if cell and cell.get("type") == "uri" else None
            title = title_from_facts(found, lang) if found is not None else None
            if found is not None and title is not None:
                by_label.update(dict.fromkeys(found.labels, title))
        shown.append(
            {
                name: by_label[cell["value"]]
                for name, cell in row.items()
                if cell and cell.get("type") != "uri" and cell["value"] in by_label
            }
        )
    return shown


@page_route(bp, "/queries", json_endpoint="list_queries_json")
def list_queries_page() -> Response:
    listing = query_listing()  # the JSON twin says what the headers say, in English
    lang = current_lang()  # the page shows titles and descriptions in its language
    return render("canned_list.html", listing, queries=[describe(q.in_language(lang)) for q in list_queries()])


@bp.route("/queries/<name>.csv")
def show_query_csv(name: str) -> Response:
    query = _load(name)
    given = _given_params(query)
    response = answer_response(run_named(query.name, given, public=True, select_type="text/csv"))
    response.headers["Content-Disposition"] = f'inline; filename="{query.name}.csv"'
    return response


@page_route(bp, "/queries/<name>")
def show_query(name: str) -> Response:
    """The query's form and, once its parameters are given, its result; the JSON twin is the result
    (a missing parameter is a 400 there, an empty form here)."""
    query = _load(name)
    media = media_type()
    if media == JSON:
        return render("canned_query.html", query_run(query), media=media)
    missing = [p.name for p in query.params if p.default is None and not request.args.get(p.name)]
    result = None if missing else query_run(query)
    lang = current_lang()
    shown = query.in_language(lang)
    return render(
        "canned_query.html",
        result,
        media=media,
        query=describe(shown),
        params=shown.params,
        result=result,
        query_text=query.text,
        exercise_link=context.link,
        titled=label_cells(result["rows"], lang) if result else [],
        values={p.name: request.args.get(p.name, p.default or "") for p in query.params},
    )
