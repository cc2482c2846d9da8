"""How ``chesskb query`` (and ``chesskb find``) print a result: a table for people, W3C result formats
for tools, Turtle for graphs."""

from __future__ import annotations

from typing import Any

from pyoxigraph import QueryBoolean, QueryResultsFormat, QuerySolutions, QueryTriples, RdfFormat, serialize

from chesskb.kb.terminal import printable
from chesskb.kb.vocab import PREFIXES
from chesskb.service.negotiation import FORMAT_ALIASES, RESULT_FORMATS

#: ``--format`` names of the W3C result formats -> their writer (the service's one table of formats).
CLI_RESULT_FORMATS: dict[str, QueryResultsFormat] = {
    name: RESULT_FORMATS[FORMAT_ALIASES[name]] for name in ("json", "csv", "tsv", "xml")
}


def _term_text(term: Any) -> str:
    """A cell of the table: the term's text, control characters escaped (``kb.terminal``)."""
    if term is None:
        return ""
    return printable(getattr(term, "value", str(term)))


def render_table(result: QuerySolutions) -> str:
    variables = [v.value for v in result.variables]
    rows = [[_term_text(row[name]) for name in variables] for row in result]
    widths = [max([len(name)] + [len(r[i]) for r in rows]) for i, name in enumerate(variables)]
    lines = [
        "  ".join(name.ljust(w) for name, w in zip(variables, widths, strict=True)),
        "  ".join("-" * w for w in widths),
    ]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    lines.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(lines)


def write_result(result: Any, fmt: str, out: Any) -> None:
    """Print a query result: W3C result formats for SELECT/ASK, Turtle for CONSTRUCT/DESCRIBE."""
    if isinstance(result, QueryTriples):
        rdf = RdfFormat.N_TRIPLES if fmt in ("csv", "tsv") else RdfFormat.TURTLE
        out.write(serialize(result, format=rdf, prefixes=PREFIXES if rdf == RdfFormat.TURTLE else None))
        return
    if fmt == "table":
        if isinstance(result, QueryBoolean):
            out.write(b"true\n" if bool(result) else b"false\n")
        else:
            out.write((render_table(result) + "\n").encode())
        return
    out.write(result.serialize(format=CLI_RESULT_FORMATS[fmt]))
    if fmt == "json":
        out.write(b"\n")
