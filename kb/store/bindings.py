"""Binding query parameters by writing a ``VALUES`` block into the query text.

pyoxigraph can bind variables itself (``substitutions``), but measured on a 100k-position store it
evaluated ``positions-by-side-and-goal`` in 9.3 s that way against 1.6 s with the same values in a
``VALUES`` block at the top of the query's WHERE group: the optimizer sees constants from the start
instead of filtering complete results. A remote SPARQL server has no substitution API at all, so
both backends bind through this one function.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import TypeGuard

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FORM = re.compile(r"\b(SELECT|ASK|CONSTRUCT|DESCRIBE)\b", re.IGNORECASE)


Bound = NamedNode | BlankNode | Literal | Triple


def with_values(sparql: str, bindings: Mapping[str, Bound | Sequence[Bound | None] | None]) -> str:
    """``sparql`` with ``VALUES (?a ?b) { (ta tb) }`` at the start of every group pattern that
    mentions a bound variable (the WHERE group, subqueries, UNION branches, OPTIONAL and EXISTS
    groups).

    A variable bound to a sequence of terms gets a block of its own, one row per term
    (``VALUES ?keys { t1 t2 }``): the query then answers for each of them in one evaluation, which
    is how a named query takes a list (an empty sequence matches nothing).

    Binding each group, not only the outermost, is what makes this the same as substituting the
    variable everywhere (SEP-0007, what pyoxigraph's ``substitutions`` do): a FILTER inside a UNION
    branch or a subquery sees only its own group's variables, so a VALUES block at the top would
    leave the variable unbound there.
    """
    if not bindings:
        return sparql
    for name in bindings:
        if not _VARIABLE_NAME.fullmatch(name):
            raise ValueError(f"not a SPARQL variable name: {name!r}")
    insertions = []
    for position, mentioned in _binding_places(sparql, tuple(bindings)):
        single = [name for name in mentioned if not _is_many(bindings[name])]
        if single:
            names = " ".join(f"?{name}" for name in single)
            terms = " ".join(_term_text(bindings[name]) for name in single)
            insertions.append((position, f" VALUES ({names}) {{ ({terms}) }} "))
        for name in mentioned:
            value = bindings[name]
            if _is_many(value):
                rows = " ".join(_term_text(term) for term in value)
                insertions.append((position, f" VALUES ?{name} {{ {rows} }} "))
    for position, block in sorted(insertions, reverse=True):
        sparql = sparql[:position] + block + sparql[position:]
    return sparql


#: Query texts whose binding places are kept (``_binding_places``): a named query's text is the same
#: for every value it is asked with, and reading its groups costs more than writing the values.
PLACES_KEPT = 256


@functools.lru_cache(maxsize=PLACES_KEPT)
def _binding_places(sparql: str, names: tuple[str, ...]) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """Where ``with_values`` writes VALUES blocks in ``sparql``: (index after a group's ``{``, the names
    of ``names`` that group binds), for every group pattern from the WHERE group on."""
    start = _where_group_start(sparql)
    places = []
    for opening, closing in _groups(sparql, start):
        text = sparql[opening:closing]
        mentioned = tuple(name for name in names if re.search(rf"[?$]{name}(?![A-Za-z0-9_])", text))
        if opening == start:
            mentioned = names  # the WHERE group binds every parameter (it may be projected)
        elif re.match(r"\s*SELECT\b", sparql[opening + 1 : closing], re.IGNORECASE):
            continue  # "{ SELECT … }" holds only the subquery; its own WHERE group is bound instead
        places.append((opening + 1, mentioned))
    return tuple(places)


def _is_many(value: object) -> TypeGuard[list[object] | tuple[object, ...]]:
    return isinstance(value, (list, tuple))


def _term_text(term: object) -> str:
    """A term as SPARQL text (pyoxigraph writes it escaped), ``None`` as ``UNDEF`` (the variable
    stays unbound: the pattern matches any value); anything else is refused."""
    if term is None:
        return "UNDEF"
    if not isinstance(term, (NamedNode, BlankNode, Literal, Triple)):
        raise TypeError(f"cannot bind {term!r}: not an RDF term")
    return str(term)


_VALUES_BEFORE = re.compile(r"VALUES\s*(?:[?$][A-Za-z_][A-Za-z0-9_]*|\([^()]*\))\s*$", re.IGNORECASE)


def _groups(sparql: str, start: int) -> list[tuple[int, int]]:
    """(opening, closing) indexes of every group pattern from the WHERE group on (not of VALUES
    data blocks), skipping strings, IRIs and comments."""
    groups: list[tuple[int, int]] = []
    stack: list[tuple[int, bool]] = []  # (opening index, is a group pattern)
    index = start
    while index < len(sparql):
        after = _past_literal(sparql, index)
        if after is not None:
            index = after
            continue
        char = sparql[index]
        if char == "{":
            is_data = bool(_VALUES_BEFORE.search(sparql[max(0, index - 300) : index]))
            stack.append((index, not is_data))
        elif char == "}" and stack:
            opening, is_group = stack.pop()
            if is_group:
                groups.append((opening, index))
            if not stack:
                break
        index += 1
    return groups


def _where_group_start(sparql: str) -> int:
    """Index of the ``{`` that opens the query's WHERE group (skipping comments, strings, IRIs,
    braces inside projection expressions and a CONSTRUCT template)."""
    depth_paren = 0
    braces_to_skip = None  # decided when the query form is seen
    index = 0
    length = len(sparql)
    while index < length:
        after = _past_literal(sparql, index)
        if after is not None:
            index = after
            continue
        char = sparql[index]
        if braces_to_skip is None:
            match = _FORM.match(sparql, index)
            if match:
                form = match.group(1).upper()
                rest = sparql[match.end() :].lstrip()
                braces_to_skip = 1 if form == "CONSTRUCT" and not rest.upper().startswith("WHERE") else 0
                index = match.end()
                continue
        if char == "(":
            depth_paren += 1
        elif char == ")":
            depth_paren -= 1
        elif char == "{" and depth_paren == 0 and braces_to_skip is not None:
            if braces_to_skip == 0:
                return index
            index = _skip_group(sparql, index)
            braces_to_skip -= 1
            continue
        index += 1
    raise ValueError("the query has no WHERE group to bind parameters in")


def _past_literal(sparql: str, index: int) -> int | None:
    """Where a comment, a string or an IRI starting at ``index`` ends (braces inside them are not
    structure), or ``None`` when none starts there."""
    char = sparql[index]
    if char == "#":
        newline = sparql.find("\n", index)
        return len(sparql) if newline < 0 else newline + 1
    if char in "\"'":
        return _skip_string(sparql, index)
    if char == "<" and _IRI.match(sparql, index):
        return sparql.index(">", index) + 1
    return None


_IRI = re.compile(r"<[^\s<>\"{}|^`\\]*>")


def _skip_string(text: str, index: int) -> int:
    quote = text[index]
    if text.startswith(quote * 3, index):
        end = text.find(quote * 3, index + 3)
        return len(text) if end < 0 else end + 3
    index += 1
    while index < len(text) and text[index] != quote:
        index += 2 if text[index] == "\\" else 1
    return index + 1


def _skip_group(text: str, index: int) -> int:
    depth = 0
    while index < len(text):
        char = text[index]
        if char in "\"'":
            index = _skip_string(text, index)
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return index
