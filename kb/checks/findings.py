"""One record type for every problem the project reports.

The importer, ``validate`` and ``check`` all speak in ``Finding``s (level, rule, where, message), so
the same problem prints the same way on the terminal, in JSON and on a page.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from chesskb.kb.export.terminal import printable

Level = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Finding:
    """A problem found in an input file or in the knowledge base.

    ``file``/``game``/``line``/``column`` locate it in a PGN or CSV file (game numbers and lines
    count from 1); ``iri`` locates it in the knowledge base.
    """

    level: Level
    rule: str
    message: str
    file: str | None = None
    game: int | None = None
    line: int | None = None
    column: int | None = None
    iri: str | None = None

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
        """One line for a terminal: text quoted from the data cannot act on it (``kb.export.terminal``)."""
        where = self.where()
        return printable(f"{where}: {self.message}" if where else self.message)

    def to_dict(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}
