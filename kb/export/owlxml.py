"""The ``owlxml`` export: the Protégé file (``owl``, RDF/XML) rewritten as OWL/XML, the syntax the
2011 original was published in.

Neither rdflib nor owlready2 writes OWL/XML (owlready2 only reads it). The OWL API does — it is what
Protégé itself saves with — and owlready2 already ships it inside its HermiT jar together with a
small ``Save`` program that loads an ontology document and saves it as OWL/XML. So the export is
RDF/XML written by us, converted by the OWL API through the system Java, never by hand-written XML:
every axiom, declaration and annotation the OWL API reads is written back in the OWL 2 XML
serialisation.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path
from typing import BinaryIO

from chesskb.kb.checks.owl import JavaMissing, java_executable
from chesskb.kb.export.rdf import write_export
from chesskb.kb.store import Store

_PURPOSE = "the OWL/XML export (the OWL API)"


class ConversionFailed(RuntimeError):
    """The OWL API could not convert the RDF/XML (its message is kept)."""


def owlapi_classpath() -> str:
    """owlready2's HermiT directory (``Save.class``) and jar (the OWL API inside HermiT)."""
    from owlready2 import reasoning

    classpath: str = reasoning._HERMIT_CLASSPATH  # owlready2 is untyped
    return classpath


def rdfxml_to_owlxml(rdfxml: Path, owlxml: Path, *, java_memory_mb: int | None = None) -> None:
    """Convert one ontology document with the OWL API (``Save FILE owx OUT``)."""
    from owlready2 import reasoning

    java = java_executable(_PURPOSE)
    memory = java_memory_mb or reasoning.JAVA_MEMORY
    command = [
        java,
        f"-Xmx{memory}M",
        "-cp",
        owlapi_classpath(),
        "Save",
        str(rdfxml.resolve()),
        "owx",
        str(owlxml.resolve()),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not owlxml.exists():
        lines = [line for line in done.stderr.splitlines() if "Exception" in line or "Error" in line]
        raise ConversionFailed(
            "the OWL API could not write OWL/XML: "
            + (lines[0].strip() if lines else f"java exited with {done.returncode}")
        )


def write_owlxml(store: Store, output: BinaryIO, *, source: str | None = None, base_iri: str | None = None) -> None:
    """The ``owl`` export (ontology + individuals, as Protégé wants them) in OWL/XML."""
    java_executable(_PURPOSE)  # fail before writing anything when there is no Java
    with tempfile.TemporaryDirectory(prefix="chesskb-owlxml-") as tmp:
        rdfxml = Path(tmp) / "kb.owl"
        owlxml = Path(tmp) / "kb.owx"
        with rdfxml.open("wb") as handle:
            write_export(store, "owl", handle, source=source, base_iri=base_iri)
        rdfxml_to_owlxml(rdfxml, owlxml)
        with owlxml.open("r", encoding="utf-8") as converted:
            for line in converted:
                output.write(_string_literals(line).encode("utf-8"))


_PLAIN_LITERAL_TAG = re.compile(
    r'<Literal((?: [^>]*?)?) datatypeIRI="http://www\.w3\.org/1999/02/22-rdf-syntax-ns#PlainLiteral"'
)
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def _string_literals(line: str) -> str:
    """Undo the OWL API 3 quirk of typing every string ``rdf:PlainLiteral``.

    OWL 2 reads ``"abc"^^xsd:string`` and a plain ``"abc"`` as one value, but a reader taking the
    datatype literally (owlready2 does) would see strings that are not ``xsd:string``. A string with a
    language tag gets no datatype attribute (the OWL/XML default); one without gets ``xsd:string``,
    exactly as the RDF/XML export has them. Literal text is escaped, so only start tags match.
    """

    def retype(match: re.Match[str]) -> str:
        attributes = match.group(1)
        if "xml:lang=" in attributes:
            return f"<Literal{attributes}"
        return f'<Literal{attributes} datatypeIRI="{_XSD_STRING}"'

    return _PLAIN_LITERAL_TAG.sub(retype, line)


__all__ = ["ConversionFailed", "JavaMissing", "owlapi_classpath", "rdfxml_to_owlxml", "write_owlxml"]
