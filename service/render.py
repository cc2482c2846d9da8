"""One way to answer a page: ``render(template, data)`` gives the HTML page, its JSON twin and, for
linked-data pages, the RDF formats, all from the same data (Datasette's pattern).

A page is registered once with ``page_route`` (the URL and its ``.json`` twin, one view); the view
builds its data and calls ``render``, which picks the format by the one rule of
``service.negotiation.choose`` — the twin's ``.json`` suffix, then ``?format=``, then ``Accept``:

* ``text/html`` — ``template`` rendered with the data as ``d`` (and a linked-data page's graph
  embedded as JSON-LD, ``jsonld``);
* ``application/json`` — the data as is;
* Turtle, RDF/XML, JSON-LD, N-Triples (``service.negotiation.RDF_FORMATS``) — the page's triples
  (only when the view gives them), written by ``service.resources.serialise``.

Every answer says ``Vary: Accept``. Errors take the same rule (``service.errors``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, jsonify, render_template, request
from pyoxigraph import Triple

from .errors import ServiceError
from .negotiation import HTML, JSON, RDF_FORMATS, acceptable, choose
from .resources import script_json, serialise

#: What a page is offered as: HTML and its JSON twin.
PAGE_FORMATS = (HTML, JSON)
#: What a linked-data page (an individual's ``/page``) is offered as.
RESOURCE_FORMATS = (HTML, *RDF_FORMATS, JSON)
#: The suffix of a JSON twin's URL.
JSON_SUFFIX = ".json"


def page_route(
    bp: Blueprint, rule: str, *, json_rule: str | None = None, json_endpoint: str | None = None, **options: Any
) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
    """Register one view at ``rule`` and at its JSON twin (``rule + ".json"`` unless ``json_rule`` is
    given; endpoint ``<view>_json`` unless ``json_endpoint`` is), so a page and its twin are one view."""

    def register(view: Callable[..., Response]) -> Callable[..., Response]:
        bp.add_url_rule(rule, view.__name__, view, **options)
        bp.add_url_rule(json_rule or rule + JSON_SUFFIX, json_endpoint or view.__name__ + "_json", view, **options)
        return view

    return register


def url_suffix() -> str | None:
    """``.json`` when the request came by a JSON twin's URL (the matched route, or the path when no
    route matched), else None."""
    rule = request.url_rule
    path = rule.rule if rule is not None else request.path
    return JSON_SUFFIX if path.endswith(JSON_SUFFIX) else None


def media_type(offered: tuple[str, ...] = PAGE_FORMATS, *, suffix: str | None = None) -> str:
    """The format to answer with among ``offered`` (HTML the default). A linked-data page refuses
    with 406 an ``Accept`` that allows none of its formats; a plain page falls back to HTML."""
    suffix = suffix if suffix is not None else url_suffix()
    if not suffix and len(offered) > len(PAGE_FORMATS) and not acceptable(list(offered)):
        raise ServiceError(406, "this page comes as " + ", ".join(offered) + "; Accept allows none")
    return choose(list(offered), HTML, suffix=suffix)


def render(
    template: str,
    data: Any,
    *,
    media: str | None = None,
    graph: list[Triple] | Callable[[], list[Triple]] | None = None,
    status: int = 200,
    **context: Any,
) -> Response:
    """The answer for a page's ``data`` in the negotiated format (``media``, when the view chose it).

    ``data`` may be a function returning the data, so an RDF answer never builds it. ``graph``, when
    given, is the page's linked data (or a function returning it, so a JSON answer never fetches it):
    embedded as JSON-LD in the HTML, and the body of an RDF answer.
    ``context`` goes to the template beside ``d``."""
    media = media or media_type()
    if media in RDF_FORMATS:
        if graph is None:
            raise ServiceError(406, f"this page does not come as {media}")
        body = serialise(graph() if callable(graph) else graph, media)
        response = Response(
            body, status=status, content_type=media + ("; charset=utf-8" if media.startswith("text/") else "")
        )
    else:
        value = data() if callable(data) else data
        if media == JSON:
            response = jsonify(value)
            response.status_code = status
        else:
            if graph is not None:
                linked = graph() if callable(graph) else graph
                context.setdefault("jsonld", script_json(serialise(linked, "application/ld+json").decode("utf-8")))
            response = Response(render_template(template, d=value, **context), status=status, mimetype=HTML)
    response.headers["Vary"] = "Accept"
    return response
