"""The ChessPosition ontology files, reached as package resources.

``chessposition.ttl`` is the authored source; ``chessposition.owl`` is the RDF/XML built from it
by ``python -m chesskb.ontology.build`` (for owlready2 and Protégé, which cannot read Turtle). Both are
read through :mod:`importlib.resources`, so this works from a checkout, an installed wheel or a
zip alike, never from a path relative to the current directory.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from chesskb._namespace import settle

settle(__name__, __path__)

__all__ = ["OWL_FILE", "TTL_FILE", "rdfxml_path", "rdfxml_text", "turtle_text"]

#: The authored Turtle source.
TTL_FILE = "chessposition.ttl"
#: The RDF/XML generated from it.
OWL_FILE = "chessposition.owl"


def turtle_text() -> str:
    """The ontology as Turtle text (what rdflib or pyoxigraph should load)."""
    return resources.files(__name__).joinpath(TTL_FILE).read_text(encoding="utf-8")


def rdfxml_text() -> str:
    """The ontology as RDF/XML text."""
    return resources.files(__name__).joinpath(OWL_FILE).read_text(encoding="utf-8")


@contextmanager
def rdfxml_path() -> Iterator[Path]:
    """A real file path to the RDF/XML, valid inside the ``with`` block.

    For tools that need a file (owlready2: ``get_ontology(path.as_uri()).load()``). When the
    package is zipped the file is extracted to a temporary location and removed afterwards.
    """
    with resources.as_file(resources.files(__name__).joinpath(OWL_FILE)) as path:
        yield path
