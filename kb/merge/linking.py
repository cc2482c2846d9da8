"""Linking players across sources when their names alone do not meet.

The mapping already merges what is certain: one IRI per FIDE ID, else one IRI per order-free,
accent-free name key ("Polgár, Judit" = "Judit Polgar"). What is left needs evidence from the
whole knowledge base, so it is decided here, inside every import and removal (``derive_links``), and written to one
graph of its own (``graph/_links``) that is recomputed from scratch each time:

* ``owl:sameAs`` where the evidence is strong but the names differ: a name that fits exactly one
  fuller person ("Tal, M." → "Tal, Mikhail" when there is no other M. Tal; "Nakamura,Hi" →
  "Nakamura, Hikaru"; "Duda,J" → "Duda, Jan-Krzysztof"; "Huebner R" → "Hübner, Robert"), a name
  without FIDE ID written like exactly one FIDE-identified player;
* ``cp:candidateSameAs`` where it is weak: a surname alone ("Polgar" → Judit, Susan and Sofia),
  initials that fit several people. Never a merge: three Polgars stay three people.

Names are read by ``kb.reading.names.read_name``, the reading game identity uses too, so a game and
its players cannot be judged by two different rules. Players are compared within blocks of one
family name and first initial, never all pairs: linking costs about linear time in the players.

Events get the same treatment (``compute_event_links``): one name and year with the site written
more or less fully is ``sameAs``; a year known on one side only is a candidate.

``chesskb merge-report`` prints the same decisions with their reasons (``Link.reason``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from pyoxigraph import NamedNode, Quad

from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.merge.conflicts import conflict_quads, disagreements, merged_matches
from chesskb.kb.reading.names import NameReading, fold, read_name, transliteration_key
from chesskb.kb.store.base import Derive, Queryable, Replacement, StoreView
from chesskb.kb.vocab import CP, OWL_IRI, text_of
from chesskb.queries.executor import select

SAME_AS = NamedNode(OWL_IRI + "sameAs")


@dataclass
class PlayerNames:
    """What the knowledge base knows about one Player individual's identity."""

    iri: str
    keys: set[str] = field(default_factory=set)
    labels: set[str] = field(default_factory=set)
    fide_ids: set[str] = field(default_factory=set)


#: What a link says: one individual (``owl:sameAs``) or maybe one (``cp:candidateSameAs``).
LinkKind = Literal["sameAs", "candidate"]


@dataclass(frozen=True)
class Link:
    """``a`` < ``b`` so each pair is written once."""

    a: str
    b: str
    kind: LinkKind
    reason: str


def players_in(store: Queryable) -> list[PlayerNames]:
    rows = select(store, "player-keys")
    players: dict[str, PlayerNames] = {}
    for row in rows:
        player = players.setdefault(row["p"].value, PlayerNames(row["p"].value))
        player.keys.add(row["key"].value)
        if row["label"] is not None:
            player.labels.add(row["label"].value)
        if row["fide"] is not None:
            player.fide_ids.add(row["fide"].value)
    return sorted(players.values(), key=lambda p: p.iri)


#: Players a surname written alone ("Polgar") is offered as candidates at most: a common surname in a
#: large database would otherwise add a candidate link to every namesake.
MAX_SURNAME_CANDIDATES = 50


def readings_of(player: PlayerNames) -> list[NameReading]:
    """The name readings of a player: of each label (written in the source's order, ``display_name``),
    else of each name key (whose words are sorted: single letters read as initials, the last word
    as the family name, a guess that only a player without labels needs)."""
    readings = [r for label in sorted(player.labels) if (r := read_name(label)) is not None]
    if not readings:
        readings = [
            r
            for key in sorted(player.keys)
            if (r := read_name(" ".join(w.upper() if len(w) == 1 else w.capitalize() for w in key.split()))) is not None
        ]
    return list(dict.fromkeys(readings))


def _given_fits(token: str, word: str) -> bool:
    """A written given name fits a fuller one: equal up to transliteration, a prefix of it ("Hi" of
    "Hikaru"), or its initial ("J" of "Jan")."""
    return word.startswith(token) or (
        len(token) > 2 and transliteration_key(word).startswith(transliteration_key(token))
    )


def fits(short: NameReading, full: NameReading) -> bool:
    """Whether ``short`` can be a writing of ``full``: one family name (up to transliteration), and the
    given names of ``short`` fit the given names of ``full`` in order, the first to the first; ``full``
    may add middle names or initials. A run of initials fits consecutive given names ("JK" fits
    "Jan-Krzysztof"). A surname alone fits nothing: it never proves a person."""
    if not short.given or short.family_key != full.family_key:
        return False
    words = list(full.given)
    at = 0
    for number, token in enumerate(short.given):
        if (
            1 < len(token) <= 3
            and at + len(token) <= len(words)
            and all(words[at + i].startswith(letter) for i, letter in enumerate(token))
            and not any(_given_fits(token, word) for word in words[at:])
        ):
            at += len(token)  # initials of consecutive given names
            continue
        while at < len(words) and not _given_fits(token, words[at]):
            if number == 0:
                return False  # the first given name must fit the first
            at += 1
        if at == len(words):
            return False
        at += 1
    return True


def _block_keys(reading: NameReading) -> set[tuple[str, str]]:
    """The blocks of a reading: its family key with the first letter of its first given name, as written
    and as transliterated ("Jan" is in "j" and "i", "Khalil" in "k" and "h"). Two readings that ``fits``
    joins share a block (a given name fits as written, then the letters are equal, or transliterated,
    then the transliterated letters are), so linking compares only within blocks."""
    if not reading.given:
        return {(reading.family_key, "")}
    first = reading.given[0]
    return {(reading.family_key, first[:1]), (reading.family_key, transliteration_key(first)[:1])}


def _fide_conflict(one: PlayerNames, other: PlayerNames) -> bool:
    return bool(one.fide_ids and other.fide_ids and one.fide_ids != other.fide_ids)


def compute_links(players: Iterable[PlayerNames]) -> list[Link]:
    """Every sameAs and candidate link between distinct players, with its reason.

    Players are compared only within blocks of one family key and first given initial
    (``_block_keys``), so the work grows with the players, not with their pairs. A player whose
    name fits the names of others (``fits``) is ``sameAs`` them when those names are one person
    (their fullest forms all fit each other and carry no two FIDE IDs); otherwise each is a
    candidate. A pair decided from both sides (two writings of one name) is ``sameAs`` only when both
    sides find one person. Two FIDE IDs that differ never link. A surname alone is a candidate of
    the players of that family name, never more."""
    players = list(players)
    readings = {player.iri: readings_of(player) for player in players}
    blocks: dict[tuple[str, str], dict[str, PlayerNames]] = defaultdict(dict)
    families: dict[str, dict[str, PlayerNames]] = defaultdict(dict)
    for player in players:
        for reading in readings[player.iri]:
            for block in _block_keys(reading):
                blocks[block][player.iri] = player
            if reading.given:
                families[reading.family_key][player.iri] = player
    decisions: dict[tuple[str, str], list[tuple[LinkKind, str]]] = defaultdict(list)

    def decide(one: PlayerNames, other: PlayerNames, kind: LinkKind, reason: str) -> None:
        a, b = sorted((one.iri, other.iri))
        decisions[(a, b)].append((kind, reason))

    def fit(one: PlayerNames, other: PlayerNames) -> bool:
        return any(fits(r, s) for r in readings[one.iri] for s in readings[other.iri])

    for player in players:
        for reading in readings[player.iri]:
            if not reading.given:  # a surname alone: never more than a candidate
                namesakes = [o for o in families[reading.family_key].values() if o.iri != player.iri]
                for other in sorted(namesakes, key=lambda o: o.iri)[:MAX_SURNAME_CANDIDATES]:
                    decide(player, other, "candidate", f"surname only: {_shown(player)!r} may be {_shown(other)!r}")
                continue
            pool = {iri: other for block in _block_keys(reading) for iri, other in blocks[block].items()}
            fuller = [
                o
                for o in pool.values()
                if o.iri != player.iri
                and not _fide_conflict(player, o)
                and any(fits(reading, s) for s in readings[o.iri])
            ]
            if not fuller:
                continue
            # Fuller names that are themselves writings of a still fuller one are one person with it: only
            # the fullest count as choices, and they are one person when they all fit each other.
            fullest = [o for o in fuller if not any(p is not o and fit(o, p) and not fit(p, o) for p in fuller)]
            one_person = all(fit(o, p) and not _fide_conflict(o, p) for o in fullest for p in fullest if o is not p)
            for other in fuller:
                if one_person:
                    why = (
                        "transliteration"
                        if fit(other, player)
                        else "initials"
                        if any(len(t) == 1 for t in reading.given)
                        else "given-name prefix or middle name"
                    )
                    decide(player, other, "sameAs", f"{why}: {_shown(player)!r} fits only {_shown(fullest[0])!r}")
                else:
                    decide(
                        player,
                        other,
                        "candidate",
                        f"{_shown(player)!r} fits {len(fullest)} players: may be {_shown(other)!r}",
                    )
    links = []
    for (a, b), said in decisions.items():
        same = [reason for kind, reason in said if kind == "sameAs"]
        if same and len(same) == len(said):
            links.append(Link(a, b, "sameAs", same[0]))
        else:
            links.append(Link(a, b, "candidate", next(reason for kind, reason in said if kind == "candidate")))
    return sorted(links, key=lambda link: (link.a, link.b))


def _shown(player: PlayerNames) -> str:
    return min(player.labels) if player.labels else min(player.keys)


@dataclass
class EventNames:
    """An Event individual's name key, site words and the years its games were played."""

    iri: str
    name: str
    site: frozenset[str]
    years: set[str] = field(default_factory=set)


def events_in(store: Queryable) -> list[EventNames]:
    rows = select(store, "event-keys")
    events: dict[str, EventNames] = {}
    for row in rows:
        iri = row["e"].value
        event = events.get(iri)
        if event is None:
            site = frozenset(fold(row["site"].value).split()) if row["site"] is not None else frozenset()
            event = events[iri] = EventNames(iri, fold(row["name"].value), site)
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
            for other in group[index + 1 :]:
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


def all_links(store: StoreView) -> list[Link]:
    """The links the players and events of ``store`` call for."""
    return compute_links(players_in(store)) + compute_event_links(events_in(store))


def derive_links(base_iri: str | None = None) -> Derive:
    """The links graph recomputed as a ``derive`` step of a write, so it changes in the same atomic
    step as the players and events it links; rewritten only when it changed."""
    graph = IriMinter(base_iri).links_graph

    def relink(view: StoreView) -> Replacement | None:
        quads = links_graph_quads(view, graph, IriMinter(base_iri))
        wanted = {(text_of(q.subject), q.predicate.value, text_of(q.object)) for q in quads}
        present = {(text_of(q.subject), q.predicate.value, text_of(q.object)) for q in view.quads([graph])}
        return Replacement([graph], quads) if wanted != present else None

    return relink


def links_graph_quads(store: StoreView, graph: NamedNode, minter: IriMinter | None = None) -> list[Quad]:
    """What the links graph holds for ``store``: the links between players and between events, and
    the values its sources disagree on (``kb.merge.conflicts``)."""
    return link_quads(all_links(store), graph) + conflict_quads(
        disagreements(store, merged_matches(store) + events_with_several_values(store), minter), graph
    )


def events_with_several_values(store: StoreView) -> list[str]:
    """Events whose games give one of the event's own properties (EventDate, EventType …) two values."""
    rows = select(store, "events-with-several-values")
    return sorted(row["e"].value for row in rows)
