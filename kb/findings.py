"""One record type for every problem the project reports, and the one place it is written out.

The importer, ``validate`` (PGN and FEN) and ``check`` (SHACL) all speak in ``Finding``s (level, rule,
where, message), so the same problem prints the same way on the terminal, in JSON and on a page. The
adapters at the end of this module give each public output its shape (the JSON the CLI and HTTP print
today, kept exactly); nothing else builds a problem's dict or line.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from dataclasses import field as dataclass_field
from typing import Any, Literal

from chesskb.kb.terminal import printable

Level = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Finding:
    """A problem found in an input file or in the knowledge base.

    ``file``/``game``/``line``/``column`` locate it in a PGN or CSV file (game numbers and lines
    count from 1); ``iri`` (with its ``label``) and ``source`` locate it in the knowledge base;
    ``field`` names the part at fault: a FEN field (``castling``), the property a data rule is about
    (``cp:fen``). ``details`` is what a problem carries beyond where and why (an inconsistency's
    individuals, statements and axioms), plain JSON data.
    """

    level: Level
    rule: str
    message: str
    file: str | None = None
    game: int | None = None
    line: int | None = None
    column: int | None = None
    iri: str | None = None
    field: str | None = None
    label: str | None = None
    source: str | None = None
    details: dict[str, Any] | None = dataclass_field(default=None, hash=False)

    def where(self) -> str:
        parts: list[str] = []
        if self.file is not None:
            parts.append(self.file)
        location = []
        if self.game is not None:
            location.append(f"game {self.game}")
        if self.line is not None:
            line = f"line {self.line}" + (f", column {self.column}" if self.column is not None else "")
            location.append(f"({line})" if location else line)
        if location:
            parts.append(" ".join(location))
        if self.iri is not None:
            parts.append(f"<{self.iri}>")
        return ": ".join(parts)

    def __str__(self) -> str:
        """One line for a terminal: text quoted from the data cannot act on it (``kb.terminal``)."""
        where = self.where()
        return printable(f"{where}: {self.message}" if where else self.message)

    def to_dict(self) -> dict[str, Any]:
        """The generic JSON shape (``validate FILE --format json``, the import's findings): every field set."""
        return {key: value for key, value in asdict(self).items() if value is not None}


# --- OWL reasoning (``check``) ---------------------------------------------------------------------

INCONSISTENT_RULE = "owl-inconsistent"
UNSATISFIABLE_RULE = "owl-unsatisfiable"


def inconsistency_finding(source: str, details: dict[str, Any]) -> Finding:
    """An inconsistency of ``source``: ``details`` are ``{"individuals", "statements", "axioms", "minimal"
    [, "reasoner_message"]}`` (``kb.checks.owl.Inconsistency.to_dict``), kept as they are."""
    message = details.get("reasoner_message") or "these individuals and statements cannot all hold"
    return Finding("error", INCONSISTENT_RULE, message, source=source, details=dict(details))


def inconsistency_json(finding: Finding) -> dict[str, Any]:
    """``{"source", "individuals", "statements", "axioms", "minimal"[, "reasoner_message"]}``: one of
    ``check``'s ``inconsistencies``."""
    return {"source": finding.source, **(finding.details or {})}


def inconsistency_from_json(data: dict[str, Any]) -> Finding:
    """The inconsistency back from ``inconsistency_json`` (``check``'s cache keeps the JSON shape)."""
    return inconsistency_finding(data["source"], {k: v for k, v in data.items() if k != "source"})


def inconsistency_text(finding: Finding, number: int) -> list[str]:
    """The lines of ``check``'s text report for one inconsistency (made printable by the caller)."""
    item = finding.details or {}
    lines = [
        f"inconsistency {number} in {finding.source}"
        + ("" if item.get("minimal", True) else " (not narrowed down fully)")
        + ":"
    ]
    for individual in item.get("individuals", []):
        label = f'  "{individual["label"]}"' if individual.get("label") else ""
        lines.append(f"  individual <{individual['iri']}>{label}")
    lines += [f"  statement  {statement}" for statement in item.get("statements", [])]
    lines += [f"  axiom      {axiom}" for axiom in item.get("axioms", [])]
    if item.get("reasoner_message"):
        lines.append(f"  reasoner   {item['reasoner_message']}")
    return lines


def unsatisfiable_finding(iri: str) -> Finding:
    return Finding("error", UNSATISFIABLE_RULE, "no individual can be a member of this class", iri=iri)


def unsatisfiable_text(finding: Finding) -> str:
    """``unsatisfiable class <iri>``: one line of ``check``'s text report; its JSON is the IRI alone."""
    return f"unsatisfiable class <{finding.iri}>"


# --- FEN problems (``kb.checks.fen``, ``validate --fen``, the authoring form) ---------------------

#: The rule of a FEN problem says its kind: a syntax error or a semantic one (seed 004).
FEN_RULES = {"syntax": "fen-syntax", "semantic": "fen-semantic"}


def fen_finding(kind: str, field: str, message: str, *, level: Level = "error") -> Finding:
    return Finding(level, FEN_RULES[kind], message, field=field)


def fen_kind(finding: Finding) -> str:
    """``syntax`` or ``semantic``: the kind of a FEN problem."""
    return finding.rule.removeprefix("fen-")


def fen_json(finding: Finding) -> dict[str, Any]:
    """``{"kind", "field", "message"}``: one entry of ``validate --fen --format json``'s errors or warnings."""
    return {"kind": fen_kind(finding), "field": finding.field, "message": finding.message}


def fen_text(finding: Finding) -> str:
    """``syntax error in castling: …`` / ``warning (castling): …``: one line of ``validate --fen``."""
    if finding.level == "error":
        return printable(f"{fen_kind(finding)} error in {finding.field}: {finding.message}")
    return printable(f"warning ({finding.field}): {finding.message}")


# --- PGN lint (``validate FILE``) ------------------------------------------------------------------


def lint_line(finding: Finding) -> str:
    """``error: FILE: game 2 (line 9, column 4): … [rule]``: one line of ``validate FILE``."""
    return f"{finding.level}: {finding} [{finding.rule}]"


# --- SHACL violations (``check``) -------------------------------------------------------------------

SHACL_RULE = "shacl"


def shacl_finding(iri: str, label: str, path: str, message: str, source: str | None = None) -> Finding:
    return Finding("error", SHACL_RULE, message, iri=iri, label=label, field=path, source=source)


def shacl_json(finding: Finding) -> dict[str, Any]:
    """``{"source", "iri", "label", "path", "message"}``: one of ``check``'s ``shacl_violations``."""
    shape = {"source": finding.source} if finding.source is not None else {}
    return {
        **shape,
        "iri": finding.iri,
        "label": finding.label or "",
        "path": finding.field or "",
        "message": finding.message,
    }


def shacl_from_json(data: dict[str, Any]) -> Finding:
    """The violation back from ``shacl_json`` (``check``'s cache keeps the JSON shape)."""
    return shacl_finding(data["iri"], data.get("label", ""), data.get("path", ""), data["message"], data.get("source"))


def shacl_text(finding: Finding) -> str:
    """``<iri> "label" cp:fen: message``: one line of ``check``'s text report (made printable by the caller)."""
    label = f' "{finding.label}"' if finding.label else ""
    return f"<{finding.iri}>{label} {finding.field}: {finding.message}"
