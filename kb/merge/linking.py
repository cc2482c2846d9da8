"""Linking players across sources when their names alone do not meet.

The mapping already merges what is certain: one IRI per FIDE ID, else one IRI per order-free,
accent-free name key ("Polgár, Judit" = "Judit Polgar"). What is left needs evidence from the
whole knowledge base, so it is decided here, inside every import and removal (``derive_links``), and written to one
graph of its own (``graph/_links``) that is recomputed from scratch each time:

* ``owl:sameAs`` where the evidence is strong but the names differ: initials that fit exactly one
  fuller name ("Tal, M." → "Tal, Mikhail" when there is no other M. Tal), a name without FIDE ID
  whose key equals that of exactly one FIDE-identified player;
* ``cp:candidateSameAs`` where it is weak: a surname alone ("Polgar" → Judit, Susan and Sofia),
  initials that fit several people. Never a merge: three Polgars stay three people.

Events get the same treatment (``compute_event_links``): one name and year with the site written
more or less fully is ``sameAs``; a year known on one side only is a candidate.

``chesskb merge-report`` prints the same decisions with their reasons (``Link.reason``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from pyoxigraph import NamedNode, Quad

from chesskb.kb.merge.conflicts import conflict_quads, disagreements, merged_matches
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.reading.names import fold, name_key, transliteration_key
from chesskb.kb.store.base import Derive, Replacement, Store
from chesskb.kb.vocab import CP, OWL_IRI

SAME_AS = NamedNode(OWL_IRI + "sameAs")


@dataclass
class PlayerNames:
    """What the knowledge base knows about one Player individual's identity."""

    iri: str
    keys: set[str] = field(default_factory=set)
    labels: set[str] = field(default_factory=set)
    fide_ids: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Link:
    """``kind`` is ``sameAs`` or ``candidate``; ``a`` < ``b`` so each pair is written once."""

    a: str
    b: str
    kind: str
    reason: str


def players_in(store: Store) -> list[PlayerNames]:
    rows = store.query(
        "SELECT ?p ?key ?label ?fide WHERE { ?p a cp:Player ; cp:nameKey ?key . "
        "OPTIONAL { ?p rdfs:label ?label } OPTIONAL { ?p cp:fideId ?fide } }")
    players: dict[str, PlayerNames] = {}
    for row in rows:
        player = players.setdefault(row["p"].value, PlayerNames(row["p"].value))
        player.keys.add(row["key"].value)
        if row["label"] is not None:
            player.labels.add(row["label"].value)
        if row["fide"] is not None:
            player.fide_ids.add(row["fide"].value)
    return sorted(players.values(), key=lambda p: p.iri)


def _words(key: str) -> tuple[frozenset[str], list[str]]:
    """Full words and initials of a name key (``"m tal"`` -> ({"tal"}, ["m"])), each full word in
    its transliteration key so "Nepomniachtchi" and "Nepomnyashchy" are one word here."""
    words = key.split()
    return (frozenset(transliteration_key(w) for w in words if len(w) > 1),
            sorted(w for w in words if len(w) == 1))


def _fits(short_key: str, full_key: str) -> bool:
    """Whether a name can be a shorter writing of a fuller one: its full words all occur in the
    fuller name (up to transliteration), each of its initials starts a further word (or is a
    further initial) there, and the fuller name may add middle names or initials ("Tal, M." and
    "Mikhail Tal" fit "Tal, Mikhail N."). A name never fits itself."""
    if short_key == full_key:
        return False
    short_full, initials = _words(short_key)
    long_full, long_initials = _words(full_key)
    if not short_full or not short_full <= long_full:
        return False
    rest = sorted(long_full - short_full) + list(long_initials)
    for initial in initials:
        match = next((word for word in rest if word.startswith(initial)), None)
        if match is None:
            return False
        rest.remove(match)
    return True


def compute_links(players: Iterable[PlayerNames]) -> list[Link]:
    """Every sameAs and candidate link between distinct players, with its reason."""
    players = list(players)
    links: dict[tuple[str, str], Link] = {}

    def add(one: PlayerNames, other: PlayerNames, kind: str, reason: str) -> None:
        a, b = sorted((one.iri, other.iri))
        if (a, b) not in links or (kind == "sameAs" and links[(a, b)].kind != "sameAs"):
            links[(a, b)] = Link(a, b, kind, reason)

    by_key: dict[str, list[PlayerNames]] = defaultdict(list)
    for player in players:
        for key in player.keys:
            by_key[" ".join(sorted(_words(key)[0]) + _words(key)[1])].append(player)
    # A name without FIDE ID meets the FIDE-identified players of the same name (up to transliteration).
    for key, group in by_key.items():
        with_fide = [p for p in group if p.fide_ids]
        without = [p for p in group if not p.fide_ids]
        for player in without:
            if len(with_fide) == 1:
                add(player, with_fide[0], "sameAs", f"same name ({key!r}); only one player of that name has a "
                    f"FIDE ID ({min(with_fide[0].fide_ids)})")
            for other in with_fide if len(with_fide) > 1 else ():
                add(player, other, "candidate", f"same name ({key!r}) as {len(with_fide)} players with "
                    "different FIDE IDs")
    # Initials, middle names, transliterations and surnames alone.
    by_word: dict[str, list[PlayerNames]] = defaultdict(list)
    for player in players:
        for key in player.keys:
            for word in _words(key)[0]:
                by_word[word].append(player)
    for player in players:
        for key in player.keys:
            full, initials = _words(key)
            if not full:
                continue
            pool = {p.iri: p for word in full for p in by_word[word] if p.iri != player.iri}
            fuller = [other for other in pool.values()
                      if any(_fits(key, other_key) for other_key in other.keys)
                      and not (player.fide_ids and other.fide_ids and player.fide_ids != other.fide_ids)]
            if not fuller:
                continue
            if len(full) == 1 and not initials:  # a surname alone: never more than a candidate
                for other in fuller:
                    add(player, other, "candidate", f"surname only: {key!r} may be {min(other.keys)!r}")
                continue
            # Fuller names that are themselves shorter writings of another fuller one are one person
            # ("m tal" fits "mikhail tal" and "mikhail n tal"): only the fullest ones count as choices.
            fullest = [other for other in fuller
                       if not any(o is not other and any(_fits(a, b) for a in other.keys for b in o.keys)
                                  for o in fuller)]
            if len(fullest) == 1:
                for other in fuller:
                    why = ("transliteration" if any(_words(k) == (full, initials) for k in other.keys)
                           else "initials" if initials else "middle name or initial")
                    add(player, other, "sameAs", f"{why}: {key!r} fits only {min(fullest[0].keys)!r}")
                continue
            for other in fuller:
                add(player, other, "candidate", f"{key!r} fits {len(fuller)} players: may be {min(other.keys)!r}")
    return sorted(links.values(), key=lambda link: (link.a, link.b))


@dataclass
class EventNames:
    """An Event individual's name key, site words and the years its games were played."""

    iri: str
    name: str
    site: frozenset[str]
    years: set[str] = field(default_factory=set)


def events_in(store: Store) -> list[EventNames]:
    rows = store.query(
        "SELECT ?e ?name ?site ?year WHERE { ?e a cp:Event ; cp:eventName ?name . OPTIONAL { ?e cp:site ?site } "
        "OPTIONAL { ?e cp:eventYear ?year } OPTIONAL { ?m cp:hasEvent ?e ; cp:year ?year } }")
    events: dict[str, EventNames] = {}
    for row in rows:
        iri = row["e"].value
        event = events.get(iri)
        if event is None:
            site = frozenset(fold(row["site"].value).split()) if row["site"] is not None else frozenset()
            event = events[iri] = EventNames(iri, name_key(row["name"].value), site)
        if row["year"] is not None:
            event.years.add(row["year"].value)
    return sorted(events.values(), key=lambda e: e.iri)


def compute_event_links(events: Iterable[EventNames]) -> list[Link]:
    """Events of one name met as different individuals because the site or year was written
    differently: the same year and one site a part of the other ("Thessaloniki" / "Thessaloniki
    GRE", or no site) is ``sameAs``; a year known on one side only is a candidate."""
    by_name: dict[str, list[EventNames]] = defaultdict(list)
    for event in events:
        if event.name:
            by_name[event.name].append(event)
    links: list[Link] = []
    for name, group in by_name.items():
        for index, one in enumerate(group):
            for other in group[index + 1:]:
                a, b = sorted((one.iri, other.iri))
                sites_fit = one.site <= other.site or other.site <= one.site
                if not sites_fit:
                    continue
                if one.years and one.years == other.years:
                    links.append(Link(a, b, "sameAs", f"event {name!r} in {min(one.years)}, one site within the other"))
                elif not one.years or not other.years:
                    links.append(Link(a, b, "candidate", f"event {name!r}: the year is known on one side only"))
    return links


def link_quads(links: Iterable[Link], graph: NamedNode) -> list[Quad]:
    quads = []
    for link in links:
        a, b = NamedNode(link.a), NamedNode(link.b)
        predicate = SAME_AS if link.kind == "sameAs" else CP.candidateSameAs
        quads.append(Quad(a, predicate, b, graph))
        quads.append(Quad(b, predicate, a, graph))  # both properties are symmetric: say it both ways
    return quads


def all_links(store: Store) -> list[Link]:
    """The links the players and events of ``store`` call for."""
    return compute_links(players_in(store)) + compute_event_links(events_in(store))


def derive_links(base_iri: str | None = None) -> Derive:
    """The links graph recomputed as a ``derive`` step of a write, so it changes in the same atomic
    step as the players and events it links; rewritten only when it changed."""
    graph = IriMinter(base_iri).links_graph

    def relink(view: Store) -> Replacement | None:
        quads = links_graph_quads(view, graph, IriMinter(base_iri))
        wanted = {(q.subject.value, q.predicate.value, q.object.value) for q in quads}
        present = {(q.subject.value, q.predicate.value, q.object.value) for q in view.quads([graph])}
        return Replacement([graph], quads) if wanted != present else None

    return relink


def links_graph_quads(store: Store, graph: NamedNode, minter: IriMinter | None = None) -> list[Quad]:
    """What the links graph holds for ``store``: the links between players and between events, and
    the values its sources disagree on (``kb.merge.conflicts``)."""
    return link_quads(all_links(store), graph) + conflict_quads(
        disagreements(store, merged_matches(store) + events_with_several_values(store), minter), graph)


def events_with_several_values(store: Store) -> list[str]:
    """Events whose games give one of the event's own properties (EventDate, EventType …) two values."""
    rows = store.query("""SELECT DISTINCT ?e WHERE {
        { SELECT ?e ?p WHERE { ?e a cp:Event ; ?p ?o
                               FILTER(isLiteral(?o) && ?p NOT IN (rdfs:label, cp:eventName, cp:site)) }
          GROUP BY ?e ?p HAVING (COUNT(DISTINCT ?o) > 1) } }""")
    return sorted(row["e"].value for row in rows)
