"""Data validation beside OWL: the SHACL shapes in ``ontology/shapes.ttl`` (pyshacl) plus the two
rules SHACL cannot decide, checked with python-chess and ``datetime``.

OWL reasoning is open-world, so a position without a FEN or a rating of -5 is not an inconsistency
to HermiT; it is a violation here. Every violation is reported with the individual's IRI and label,
the property (path) and a message, the same shape whether SHACL or Python found it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

import chess
import chess.pgn
from pyoxigraph import Literal, NamedNode, RdfFormat, Triple, serialize

from chesskb.kb.findings import Finding, shacl_finding

if TYPE_CHECKING:
    import rdflib  # imported where used: the check loads it only when it runs
from chesskb.kb.vocab import CP, RDFS_IRI, text_of

SHAPES_FILE = "shapes.ttl"
_LABEL = RDFS_IRI + "label"
_SH = "http://www.w3.org/ns/shacl#"
_PGN_DATE = re.compile(r"^(\d{4})\.(\d{2})\.(\d{2})$")
#: Properties holding a PGN date string (unknown parts already left out by the importer).
PGN_DATE_PROPERTIES = ("date", "eventDate", "utcDate")


def shapes_text() -> str:
    """The shapes as Turtle, read as package data (works from a wheel as from a checkout)."""
    return resources.files("chesskb.ontology").joinpath(SHAPES_FILE).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _shapes_and_ontology() -> tuple[rdflib.Graph, rdflib.Graph]:
    import rdflib

    from chesskb import ontology

    shapes = rdflib.Graph().parse(data=shapes_text(), format="turtle")
    onto = rdflib.Graph().parse(data=ontology.turtle_text(), format="turtle")
    return shapes, onto


def validate(triples: Sequence[Triple]) -> list[Finding]:
    """Every violation of the shapes and of the FEN and date rules in ``triples`` (one source), as
    ``Finding``s (``kb.findings.shacl_finding``: the individual's IRI and label, the path)."""
    labels = {
        t.subject.value: text_of(t.object)
        for t in triples
        if t.predicate.value == _LABEL and isinstance(t.subject, NamedNode)
    }
    found = list(_shacl_violations(triples, labels)) + list(_python_violations(triples, labels))
    unique = {(v.iri, v.field, v.message): v for v in found}
    return [unique[key] for key in sorted(unique)]


def _shacl_violations(triples: Sequence[Triple], labels: dict[str, str]) -> Iterator[Finding]:
    import rdflib
    from pyshacl import validate as pyshacl_validate

    shapes, onto = _shapes_and_ontology()
    data = rdflib.Graph()
    data.parse(data=serialize(triples, format=RdfFormat.N_TRIPLES), format="nt")
    # The ontology is mixed in so sh:targetClass cp:Position reaches a cp:MateInTwo (rdfs:subClassOf).
    conforms, results, _text = pyshacl_validate(
        data, shacl_graph=shapes, ont_graph=onto, inference="none", advanced=False, allow_warnings=True
    )
    if conforms:
        return
    sh = rdflib.Namespace(_SH)
    for result in results.subjects(rdflib.RDF.type, sh.ValidationResult):
        focus = results.value(result, sh.focusNode)
        path = results.value(result, sh.resultPath)
        value = results.value(result, sh.value)
        message = results.value(result, sh.resultMessage)
        text = str(message) if message is not None else "violates the shape"
        if value is not None:
            text += f" (value: {value!s})"
        iri = str(focus)
        yield shacl_finding(iri, labels.get(iri, ""), _short(str(path) if path else ""), text)


def _chess960_positions(triples: Sequence[Triple]) -> set[str]:
    """The positions of games whose Variant tag names Chess960 (python-chess decides which names do):
    their FEN is checked by Chess960's castling rules."""
    matches = {
        t.subject.value
        for t in triples
        if isinstance(t.subject, NamedNode)
        and t.predicate.value == CP.variant.value
        and isinstance(t.object, Literal)
        and chess.pgn.Headers({"Variant": t.object.value}).is_chess960()
    }
    if not matches:
        return set()
    return {
        t.subject.value
        for t in triples
        if isinstance(t.subject, NamedNode)
        and t.predicate.value == CP.hasMatch.value
        and isinstance(t.object, NamedNode)
        and t.object.value in matches
    }


def _python_violations(triples: Sequence[Triple], labels: dict[str, str]) -> Iterator[Finding]:
    date_properties = {CP.term(name).value for name in PGN_DATE_PROPERTIES}
    chess960 = _chess960_positions(triples)
    for triple in triples:
        obj, predicate = triple.object, triple.predicate.value
        if not isinstance(obj, Literal):
            continue
        iri = text_of(triple.subject)
        if predicate == CP.fen.value:
            problem = fen_problem(obj.value, chess960=iri in chess960)
            if problem:
                yield shacl_finding(iri, labels.get(iri, ""), "cp:fen", f"invalid FEN {obj.value!r}: {problem}")
        elif predicate in date_properties:
            problem = date_problem(obj.value)
            if problem:
                yield shacl_finding(iri, labels.get(iri, ""), _short(predicate), f"{obj.value!r} {problem}")


def fen_problem(fen: str, chess960: bool = False) -> str | None:
    """Why ``fen`` is not a legal chess position (python-chess decides, by Chess960's castling rules for
    a Chess960 game's position), or None."""
    try:
        board = chess.Board(fen, chess960=chess960)
    except ValueError as exc:
        return str(exc)
    status = board.status()
    if status == chess.STATUS_VALID:
        return None
    # a member of the flag enum has a name (only a combination of flags has none)
    names = [flag.name.lower().replace("_", " ") for flag in chess.Status if flag and flag in status and flag.name]
    return "not a legal position: " + ", ".join(names)


def date_problem(text: str) -> str | None:
    """Why a complete PGN date ``YYYY.MM.DD`` is not a calendar date, or None."""
    match = _PGN_DATE.match(text)
    if match is None:
        return None  # partial or free-form dates are the pattern's business
    try:
        dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError as exc:
        return f"is not a real date ({exc})"
    return None


def _short(iri: str) -> str:
    name = CP.name_of(iri)
    return "cp:" + name if name is not None else iri
