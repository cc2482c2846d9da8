"""Is a query federated? Decided on the query's tokens, as the store's parser reads them.

The store (Oxigraph) sends a SERVICE pattern's request to any URL, so a public endpoint must refuse
SERVICE unless the operator allowed it. A text filter is not enough: what hides a word from the
parser (a comment, a string, an IRI, a variable or a prefixed name) has to be recognised with the
grammar's own terminals, or a ``#`` comment ended by a carriage return, or a ``\\'`` escape inside a
prefixed name, hides a live SERVICE from the filter. rdflib's parser cannot decide either: it ends
comments only at ``\\n`` where Oxigraph also ends them at ``\\r``, so the two parsers disagree on what
``# \\r SERVICE <…>`` means.

``federation_keyword`` therefore tokenises the query with the SPARQL 1.1 grammar's terminals
(``COMMENT``, ``STRING_LITERAL*``, ``IRIREF``, ``VAR1/VAR2``, the local part of ``PNAME_LN``) and
reports a ``SERVICE`` anywhere in what is left, whatever the case and with no word boundary needed
(Oxigraph's parser reads ``1SERVICE`` and ``SERVICE:x`` as the keyword too). Every choice errs on the
side of finding the keyword: a construct the scanner is not sure of is read as code, never skipped,
so the worst case is refusing a harmless query (one that names a prefix ``service:``), never
running a federated one. Query workers are also started without network access where the system
allows it (``service.query_runner``), so a miss here could still not reach another host.
"""

from __future__ import annotations

import re

_ECHAR = r"\\[tbnrf\\\"']"
#: Terminals that hide text from the parser, each exactly as the grammar defines it (ASCII subsets
#: where the grammar is wider: a shorter match leaves more text to be checked, never less).
_HIDING = re.compile(
    "|".join((
        r"#[^\r\n]*",                                                  # COMMENT (ends at CR or LF)
        r"'''(?:(?:'|'')?(?:[^'\\]|" + _ECHAR + r"))*'''",           # STRING_LITERAL_LONG1
        r'"""(?:(?:"|"")?(?:[^"\\]|' + _ECHAR + r'))*"""',           # STRING_LITERAL_LONG2
        r"'(?:[^'\\\n\r]|" + _ECHAR + r")*'",                         # STRING_LITERAL1
        r'"(?:[^"\\\n\r]|' + _ECHAR + r')*"',                         # STRING_LITERAL2
        r"<[^<>\"{}|^`\\\x00-\x20]*>",                                 # IRIREF
        r"[?$][A-Za-z0-9_]+",                                          # VAR1, VAR2
        # the local part of a prefixed name (PN_LOCAL, with PLX escapes); the prefix stays visible
        r":(?:[A-Za-z0-9_:-]|%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%])"
        r"(?:\.*(?:[A-Za-z0-9_:-]|%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%]))*",
    )),
)
_KEYWORD = re.compile("SERVICE", re.IGNORECASE)
_CODEPOINT = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


def visible_code(sparql: str) -> str:
    """The query with every comment, string, IRI, variable and local name replaced by a space:
    what is left are the keywords, prefixes, numbers and punctuation the parser acts on."""
    out: list[str] = []
    index = 0
    length = len(sparql)
    while index < length:
        char = sparql[index]
        if char in "#'\"<?$:":
            match = _HIDING.match(sparql, index)
            if match is not None and match.end() > index:
                out.append(" ")
                index = match.end()
                continue
        out.append(char)
        index += 1
    return "".join(out)


def _unescape_codepoints(sparql: str) -> str:
    """``\\uXXXX`` escapes decoded, as SPARQL 1.1 allows a processor to do before parsing."""
    def decode(match: re.Match[str]) -> str:
        value = int(match.group(1) or match.group(2), 16)
        return chr(value) if value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF else match.group(0)

    return _CODEPOINT.sub(decode, sparql)


def federation_keyword(sparql: str) -> bool:
    """True when the query may contain a SERVICE pattern (read fail-closed, see the module doc)."""
    return any(_KEYWORD.search(visible_code(text)) for text in {sparql, _unescape_codepoints(sparql)})
