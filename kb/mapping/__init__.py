"""Mapping: a ``GameRecord`` and its analysis become quads. Pure: no I/O, no store.

This package is the only code that knows the ontology's shape. Asserted triples go to the
source's named graph; what follows from them by the ontology (superclass types, inverse links)
goes to the source's *inferred* graph, so queries see both in the union default graph while the
two stay distinguishable (``GRAPH ?g``) and are removed together with the source.

``game`` maps records (``MappingContext``, ``record_quads``, ``source_quads``); ``iris`` mints and
reads IRIs; ``identity`` is the rule for when two records are one game, the key a game's IRI is
minted from. This ``__init__`` imports none of them, so a module that needs only ``iris`` (merge,
the queries, the exports) does not load the whole mapping.
"""
