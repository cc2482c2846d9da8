"""Is a query federated? A first, polite answer read from the query's tokens.

The store (Oxigraph) sends a SERVICE pattern's request to any URL, so a public endpoint must refuse
SERVICE unless the operator allowed it. The guarantee is not made here: query workers cannot open a
network socket at all (``service.worker_confinement``), and the server does not serve where that
cannot be arranged unless the operator accepts it (ALLOW_UNISOLATED). What this module adds is a
clear 403 that names the setting, instead of the store's connection error, for the queries it
recognises; a spelling it misses fails in the worker all the same. The test suite checks it against
pyoxigraph's own parser with generated queries (``tests/test_service_isolation.py``).

A text filter must recognise what hides a word from the parser (a comment, a string, an IRI, a
variable or a prefixed name) with the grammar's own terminals, or a ``#`` comment ended by a
carriage return, or a ``\\'`` escape inside a prefixed name, hides a live SERVICE from it. rdflib's
parser cannot decide either: it ends comments only at ``\\n`` where Oxigraph also ends them at
``\\r``.

``federation_keyword`` therefore tokenises the query with the SPARQL 1.1 grammar's terminals
(``COMMENT``, ``STRING_LITERAL*`` with Oxigraph's in-string ``\\u`` escapes, ``IRIREF``,
``VAR1/VAR2``, the local part of ``PNAME_LN``) and reports a ``SERVICE`` anywhere in what is left,
whatever the case and with no word boundary needed (Oxigraph's parser reads ``1SERVICE`` and
``SERVICE:x`` as the keyword too). Every choice errs on the side of finding the keyword: a construct
the scanner is not sure of is read as code, never skipped, so the worst case is refusing a harmless
query (one that names a prefix ``service:``).
"""

from __future__ import annotations

import re

#: An escape inside a string: ECHAR, or a UCHAR code point (``\\u0027``), which Oxigraph decodes inside
#: the string (a quote written so does not end it).
_ECHAR = r"\\(?:[tbnrf\\\"']|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})"
#: Terminals that hide text from the parser, each exactly as the grammar defines it (ASCII subsets
#: where the grammar is wider: a shorter match leaves more text to be checked, never less).
_HIDING = re.compile(
    "|".join(
        (
            r"#[^\r\n]*",  # COMMENT (ends at CR or LF)
            r"'''(?:(?:'|'')?(?:[^'\\]|" + _ECHAR + r"))*'''",  # STRING_LITERAL_LONG1
            r'"""(?:(?:"|"")?(?:[^"\\]|' + _ECHAR + r'))*"""',  # STRING_LITERAL_LONG2
            r"'(?:[^'\\\n\r]|" + _ECHAR + r")*'",  # STRING_LITERAL1
            r'"(?:[^"\\\n\r]|' + _ECHAR + r')*"',  # STRING_LITERAL2
            r"<[^<>\"{}|^`\\\x00-\x20]*>",  # IRIREF
            r"[?$][A-Za-z0-9_]+",  # VAR1, VAR2
            # the local part of a prefixed name (PN_LOCAL, with PLX escapes); the prefix stays visible
            r":(?:[A-Za-z0-9_:-]|%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%])"
            r"(?:\.*(?:[A-Za-z0-9_:-]|%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%]))*",
        )
    ),
)
_KEYWORD = re.compile("SERVICE", re.IGNORECASE)
_CODEPOINT = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


def visible_code(sparql: str) -> str:
    """The query with every comment, string, IRI, variable and local name replaced by a space:
    what is left are the keywords, prefixes, numbers and punctuation the parser acts on. Read left to
    right: every terminal of ``_HIDING`` starts with one of ``#'"<?$:`` and none matches empty, so
    where none starts the character is code."""
    return _HIDING.sub(" ", sparql)


def _unescape_codepoints(sparql: str) -> str:
    """``\\uXXXX`` escapes decoded, as SPARQL 1.1 allows a processor to do before parsing."""

    def decode(match: re.Match[str]) -> str:
        value = int(match.group(1) or match.group(2), 16)
        return chr(value) if value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF else match.group(0)

    return _CODEPOINT.sub(decode, sparql)


def federation_keyword(sparql: str) -> bool:
    """True when the query may contain a SERVICE pattern (read fail-closed, see the module doc)."""
    return any(_KEYWORD.search(visible_code(text)) for text in {sparql, _unescape_codepoints(sparql)})


# --- how deep the engine's tree for a query may go --------------------------------------------

#: What makes the tree Oxigraph builds from a query one level deeper: an opening bracket (a group, an
#: expression, a blank node or a collection) or a token that chains what precedes it into a binary
#: node (``||``, ``&&``, arithmetic, comparison, property-path operators; FILTER, OPTIONAL, MINUS,
#: UNION, BIND join the group so far). Its parser and planner recurse once per level, and a process
#: runs out of stack (a segmentation fault, no Python error) at about 1,000 nested calls or 10,000
#: chained FILTERs (pyoxigraph 0.5, 8 MiB stack). Counted without word boundaries: over-counting only
#: refuses a harmless query sooner.
_CHAINING = re.compile(r"\|\||&&|[|/^+*=<>!-]|FILTER|OPTIONAL|MINUS|UNION|BIND", re.IGNORECASE)
_OPENING, _CLOSING = "{([", "})]"
#: A VALUES data block: flat rows, one table in the engine however many rows it has.
_VALUES_DATA = re.compile(r"VALUES[^{]*\{[^{}]*\}", re.IGNORECASE)


def nesting(sparql: str) -> int:
    """An upper bound on how deep the engine's tree for ``sparql`` goes: the deepest bracket nesting
    plus every chaining token, outside comments, strings, IRIs, names and VALUES data (see
    ``_CHAINING``). Read from ``visible_code`` and its ``\\u``-decoded form, as ``federation_keyword``
    reads them, and the larger count kept."""
    return max(_nesting(_VALUES_DATA.sub(" ", visible_code(text))) for text in {sparql, _unescape_codepoints(sparql)})


def _nesting(code: str) -> int:
    depth = deepest = 0
    for char in code:
        if char in _OPENING:
            depth += 1
            deepest = max(deepest, depth)
        elif char in _CLOSING:
            depth = max(depth - 1, 0)
    return deepest + len(_CHAINING.findall(code))


class TooDeep(ValueError):
    """A query nested or chained deeper than the bound (QUERY_MAX_NESTING); never given to the engine."""


def check_nesting(sparql: str, limit: int) -> None:
    """Refuse a query whose tree could go deeper than ``limit`` (QUERY_MAX_NESTING; 0 = no bound)
    before any parser sees it: Oxigraph's would crash its process."""
    if limit <= 0 or len(sparql) <= limit:  # every level is at least one character of the text
        return
    if (found := nesting(sparql)) > limit:
        raise TooDeep(
            f"the query is nested or chained too deeply ({found} levels of brackets and operators; "
            f"at most {limit}, setting QUERY_MAX_NESTING)"
        )
