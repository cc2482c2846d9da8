"""The ChessPosition vocabulary as Python objects.

Every IRI of the ontology is reached through the ``CP`` namespace object (``CP.Position``,
``CP.hasMatch``); a misspelt term raises instead of silently minting a new IRI. The term lists
here are the contract between the code and the authored ontology file
(``ontology/chessposition.ttl``): a test checks that both declare exactly the same terms.
"""

from __future__ import annotations

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Triple

CP_IRI = "http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#"
ONTOLOGY_IRI = "http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl"
ONTOLOGY_VERSION_IRI = "http://www.semanticweb.org/ontologies/2011/3/ChessPosition/2.0.0.owl"

RDF_IRI = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS_IRI = "http://www.w3.org/2000/01/rdf-schema#"
OWL_IRI = "http://www.w3.org/2002/07/owl#"
XSD_IRI = "http://www.w3.org/2001/XMLSchema#"
SKOS_IRI = "http://www.w3.org/2004/02/skos/core#"
DCTERMS_IRI = "http://purl.org/dc/terms/"
PROV_IRI = "http://www.w3.org/ns/prov#"

#: The 41 classes of version 1, same spelling (seed-000 §5.2).
ORIGINAL_CLASSES: tuple[str, ...] = (
    "Event",
    "Player",
    "Board",
    "Match",
    "Position",
    "PositionBegin",
    "OpeningError",
    "Trap",
    "PositionMiddle",
    "AttackCastledKing",
    "AttackKingCenter",
    "Attraction",
    "Combination",
    "ContinuousCheck",
    "Deflection",
    "DiscoveredAttack",
    "DiscoveredCheck",
    "DoubleAttack",
    "DoubleCheck",
    "Drowned",
    "EliminateDefense",
    "Freeing",
    "Interception",
    "Lock",
    "Overload",
    "Pinning",
    "Promotion",
    "Skewer",
    "WeakLine",
    "Xray",
    "Zwischenzug",
    "PositionEnd",
    "MateInOne",
    "MateInTwo",
    "MateInThree",
    "OtherMate",
    "PawnEndgame",
    "RookEndgame",
    "MinorPieceEndgame",
    "QueenEndgame",
    "OtherEndgame",
)

#: Theme classes added in version 2, with the parent each one sits under. The three theme groups
#: hold the didactic tree the original hung under its phase classes; since version 2.1 the phase
#: classes (PositionBegin/Middle/End) say the position's one game phase, so a mate in two in the
#: middlegame is a MateInTwo (an EndgameTheme) and a PositionMiddle, without contradiction.
ADDED_THEME_CLASSES: dict[str, str] = {
    "OpeningTheme": "Position",
    "MiddlegameTheme": "Position",
    "EndgameTheme": "Position",
    "MateInFour": "EndgameTheme",
    "MateInFive": "EndgameTheme",
    "BackRankMate": "EndgameTheme",
    "SmotheredMate": "EndgameTheme",
    "AnastasiaMate": "EndgameTheme",
    "ArabianMate": "EndgameTheme",
    "HookMate": "EndgameTheme",
    "BodenMate": "EndgameTheme",
    "DoubleBishopMate": "EndgameTheme",
    "DovetailMate": "EndgameTheme",
    "SwallowstailMate": "EndgameTheme",
    "EpauletteMate": "EndgameTheme",
    "OperaMate": "EndgameTheme",
    "PillsburysMate": "EndgameTheme",
    "MorphysMate": "EndgameTheme",
    "CornerMate": "EndgameTheme",
    "KillBoxMate": "EndgameTheme",
    "TriangleMate": "EndgameTheme",
    "VukovicMate": "EndgameTheme",
    "BalestraMate": "EndgameTheme",
    "BlindSwineMate": "EndgameTheme",
    "HangingPiece": "MiddlegameTheme",
    "TrappedPiece": "MiddlegameTheme",
    "Sacrifice": "MiddlegameTheme",
    "Underpromotion": "Promotion",
    "QuietMove": "MiddlegameTheme",
    "DefensiveMove": "MiddlegameTheme",
    "EnPassant": "MiddlegameTheme",
    "CastlingMove": "MiddlegameTheme",
    "Clearance": "MiddlegameTheme",
    "Zugzwang": "MiddlegameTheme",
    "CollinearMove": "MiddlegameTheme",
    "AdvancedPawn": "MiddlegameTheme",
    "ExposedKing": "MiddlegameTheme",
    "AttackingF2F7": "MiddlegameTheme",
    "QueensideAttack": "MiddlegameTheme",
}

#: Non-theme classes added in version 2 (provenance of what was imported).
ADDED_OTHER_CLASSES: tuple[str, ...] = ("Source", "SourceRecord", "Course", "Chapter", "ChapterItem")

#: Position classes added in version 2 that are not themes, with their parent: ``Exercise`` is a
#: position set as a task to solve (``kb.analysis.exercises`` says which records are), as opposed to the
#: start position of an ordinary game.
ADDED_POSITION_CLASSES: dict[str, str] = {"Exercise": "Position"}

#: The five object properties of version 1 (functional).
ORIGINAL_OBJECT_PROPERTIES: tuple[str, ...] = (
    "hasMatch",
    "hasBoard",
    "hasPlayerWhite",
    "hasPlayerBlack",
    "hasEvent",
)

#: The 36 data properties of version 1, same spelling (seed-000 §5.4).
ORIGINAL_DATA_PROPERTIES: tuple[str, ...] = (
    # Event
    "eventName",
    "site",
    "eventDate",
    "eventType",
    "eventCountry",
    "eventRounds",
    "eventSponsor",
    "section",
    "stage",
    # Player
    "name",
    "title",
    "elo",
    "uscf",
    "na",
    "typePlayer",
    # Board
    "boardNum",
    "mode",
    # Match
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
    "setup",
    "termination",
    "annotator",
    "plyCount",
    # Position
    "fen",
    "move",
    "typePosition",
)

#: Object properties added in version 2: inverses of the original five (so games can be walked
#: from players and events) and provenance links.
ADDED_OBJECT_PROPERTIES: tuple[str, ...] = (
    "hasPosition",  # Match -> Position, inverse of hasMatch
    "whitePlayerOf",  # Player -> Match|Position, inverse of hasPlayerWhite
    "blackPlayerOf",  # Player -> Match|Position, inverse of hasPlayerBlack
    "eventOf",  # Event -> Match|Position, inverse of hasEvent
    "boardOf",  # Board -> Match|Position, inverse of hasBoard
    "inSource",  # SourceRecord -> Source
    "candidateSameAs",  # Player <-> Player: maybe the same person (kb.merge.linking)
    "hasChapter",  # Course -> Chapter
    "hasItem",  # Chapter -> ChapterItem
    "exercise",  # ChapterItem -> Position
)

#: The links whose inverse the mapping states, in the source's *inferred* graph only (``kb.mapping.game``):
#: what a reader of one source needs to put a common statement back in the graph it came from
#: (``queries.source_statements``).
INVERSE_PROPERTIES: dict[str, str] = {
    "hasMatch": "hasPosition",
    "hasPlayerWhite": "whitePlayerOf",
    "hasPlayerBlack": "blackPlayerOf",
    "hasEvent": "eventOf",
    "hasBoard": "boardOf",
}

#: Player tags that describe the player *in one game* (a rating, a title at the time): stated on
#: the Match as ``cp:whiteElo``, ``cp:blackTitle`` …, never on the Player individual, which stands
#: for the person across games. ``fideId``, ``na`` and ``typePlayer`` are also kept on the Player.
PER_GAME_PLAYER_TAGS: tuple[str, ...] = ("elo", "title", "uscf", "fideId", "na", "typePlayer")
#: The player properties the Player individual keeps (they identify the person).
PLAYER_IDENTITY_PROPERTIES: frozenset[str] = frozenset({"name", "fideId", "na", "typePlayer"})


def per_game_property(colour: str, prop: str) -> str:
    """``("white", "elo")`` -> ``whiteElo``: the Match property for one colour's per-game value."""
    return colour + prop[0].upper() + prop[1:]


PER_GAME_PLAYER_PROPERTIES: tuple[str, ...] = tuple(
    per_game_property(colour, prop) for colour in ("white", "black") for prop in PER_GAME_PLAYER_TAGS
)

#: Data properties added in version 2 (typed, queryable values and computed position facts).
ADDED_DATA_PROPERTIES: tuple[str, ...] = (
    # Event
    "eventYear",
    "eventStartDate",
    "countryCode",
    # Player
    "fideId",
    "nameKey",
    # Match
    "year",
    "gameDate",
    "utcDateTime",
    "startTime",
    "baseTimeSeconds",
    "incrementSeconds",
    "fullMoveCount",
    "roundNumber",
    "pgnTag",
    "gameKey",
    "variant",
    "gameUrl",
    "movesKey",
    "annotatorKey",
    # Match: the players as the game's tags describe them in that game (issue 17)
    *PER_GAME_PLAYER_PROPERTIES,
    # Position: board facts
    "sideToMove",
    "whiteCastleKingside",
    "whiteCastleQueenside",
    "blackCastleKingside",
    "blackCastleQueenside",
    "enPassantSquare",
    "halfMoveClock",
    "fullMoveNumber",
    "whiteMaterial",
    "blackMaterial",
    "materialBalance",
    "pieceCount",
    "materialSignature",
    "whitePieces",
    "blackPieces",
    "positionKey",
    "boardSquares",
    "pieceOn",
    "pieceIn",
    "gamePhase",
    "plyInGame",
    # Position: solution
    "solutionSan",
    "solutionUci",
    "solutionLegal",
    "solutionEnd",
    "solverMoves",
    "mateIn",
    "mateWithin",
    "mateFirstMoves",
    "solutionTree",
    "mateVerification",
    "goal",
    "difficulty",
    "claimStatus",
    # Position: lichess puzzle fields
    "puzzleId",
    "puzzleRating",
    "puzzleRatingDeviation",
    "popularity",
    "nbPlays",
    "openingTag",
    "sourceThemeLabel",
    # Position: the opponent's move that leads to the exercise (lichess Moves[0])
    "precedingMove",
    "precedingFen",
    # Source and SourceRecord (provenance)
    "sourceName",
    "sourceFile",
    "gameNumber",
    "lineNumber",
    "checksum",
    "importedWith",
    "importedAt",
    "gameCount",
    "positionCount",
    "playerCount",
    # Courses (kb.courses.course_file)
    "chapterOrder",
    "itemOrder",
    "level",
    "passPercent",
    "selection",
    "resolvedFrom",
)

#: Annotation properties added in version 2. The theme-origin ones point from a position to a
#: theme class, saying who asserted the class (the detectors, the source's own label, the user's
#: --theme); ``lichessTheme`` maps a class to the lichess puzzle theme key(s) it matches;
#: ``memberCount`` is a class's number of individuals, recounted after every write (``queries.class_counts``).
ADDED_ANNOTATION_PROPERTIES: tuple[str, ...] = (
    "themeDetected",
    "themeFromSource",
    "themeFromUser",
    "lichessTheme",
    "memberCount",
    "eventTagAsWritten",  # Match -> '[Site "New York USA 01"]': the event's tags as the game's record wrote them
    "sourcesDisagreeOn",  # individual -> property whose values from several records conflict (kb.merge.conflicts)
)

THEME_ROOT = "Position"
PHASE_CLASSES = ("PositionBegin", "PositionMiddle", "PositionEnd")

ALL_CLASSES: frozenset[str] = frozenset(
    ORIGINAL_CLASSES + tuple(ADDED_THEME_CLASSES) + ADDED_OTHER_CLASSES + tuple(ADDED_POSITION_CLASSES)
)
ALL_PROPERTIES: frozenset[str] = frozenset(
    ORIGINAL_OBJECT_PROPERTIES
    + ORIGINAL_DATA_PROPERTIES
    + ADDED_OBJECT_PROPERTIES
    + ADDED_DATA_PROPERTIES
    + ADDED_ANNOTATION_PROPERTIES
)
ALL_TERMS: frozenset[str] = ALL_CLASSES | ALL_PROPERTIES


def text_of(term: NamedNode | BlankNode | Literal | Triple | DefaultGraph) -> str:
    """The IRI, blank-node label or lexical form of ``term`` (its ``value``).

    pyoxigraph types a statement's subject and object as possibly an RDF-star triple term, and a quad's graph as
    possibly the default graph: neither has such a text. The knowledge base writes neither where this reads a
    term, so meeting one is a bug, named here rather than met as an ``AttributeError`` further on.

    >>> text_of(CP.Trap) == CP_IRI + "Trap", text_of(Literal("e4"))
    (True, 'e4')
    """
    if isinstance(term, (NamedNode, BlankNode, Literal)):
        return term.value
    raise TypeError(f"expected an IRI, a blank node or a literal, got {term!r}")


class Namespace:
    """IRIs under one prefix as attributes: ``CP.Position`` -> ``NamedNode(<...#Position>)``.

    With ``terms`` given, only those names resolve; anything else is a programming error and
    raises ``AttributeError`` at once rather than writing a wrong IRI into the store.
    """

    def __init__(self, base: str, terms: frozenset[str] | None = None) -> None:
        self._base = base
        self._terms = terms
        self._cache: dict[str, NamedNode] = {}

    @property
    def base(self) -> str:
        return self._base

    def __getattr__(self, name: str) -> NamedNode:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.term(name)

    def term(self, name: str) -> NamedNode:
        node = self._cache.get(name)
        if node is None:
            if self._terms is not None and name not in self._terms:
                raise AttributeError(f"{name!r} is not a term of {self._base}")
            node = NamedNode(self._base + name)
            self._cache[name] = node
        return node

    def name_of(self, iri: NamedNode | str) -> str | None:
        """The term an IRI names under this prefix (``CP.name_of(CP.Trap)`` -> ``"Trap"``); ``None`` for an
        IRI under another prefix, or for a name that is not one of the terms: the inverse of ``term``."""
        value = iri.value if isinstance(iri, NamedNode) else str(iri)
        if not value.startswith(self._base):
            return None
        name = value[len(self._base) :]
        return name if name and name in self else None

    def __contains__(self, name: str) -> bool:
        return self._terms is None or name in self._terms


CP = Namespace(CP_IRI, ALL_TERMS)
RDF = Namespace(RDF_IRI)
RDFS = Namespace(RDFS_IRI)
OWL = Namespace(OWL_IRI)
XSD = Namespace(XSD_IRI)
SKOS = Namespace(SKOS_IRI)
DCTERMS = Namespace(DCTERMS_IRI)
PROV = Namespace(PROV_IRI)

#: Prefixes offered to every SPARQL query and used by serialisers.
PREFIXES: dict[str, str] = {
    "cp": CP_IRI,
    "rdf": RDF_IRI,
    "rdfs": RDFS_IRI,
    "owl": OWL_IRI,
    "xsd": XSD_IRI,
    "skos": SKOS_IRI,
    "dcterms": DCTERMS_IRI,
    "prov": PROV_IRI,
}
