"""Browsing: the home page, the theme tree, class pages, search, and the listings on the pages of
players, events, sources and games.

Each view builds plain data once; HTML renders it and the ``.json`` twin (or ``?format=json``)
returns it as is. Queries bind the user's text as typed literals (never pasted into SPARQL).
Class counts are the ones the importer keeps after every write (``kb.store.class_counts``): a
position's superclasses are in the store (the ``/inferred`` graphs), so a class's count includes
its subclasses.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from typing import Any

import chess
from flask import Blueprint, Response, current_app, jsonify, render_template, request, url_for
from pyoxigraph import Literal, NamedNode

from chesskb.kb.analysis.board_facts import position_key
from chesskb.kb.store.class_counts import stored_counts
from chesskb.kb.reports.standings import game_result, standings as event_standings
from chesskb.kb.analysis.themes import PARENT, type_position
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.vocab import ADDED_THEME_CLASSES, CP, DCTERMS_IRI, ONTOLOGY_IRI, ORIGINAL_CLASSES

from . import context
from .errors import ServiceError
from .i18n import current_lang
from .resources import Resource, describe_graph, script_json, serialise

bp = Blueprint("browse", __name__)
blueprint = bp

PAGE_SIZE = 24
THEME_NAMES = ("Position",) + tuple(PARENT)


def _store():
    """What pages read through: the executor's pages lane (time limit, size bound, fairness)."""
    return current_app.extensions["chesskb.reader"]


def _rows(sparql: str, **bindings: Any) -> list[dict[str, Any]]:
    """Rows of a SELECT as dicts of plain Python values (IRIs and literals as strings)."""
    result = _store().query(sparql, bindings={k: v for k, v in bindings.items()} or None)
    names = [v.value for v in result.variables]
    out = []
    for solution in result:
        row = {}
        for name in names:
            term = solution[name]
            row[name] = None if term is None else term.value
        out.append(row)
    return out


def _wants_json(suffix: bool = False) -> bool:
    return suffix or (request.args.get("format") or "").lower() == "json" or \
        request.accept_mimetypes.best_match(["text/html", "application/json"]) == "application/json"


def _answer(template: str, data: dict[str, Any], as_json: bool) -> Response:
    response = jsonify(data) if as_json else Response(render_template(template, d=data), mimetype="text/html")
    response.headers["Vary"] = "Accept"
    return response


def _link(iri: str | None) -> str | None:
    from .pages import link_for

    return link_for(iri, current_lang()) if iri else None


def _label(name: str) -> str:
    from .pages import prop_label

    return prop_label(CP.term(name).value, current_lang())


# --- home --------------------------------------------------------------------------------------

COUNTS = """SELECT ?class (COUNT(?s) AS ?n) WHERE {
  VALUES ?class { cp:Position cp:Match cp:Player cp:Event cp:Source } ?s a ?class } GROUP BY ?class"""


def home_data() -> dict[str, Any]:
    stored = stored_counts(_store())
    if stored is not None:
        counts = {name: stored.get(name, 0) for name in ("Position", "Match", "Player", "Event", "Source")}
    else:  # a store written before the counts were kept
        counts = {CP.name_of(row["class"]): int(row["n"]) for row in _rows(COUNTS)}
    sources = _rows("SELECT ?s ?name WHERE { ?s a cp:Source ; cp:sourceName ?name } ORDER BY ?name")
    return {"counts": counts,
            "sources": [{"iri": r["s"], "name": r["name"], "url": _link(r["s"])} for r in sources],
            "links": {"classes": url_for("browse.classes"), "search": url_for("browse.search"),
                      "queries": "/queries", "sparql": "/sparql"}}


@bp.route("/")
def home() -> Response:
    return _answer("home.html", home_data(), _wants_json())


@bp.route("/index.json")
def home_json() -> Response:
    return jsonify(home_data())


# --- the theme tree ----------------------------------------------------------------------------

CLASS_COUNTS = """SELECT ?class (COUNT(?p) AS ?n) WHERE { ?p a ?class } GROUP BY ?class"""
COUNTS_TTL = 30.0  # seconds live counts of an older store are reused


def class_counts() -> dict[str, int]:
    """Positions per theme class, subclasses included (inferred superclass types are stored).

    The importer keeps these numbers after every write (``kb.store.class_counts``), so this is one
    lookup. A store written before that is counted here, and the count reused for 30 s.
    Only theme classes are kept, and only positions are members of theme classes."""
    stored = stored_counts(_store())
    if stored is not None:
        return {name: n for name, n in stored.items() if name in THEME_NAMES}
    cache = current_app.extensions.setdefault("chesskb.class_counts", {})
    if cache and time.monotonic() - cache["at"] < COUNTS_TTL:
        return cache["counts"]
    counts = {CP.name_of(row["class"]): int(row["n"]) for row in _rows(CLASS_COUNTS)
              if CP.name_of(row["class"]) in THEME_NAMES}
    cache.update(at=time.monotonic(), counts=counts)
    return counts


def _class_count(name: str) -> int:
    """One class's count: the stored counts, else the tree's when fresh, else one COUNT of that class."""
    stored = stored_counts(_store())
    if stored is not None:
        return stored.get(name, 0)
    cache = current_app.extensions.get("chesskb.class_counts")
    if cache and time.monotonic() - cache["at"] < COUNTS_TTL:
        return cache["counts"].get(name, 0)
    rows = _rows("SELECT ?class (COUNT(?p) AS ?n) WHERE { ?p a ?class } GROUP BY ?class",
                 **{"class": CP.term(name)})
    return int(rows[0]["n"]) if rows else 0


def class_tree() -> dict[str, Any]:
    counts = class_counts()
    children: dict[str, list[str]] = defaultdict(list)
    for child, parent in PARENT.items():
        children[parent].append(child)
    order = {name: i for i, name in enumerate(ORIGINAL_CLASSES + tuple(ADDED_THEME_CLASSES))}

    def node(name: str) -> dict[str, Any]:
        return {"name": name, "label": _label(name), "count": counts.get(name, 0), "url": _link(CP.term(name).value),
                "original": name in ORIGINAL_CLASSES, "typePosition": type_position(name),
                "children": [node(c) for c in sorted(children.get(name, []), key=lambda c: order.get(c, 999))]}

    return node("Position")


@bp.route("/classes")
def classes() -> Response:
    return _answer("classes.html", {"tree": class_tree()}, _wants_json())


@bp.route("/classes.json")
def classes_json() -> Response:
    return jsonify({"tree": class_tree()})


# The page is cut from the type index alone (subquery), then only its 24 members are joined with their
# FEN and label: OFFSET over the joined rows cost 6 s for the last page of 100k positions, this 80 ms.
#: One page of a class's members in the store's index order: the class page and its "Next exercise"
#: (``service.context``) cut the same list, so the next exercise is the next card.
CLASS_MEMBER_PAGE = "SELECT ?class ?p WHERE { ?p a ?class } LIMIT %d OFFSET %d"
CLASS_MEMBERS = """SELECT ?class ?p ?label ?fen WHERE {
  { """ + CLASS_MEMBER_PAGE + """ }
  ?p cp:fen ?fen OPTIONAL { ?p rdfs:label ?label } }"""


def class_data(name: str, as_json: bool = False) -> dict[str, Any]:
    """One page of a class's members; ``as_json`` makes the pager's links the JSON twin's."""
    if name not in THEME_NAMES:
        raise ServiceError(404, f"no theme class named {name!r}")
    page = max(request.args.get("page", 1, type=int) or 1, 1)
    total = _class_count(name)
    # No ORDER BY: sorting a large class costs seconds; the index order is stable for a given store.
    rows = _rows(CLASS_MEMBERS % (PAGE_SIZE, (page - 1) * PAGE_SIZE), **{"class": CP.term(name)})
    lang = current_lang()
    extra = {"lang": lang} if lang != "en" else {}
    suffix = ".json" if as_json else ""
    return {
        "name": name, "iri": CP.term(name).value, "label": _label(name), "count": total, "page": page,
        "page_size": PAGE_SIZE, "parent": PARENT.get(name),
        "parent_label": _label(PARENT[name]) if name in PARENT else None,
        "parent_url": _link(CP.term(PARENT[name]).value) if name in PARENT else None,
        "subclasses": [{"name": c, "label": _label(c), "url": _link(CP.term(c).value)}
                       for c, p in PARENT.items() if p == name],
        "positions": [{"iri": r["p"], "label": r["label"] or r["p"], "fen": r["fen"],
                       "url": context.link(r["p"], f"class/{name}", (page - 1) * PAGE_SIZE + k, lang),
                       "board": url_for("pages.board_image", fen=r["fen"], size=160)} for k, r in enumerate(rows)],
        "next": url_for("browse.class_page", name=name + suffix, page=page + 1, **extra)
        if page * PAGE_SIZE < total else None,
        "previous": url_for("browse.class_page", name=name + suffix, page=page - 1, **extra) if page > 1 else None,
    }


@bp.route("/class/<name>")
def class_page(name: str) -> Response:
    as_json = _wants_json(name.endswith(".json"))
    data = class_data(name[:-5] if name.endswith(".json") else name, as_json)
    if as_json:
        return _answer("class.html", data, True)
    # the class itself (labels, comments, superclass, lichess themes) as JSON-LD inside the page
    jsonld = script_json(serialise(describe_graph(data["iri"]), "application/ld+json"))
    response = Response(render_template("class.html", d=data, jsonld=jsonld), mimetype="text/html")
    response.headers["Vary"] = "Accept"
    return response


# --- search ------------------------------------------------------------------------------------

# Query shapes matter at 100k positions (bench/pages.py): Oxigraph joins the result of a UNION with
# the patterns after it by scanning those patterns whole, so every pattern sits inside the branches or
# in OPTIONAL/FILTER EXISTS, and each search starts from the one property it filters on.
SEARCHES: dict[str, str] = {
    "players": """SELECT ?q ?s ?label WHERE { ?s cp:nameKey ?key OPTIONAL { ?s rdfs:label ?label }
        FILTER(CONTAINS(?key, ?q) || CONTAINS(LCASE(STR(?label)), ?q)) } LIMIT 50""",
    "events": """SELECT ?q ?s ?label WHERE { ?s cp:eventName ?name FILTER(CONTAINS(LCASE(?name), ?q))
        OPTIONAL { ?s rdfs:label ?label } } LIMIT 50""",
    "openings": """SELECT ?q ?s ?label ?eco ?opening ?variation WHERE {
        ?s cp:opening|cp:variation ?o FILTER(CONTAINS(LCASE(?o), ?q))
        OPTIONAL { ?s rdfs:label ?label } OPTIONAL { ?s cp:eco ?eco } OPTIONAL { ?s cp:opening ?opening }
        OPTIONAL { ?s cp:variation ?variation } } LIMIT 200""",
}
ECO_SEARCH = """SELECT ?q ?s ?label ?eco ?opening ?variation WHERE { ?s cp:eco ?q OPTIONAL { ?s rdfs:label ?label }
    BIND(?q AS ?eco) OPTIONAL { ?s cp:opening ?opening } OPTIONAL { ?s cp:variation ?variation } } LIMIT 200"""
#: Theme classes by any label or synonym (rdfs:label, skos:altLabel, lichess theme key), in both languages.
THEME_SEARCH = """SELECT ?q ?class WHERE { GRAPH <""" + ONTOLOGY_IRI + """> {
    ?class rdfs:label|skos:altLabel|cp:lichessTheme ?text FILTER(CONTAINS(LCASE(STR(?text)), ?q)) } }"""
FEN_SEARCH = """SELECT ?s ?label ?fen WHERE { VALUES ?key { %s } ?s cp:positionKey ?key ; cp:fen ?fen
    OPTIONAL { ?s rdfs:label ?label } } LIMIT 100"""
_ECO = re.compile(r"^[A-Ea-e][0-9]{2}$")
_KEY_TEXT = re.compile(r"^[A-Za-z0-9/ -]+$")


def fen_keys(text: str) -> list[str]:
    """The ``positionKey`` values a FEN (or only its piece placement, with or without the side to
    move) can have: exact for a full FEN; for a placement, every side and every castling right the
    placement allows (no en passant). Looking keys up is an index hit; a prefix scan is not."""
    fields = text.split()
    try:
        if len(fields) >= 4:
            return [position_key(chess.Board(" ".join(fields[:4]) + " 0 1"))]
        board = chess.Board(fields[0] + " w - - 0 1")
    except ValueError:
        return []
    sides = [fields[1]] if len(fields) > 1 and fields[1] in ("w", "b") else ["w", "b"]
    keys = []
    for side in sides:
        board.turn = side == "w"
        for mask in range(16):
            rights = "".join(c for i, c in enumerate("KQkq") if mask & (1 << i)) or "-"
            board.set_castling_fen(rights)
            if board.clean_castling_rights() == board.castling_rights:
                keys.append(position_key(board))
    return list(dict.fromkeys(keys))


def search_data(q: str) -> dict[str, Any]:
    q = " ".join(q.split())[:200]
    groups: dict[str, list[dict[str, Any]]] = {}
    if q:
        if "/" in q:
            keys = [k for k in fen_keys(q) if _KEY_TEXT.match(k)]
            if keys:
                values = " ".join(f'"{key}"' for key in keys)
                groups["positions"] = [{"iri": r["s"], "label": r["label"] or r["s"], "url": _link(r["s"]),
                                        "fen": r["fen"],
                                        "board": url_for("pages.board_image", fen=r["fen"], size=120)}
                                       for r in _rows(FEN_SEARCH % values)]
        elif _ECO.match(q):
            groups["games"] = _unique(_opening_hit(r) for r in _rows(ECO_SEARCH, q=Literal(q.upper())))
        if len(q) >= 2 and "/" not in q:
            needle = Literal(q.lower())
            themes = _theme_hits(needle)
            if themes:
                groups["themes"] = themes
            theme_labels = {label.lower() for labels in _theme_labels().values() for label in labels}
            for group, sparql in SEARCHES.items():
                rows = _rows(sparql, q=needle)
                if group == "players":  # "Mate in one" in a White tag is not a player to find
                    rows = [r for r in rows if (r["label"] or "").lower() not in theme_labels]
                hits = _unique((_opening_hit if group == "openings" else _hit)(r) for r in rows)
                if hits:
                    groups[group] = groups.get(group, []) + [h for h in hits if h not in groups.get(group, [])]
    return {"q": q, "groups": groups, "total": sum(len(v) for v in groups.values())}


def _hit(row: dict[str, Any]) -> dict[str, Any]:
    return {"iri": row["s"], "label": row["label"] or row["s"], "url": _link(row["s"])}


def opening_title(eco: str | None, opening: str | None, variation: str | None) -> str:
    """An opening as the game's tags name it: ``C84 Ruy Lopez, Apertura Española`` (ECO, Opening, Variation;
    seed 001's files give the Spanish name as the variation). Empty when no tag names it."""
    name = ", ".join(v for v in (opening, variation) if v and v.strip() not in ("?", ""))
    return " ".join(v for v in (eco, name) if v and v.strip() not in ("?", ""))


def _opening_hit(row: dict[str, Any]) -> dict[str, Any]:
    """A game found by its opening, named by it (and by its players, when they are known)."""
    head = opening_title(row.get("eco"), row.get("opening"), row.get("variation"))
    label = row["label"] or row["s"]
    if head and label.startswith("? vs ?"):
        return {"iri": row["s"], "label": head, "url": _link(row["s"])}
    return {"iri": row["s"], "label": f"{head} — {label}" if head else label, "url": _link(row["s"])}


def _unique(hits) -> list[dict[str, Any]]:
    """One row per resource (a game with an opening and a variation that both match is one hit)."""
    seen: dict[str, dict[str, Any]] = {}
    for hit in hits:
        seen.setdefault(hit["iri"], hit)
    return list(seen.values())


def _theme_labels() -> dict[str, list[str]]:
    """Every label and synonym of each theme class, both languages (read once per app)."""
    cache = current_app.extensions.get("chesskb.theme_labels")
    if cache is None:
        cache = {}
        rows = _rows("SELECT ?class ?text WHERE { GRAPH <" + ONTOLOGY_IRI + "> { "
                     "?class rdfs:label|skos:altLabel ?text } }")
        for row in rows:
            name = CP.name_of(row["class"]) or ""
            if name in THEME_NAMES:
                cache.setdefault(name, []).append(row["text"])
        current_app.extensions["chesskb.theme_labels"] = cache
    return cache


def _theme_hits(needle: Literal) -> list[dict[str, Any]]:
    names = []
    for row in _rows(THEME_SEARCH, q=needle):
        name = CP.name_of(row["class"]) or ""
        if name in THEME_NAMES and name not in names:
            names.append(name)
    return [{"iri": CP.term(n).value, "label": _label(n), "url": _link(CP.term(n).value)} for n in names]


@bp.route("/search")
def search() -> Response:
    return _answer("search.html", search_data(request.args.get("q", "")), _wants_json())


@bp.route("/search.json")
def search_json() -> Response:
    return jsonify(search_data(request.args.get("q", "")))


# --- listings on resource pages (used by service.pages) -----------------------------------------

# A player page shows the player's owl:sameAs cluster once (kb.merge.linking): its games, positions and
# name variants, whichever member's page is asked for. Ratings and titles are the game's (issue 17).
PLAYER_GAMES = """SELECT ?p ?m ?label ?colour ?result ?date ?opponent ?opponentLabel ?elo ?title WHERE {
  ?p owl:sameAs* ?who .
  { ?m cp:hasPlayerWhite ?who ; cp:hasPlayerBlack ?opponent BIND("white" AS ?colour)
    OPTIONAL { ?m cp:whiteElo ?elo } OPTIONAL { ?m cp:whiteTitle ?title } }
  UNION { ?m cp:hasPlayerBlack ?who ; cp:hasPlayerWhite ?opponent BIND("black" AS ?colour)
    OPTIONAL { ?m cp:blackElo ?elo } OPTIONAL { ?m cp:blackTitle ?title } }
  FILTER EXISTS { ?m a cp:Match } OPTIONAL { ?m rdfs:label ?label } OPTIONAL { ?m cp:result ?result }
  OPTIONAL { ?m cp:date ?date } OPTIONAL { ?opponent rdfs:label ?opponentLabel } } LIMIT 1000"""
PLAYER_NAMES = """SELECT DISTINCT ?p ?name WHERE { ?p owl:sameAs* ?who . ?who skos:altLabel ?name }"""
PLAYER_POSITIONS = """SELECT DISTINCT ?p ?pos ?label ?fen WHERE { ?p owl:sameAs* ?who .
  { ?pos cp:hasPlayerWhite ?who ; cp:fen ?fen } UNION { ?pos cp:hasPlayerBlack ?who ; cp:fen ?fen }
  OPTIONAL { ?pos rdfs:label ?label } } LIMIT 200"""
EVENT_GAMES = """SELECT ?e ?m ?label ?round ?result ?white ?whiteLabel ?black ?blackLabel WHERE {
  ?m cp:hasEvent ?e FILTER EXISTS { ?m a cp:Match } OPTIONAL { ?m rdfs:label ?label }
  OPTIONAL { ?m cp:round ?roundText } OPTIONAL { ?m cp:roundNumber ?roundNumber }
  BIND(COALESCE(?roundText, STR(?roundNumber)) AS ?round)
  OPTIONAL { ?m cp:result ?result }
  OPTIONAL { ?m cp:hasPlayerWhite ?white OPTIONAL { ?white rdfs:label ?whiteLabel } }
  OPTIONAL { ?m cp:hasPlayerBlack ?black OPTIONAL { ?black rdfs:label ?blackLabel } } } LIMIT 2000"""
SOURCE_GAMES = """SELECT ?m ?label ?number WHERE { VALUES ?rec { %s } ?rec cp:gameNumber ?number .
  ?m dcterms:source ?rec OPTIONAL { ?m rdfs:label ?label } }"""
SOURCE_PAGE = 100  # games per source page
MATCH_POSITIONS = """SELECT ?m ?pos ?label ?fen ?ply WHERE { ?pos cp:hasMatch ?m ; cp:fen ?fen
  OPTIONAL { ?pos rdfs:label ?label } OPTIONAL { ?pos cp:plyInGame ?ply } } ORDER BY ?ply LIMIT 500"""



def _round_key(value: str | None) -> tuple:
    parts = re.findall(r"\d+", value or "")
    return (0, tuple(int(p) for p in parts)) if parts else (1, (value or "",))


def listing_for(kind: str, resource: Resource, lang: str) -> dict[str, Any]:
    """The extra sections of a player, event, source or game page."""
    iri = NamedNode(resource.iri)
    if kind == "player":
        games: dict[tuple[str, str], dict[str, Any]] = {}
        for r in _rows(PLAYER_GAMES, p=iri):  # one row per game and colour, whatever the labels
            games.setdefault((r["m"], r["colour"]), {
                "iri": r["m"], "label": r["label"] or r["m"], "url": _link(r["m"]), "colour": r["colour"],
                "result": r["result"], "date": r["date"], "elo": r["elo"], "title": r["title"],
                "opponent": r["opponentLabel"], "opponent_url": _link(r["opponent"])})
        positions = {r["pos"]: r for r in _rows(PLAYER_POSITIONS, p=iri)}
        return {
            "name_variants": sorted({r["name"] for r in _rows(PLAYER_NAMES, p=iri)}),
            "ratings": sorted({g["elo"] for g in games.values() if g["elo"]}, key=lambda x: (len(x), x)),
            "titles": sorted({g["title"] for g in games.values() if g["title"]}),
            "games": sorted(games.values(), key=lambda g: (g["date"] or "", g["label"])),
            "positions": [_position_hit(r) for r in positions.values()],
        }
    if kind == "event":
        rows = _rows(EVENT_GAMES, e=iri)
        results: dict[str, set[str]] = defaultdict(set)
        for r in rows:
            results[r["m"]].add(r["result"] or "")
        games = list({r["m"]: {**r, "result": game_result(results[r["m"]]) or "*"} for r in rows}.values())
        by_round: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in games:
            by_round[r["round"] or "?"].append({
                "iri": r["m"], "label": r["label"] or r["m"], "url": _link(r["m"]), "result": r["result"],
                "white": r["whiteLabel"], "white_url": _link(r["white"]), "black": r["blackLabel"],
                "black_url": _link(r["black"])})
        return {"rounds": [{"round": k, "games": sorted(v, key=lambda g: g["label"])}
                           for k, v in sorted(by_round.items(), key=lambda kv: _round_key(kv[0]))],
                **standings(games)}
    if kind == "source":
        return source_games(resource.iri)
    if kind == "match":
        # an exercise opened from its game goes on to the next game's exercise of the same source
        minter = IriMinter(current_app.config["BASE_IRI"])
        found = next((n for link in resource.links(DCTERMS_IRI + "source") if (n := minter.record_number(link))), None)
        ctx = (f"source/{minter.source(found[0]).value}", found[1]) if found else (None, 0)
        return {"positions": [{**_position_hit(r), "url": context.link(r["pos"], ctx[0], ctx[1], lang)}
                              for r in _rows(MATCH_POSITIONS, m=iri)]}
    return {}


def source_games(source_iri: str) -> dict[str, Any]:
    """One page of a source's games in file order. Record IRIs are ``<source>/game/N`` (kb.mapping.iris), so
    a page is a lookup of 100 known IRIs, not a sort of every record of a 100k-game source."""
    page = max(request.args.get("page", 1, type=int) or 1, 1)
    first = (page - 1) * SOURCE_PAGE + 1
    minter = IriMinter(current_app.config["BASE_IRI"])
    name = minter.source_of(source_iri)
    if name is None or minter.source(name).value != source_iri:
        raise ServiceError(400, f"not a source IRI: {source_iri!r}")
    records = " ".join(str(minter.source_record(name, n)) for n in range(first, first + SOURCE_PAGE))
    rows = sorted(_rows(SOURCE_GAMES % records), key=lambda r: int(r["number"]))
    lang = current_lang()
    extra = {"lang": lang} if lang != "en" else {}
    # "Next" only when the next page has a game (it used to lead to an empty page after the last one)
    more = bool(rows) and bool(_rows(SOURCE_GAMES % str(minter.source_record(name, first + SOURCE_PAGE))))
    return {
        "games": [{"iri": r["m"], "label": r["label"] or r["m"], "url": _link(r["m"]), "number": r["number"]}
                  for r in rows],
        "page": page,
        "next": url_for("pages.page", iri=source_iri, page=page + 1, **extra) if more else None,
        "previous": url_for("pages.page", iri=source_iri, page=page - 1, **extra) if page > 1 else None,
    }


def _position_hit(row: dict[str, Any]) -> dict[str, Any]:
    iri = row.get("pos")
    return {"iri": iri, "label": row.get("label") or iri, "url": _link(iri), "fen": row["fen"],
            "board": url_for("pages.board_image", fen=row["fen"], size=120)}


def standings(games: list[dict[str, Any]]) -> dict[str, Any]:
    """The event page's standings and crosstable, by the one rule of ``kb.reports.standings``."""
    table = event_standings(games)
    names = table["names"]
    return {
        "standings": [{"iri": p, "name": names[p], "url": _link(p), "points": table["points"].get(p, 0.0),
                       "played": table["played"].get(p, 0), "unfinished": table["unfinished"].get(p, 0)}
                      for p in table["order"]],
        "crosstable": [{"iri": p, "name": names[p], "cells": table["cells"][p]} for p in table["order"]],
    }
