"""How a page's data becomes an answer: the HTML page or its JSON twin, from the same data."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify, render_template, request


def wants_json(suffix: bool = False) -> bool:
    return suffix or (request.args.get("format") or "").lower() == "json" or \
        request.accept_mimetypes.best_match(["text/html", "application/json"]) == "application/json"


def answer(template: str, data: dict[str, Any], as_json: bool) -> Response:
    response = jsonify(data) if as_json else Response(render_template(template, d=data), mimetype="text/html")
    response.headers["Vary"] = "Accept"
    return response
