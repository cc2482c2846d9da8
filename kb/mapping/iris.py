"""Minting IRIs for individuals: deterministic, collision-free, readable where possible.

Version 1 named individuals ``Event1``, ``Board1`` … in every file, so files could not be merged.
Here every IRI is derived from what identifies the thing, never from its place in a file:

* a game (``match/…``) from its identity key (``kb.mapping.identity``: start position and moves plus the
  players, year and round; for a game with few or no moves the whole roster);
* a position (``position/…``) from its game and ply, or from the lichess puzzle id;
* a player from the order-free name key (one individual per name across sources);
* an event from its name and year (not its site: "New York USA 01" … "06" are one match);
* a board from its game; a source from its name.

The base is configurable (``--base-iri`` / ``CHESSKB_BASE_IRI``); importing the same game twice,
from one file or two, yields the same IRIs.
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import quote, unquote, urlsplit

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from chesskb.kb.defaults import default_base_iri
from chesskb.kb.reading.names import fold, name_key, slug

#: The last segment of a stand-in for a missing player or event (``unknown_player``/``unknown_event``):
#: ``unknown-`` and a game key (16 hex digits, ``kb.mapping.identity``), and the colour for a player. A
#: real name always ends in its own 6-digit digest, so a player called "Unknown White" is not one.
_PLACEHOLDER = {
    "player": re.compile(r"unknown-[0-9a-f]{16}-(?:white|black)"),
    "event": re.compile(r"unknown-[0-9a-f]{16}"),
}


def digest(*parts: str, length: int = 16) -> str:
    """Short stable hash of the parts (sha256, hex)."""
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part.encode("utf-8"))
        hasher.update(b"\x1f")
    return hasher.hexdigest()[:length]


#: A segment ``quote`` leaves as it is (ASCII letters, digits and ``-._~``): most are (kinds, game keys),
#: and testing is cheaper than quoting.
_UNRESERVED = re.compile(r"[A-Za-z0-9._~-]*")

#: The first segment of every IRI the minter makes: what kind of thing it names.
_KINDS = frozenset(("match", "position", "player", "event", "board", "source", "graph", "course"))

#: What the IRI readers of ``IriMinter`` take: an IRI as a term or as text. Any other term a statement can hold (a
#: blank node, a literal, an RDF-star triple) is read as its N-Triples text, which no IRI under the base starts with,
#: so they answer ``None`` (or ``False``) for it.
IriOrTerm = NamedNode | BlankNode | Literal | Triple | str


class IriMinter:
    """All individual IRIs under one base. The only place IRIs of individuals are built and read
    back: code elsewhere asks ``source_of``, ``record_number``, ``is_placeholder`` … instead of
    testing the IRI's text, so the layout below can change in this one file.

    Layout (each segment percent-encoded): ``match/K``, ``position/K-PLY``, ``player/…``,
    ``event/…``, ``board/K``, ``source/NAME``, ``source/NAME/game/N``, ``graph/NAME``,
    ``graph/NAME/inferred``, ``graph/_links|_counts|_meta``, ``course/ID[/chapter/N[/item/M]]``,
    ``graph/course-ID``.
    """

    def __init__(self, base: str | None = None) -> None:
        base = base or default_base_iri()
        self.base = base if base.endswith(("/", "#")) else base + "/"

    def _iri(self, *segments: str) -> NamedNode:
        return NamedNode(
            self.base
            + "/".join(
                segment if _UNRESERVED.fullmatch(segment) else quote(segment, safe="-._~") for segment in segments
            )
        )

    def match(self, game_key: str) -> NamedNode:
        return self._iri("match", game_key)

    def lichess_match(self, game_url: str) -> NamedNode:
        return self._iri("match", "lichess-" + lichess_game_id(game_url))

    def position(self, game_key: str, ply: int) -> NamedNode:
        return self._iri("position", f"{game_key}-{ply}")

    def lichess_position(self, puzzle_id: str) -> NamedNode:
        return self._iri("position", "lichess-" + puzzle_id)

    def player(self, name: str, fide_id: str | None = None) -> NamedNode:
        """A player by FIDE ID when the source gives one (two people with one name stay two), else
        by the order-free name key (the same name written two ways meets)."""
        if fide_id:
            return self._iri("player", "fide-" + fide_id)
        key = name_key(name)
        return self._iri("player", slug(key.replace(" ", "-")) + "-" + digest(key, length=6))

    def unknown_player(self, game_key: str, colour: str) -> NamedNode:
        return self._iri("player", f"unknown-{game_key}-{colour}")

    def event(self, name: str, year: int | None) -> NamedNode:
        """An event by its name (folded: case, accents and punctuation ignored, but not the order of the
        words: two study chapters "Mate in two: Rook" and "Rook: Mate in two" are two events) and year;
        the Site is a value of the event, not part of its identity (sites differ by game number or
        spelling within one event)."""
        key = "|".join((fold(name), str(year or "")))
        return self._iri("event", slug(name) + "-" + digest(key, length=6))

    def unknown_event(self, game_key: str) -> NamedNode:
        return self._iri("event", f"unknown-{game_key}")

    def board(self, game_key: str) -> NamedNode:
        return self._iri("board", game_key)

    def source(self, name: str) -> NamedNode:
        return self._iri("source", name)

    def source_graph(self, name: str) -> NamedNode:
        """The named graph holding everything a source asserts."""
        return self._iri("graph", name)

    def inferred_graph(self, name: str) -> NamedNode:
        """The named graph holding what was inferred from a source (superclass types, inverses)."""
        return self._iri("graph", name, "inferred")

    def source_record(self, source: str, game_number: int) -> NamedNode:
        """Game ``game_number`` of ``source``, in decimal without leading zeros: the query that finds a
        source's last record (``queries/internal/last-source-record.rq``) relies on it."""
        return self._iri("source", source, "game", str(game_number))

    def course(self, course_id: str) -> NamedNode:
        return self._iri("course", course_id)

    def chapter(self, course_id: str, number: int) -> NamedNode:
        return self._iri("course", course_id, "chapter", str(number))

    def chapter_item(self, course_id: str, number: int, place: int) -> NamedNode:
        return self._iri("course", course_id, "chapter", str(number), "item", str(place))

    def course_graph(self, course_id: str) -> NamedNode:
        """The named graph holding a course (replaced as a whole when the course is imported again)."""
        return self._iri("graph", f"course-{course_id}")

    @property
    def links_graph(self) -> NamedNode:
        """The named graph of links between individuals of different sources (``kb.merge.linking``)."""
        return self._iri("graph", "_links")

    @property
    def counts_graph(self) -> NamedNode:
        """The named graph of class member counts, recounted after every write (``queries.class_counts``)."""
        return self._iri("graph", "_counts")

    @property
    def meta_graph(self) -> NamedNode:
        """The named graph describing the sources themselves (counts, checksum, import time)."""
        return self._iri("graph", "_meta")

    # --- reading IRIs back ---------------------------------------------------------------------

    def _segments(self, iri: IriOrTerm) -> list[str] | None:
        """The decoded path segments of an IRI under this base, ``None`` for any other IRI."""
        value = iri.value if isinstance(iri, NamedNode) else str(iri)
        if not value.startswith(self.base):
            return None
        return [unquote(segment) for segment in value[len(self.base) :].split("/")]

    def kind_of(self, iri: IriOrTerm) -> str | None:
        """What an individual's IRI names: ``match``, ``position``, ``player``, ``event``, ``board``,
        ``source``, ``graph`` or ``course``; ``None`` for an IRI under another base."""
        value = iri.value if isinstance(iri, NamedNode) else str(iri)
        if not value.startswith(self.base):
            return None
        kind = value[len(self.base) :].split("/", 1)[0]
        return kind if kind in _KINDS else None

    def course_id(self, iri: IriOrTerm) -> str | None:
        """The id of a course's IRI (``course``), ``None`` for any other IRI (its chapters included)."""
        segments = self._segments(iri)
        return (
            segments[1]
            if segments is not None and len(segments) == 2 and segments[0] == "course" and segments[1]
            else None
        )

    def is_placeholder(self, iri: IriOrTerm) -> bool:
        """Is this the stand-in for a player or event the game's tags do not name (``unknown_player``,
        ``unknown_event``)? Such an individual is no person or event: pages leave it out, counts skip it."""
        segments = self._segments(iri)
        return (
            segments is not None
            and len(segments) == 2
            and segments[0] in _PLACEHOLDER
            and _PLACEHOLDER[segments[0]].fullmatch(segments[1]) is not None
        )

    def source_of(self, iri: IriOrTerm) -> str | None:
        """The source name of a source's graph, its inferred graph, its ``source`` IRI or one of its
        records; ``None`` for the bookkeeping graphs (links, counts, meta) and every other IRI.
        A course's graph (``graph/course-ID``) reads as the graph of a source named ``course-ID``:
        the layout cannot tell them apart, and a course graph holds no games."""
        segments = self._segments(iri)
        if (
            segments is None
            or len(segments) < 2
            or segments[0] not in ("graph", "source")
            or segments[1].startswith("_")
            or not segments[1]
        ):
            return None
        rest = segments[2:]
        if segments[0] == "graph":
            return segments[1] if rest in ([], ["inferred"]) else None
        record = len(rest) == 2 and rest[0] == "game" and rest[1].isascii() and rest[1].isdigit()
        return segments[1] if rest == [] or record else None

    def is_source_graph(self, iri: IriOrTerm) -> bool:
        """Is this the graph of what a source asserts (not its inferred graph, not a bookkeeping graph)?"""
        segments = self._segments(iri)
        return (
            segments is not None and len(segments) == 2 and segments[0] == "graph" and self.source_of(iri) is not None
        )

    def is_inferred_graph(self, iri: IriOrTerm) -> bool:
        """Is this the graph of what was inferred from a source (``inferred_graph``)?"""
        segments = self._segments(iri)
        return (
            segments is not None and len(segments) == 3 and segments[0] == "graph" and self.source_of(iri) is not None
        )

    def record_number(self, iri: IriOrTerm) -> tuple[str, int] | None:
        """``(source name, game number)`` of a source record (``source_record``), else ``None``."""
        segments = self._segments(iri)
        if segments is None or len(segments) != 4 or segments[0] != "source" or self.source_of(iri) is None:
            return None
        return segments[1], int(segments[3])


def lichess_game_id(game_url: str) -> str:
    """``https://lichess.org/seIMDWkD/black#44`` -> ``seIMDWkD`` (the first path segment)."""
    path = urlsplit(game_url).path.strip("/")
    return path.split("/")[0] if path else digest(game_url)
