"""``/find``: positions by pattern, with a board editor (``static/find.js``) and a ``.json`` twin.

The page is a GET form, so a search is its URL: a teacher can save it, share it, or page through
it. ``?fen=`` ("find similar" on a position page) starts from every piece of that position. The
query is ``queries.find.page_query`` (the store's board index narrows, ``find_query``'s REGEX decides) run
through the service's query runner (timeout, row cap, cache).
"""

from __future__ import annotations

import json
import re
from typing import Any, TypedDict

import chess
from flask import Blueprint, Response, current_app, request, url_for

from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.search.patterns import PatternError, list_form, parse
from chesskb.queries.find import FindError, has_board_strings, has_positions, page_query

from .errors import ServiceError
from .executor import get_store
from .i18n import current_lang
from .links import link_for
from .negotiation import JSON
from .render import media_type, page_route, render
from .rows import reader
from .sparql import run_query
from .titles import titles_of

bp = Blueprint("find", __name__)
blueprint = bp

#: Positions per page of results (each a small board image).
PAGE_SIZE = 24
#: The highest page number served: deeper pages make Oxigraph walk past every earlier match.
MAX_PAGE = 400
#: A list-form item naming one piece on one square: the editor draws these on its board.
_PLACED = re.compile(r"^([KQRBNPkqrbnp])([a-h][1-8])$")


class FindForm(TypedDict):
    """The search as its URL states it (every key is also a key of the JSON twin)."""

    pattern: str
    side: str  # "w", "b", or "" for either side to move
    material: str
    either: bool
    source: str  # a source name, or "" for every source
    page: int


class FoundPosition(TypedDict):
    """One result: the position, its title in the request's language, its board and its page."""

    iri: str
    label: str
    fen: str
    url: str | None
    board: str


class PlacedPiece(TypedDict):
    """A piece the pattern puts on one square, drawn on the editor's board."""

    piece: str
    square: str


class _FindPageKeys(FindForm):
    results: list[FoundPosition]
    placed: list[PlacedPiece]
    searched: bool
    error: str | None
    next: str | None
    previous: str | None


class FindPage(_FindPageKeys, total=False):
    """What the page is built from: the form, the results, the neighbours' links; ``error_status`` when the
    search failed for another reason than its text; once it ran, its own JSON link and the neighbours'."""

    error_status: int
    json: str
    next_json: str
    previous_json: str


class FindTwin(FindForm):
    """``/find.json``: the search, one page of results, and the neighbours' JSON links (None at the ends)."""

    results: list[FoundPosition]
    next: str | None
    previous: str | None


def _form() -> FindForm:
    args = request.args
    pattern = " ".join((args.get("pattern") or "").split())
    side = (args.get("side") or "").lower()
    fen = args.get("fen")
    if fen and not pattern:
        try:
            board = chess.Board(fen)
        except ValueError as exc:
            raise ServiceError(400, f"invalid FEN {fen!r}: {exc}") from None
        pattern = list_form(board)
        side = side or ("w" if board.turn == chess.WHITE else "b")
    try:
        page = max(1, min(int(args.get("page") or 1), MAX_PAGE))
    except ValueError:
        raise ServiceError(400, "page is a whole number") from None
    return {
        "pattern": pattern,
        "side": side if side in ("w", "b") else "",
        "material": (args.get("material") or "").strip(),
        "either": args.get("either") in ("1", "on", "true"),
        "source": (args.get("source") or "").strip(),
        "page": page,
    }


def _url(form: FindForm, page: int, *, json_twin: bool = False) -> str:
    args: dict[str, Any] = {  # url_for's query arguments (its keyword-only options are typed, these are not)
        k: v
        for k, v in (
            ("pattern", form["pattern"]),
            ("side", form["side"]),
            ("material", form["material"]),
            ("either", "1" if form["either"] else ""),
            ("source", form["source"]),
        )
        if v
    }
    if page > 1:
        args["page"] = page
    return url_for("find.find_json" if json_twin else "find.find_page", **args)


def find_data(form: FindForm) -> FindPage:
    """The search as plain data: the form's values, a page of results, links to the neighbours."""
    searched = bool(form["pattern"] or form["side"] or form["material"])
    data: FindPage = {
        "pattern": form["pattern"],
        "side": form["side"],
        "material": form["material"],
        "either": form["either"],
        "source": form["source"],
        "page": form["page"],
        "results": [],
        "placed": [
            {"piece": m.group(1), "square": m.group(2)} for m in map(_PLACED.match, form["pattern"].split()) if m
        ],
        "searched": searched,
        "error": None,
        "next": None,
        "previous": None,
    }
    if not searched:
        return data
    try:
        pattern = parse(
            form["pattern"], side=form["side"] or None, material=form["material"] or None, either_colour=form["either"]
        )
        graph = IriMinter(current_app.config["BASE_IRI"]).source_graph(form["source"]).value if form["source"] else None
        sparql = page_query(  # its queries run in the pages lane; the board index is the store's
            get_store(),
            pattern,
            reading=reader(),
            source_graph=graph,
            limit=PAGE_SIZE + 1,
            offset=(form["page"] - 1) * PAGE_SIZE,
        )
    except (PatternError, FindError) as exc:
        data["error"] = str(exc)
        return data
    rows = json.loads(run_query(sparql).body)["results"]["bindings"]
    store = reader()  # the pages lane (time limit, size bound), not the raw store
    if not rows and not has_board_strings(store) and has_positions(store):
        data["error"] = (
            "the positions in this knowledge base were imported before board patterns existed: "
            "import the sources again to search them by pattern"
        )
        data["error_status"] = 409  # the request is fine; the store predates cp:boardSquares
        return data
    titles = titles_of((row["position"]["value"] for row in rows[:PAGE_SIZE]), current_lang())
    for row in rows[:PAGE_SIZE]:
        iri, fen = row["position"]["value"], row["fen"]["value"]
        data["results"].append(
            {
                "iri": iri,
                "label": titles.get(iri, iri),
                "fen": fen,
                "url": link_for(iri),
                "board": url_for("pages.board_image", fen=fen, size=120),
            }
        )
    if len(rows) > PAGE_SIZE and form["page"] < MAX_PAGE:
        data["next"] = _url(form, form["page"] + 1)
        data["next_json"] = _url(form, form["page"] + 1, json_twin=True)
    if form["page"] > 1:
        data["previous"] = _url(form, form["page"] - 1)
        data["previous_json"] = _url(form, form["page"] - 1, json_twin=True)
    data["json"] = _url(form, form["page"], json_twin=True)
    return data


def json_twin(data: FindPage) -> FindTwin:
    """What ``/find.json`` gives of the page's data: the search, its results, and the neighbours'
    JSON links. A search the page shows as an error is the twin's error status."""
    if data["error"]:
        raise ServiceError(data.get("error_status", 400), data["error"])
    return {
        "pattern": data["pattern"],
        "side": data["side"],
        "material": data["material"],
        "either": data["either"],
        "source": data["source"],
        "page": data["page"],
        "results": data["results"],
        "next": data.get("next_json"),
        "previous": data.get("previous_json"),
    }


@page_route(bp, "/find", json_endpoint="find_json")
def find_page() -> Response:
    media = media_type()
    data = find_data(_form())
    if media == JSON:
        return render("find.html", json_twin(data), media=media)
    return render("find.html", data, media=media, status=data.get("error_status", 400) if data["error"] else 200)
