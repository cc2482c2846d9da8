"""The authored ontology keeps the kb.vocab contract, loads everywhere and reasons cleanly."""

from __future__ import annotations

import pytest
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.compare import isomorphic
from rdflib.namespace import DCTERMS, OWL, RDF, RDFS, SKOS, Namespace

from chesskb import ontology
from chesskb.kb import vocab
from chesskb.kb.analysis import themes
from chesskb.ontology import build

CP = vocab.CP_IRI
ONTOLOGY = URIRef(vocab.ONTOLOGY_IRI)
XSD = Namespace(vocab.XSD_IRI)


def cp(name: str) -> URIRef:
    return URIRef(CP + name)


def local(iri: URIRef) -> str:
    assert iri.startswith(CP), iri
    return iri[len(CP) :]


@pytest.fixture(scope="module")
def g() -> Graph:
    graph = Graph()
    graph.parse(data=ontology.turtle_text(), format="turtle")
    return graph


def declared(g: Graph, kind: URIRef) -> set[str]:
    return {local(s) for s in g.subjects(RDF.type, kind) if isinstance(s, URIRef) and s.startswith(CP)}


def functional(g: Graph) -> set[str]:
    return declared(g, OWL.FunctionalProperty)


ALL_DATA = vocab.ORIGINAL_DATA_PROPERTIES + vocab.ADDED_DATA_PROPERTIES
ALL_OBJECT = vocab.ORIGINAL_OBJECT_PROPERTIES + vocab.ADDED_OBJECT_PROPERTIES


# --- Identity ---------------------------------------------------------------------------------


def test_ontology_header(g: Graph) -> None:
    assert (ONTOLOGY, RDF.type, OWL.Ontology) in g
    assert set(g.objects(ONTOLOGY, OWL.versionIRI)) == {URIRef(vocab.ONTOLOGY_VERSION_IRI)}
    assert set(g.objects(ONTOLOGY, OWL.versionInfo)) == {Literal("2.0.0")}
    assert set(g.objects(ONTOLOGY, OWL.priorVersion)) == {ONTOLOGY}
    creators = {str(c) for c in g.objects(ONTOLOGY, DCTERMS.creator)}
    assert creators == {"José Luis Herreros Lucas (2011 original)", "ChessPosition KB contributors"}
    assert list(g.objects(ONTOLOGY, DCTERMS.title)) and list(g.objects(ONTOLOGY, DCTERMS.description))
    assert list(g.objects(ONTOLOGY, RDFS.comment))


# --- The vocabulary contract --------------------------------------------------------------------


def test_classes_are_exactly_the_vocab_classes(g: Graph) -> None:
    assert declared(g, OWL.Class) == set(vocab.ALL_CLASSES)


def test_properties_are_exactly_the_vocab_properties_by_kind(g: Graph) -> None:
    assert declared(g, OWL.ObjectProperty) == set(ALL_OBJECT)
    assert declared(g, OWL.DatatypeProperty) == set(ALL_DATA)
    assert declared(g, OWL.AnnotationProperty) == set(vocab.ADDED_ANNOTATION_PROPERTIES)


def test_no_other_cp_terms_are_used(g: Graph) -> None:
    used = {t for triple in g for t in triple if isinstance(t, URIRef) and t.startswith(CP)}
    assert {local(t) for t in used} == set(vocab.ALL_TERMS)


def test_original_terms_keep_their_iris(g: Graph) -> None:
    assert len(vocab.ORIGINAL_CLASSES) == 41
    originals = vocab.ORIGINAL_OBJECT_PROPERTIES + vocab.ORIGINAL_DATA_PROPERTIES
    assert len(originals) == 41
    for name in vocab.ORIGINAL_CLASSES:
        assert (URIRef(vocab.ONTOLOGY_IRI + "#" + name), RDF.type, OWL.Class) in g
    for name in vocab.ORIGINAL_OBJECT_PROPERTIES:
        assert (URIRef(vocab.ONTOLOGY_IRI + "#" + name), RDF.type, OWL.ObjectProperty) in g
    for name in vocab.ORIGINAL_DATA_PROPERTIES:
        assert (URIRef(vocab.ONTOLOGY_IRI + "#" + name), RDF.type, OWL.DatatypeProperty) in g


# --- Class axioms ---------------------------------------------------------------------------------

TOP_LEVEL = {
    "Event",
    "Player",
    "Board",
    "Match",
    "Position",
    "Source",
    "SourceRecord",
    "Course",
    "Chapter",
    "ChapterItem",
}


def test_class_tree_equals_themes_parent(g: Graph) -> None:
    tree = {}
    for name in vocab.ALL_CLASSES:
        supers = list(g.objects(cp(name), RDFS.subClassOf))
        assert len(supers) == 1 and isinstance(supers[0], URIRef), (name, supers)
        tree[name] = supers[0]
    assert {n for n, s in tree.items() if s == OWL.Thing} == TOP_LEVEL
    assert {n: local(s) for n, s in tree.items() if s != OWL.Thing} == themes.PARENT | vocab.ADDED_POSITION_CLASSES


def test_top_level_classes_and_phases_are_pairwise_disjoint(g: Graph) -> None:
    axioms = list(g.subjects(RDF.type, OWL.AllDisjointClasses))
    member_sets = {frozenset(local(m) for m in Collection(g, next(g.objects(a, OWL.members)))) for a in axioms}
    assert member_sets == {frozenset(TOP_LEVEL), frozenset(vocab.PHASE_CLASSES)}


def test_no_protege_some_values_from_quirks(g: Graph) -> None:
    assert not list(g.subjects(RDF.type, OWL.Restriction))
    assert not list(g.subjects(OWL.someValuesFrom, None))


# --- Property axioms ------------------------------------------------------------------------------

DOMAINS = {
    "Event": "eventName site eventDate eventType eventCountry eventRounds eventSponsor section stage "
    "eventYear eventStartDate countryCode",
    "Player": "name title elo uscf na typePlayer fideId nameKey",
    "Board": "boardNum mode",
    "Match": "date round result opening variation subVariation eco nic time utcTime utcDate timeControl "
    "setup termination annotator plyCount year gameDate utcDateTime startTime baseTimeSeconds "
    "incrementSeconds fullMoveCount roundNumber pgnTag gameKey variant gameUrl movesKey annotatorKey "
    + " ".join(vocab.PER_GAME_PLAYER_PROPERTIES),
    "Source": "sourceName checksum importedWith importedAt gameCount positionCount playerCount",
    "SourceRecord": "sourceFile gameNumber lineNumber",
    "Chapter": "chapterOrder level passPercent selection",
    "ChapterItem": "itemOrder",
    "Course": "resolvedFrom",
}
INTEGER = {
    "elo",
    "uscf",
    "boardNum",
    "plyCount",
    "setup",
    "eventYear",
    "year",
    "baseTimeSeconds",
    "incrementSeconds",
    "fullMoveCount",
    "roundNumber",
    "halfMoveClock",
    "fullMoveNumber",
    "whiteMaterial",
    "blackMaterial",
    "materialBalance",
    "pieceCount",
    "plyInGame",
    "solverMoves",
    "mateIn",
    "mateWithin",
    "puzzleRating",
    "puzzleRatingDeviation",
    "popularity",
    "nbPlays",
    "gameNumber",
    "lineNumber",
    "difficulty",
    "gameCount",
    "positionCount",
    "playerCount",
    "chapterOrder",
    "itemOrder",
    "passPercent",
    "whiteElo",
    "blackElo",
    "whiteUscf",
    "blackUscf",
}
BOOLEAN = {
    "whiteCastleKingside",
    "whiteCastleQueenside",
    "blackCastleKingside",
    "blackCastleQueenside",
    "solutionLegal",
}
DATETIME = {"utcDateTime", "importedAt"}
# xsd:date and xsd:time are outside the OWL 2 datatype map; HermiT rejects them, so no range.
NO_RANGE = {"eventStartDate", "gameDate", "startTime"}


def expected_range(name: str) -> URIRef | None:
    if name in NO_RANGE:
        return None
    if name in INTEGER:
        return XSD.integer
    if name in BOOLEAN:
        return XSD.boolean
    if name in DATETIME:
        return XSD.dateTime
    if name == "gameUrl":
        return XSD.anyURI
    return XSD.string


def test_data_property_domains(g: Graph) -> None:
    expected = {p: cls for cls, names in DOMAINS.items() for p in names.split()}
    for name in ALL_DATA:
        assert list(g.objects(cp(name), RDFS.domain)) == [cp(expected.get(name, "Position"))], name


def test_data_property_ranges(g: Graph) -> None:
    for name in ALL_DATA:
        want = expected_range(name)
        assert list(g.objects(cp(name), RDFS.range)) == ([want] if want else []), name
    assert list(g.objects(cp("move"), RDFS.range)) == [XSD.string]
    assert list(g.objects(cp("round"), RDFS.range)) == [XSD.string]


def test_no_datatype_outside_the_owl2_map(g: Graph) -> None:
    used = {o for o in g.objects(None, RDFS.range) if isinstance(o, URIRef) and o.startswith(str(XSD))}
    assert not used & {XSD.date, XSD.time, XSD.gYear}
    for name in NO_RANGE:
        comment = " ".join(str(c) for c in g.objects(cp(name), RDFS.comment) if c.language == "en")
        assert "xsd:date" in comment or "xsd:time" in comment


def union_members(g: Graph, node) -> set[str]:
    assert isinstance(node, BNode)
    return {local(m) for m in Collection(g, next(g.objects(node, OWL.unionOf)))}


def test_object_property_domains_ranges_and_inverses(g: Graph) -> None:
    assert list(g.objects(cp("hasMatch"), RDFS.domain)) == [cp("Position")]
    assert list(g.objects(cp("hasMatch"), RDFS.range)) == [cp("Match")]
    ranges = {"hasBoard": "Board", "hasPlayerWhite": "Player", "hasPlayerBlack": "Player", "hasEvent": "Event"}
    inverses = {
        "hasMatch": "hasPosition",
        "hasPlayerWhite": "whitePlayerOf",
        "hasPlayerBlack": "blackPlayerOf",
        "hasEvent": "eventOf",
        "hasBoard": "boardOf",
    }
    for prop, rng in ranges.items():
        (domain,) = g.objects(cp(prop), RDFS.domain)
        assert union_members(g, domain) == {"Position", "Match"}
        assert list(g.objects(cp(prop), RDFS.range)) == [cp(rng)]
        inverse = cp(inverses[prop])
        assert list(g.objects(inverse, RDFS.domain)) == [cp(rng)]
        (inv_range,) = g.objects(inverse, RDFS.range)
        assert union_members(g, inv_range) == {"Position", "Match"}
    for prop, inverse in inverses.items():
        assert list(g.objects(cp(inverse), OWL.inverseOf)) == [cp(prop)]
    assert list(g.objects(cp("hasPosition"), RDFS.domain)) == [cp("Match")]
    assert list(g.objects(cp("inSource"), RDFS.domain)) == [cp("SourceRecord")]
    assert list(g.objects(cp("inSource"), RDFS.range)) == [cp("Source")]


# Issue 17: one Match gathers every record of the game and one Event every game of the event, so
# their tag properties take one value per record (a partial and a complete date, or a conflict
# that merge-report shows); they are not functional, and disagreeing sources stay consistent.
GATHERED = {
    "eventDate",
    "eventType",
    "eventCountry",
    "eventRounds",
    "eventSponsor",
    "section",
    "stage",
    "eventYear",
    "eventStartDate",
    "countryCode",
    "boardNum",
    "mode",
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
    "year",
    "gameDate",
    "utcDateTime",
    "startTime",
    "baseTimeSeconds",
    "incrementSeconds",
    "roundNumber",
    "variant",
    "annotatorKey",
    *vocab.PER_GAME_PLAYER_PROPERTIES,
}


def test_functional_flags(g: Graph) -> None:
    multi = {
        "name",
        "eventName",
        "site",
        "pgnTag",
        "openingTag",
        "sourceThemeLabel",
        "title",
        "elo",
        "uscf",
        "na",
        "typePlayer",  # a merged player has one per game
        "claimStatus",  # one per mate claim checked
        "pieceOn",  # one per piece on the board
        "pieceIn",  # one per piece letter and rank, and per piece letter
        "nameKey",
    } | GATHERED  # a FIDE-identified or sameAs-linked player may be known by several names
    want_data = set(ALL_DATA) - multi
    have = functional(g)
    assert have & set(ALL_DATA) == want_data
    assert set(vocab.ORIGINAL_OBJECT_PROPERTIES) <= have
    # A player plays many games; a game has many positions: the inverses are not functional.
    assert not have & {"hasPosition", "whitePlayerOf", "blackPlayerOf", "eventOf", "boardOf"}
    assert "inSource" in have
    assert not have & set(vocab.ADDED_ANNOTATION_PROPERTIES)


# --- Annotations ------------------------------------------------------------------------------------


def test_every_term_has_english_and_spanish_labels_and_an_english_comment(g: Graph) -> None:
    for name in vocab.ALL_TERMS:
        labels = {lit.language for lit in g.objects(cp(name), RDFS.label)}
        assert labels == {"en", "es"}, name
        comments = {lit.language for lit in g.objects(cp(name), RDFS.comment)}
        assert "en" in comments, name
    for name in vocab.ALL_CLASSES:
        assert "es" in {lit.language for lit in g.objects(cp(name), RDFS.comment)}, name


def test_annex_spanish_names(g: Graph) -> None:
    es = {
        local(s): str(o)
        for s, o in g.subject_objects(RDFS.label)
        if o.language == "es" and isinstance(s, URIRef) and s.startswith(CP)
    }
    assert es["Match"] == "Partida" and es["Player"] == "Jugador" and es["Event"] == "Evento"
    assert es["Board"] == "Tablero" and es["Position"] == "Posición"
    assert es["MateInTwo"] == "Mate en dos" and es["Pinning"] == "Clavada"
    assert es["Trap"] == "Celada" and es["DoubleAttack"] == "Ataque doble"


@pytest.mark.parametrize(
    "cls, synonym",
    [
        ("DoubleAttack", Literal("fork", lang="en")),
        ("DoubleAttack", Literal("horquilla", lang="es")),
        ("Drowned", Literal("stalemate", lang="en")),
        ("ContinuousCheck", Literal("perpetual check", lang="en")),
        ("Pinning", Literal("pin", lang="en")),
        ("Pinning", Literal("clavada", lang="es")),
        ("Trap", Literal("celada", lang="es")),
        ("Skewer", Literal("enfilada", lang="es")),
        ("Attraction", Literal("decoy", lang="en")),
        ("Zwischenzug", Literal("in-between move", lang="en")),
        ("Zwischenzug", Literal("intermezzo", lang="en")),
    ],
)
def test_synonyms(g: Graph, cls: str, synonym: Literal) -> None:
    assert (cp(cls), SKOS.altLabel, synonym) in g


def test_lichess_theme_annotations_equal_the_themes_table(g: Graph) -> None:
    found = {}
    for subject, key in g.subject_objects(cp("lichessTheme")):
        assert isinstance(key, Literal) and key.datatype is None and key.language is None
        assert str(key) not in found, key
        found[str(key)] = local(subject)
    assert found == themes.LICHESS_THEME_CLASSES
    assert set(g.objects(cp("MinorPieceEndgame"), cp("lichessTheme"))) == {
        Literal("bishopEndgame"),
        Literal("knightEndgame"),
    }
    assert not list(g.subject_objects(SKOS.closeMatch))


def test_type_position_values_documented(g: Graph) -> None:
    (comment,) = (c for c in g.objects(cp("typePosition"), RDFS.comment) if c.language == "en")
    for value in ("undetermined", "strategy", "tactic", "final"):
        assert f"'{value}'" in comment


def test_every_annotation_predicate_is_declared(g: Graph) -> None:
    """OWL 2 DL: any predicate outside rdf/rdfs/owl must be a declared property."""
    builtin = (str(RDF), str(RDFS), str(OWL))
    predicates = {p for p in g.predicates() if not str(p).startswith(builtin)}
    declared_props = set(g.subjects(RDF.type, OWL.AnnotationProperty))
    assert predicates <= declared_props
    for external in (DCTERMS.source, SKOS.altLabel, SKOS.prefLabel):
        assert (external, RDF.type, OWL.AnnotationProperty) in g


# --- Files and API ----------------------------------------------------------------------------------


def test_package_api() -> None:
    assert ontology.TTL_FILE == "chessposition.ttl" and ontology.OWL_FILE == "chessposition.owl"
    assert ontology.turtle_text().lstrip().startswith("#")
    with ontology.rdfxml_path() as path:
        assert path.name == ontology.OWL_FILE and path.is_file()


def test_rdfxml_is_up_to_date(g: Graph) -> None:
    owl = Graph()
    owl.parse(data=ontology.rdfxml_text(), format="xml")
    assert isomorphic(g, owl), "chessposition.owl is stale: run python -m chesskb.ontology.build"
    assert build.to_rdfxml(ontology.turtle_text()) == ontology.rdfxml_text()


# --- owlready2 and HermiT ---------------------------------------------------------------------------

owlready2 = pytest.importorskip("owlready2")


def load_world():
    world = owlready2.World()
    with ontology.rdfxml_path() as path:
        onto = world.get_ontology(path.as_uri()).load()
    return world, onto


def hermit(world) -> None:
    owlready2.sync_reasoner_hermit(world, infer_property_values=False, debug=0)


def test_owlready2_loads_the_rdfxml() -> None:
    _, onto = load_world()
    assert onto.base_iri == CP
    assert {c.name for c in onto.classes()} == set(vocab.ALL_CLASSES)
    assert {p.name for p in onto.object_properties()} == set(ALL_OBJECT)
    assert {p.name for p in onto.data_properties()} == set(ALL_DATA)
    assert onto.hasPosition.inverse_property is onto.hasMatch


def test_hermit_finds_the_ontology_consistent_and_every_class_satisfiable() -> None:
    world, onto = load_world()
    with onto:
        hermit(world)
    assert list(world.inconsistent_classes()) == []
    assert onto.MateInTwo in onto.Position.descendants()


ABOX_PREFIXES = f"""
@prefix cp: <{CP}> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""

TYPICAL_GAME = """
cp:polgar a owl:NamedIndividual, cp:Player ; cp:name "Polgar, Judit", "Polgár, Judit" ; cp:elo 2735 .
cp:kasparov a owl:NamedIndividual, cp:Player ; cp:name "Kasparov, Garry" .
cp:event a owl:NamedIndividual, cp:Event ; cp:eventName "Russia vs Rest of the World" ; cp:eventYear 2002 .
cp:board a owl:NamedIndividual, cp:Board ; cp:boardNum 1 .
cp:game a owl:NamedIndividual, cp:Match ; cp:round "3.1" ; cp:plyCount 71 ; cp:setup 0 ;
    cp:utcDateTime "2002-09-09T14:00:00Z"^^xsd:dateTime ; cp:gameUrl "https://lichess.org/abc"^^xsd:anyURI ;
    cp:hasPlayerWhite cp:polgar ; cp:hasPlayerBlack cp:kasparov ;
    cp:hasEvent cp:event ; cp:hasBoard cp:board .
cp:position a owl:NamedIndividual, cp:MateInTwo ; cp:hasMatch cp:game ; cp:hasPlayerWhite cp:polgar ;
    cp:move "1. Qxh7+ Kxh7 2. Rh3#" ; cp:whiteCastleKingside false ; cp:mateIn 2 ; cp:typePosition "final" .
"""


def load_with_abox(tmp_path, abox: str):
    """The ontology plus some individuals, written as RDF/XML the way an exported KB would be."""
    graph = Graph()
    graph.parse(data=ontology.turtle_text(), format="turtle")
    graph.parse(data=ABOX_PREFIXES + abox, format="turtle")
    path = tmp_path / "kb.owl"
    graph.serialize(path, format="xml")
    world = owlready2.World()
    return world, world.get_ontology(path.as_uri()).load()


def test_hermit_accepts_disagreeing_sources(tmp_path) -> None:
    """Two records of one game state two results and two dates: a conflict for merge-report, not an
    inconsistency (issue 17)."""
    world, _ = load_with_abox(
        tmp_path, 'cp:m a owl:NamedIndividual, cp:Match ; cp:result "1-0", "0-1" ; cp:date "1788", "1788.03.30" .'
    )
    hermit(world)


def test_hermit_accepts_a_typical_game(tmp_path) -> None:
    world, onto = load_with_abox(tmp_path, TYPICAL_GAME)
    hermit(world)
    assert onto.Position in onto.position.INDIRECT_is_a
    assert onto.position in onto.game.hasPosition
    assert onto.game in onto.polgar.whitePlayerOf


@pytest.mark.parametrize(
    "abox",
    [
        # Disjoint classes: nothing is both a player and a position.
        "cp:odd a owl:NamedIndividual, cp:Player, cp:Position .",
        # Functional data property with two values: a position with two FENs (elo: an integer, not a string).
        # (Issue 17: a game with two results from two sources is a recorded conflict, not an inconsistency.)
        (
            "cp:m a owl:NamedIndividual, cp:Position ; "
            'cp:fen "8/8/8/8/8/8/8/K6k w - - 0 1", "8/8/8/8/8/8/8/k6K w - - 0 1" .'
        ),
        'cp:p a owl:NamedIndividual, cp:Player ; cp:elo "2300" .',
        # hasMatch points from a position to a game; a player is not a game.
        ("cp:pos a owl:NamedIndividual, cp:Position ; cp:hasMatch cp:pl . cp:pl a owl:NamedIndividual, cp:Player ."),
    ],
    ids=["player-and-position", "two-results", "string-elo", "player-as-game"],
)
def test_hermit_reports_inconsistent_individuals(tmp_path, abox: str) -> None:
    world, _ = load_with_abox(tmp_path, abox)
    with pytest.raises(owlready2.OwlReadyInconsistentOntologyError):
        hermit(world)
