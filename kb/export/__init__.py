"""Exports and output: what leaves the knowledge base (RDF files, OWL/XML, PGN, N-Quads for bulk loaders).

``rdf`` writes the KB or a source as RDF (the Protégé file included), ``owlxml`` rewrites it as
OWL/XML, ``pgn`` writes games back as PGN, ``convert`` streams what an import would load as N-Quads.
``safe_output`` makes every write safe against planted links (``kb.terminal`` does the same for every
printed string: control characters).
"""
