"""``/sparql``: the SPARQL 1.1 Protocol endpoint, its service description and a query editor.

Requests are checked as the Protocol says (W3C protocol tests): one ``query`` by ``GET``, a ``POST``
form or a ``POST application/sparql-query`` body, never two operations; bodies in UTF-8 (another
charset is refused with 415, a body that is not UTF-8 with 400); ``default-graph-uri`` and
``named-graph-uri`` give the dataset (replacing FROM / FROM NAMED), and without them the default
graph is the merge of every graph; relative IRIs resolve against the endpoint's URL. The media type
comes from ``Accept`` with q-values, or SPARQLWrapper's ``format``/``output``/``results`` parameters;
an ``Accept`` the endpoint cannot serve gets 406. A GET without a query is the service description
(RDF), or the YASGUI editor for a browser. Queries run through ``service.executor``: bounded in time
and size, and failed loudly (an error status) when a bound is hit, never cut short.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl

from flask import Blueprint, Response, current_app, render_template, request, url_for
from pyoxigraph import BlankNode, Literal, NamedNode, RdfFormat, Triple, serialize

from chesskb.kb.store.base import Term
from chesskb.kb.store.results import solutions
from chesskb.kb.vocab import PREFIXES, RDF

from . import executor
from .errors import ServiceError, error_json, error_response
from .negotiation import FORMATS, RDF_FORMATS, RESULT_FORMATS, acceptable, choose, media_aliases
from .query_runner import Answer, Dataset
from .resources import valid_iri
from .rows import reader

bp = Blueprint("sparql", __name__)
blueprint = bp

SD = "http://www.w3.org/ns/sparql-service-description#"
FORMATS_NS = "http://www.w3.org/ns/formats/"
JSON_RESULTS = "application/sparql-results+json"
TURTLE = "text/turtle"
#: Media types clients send for results (or graphs) that name one of ours differently.
SELECT_ALIASES = media_aliases(RESULT_FORMATS)
GRAPH_ALIASES = media_aliases(RDF_FORMATS)
_UTF8 = ("utf-8", "utf8", "us-ascii")


# --- running queries (shared with the canned-query pages) -----------------------------------


def run_query(
    sparql: str,
    bindings: Mapping[str, Term] | None = None,
    *,
    select_type: str = JSON_RESULTS,
    graph_type: str = TURTLE,
) -> Answer:
    """A canned or page query: the pages lane of ``service.executor``."""
    return executor.run(sparql, bindings, lane="pages", select_type=select_type, graph_type=graph_type)


def answer_response(answer: Answer) -> Response:
    mimetype = answer.media_type
    if mimetype.startswith("text/"):
        mimetype += "; charset=utf-8"
    response = Response(answer.body, status=200, content_type=mimetype)
    response.headers["Vary"] = "Accept"
    return response


# --- the protocol ---------------------------------------------------------------------------


@bp.errorhandler(ServiceError)
def _protocol_error(exc: ServiceError) -> Response:
    """SPARQL clients send ``*/*`` or result types: they get the JSON error shape, with the parser's
    message; only a browser that asks for HTML by name gets the HTML error page."""
    if any(media == "text/html" for media, _ in request.accept_mimetypes):
        return error_response(exc.status, exc.message, exc.headers)
    return error_json(exc.status, exc.message, exc.headers)


@dataclass
class Operation:
    """One protocol request: a query or an update, and the dataset it names."""

    query: str | None
    update: str | None
    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()


def _one(values: list[str], name: str) -> str | None:
    if len(values) > 1:
        raise ServiceError(400, f"the request gives {len(values)} '{name}' parameters; send exactly one")
    return values[0] if values else None


def _utf8_body() -> str:
    charset = (request.mimetype_params.get("charset") or "utf-8").lower()
    if charset not in _UTF8:
        raise ServiceError(415, f"request charset {charset} is not supported: send the body in UTF-8")
    try:
        return request.get_data(cache=True).decode("utf-8")
    except UnicodeDecodeError:
        raise ServiceError(400, "the request body is not valid UTF-8") from None


def _form() -> list[tuple[str, str]]:
    """An url-encoded body's fields, decoded strictly as UTF-8 (werkzeug would replace bad bytes)."""
    raw = _utf8_body()
    try:
        return parse_qsl(raw, keep_blank_values=True, encoding="utf-8", errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise ServiceError(400, "the form is not valid UTF-8 once percent-decoded") from None


def _request_operation() -> Operation:
    """The operation of any of the Protocol's request forms, refused when ambiguous."""
    params: list[tuple[str, str]] = list(request.args.items(multi=True))
    if request.method in ("GET", "HEAD"):
        if any(name == "update" for name, _ in params):
            raise ServiceError(400, "SPARQL Update must be sent with POST")
        query, update = _one([v for k, v in params if k == "query"], "query"), None
    else:
        content_type = (request.mimetype or "").lower()
        in_url = [k for k, _ in params if k in ("query", "update")]
        if content_type in ("application/sparql-query", "application/sparql-update"):
            if in_url:
                raise ServiceError(400, f"a {content_type} body and a '{in_url[0]}' URL parameter: send one")
            body = _utf8_body()
            query, update = (body, None) if content_type.endswith("query") else (None, body)
        elif content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            fields = _form() if content_type.startswith("application/") else list(request.form.items(multi=True))
            params += fields
            query = _one([v for k, v in params if k == "query"], "query")
            update = _one([v for k, v in params if k == "update"], "update")
            if query is not None and update is not None:
                raise ServiceError(400, "the request gives both 'query' and 'update'; send one operation")
        else:
            raise ServiceError(
                415,
                f"unsupported content type {content_type or '(none)'}: send "
                "application/sparql-query, application/sparql-update or a form",
            )
    graphs = {
        name: tuple(v.strip() for k, v in params if k == name) for name in ("default-graph-uri", "named-graph-uri")
    }
    for iri in graphs["default-graph-uri"] + graphs["named-graph-uri"]:
        if not valid_iri(iri):
            raise ServiceError(400, f"not an absolute IRI for a graph: {iri!r}")
    return Operation(query, update, graphs["default-graph-uri"], graphs["named-graph-uri"])


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


def _negotiated(formats: Mapping[str, object], aliases: dict[str, str], default: str) -> tuple[str, bool]:
    """(media type to write, whether the client accepts it at all)."""
    offered = [*formats, *aliases]
    media = choose(offered, default)
    return aliases.get(media, media), acceptable(offered)


@bp.route("/sparql", methods=["GET", "POST"])
def sparql_endpoint() -> Response:
    operation = _request_operation()
    if operation.update is not None:
        _check_update_allowed()
        raise ServiceError(501, "this store is written by `chesskb import`; SPARQL Update is not implemented on it")
    query = operation.query
    if query is None or not query.strip():
        if request.method == "POST":
            raise ServiceError(400, "no query given (parameter 'query')")
        if choose(["text/html", *RDF_FORMATS], TURTLE) == "text/html":
            # the protocol URL, the same in every language (lang=None: url_for adds no language)
            return Response(
                render_template(
                    "sparql.html",
                    endpoint=url_for("sparql.sparql_endpoint", lang=None),
                    page=url_for("pages.page"),
                    base_iri=current_app.config["BASE_IRI"],
                ),
                mimetype="text/html",
                headers={"Vary": "Accept"},
            )  # or the description, by Accept
        return service_description()
    select_type, select_ok = _negotiated(RESULT_FORMATS, SELECT_ALIASES, JSON_RESULTS)
    graph_type, graph_ok = _negotiated(RDF_FORMATS, GRAPH_ALIASES, TURTLE)
    if not select_ok and not graph_ok:
        raise ServiceError(
            406,
            f"none of the media types in Accept ({request.headers.get('Accept')}) can "
            "be served: results come as " + ", ".join([*RESULT_FORMATS, *RDF_FORMATS]),
        )
    dataset = Dataset(operation.default_graphs, operation.named_graphs, base_iri=request.base_url)
    # A client that accepts only result types (or only RDF) still gets the other family's default
    # (JSON, Turtle) for a query of the other form: clients send one Accept for every query.
    answer = executor.run(query, lane="sparql", select_type=select_type, graph_type=graph_type, dataset=dataset)
    return answer_response(answer)


def service_description() -> Response:
    """SPARQL 1.1 Service Description of this endpoint, in the negotiated RDF format."""
    endpoint = NamedNode(request.base_url)
    sd = {
        name: NamedNode(SD + name)
        for name in (
            "Service",
            "endpoint",
            "supportedLanguage",
            "SPARQL11Query",
            "resultFormat",
            "feature",
            "UnionDefaultGraph",
            "BasicFederatedQuery",
            "defaultDataset",
            "Dataset",
            "defaultGraph",
            "Graph",
            "namedGraph",
            "NamedGraph",
            "name",
        )
    }
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
        Triple(
            service,
            NamedNode("http://www.w3.org/2000/01/rdf-schema#comment"),
            Literal(
                "ChessPosition KB: didactic chess positions; the default graph is the union of "
                "every source graph, the inferred graphs and the ontology."
            ),
        ),
    ]
    for name in _graph_names():  # each source (and the inferred and ontology graphs) by name
        named = BlankNode()
        triples += [
            Triple(dataset, sd["namedGraph"], named),
            Triple(named, RDF.type, sd["NamedGraph"]),
            Triple(named, sd["name"], NamedNode(name)),
        ]
    if current_app.config.get("ALLOW_SERVICE"):
        triples.append(Triple(service, sd["feature"], sd["BasicFederatedQuery"]))
    triples += [
        Triple(service, sd["resultFormat"], NamedNode(FORMATS_NS + known.w3c)) for known in FORMATS if known.w3c
    ]
    media = choose(list(RDF_FORMATS), TURTLE)
    fmt = RDF_FORMATS[media]
    prefixes = {"sd": SD, "formats": FORMATS_NS, **PREFIXES} if fmt == RdfFormat.TURTLE else None
    body = serialize(triples, format=fmt, prefixes=prefixes)
    return Response(
        body, content_type=media + ("; charset=utf-8" if media.startswith("text/") else ""), headers={"Vary": "Accept"}
    )


def _graph_names() -> list[str]:
    rows = solutions(reader().named("graph-names"))
    return [row["g"].value for row in rows if isinstance(row["g"], NamedNode)]
