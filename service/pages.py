"""``/page?iri=``: a page for every individual, and the same resource as linked data.

One URL answers HTML to browsers and Turtle, RDF/XML, JSON-LD or N-Triples to whoever asks for
them (``Accept``, ``?format=``); ``/page.json`` is the page's data as plain JSON. Every HTML page
embeds its resource as JSON-LD. When the configured base IRI points at this service
(``http://host/id/``), the IRI's own path (``/id/position/…``) answers the same way, so IRIs
dereference. Positions get the exercise page (``position.html``); players, events and sources get
their listings (``service.listings``) under the generic property table.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

import chess
from flask import Blueprint, Response, current_app, has_request_context, request, url_for
from flask.blueprints import BlueprintSetupState

from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.vocab import CP, DCTERMS_IRI, per_game_property

from . import boards, games, next_exercise
from .claims import claim_view
from .errors import ServiceError
from .game_header import game_header
from .i18n import current_lang, strings, termination_text
from .links import THEME_CLASS_NAMES, link_for, opening_title, prop_label
from .listings import listing_for
from .negotiation import BY_MEDIA_TYPE, HTML, JSON, RDF_FORMATS, URL_SUFFIXES
from .play import ELO_CHOICES
from .render import RESOURCE_FORMATS, media_type, page_route, render
from .resources import PageGraph, Resource, kind_of, load, script_data, valid_iri
from .rows import reader
from .titles import known, titles_of

bp = Blueprint("pages", __name__)
blueprint = bp


# --- what every template gets -----------------------------------------------------------------


@bp.app_context_processor
def _template_helpers() -> dict[str, Any]:
    """Language, strings and link helpers for every template (the base layout uses them too);
    outside a request (a template rendered to a file) the language is English and there is no switch."""
    lang = current_lang() if has_request_context() else "en"
    return {
        "lang": lang,
        "t": strings(lang),
        "link_for": link_for,
        "prop_label": lambda iri: prop_label(iri, lang),
        "value_text": lambda prop_iri, text: localise_value(prop_iri, text, lang),
        "lang_switch": _lang_switch_url(lang) if has_request_context() else None,
    }


def _lang_switch_url(lang: str) -> str:
    """The same page in the other language, built by ``url_for`` from the matched route: never from
    the raw path, which for an unknown URL (``/%5Cevil.example/x``) could name another site. A
    request that matched no route (a 404) switches to the home page."""
    args = request.args.to_dict()
    args["lang"] = "en" if lang == "es" else "es"
    if request.url_rule is None or request.endpoint is None or request.endpoint == "static":
        return url_for("browse.home", lang=args["lang"])
    return url_for(request.endpoint, **{**args, **(request.view_args or {})})


# --- the views ---------------------------------------------------------------------------------


def _iri_arg() -> str:
    iri = (request.args.get("iri") or "").strip()
    if not iri:
        raise ServiceError(400, "give the resource as ?iri=")
    if not valid_iri(iri):
        raise ServiceError(400, f"not an absolute IRI: {iri!r}")
    return iri


def _load(iri: str, lang: str) -> tuple[Resource, PageGraph]:
    found = load(iri, lang)
    if found is None:
        raise ServiceError(404, f"nothing is known about <{iri}> in this knowledge base")
    return found


@page_route(bp, "/page")
def page() -> Response:
    return resource_response(_iri_arg())


def resource_response(iri: str, *, suffix: str | None = None) -> Response:
    """The answer for one resource: HTML page, plain JSON or an RDF serialisation (``service.render``);
    ``suffix`` is a dereferenced IRI's file suffix (``.ttl`` …)."""
    media = media_type(RESOURCE_FORMATS, suffix=suffix)
    lang = current_lang()
    resource, graph = _load(iri, lang)
    if media != HTML:
        return render("resource.html", lambda: page_data(resource, lang), media=media, graph=graph.own)
    data = page_data(resource, lang)
    template = "position.html" if data["kind"] == "position" else "resource.html"
    extra: dict[str, Any] = {
        "solution_json": script_data(data["solution"]) if data["kind"] == "position" else None,
        "viewer_json": None,
        "viewer_page": None,
    }
    if data["kind"] in ("position", "match"):
        extra["play_json"] = script_data(_play_data(lang))
    if data.get("viewer"):
        extra["viewer_page"] = games.for_page(data["viewer"])
        # the board as drawn is in the page; the data carries only the other way round, for "Flip"
        extra["viewer_json"] = script_data({**data["viewer"], "svg_flipped": extra["viewer_page"]["svg_flipped"]})
    # the page's own title and those of what its table of properties links to, in the page's language
    extra["titles"] = titles_of([iri, *(v.iri for values in resource.values.values() for v in values if v.iri)], lang)
    return render(template, data, media=media, graph=graph.own, r=resource, formats=_format_links(iri), **extra)


def _format_links(iri: str) -> list[dict[str, str]]:
    formats = [BY_MEDIA_TYPE[media] for media in RDF_FORMATS]
    links = [
        {"name": f.label, "type": f.media_type, "url": url_for("pages.page", iri=iri, format=f.suffix)} for f in formats
    ]
    links.append({"name": "JSON", "type": JSON, "url": url_for("pages.page_json", iri=iri)})
    return links


def page_data(resource: Resource, lang: str) -> dict[str, Any]:
    """Everything a page shows, as plain data (the ``.json`` twin is exactly this)."""
    kind = kind_of(resource)
    data: dict[str, Any] = {
        **resource.as_dict(),
        "kind": kind or "resource",
        "url": link_for(resource.iri),
        "type_labels": [{"iri": t, "label": prop_label(t, lang), "url": link_for(t)} for t in resource.types],
    }
    if kind == "position":
        data.update(position_data(resource, lang))
    elif kind in ("player", "event", "source", "match"):
        data.update(listing_for(kind, resource, lang))
        if kind == "match":
            data["viewer"] = games.game_view(reader(), resource.iri, lang, link_for)
            data["header"] = game_header(resource, lang)
    return data


# --- the exercise page -------------------------------------------------------------------------

#: Rows of the game table, in the original's order (seed-000 §8.3): (entity, property, string key).
MATCH_ROWS = (
    "date",
    "round",
    "result",
    "opening",
    "variation",
    "subVariation",
    "eco",
    "nic",
    "time",
    "utcTime",
    "utcDate",
    "timeControl",
    "termination",
    "annotator",
    "plyCount",
)
BOARD_ROWS = ("boardNum", "mode")
EVENT_ROWS = ("eventDate", "eventType", "eventCountry", "eventRounds", "eventSponsor", "section", "stage")
PUZZLE_ROWS = ("puzzleId", "puzzleRating", "puzzleRatingDeviation", "popularity", "nbPlays", "openingTag")


def _minter() -> IriMinter:
    """The minter of the served knowledge base's IRIs (it alone reads what an IRI stands for)."""
    return IriMinter(current_app.config["BASE_IRI"])


#: Rows that tell an exercise's answer ("mate in 2": the source's word on how the line ends): on an exercise's
#: page they are folded with the source's claims, shown once asked for, like its themes (issue 34, item 3).
CLUE_ROWS = frozenset({CP.termination.value})

#: Row labels from the interface strings; other rows use the ontology's property label.
ROW_STRINGS = {
    "eventName": "event",
    "site": "site",
    "date": "date",
    "round": "round",
    "hasPlayerWhite": "white",
    "hasPlayerBlack": "black",
    "result": "result",
    "opening": "opening",
    "variation": "variation",
    "eco": "eco",
    "annotator": "annotator",
    "termination": "termination",
    "timeControl": "time_control",
    "hasMatch": "game",
    "puzzleRating": "puzzle_rating",
}


def position_data(resource: Resource, lang: str) -> dict[str, Any]:
    fen = resource.first("fen") or chess.STARTING_FEN
    try:
        board = chess.Board(fen)
    except ValueError:
        raise ServiceError(500, f"the stored FEN of <{resource.iri}> is not valid: {fen!r}") from None
    line = boards.solution_line(fen, resource.first("move"), resource.first("solutionUci"), lang)
    rows: list[dict[str, Any]] = []

    exercise = CP.term("Exercise").value in resource.types

    def row(prop_iri: str, text: str, iri: str | None = None, note: str = "", href: str | None = None) -> None:
        if known(text):
            text = localise_value(prop_iri, text, lang)
            key = (
                ROW_STRINGS.get(CP.name_of(prop_iri) or "")
                if CP.name_of(prop_iri)
                else ("source" if prop_iri == DCTERMS_IRI + "source" else None)
            )
            label = strings(lang)[key] if key else prop_label(prop_iri, lang)
            rows.append(
                {
                    "property": prop_iri,
                    "label": label[:1].upper() + label[1:],  # the ontology's labels are lower case ("ply count")
                    "value": text,
                    "url": link_for(iri) if iri else href,
                    "note": note,
                    "clue": exercise and prop_iri in CLUE_ROWS,
                }
            )

    match = _linked(resource, "hasMatch", lang)
    # the titles of the position, its game and the game's source records, composed from data (service.titles)
    named_here = titles_of([resource.iri, *([match.iri, *match.links(DCTERMS_IRI + "source")] if match else [])], lang)
    event = _linked(resource, "hasEvent", lang) or (_linked(match, "hasEvent", lang) if match else None)
    if event is not None:
        if not _minter().is_placeholder(event.iri):
            row(CP.eventName.value, event.first("eventName") or event.label, event.iri)
        for value in event.get("site"):  # the original's order: Event, Site, Date, Round, White, Black …
            row(CP.site.value, value.text)
    if match is not None:
        for prop in ("date", "round"):
            for value in match.get(prop):
                row(CP.term(prop).value, value.text)
    for prop in ("hasPlayerWhite", "hasPlayerBlack"):
        player = _linked(resource, prop, lang) or (_linked(match, prop, lang) if match else None)
        if player is None or _minter().is_placeholder(player.iri):
            continue
        colour = "white" if prop == "hasPlayerWhite" else "black"
        game = match or resource  # ratings and titles as this game's tags give them (issue 17)
        notes = (
            [v.text for v in game.get(per_game_property(colour, "title")) if known(v.text)]
            + [
                f"{label} {v.text}"
                for tag, label in (("elo", "Elo"), ("uscf", "USCF"), ("na", "NA"))
                for v in game.get(per_game_property(colour, tag))
                if known(v.text)
            ]
            + [v.text for v in player.get("typePlayer") if known(v.text)]
        )
        row(CP.term(prop).value, player.label, player.iri, ", ".join(notes))
    if match is not None:
        for prop in MATCH_ROWS[2:]:
            for value in match.get(prop):
                row(CP.term(prop).value, value.text, note=_as_written_note(CP.term(prop).value, value.text, lang))
        for value in match.get("gameUrl"):
            row(
                CP.gameUrl.value,
                value.text,
                href=value.text if value.text.startswith(("https://", "http://")) else None,
            )
        for link in match.links(DCTERMS_IRI + "source"):
            row(DCTERMS_IRI + "source", named_here.get(link, match.labels.get(link, link)), link)
        row(CP.hasMatch.value, named_here.get(match.iri, match.label), match.iri)
    board_resource = _linked(resource, "hasBoard", lang)
    if board_resource is not None:
        for prop in BOARD_ROWS:
            for value in board_resource.get(prop):
                row(CP.term(prop).value, value.text)
    if event is not None:
        for prop in EVENT_ROWS:
            for value in event.get(prop):
                row(CP.term(prop).value, value.text)
    for prop in PUZZLE_ROWS:
        for value in resource.get(prop):
            row(CP.term(prop).value, value.text)
    classes = [
        {"name": CP.name_of(t), "iri": t, "label": prop_label(t, lang), "url": link_for(t)}
        for t in resource.types
        if CP.name_of(t) in THEME_CLASS_NAMES and CP.name_of(t) != "Position"
    ]
    lead_in = _lead_in(resource, match, fen, lang)
    opening = browse_opening(match) if match is not None and fen.split(" ")[0] == chess.STARTING_BOARD_FEN else ""
    return {
        "title": opening or named_here.get(resource.iri, resource.label),
        "fen": fen,
        "context": next_exercise.resolve(resource.iri),
        "legend": boards.legend(fen).as_dict(),
        "board_svg": boards.board_svg(board),
        "game": rows,
        "classes": classes,
        "solution": {
            **line.as_dict(),
            "iri": resource.iri,
            "strings": _solve_strings(lang),
            "opening": _is_opening_line(fen, resource),
            "last_move": lead_in["uci"] if lead_in else None,
            "lead_in": lead_in,
            **_rating_of(resource),
            **_mate_to_keep(resource),
        },
        "solution_text": boards.line_text(line),
        "movetext": resource.first("move") or "",
        "claims": [claim_view(value.text, lang) for value in resource.get("claimStatus")],
    }


def _mate_to_keep(resource: Resource) -> dict[str, Any]:
    """For a proven mate: its exact length and where the trainer asks about a move off the stored line
    (``service.judge``: any move that keeps the mate is right)."""
    mate_in = resource.first("mateIn")
    if mate_in is None or not mate_in.isdigit():
        return {}
    return {"mate_in": int(mate_in), "judge": url_for("judge.judge")}


def browse_opening(match: Resource) -> str:
    """The opening a game's tags name (``C84 Ruy Lopez, Apertura Española``), or ''."""
    return opening_title(match.first("eco"), match.first("opening"), match.first("variation"))


def localise_value(prop_iri: str, text: str, lang: str) -> str:
    """A value in the page's language where data says what it means: a Termination value the PGN standard
    defines (``i18n.termination_text``; any other is the source's words, shown as written); a lichess
    opening tag as words (``Slav_Defense_Diemer_Gambit`` -> ``Slav Defense Diemer Gambit``) in any language."""
    if prop_iri == CP.openingTag.value:
        return text.replace("_", " ")
    if prop_iri == CP.termination.value:
        return termination_text(text, lang) or text
    return text


def _as_written_note(prop_iri: str, text: str, lang: str) -> str:
    """The note on a Termination value no table puts in the page's words: it is the source's own."""
    if prop_iri == CP.termination.value and termination_text(text, lang) is None:
        return strings(lang)["as_written"]
    return ""


def _lead_in(resource: Resource, match: Resource | None, fen: str, lang: str) -> dict[str, str] | None:
    """The opponent's move that leads to the exercise, which the trainer plays before the learner
    moves (as lichess does): a lichess puzzle's first CSV move (``cp:precedingMove`` from
    ``cp:precedingFen``), else the game's move into a position taken from a game; None when neither."""
    before, uci = resource.first("precedingFen"), resource.first("precedingMove")
    if not (before and uci) and match is not None and resource.first("plyInGame") not in (None, "0"):
        before, uci = games.move_into(reader(), match.iri, fen) or (None, None)
    if not (before and uci):
        return None
    return boards.lead_in(before, uci, fen, lang)


def _rating_of(resource: Resource) -> dict[str, int | None]:
    """What the learner's rating (rating.js) is played against: the exercise's difficulty (lichess
    scale) and the source's rating deviation where it gives one."""

    def whole(prop: str) -> int | None:
        value = resource.first(prop)
        try:
            return int(value) if value is not None else None
        except ValueError:
            return None

    return {"difficulty": whole("difficulty"), "deviation": whole("puzzleRatingDeviation")}


def _solve_strings(lang: str) -> dict[str, str]:
    s = strings(lang)
    keys = (
        "wrong",
        "correct",
        "solved",
        "your_turn",
        "attempts",
        "solved_count",
        "restart",
        "white",
        "black",
        "to_move",
        "left_book",
        "illegal",
        "ambiguous",
        "hint_piece",
        "hint_square",
        "showing",
        "solution_shown",
        "piece_pawn",
        "piece_knight",
        "piece_bishop",
        "piece_rook",
        "piece_queen",
        "piece_king",
        "next_exercise",
        "back_to_list",
        "solved_with_help",
        "lead_in",
        "undecided",
        *PLAY_STRINGS,
    )
    return {key: s[key] for key in keys}


def _play_data(lang: str) -> dict[str, Any]:
    """What play.js needs: where to ask, the strengths offered, the default, its strings."""
    s = strings(lang)
    return {
        "url": url_for("play.play"),
        "choices": list(ELO_CHOICES),
        "default": int(current_app.config["PLAY_ELO"]),
        "strings": {key: s[key] for key in PLAY_STRINGS},
    }


#: Strings the "Play on" panel (play.js) needs, sent in the page's data.
PLAY_STRINGS = (
    "play_on",
    "strength",
    "play_start",
    "engine_thinking",
    "engine_played",
    "download_pgn",
    "stop_playing",
    "game_over",
    "engine_elo",
    "engine_failed",
    "illegal",
    "ambiguous",
    "white",
    "black",
    "type_move",
    "play",
    "over_checkmate_won",
    "over_checkmate_lost",
    "over_stalemate",
    "over_insufficient_material",
    "over_seventyfive_moves",
    "over_fivefold_repetition",
    "over_fifty_moves",
    "over_threefold_repetition",
)


def _is_opening_line(fen: str, resource: Resource) -> bool:
    """An opening line to practise (seed 001's opening chapters): a game from the initial position
    whose source names its opening. The learner who leaves it is told the book move and why."""
    if fen.split(" ")[0] != chess.STARTING_BOARD_FEN:
        return False
    match = _linked(resource, "hasMatch", "en")
    return match is not None and bool(match.first("opening") or match.first("eco"))


def _linked(resource: Resource | None, prop: str, lang: str) -> Resource | None:
    return resource.first_linked(prop, lang) if resource is not None else None


# --- boards as images (small boards in listings) ---------------------------------------------


@bp.route("/board.svg")
def board_image() -> Response:
    fen = request.args.get("fen", "")
    try:
        board = chess.Board(fen)
    except ValueError as exc:
        raise ServiceError(400, f"invalid FEN {fen!r}: {exc}") from None
    size = min(max(request.args.get("size", 200, type=int) or 200, 64), 800)
    svg = boards.board_svg(board, size=size, coordinates=request.args.get("coordinates") == "1")
    response = Response(svg, mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response


# --- IRIs that dereference here ----------------------------------------------------------------


@bp.record_once
def _route_base_iri(state: BlueprintSetupState) -> None:
    """Serve ``<base path>/<rest>`` when the base IRI has a path (``http://host/id/`` -> ``/id/…``);
    each request checks that the base IRI's host is this service's."""
    base = state.app.config.get("BASE_IRI") or ""
    path = urlsplit(base).path
    if not path or path == "/" or not path.endswith("/"):
        return
    state.app.add_url_rule(path + "<path:rest>", "pages.by_iri", by_iri)


def by_iri(rest: str) -> Response:
    base = current_app.config["BASE_IRI"]
    if urlsplit(base).netloc.lower() != request.host.lower():
        raise ServiceError(404, f"{request.path} is not served here (the base IRI is {base})")
    suffix = None
    for ext in URL_SUFFIXES:
        if rest.endswith(ext):
            rest, suffix = rest[: -len(ext)], ext
            break
    iri = base + quote(rest, safe="/-._~")  # the minter's quoting (kb.mapping.iris); Flask gave it decoded
    return resource_response(iri, suffix=suffix)


__all__ = ["bp", "link_for", "page_data", "prop_label"]
