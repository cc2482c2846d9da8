"""``/sparql``: the SPARQL 1.1 Protocol endpoint, its service description and a query editor.

What real clients send decides what is tolerated (prior-art §A5, §B3): ``GET ?query=``, ``POST``
form and ``POST application/sparql-query``; the media type by ``Accept`` with q-values, or by
SPARQLWrapper's ``format``/``output``/``results`` parameters (honoured, never a 400); SELECT/ASK
default to JSON and CONSTRUCT/DESCRIBE to Turtle. A GET without a query is the service description
(RDF), or the YASGUI editor for a browser. Queries run in killable worker processes
(``service.query_runner``) so a runaway query is answered 503 while others are served.
"""

from __future__ import annotations

import hmac
import re
import threading
from typing import Any

from flask import Blueprint, Response, current_app, render_template, request, url_for
from pyoxigraph import BlankNode, Literal, NamedNode, RdfFormat, Triple, serialize

from kb.store import EmbeddedStore
from kb.vocab import PREFIXES, RDF

from .errors import ServiceError, error_response
from .negotiation import choose
from .query_runner import GRAPH_FORMATS, SELECT_FORMATS, Answer, QueryFailed, WorkerPool, execute
from .result_cache import cache_key

bp = Blueprint("sparql", __name__)
blueprint = bp

SD = "http://www.w3.org/ns/sparql-service-description#"
FORMATS_NS = "http://www.w3.org/ns/formats/"
_RESULT_FORMAT_IRIS = ("SPARQL_Results_JSON", "SPARQL_Results_XML", "SPARQL_Results_CSV",
                       "SPARQL_Results_TSV", "Turtle", "RDF_XML", "N-Triples", "JSON-LD")

_STRINGS_AND_IRIS = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*\'\'\''
    r'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|<[^<>"{}|^`\\\s]*>|#[^\n]*',
)
_SERVICE = re.compile(r"\bSERVICE\b", re.IGNORECASE)


def uses_service(sparql: str) -> bool:
    """True when the query has a SERVICE clause (strings, IRIs and comments do not count)."""
    return bool(_SERVICE.search(_STRINGS_AND_IRIS.sub(" ", sparql)))


# --- running queries (shared with the canned-query pages) -----------------------------------

_POOL_LOCK = threading.Lock()


def _pool() -> WorkerPool | None:
    """The app's query workers, started on first use (one pool per app, whatever the threads)."""
    store = current_app.extensions["chesskb.store"]
    if not isinstance(store, EmbeddedStore):
        return None
    with _POOL_LOCK:
        pool = current_app.extensions.get("chesskb.query_pool")
        if pool is None:
            pool = WorkerPool(store.location, size=int(current_app.config.get("QUERY_WORKERS", 2) or 2))
            current_app.extensions["chesskb.query_pool"] = pool
    return pool


def run_query(sparql: str, bindings: dict[str, Any] | None = None, *,
              select_type: str = "application/sparql-results+json",
              graph_type: str = "text/turtle") -> Answer:
    """Run a query with the configured timeout and row cap; errors become ``ServiceError``."""
    if uses_service(sparql) and not current_app.config.get("ALLOW_SERVICE"):
        raise ServiceError(403, "federated queries (SERVICE) are not allowed on this endpoint")
    timeout = float(current_app.config["QUERY_TIMEOUT"])
    row_limit = int(current_app.config["ROW_LIMIT"])
    pool = _pool()
    store = current_app.extensions["chesskb.store"]

    def run() -> Answer:
        if pool is None:
            return execute(store, sparql, bindings, select_type, graph_type, row_limit)
        return pool.run(sparql, bindings, select_type, graph_type, row_limit, timeout)

    try:
        cache = current_app.extensions.get("chesskb.results")
        if cache is None:
            return run()
        return cache.get_or_run(cache_key(store, sparql, bindings, select_type, graph_type, row_limit), run)
    except QueryFailed as exc:
        raise ServiceError(exc.status, exc.message) from None


def answer_response(answer: Answer) -> Response:
    mimetype = answer.media_type
    if mimetype.startswith("text/"):
        mimetype += "; charset=utf-8"
    response = Response(answer.body, status=200, content_type=mimetype)
    response.headers["Vary"] = "Accept"
    if answer.truncated_at is not None:
        notice = f"result cut at {answer.truncated_at} rows (setting ROW_LIMIT)"
        response.headers["X-Result-Truncated"] = str(answer.truncated_at)
        response.headers["Warning"] = f'199 - "{notice}"'
    return response


# --- the protocol ---------------------------------------------------------------------------

@bp.errorhandler(ServiceError)
def _protocol_error(exc: ServiceError) -> Response:
    """SPARQL clients send ``*/*`` or result types: they get the JSON error shape, with the parser's
    message; only a browser that asks for HTML by name gets the HTML error page."""
    from flask import jsonify

    if any(media == "text/html" for media, _ in request.accept_mimetypes):
        return error_response(exc.status, exc.message)
    response = jsonify({"ok": False, "error": exc.message, "status": exc.status})
    response.status_code = exc.status
    return response


def _request_operation() -> tuple[str | None, str | None]:
    """(query, update) text from any of the protocol's request forms."""
    if request.method == "GET":
        if "update" in request.args:
            raise ServiceError(400, "SPARQL Update must be sent with POST")
        return request.args.get("query"), None
    content_type = (request.mimetype or "").lower()
    if content_type == "application/sparql-query":
        return request.get_data(as_text=True), None
    if content_type == "application/sparql-update":
        return None, request.get_data(as_text=True)
    if content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        return request.form.get("query"), request.form.get("update")
    raise ServiceError(415, f"unsupported content type {content_type or '(none)'}: send "
                            "application/sparql-query, application/sparql-update or a form")


def _check_update_allowed() -> None:
    token = current_app.config.get("UPDATE_TOKEN")
    if not token:
        raise ServiceError(403, "SPARQL Update is disabled on this endpoint (no update token configured)")
    given = request.headers.get("Authorization", "")
    if not given.startswith("Bearer ") or not hmac.compare_digest(given[7:].strip(), str(token)):
        raise ServiceError(403, "SPARQL Update needs the update token (Authorization: Bearer …)")


@bp.after_request
def _cors(response: Response) -> Response:
    """Browser-based SPARQL clients on other origins (YASGUI, notebooks) may read the endpoint, as
    they can Fuseki's and Oxigraph's; it is read-only unless an update token is configured."""
    response.headers["Access-Control-Allow-Origin"] = "*"
    response.headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
    response.headers["Access-Control-Allow-Headers"] = "Accept, Content-Type, Authorization"
    return response


@bp.route("/sparql", methods=["GET", "POST"])
def sparql_endpoint() -> Response:
    query, update = _request_operation()
    if update is not None:
        _check_update_allowed()
        raise ServiceError(501, "this store is written by `chesskb import`; SPARQL Update is not "
                                "implemented on it")
    if request.values.getlist("default-graph-uri") or request.values.getlist("named-graph-uri"):
        raise ServiceError(400, "default-graph-uri/named-graph-uri are not supported: the default graph "
                                "is the union of all graphs; use GRAPH in the query instead")
    if query is None or not query.strip():
        if request.method == "POST":
            raise ServiceError(400, "no query given (parameter 'query')")
        if choose(["text/html", *GRAPH_FORMATS], "text/turtle") == "text/html":
            return Response(render_template("sparql.html", endpoint=url_for("sparql.sparql_endpoint")),
                            mimetype="text/html")
        return service_description()
    select_type = choose(list(SELECT_FORMATS), "application/sparql-results+json")
    graph_type = choose(list(GRAPH_FORMATS), "text/turtle")
    return answer_response(run_query(query, select_type=select_type, graph_type=graph_type))


def service_description() -> Response:
    """SPARQL 1.1 Service Description of this endpoint, in the negotiated RDF format."""
    endpoint = NamedNode(request.base_url)
    sd = {name: NamedNode(SD + name) for name in (
        "Service", "endpoint", "supportedLanguage", "SPARQL11Query", "resultFormat", "feature",
        "UnionDefaultGraph", "BasicFederatedQuery", "defaultDataset", "Dataset", "defaultGraph", "Graph")}
    service, dataset, graph = BlankNode(), BlankNode(), BlankNode()
    triples = [
        Triple(service, RDF.type, sd["Service"]),
        Triple(service, sd["endpoint"], endpoint),
        Triple(service, sd["supportedLanguage"], sd["SPARQL11Query"]),
        Triple(service, sd["feature"], sd["UnionDefaultGraph"]),
        Triple(service, sd["defaultDataset"], dataset),
        Triple(dataset, RDF.type, sd["Dataset"]),
        Triple(dataset, sd["defaultGraph"], graph),
        Triple(graph, RDF.type, sd["Graph"]),
        Triple(service, NamedNode("http://www.w3.org/2000/01/rdf-schema#comment"),
               Literal("ChessPosition KB: didactic chess positions; the default graph is the union of "
                       "every source graph, the inferred graphs and the ontology.")),
    ]
    if current_app.config.get("ALLOW_SERVICE"):
        triples.append(Triple(service, sd["feature"], sd["BasicFederatedQuery"]))
    triples += [Triple(service, sd["resultFormat"], NamedNode(FORMATS_NS + name)) for name in _RESULT_FORMAT_IRIS]
    media = choose(list(GRAPH_FORMATS), "text/turtle")
    fmt = GRAPH_FORMATS[media]
    prefixes = {"sd": SD, "formats": FORMATS_NS, **PREFIXES} if fmt == RdfFormat.TURTLE else None
    body = serialize(triples, format=fmt, prefixes=prefixes)
    return Response(body, content_type=media + ("; charset=utf-8" if media.startswith("text/") else ""),
                    headers={"Vary": "Accept"})
