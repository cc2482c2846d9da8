"""Exports and output: what leaves the knowledge base (RDF files, OWL/XML, PGN, N-Quads for bulk loaders).

``rdf`` writes the KB or a source as RDF (the Protégé file included), ``owlxml`` rewrites it as
OWL/XML, ``pgn`` writes games back as PGN, ``convert`` streams what an import would load as N-Quads.
Every write goes through ``kb.safe_output`` (safe against planted links) and every printed string
through ``kb.terminal`` (control characters shown, not obeyed): leaf modules, as checks and the
service write and print too.
"""
