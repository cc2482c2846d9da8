"""The files a site serves by name: ``/favicon.ico``, the SPARQL editor's prefix list, the ontology.

Browsers fetch ``/favicon.ico`` on every first visit; a 404 there filled the log and the console. The
SPARQL editor (YASQE) completes ``PREFIX`` lines from a prefix list it downloads from prefix.cc by
default, which the page's Content-Security-Policy (``connect-src 'self'``) refuses: a console error on
every load. It is pointed at ``/prefixes.json`` instead: this knowledge base's own prefixes
(``kb.vocab.PREFIXES``, the ones its Turtle uses), in prefix.cc's JSON shape ``{prefix: namespace}``.
``/chessposition.owl`` is the shipped ontology (RDF/XML) for Protégé, as the home page's tour offers it;
the whole knowledge base as one ``.owl`` file is ``chesskb export --format owl`` (not served: it grows
with the store).
"""

from __future__ import annotations

from importlib import resources

from flask import Blueprint, Response, jsonify, send_from_directory

from chesskb.kb.vocab import PREFIXES

bp = Blueprint("site_files", __name__)
blueprint = bp


@bp.route("/favicon.ico")
def favicon() -> Response:
    """A 32-pixel chessboard (``static/favicon.ico``), cached for a day like the other static files."""
    return send_from_directory(
        bp.root_path + "/static", "favicon.ico", mimetype="image/vnd.microsoft.icon", max_age=86400
    )


@bp.route("/prefixes.json")
def prefixes() -> Response:
    return jsonify(dict(sorted(PREFIXES.items())))


@bp.route("/chessposition.owl")
def ontology() -> Response:
    text = resources.files("chesskb.ontology").joinpath("chessposition.owl").read_bytes()
    response = Response(text, mimetype="application/rdf+xml")
    response.headers["Content-Disposition"] = 'inline; filename="chessposition.owl"'
    return response
