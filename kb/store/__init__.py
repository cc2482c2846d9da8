"""Stores: where the knowledge base lives. ``open_store(location)`` picks one by its form.

A path is the embedded Oxigraph store (default ``./chesskb-store`` or ``$CHESSKB_STORE``); an
``http(s)://`` URL is a SPARQL 1.1 server (see ``remote``).
"""

from __future__ import annotations

from chesskb.kb.defaults import default_store_location
from chesskb.kb.store.base import QueryResult, QuerySyntaxError, Store, StoreBusy, StoreDamaged, StoreError, StoreView
from chesskb.kb.store.embedded import EmbeddedStore


def open_store(
    location: str | None = None, *, update_endpoint: str | None = None, graph_store: str | None = None
) -> Store:
    """The store at ``location``: a directory (embedded) or an http(s) SPARQL endpoint URL (with its
    update URL and Graph Store Protocol URL when they are not the ones ``remote`` derives).

    Either way the caller sees the ``Store`` protocol (``kb.store.base``): queries with the
    ontology's prefixes declared and values bound as typed terms, never pasted into the text.

    >>> import tempfile
    >>> from pyoxigraph import Literal, NamedNode, Quad
    >>> from chesskb.kb.vocab import CP
    >>> folder = tempfile.TemporaryDirectory()
    >>> store = open_store(folder.name + "/store")
    >>> graph, fen = NamedNode("https://example.org/graph/lesson"), Literal("8/8/8/8/8/8/8/K6k w - - 0 1")
    >>> store.replace_graphs([graph], [Quad(NamedNode("https://example.org/p1"), CP.fen, fen, graph)])
    >>> rows = store.query("SELECT ?p ?fen WHERE { ?p cp:fen ?fen }", bindings={"fen": fen})
    >>> [row["p"].value for row in rows], store.named_graphs() == [graph]
    (['https://example.org/p1'], True)
    >>> store.close(); folder.cleanup()
    """
    location = location or default_store_location()
    if location.startswith(("http://", "https://")):
        from chesskb.kb.store.remote import RemoteStore  # imported lazily: only remote users need SPARQLWrapper

        return RemoteStore(location, update_endpoint=update_endpoint, graph_store=graph_store)
    return EmbeddedStore(location)


__all__ = [
    "EmbeddedStore",
    "QueryResult",
    "QuerySyntaxError",
    "Store",
    "StoreBusy",
    "StoreDamaged",
    "StoreError",
    "StoreView",
    "default_store_location",
    "open_store",
]
