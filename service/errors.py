"""One error shape for the whole service.

Views raise ``ServiceError(status, message)``; one handler answers the JSON error
(``error_json``: ``{"ok": false, "error": …, "status": …}``), or an HTML error page to a client that
asks for HTML — by the pages' one rule (``service.negotiation.choose``: a ``.json`` URL, then
``?format=``, then ``Accept``), with JSON the default. Unexpected exceptions become a 500 of the same
shape, never a stack trace.
"""

from __future__ import annotations

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from chesskb.kb.store.base import StoreDamaged

from .negotiation import choose


class ServiceError(Exception):
    def __init__(self, status: int, message: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def error_json(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """The error as JSON: the one shape every client of the service gets (``/sparql`` included)."""
    response = jsonify({"ok": False, "error": message, "status": status})
    response.status_code = status
    response.headers.update(headers or {})
    response.vary.add("Accept")  # the same URL answers an HTML error page to a browser
    return response


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """The JSON error, or the HTML error page when the request asks for HTML."""
    suffix = ".json" if request.path.endswith(".json") else None
    if choose(["application/json", "text/html"], "application/json", suffix=suffix) != "text/html":
        return error_json(status, message, headers)
    response = Response(
        render_template("error.html", status=status, message=message), status=status, mimetype="text/html"
    )
    response.headers.update(headers or {})
    response.vary.add("Accept")
    return response


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ServiceError)
    def _service_error(exc: ServiceError) -> Response:
        return error_response(exc.status, exc.message, exc.headers)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Response:
        return error_response(exc.code or 500, exc.description or exc.name)

    @app.errorhandler(StoreDamaged)
    def _damaged(exc: StoreDamaged) -> Response:
        # The operator must act (restore or re-import); visitors get a clear refusal, not an "internal error".
        app.logger.error("%s", exc)
        return error_response(503, f"the knowledge base cannot be read: {exc}", {"Retry-After": "3600"})

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        app.logger.exception("unhandled error")
        return error_response(500, f"internal error: {type(exc).__name__}")
