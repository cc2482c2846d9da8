"""Exports and output: what leaves the knowledge base (RDF files, OWL/XML, PGN, N-Quads for bulk loaders).

``rdf`` writes the KB or a source as RDF (the Protégé file included), ``owlxml`` rewrites it as
OWL/XML, ``pgn`` writes games back as PGN, ``convert`` streams what an import would load as N-Quads.
``safe_output`` and ``terminal`` make every write and every printed string safe against planted
links and control characters.
"""
